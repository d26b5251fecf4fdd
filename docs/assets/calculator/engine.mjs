// The calculator's engine: the same arithmetic and rules as generator/model/engine.py and
// generator/model/resolve.py, operation for operation, so both give the same numbers to the last bits.
// The parity test (tests/test_parity.py) runs this very file in Node against the Python engine.
// No DOM here, and no words: each step and each reason a side cannot run is a code with its numbers
// (engine.py's STEP_CODES, REASON_CODES), which wording.mjs turns into sentences.

// engine.py's constants, which the calculator's data carries (`engine`, generator/rendering/calculator/data.py):
// `learn` them once, before anything is evaluated. RANGE_INPUTS: each ranged input's end that favours
// Trainium less and more; COST_RULES: the rules whose verdict the plan's costs decide; HOURLY_OPTIONS:
// the ways paid by the hour and not interrupted; THRESHOLD_PROBE: how little either side of a threshold
// the verdict must differ for it to be shown.
let RANGE_INPUTS, COST_RULES, HOURLY_OPTIONS, THRESHOLD_PROBE, MAX_PLAN_RUNS, CURVE_MAX_HORIZON, POOL_INPUTS, EXTENSION;
let HOURS_PER_MONTH, HOURS_PER_YEAR, HOURS_PER_DAY, DAYS_PER_WEEK, COMMITTED_BRACKET_STEPS, COMMITTED_HALVINGS;
export function learn(constants) {
  ({
    COST_RULES, HOURLY_OPTIONS, THRESHOLD_PROBE, MAX_PLAN_RUNS, CURVE_MAX_HORIZON, POOL_INPUTS, EXTENSION,
    HOURS_PER_MONTH, HOURS_PER_YEAR, HOURS_PER_DAY, DAYS_PER_WEEK, COMMITTED_BRACKET_STEPS, COMMITTED_HALVINGS,
  } = constants);
  // A list in the data, whose keys are written sorted: the ranged inputs' order is the flips'.
  RANGE_INPUTS = Object.fromEntries(constants.RANGE_INPUTS.map(([name, against, favours]) => [name, [against, favours]]));
}

const span = (value, low, high) => ({ value, low, high });
const isRange = (s) => s.low !== s.high;
const isNone = (v) => v === null || v === undefined;

// The least N such that every plan of N runs or more costs less on Trainium, when each run saves s
// and a port is paid every k runs; null when no plan length does. After m whole architectures and r
// runs of the next, Trainium is ahead by m (k s - port) + r s - port.
export function recurringBreakEven(s, port, k) {
  const c = k * s - port;
  if (s <= 0 || c <= 0) return null;
  if (s > port) return 1.0;
  const m = Math.floor((port - s) / c) + 1;
  const r = Math.floor((port - (m - 1) * c) / s) + 1;
  return (m - 1) * k + r;
}

// The saving as a share of the GPU plan's compute: the plans' difference over the GPU plan's total,
// by the hour or under a commitment alike; null when the GPU plan costs nothing more.
export function savingShare(saving, runs, gpuCompute) {
  if (saving === 0) return 0.0;
  if (!(gpuCompute > 0) || gpuCompute === Infinity) return null;
  return saving * runs / gpuCompute;
}

export function portsNeeded(runs, runsPerArchitecture) {
  if (isNone(runsPerArchitecture)) return 1;
  return Math.ceil(runs / runsPerArchitecture);
}

// Hours of progress a synchronous job on spot loses per hour of wall-clock time: it restarts whole
// when any of its instances is interrupted.
export function spotLoad(count, rate, lost) {
  return count * rate * lost;
}

// Wall-clock time over work on spot: interruptions strike redone work too, so each hour keeps only
// 1 - load hours of progress. At a load of 1 or more a run cannot be expected to finish (Infinity).
export function spotFactor(spot, count, rate, lost) {
  if (!spot) return 1.0;
  const load = spotLoad(count, rate, lost);
  return load < 1 ? 1 / (1 - load) : Infinity;
}

export function priceBasis(s) {
  if (!isRange(s)) return "point";
  if (s.value === s.low) return "low";
  if (s.value === s.high) return "high";
  return "inside";
}

// Calendar hours n runs span: back to back, or spread over the plan's months.
export function planSpan(n, x, wall) {
  let spanHours = n * wall;
  if (!isNone(x.plan_hours)) spanHours = Math.max(spanHours, n * x.plan_hours / x.runs);
  return spanHours;
}

// The ways one side accepts to buy its compute.
export function accepts(x, side) {
  const a = x[side + "_accepts"];
  return isNone(a) ? [x[side + "_option"], "on-demand"] : a;
}

// Spot interruptions per instance-hour for one side: its own pool's, or the shared figure.
export function interruptionRate(x, side) {
  const own = x[side + "_interruption_rate"];
  return isNone(own) ? x.interruption_rate : own;
}

// The way a side is named to be bought, its pool's rate with it on spot.
function namedWay(x, side) {
  const spot = x[side + "_spot"];
  return { option: x[side + "_option"], usd_per_hour: x[side + "_price"].value, term_hours: x[side + "_term_hours"],
    region: x[side + "_region"], interruption: spot ? interruptionRate(x, side) : null,
    rated: spot && !isNone(x[side + "_interruption_rate"]) };
}

// The spot pools a side would buy from: the named way's on spot, and when it accepts spot, its spot
// ways in every region it may use.
export function spotPools(x, side) {
  const pools = x[side + "_spot"] ? [namedWay(x, side)] : [];
  if (accepts(x, side).includes("spot")) {
    for (const w of [...(x[side + "_ways"] || []), ...(x[side + "_ways_elsewhere"] || [])]) {
      if (w.option === "spot" && !isNone(w.interruption)) pools.push(w);
    }
  }
  return pools;
}

// The length AWS sells a block in nearest `days` (up to the longest): the shortest not under it (up)
// or the longest not over it.
export function blockLength(days, b, up) {
  if (days <= b.daily_up_to) return days;
  const steps = (days - b.daily_up_to) / b.weekly_step;
  return b.daily_up_to + (up ? Math.ceil(steps) : Math.floor(steps)) * b.weekly_step;
}

// How one run of `wall` hours is booked on Capacity Blocks, in whole days: longest blocks one after
// another while more remains than one holds, then a block of a length AWS sells and an extension for
// the days past it, or the next length where no extension is counted on or reaches them.
// [longest blocks before the last, the last block's days, its extension's days]
export function blockBooking(wall, b) {
  const days = Math.ceil(wall / HOURS_PER_DAY);
  const full = Math.floor((days - 1) / b.longest);
  const rest = days - full * b.longest;
  let block = blockLength(rest, b, false);
  let extra = rest - block;
  if (extra > 0 && (isNone(b.extend_up_to) || extra > b.extend_up_to)) { block = blockLength(rest, b, true); extra = 0.0; }
  return [full, block, extra];
}

// Hours a run of `wall` hours pays for on Capacity Blocks, booked as blockBooking books it.
export function blockHours(wall, b) {
  const [full, block, extra] = blockBooking(wall, b);
  return (full * b.longest + block + extra) * HOURS_PER_DAY;
}

// The most hours a run can be booked for on Capacity Blocks that stay under `limit` hours; null when
// not even one day does.
export function bookedHoursBelow(limit, b) {
  const days = Math.ceil(limit / HOURS_PER_DAY) - 1;
  if (days < 1) return null;
  const full = Math.floor((days - 1) / b.longest);
  let rest = days - full * b.longest;
  const block = blockLength(rest, b, false);
  if (isNone(b.extend_up_to) || rest - block > b.extend_up_to) rest = block;
  return (full * b.longest + rest) * HOURS_PER_DAY;
}

// What an instance-hour of a run costs bought by the hour one way: on Capacity Blocks the whole days
// booked, spread over the hours used; null when blocks cannot hold the side's instances.
export function hourlyRate(x, side, option, usdPerHour, wall) {
  const b = x.block_limits;
  if (option !== "capacity-block" || isNone(b)) return usdPerHour;
  if (x[side + "_count"] > b.across_blocks) return null;
  return usdPerHour * (blockHours(wall, b) / wall);
}

// The cheapest rate an instance-hour is bought at by the hour among the ways the side accepts, and
// its way; null when it accepts none that can run.
function cheapestHourly(x, side, ways, wall) {
  const ok = accepts(x, side);
  let best = null;
  for (const w of ways || []) {
    if (HOURLY_OPTIONS.includes(w.option) && ok.includes(w.option)) {
      const rate = hourlyRate(x, side, w.option, w.usd_per_hour, wall);
      if (rate !== null && (best === null || rate < best[0])) best = [rate, w.option];
    }
  }
  return best;
}

// Compute cost of n runs on one side bought one way, the terms it buys, and the calendar hours bought
// by the hour and how (see engine.py's plan_cost).
export function planCost(n, x, side, hours, wall, option, price, term, held, ways) {
  if (isNone(term)) {
    const rate = hourlyRate(x, side, option, price, wall);
    return [n * ((rate === null ? Infinity : rate) * hours), 0, 0.0, ""];
  }
  const spanHours = planSpan(n, x, wall);
  const uncovered = Math.max(0.0, spanHours - held);
  const need = Math.ceil(uncovered / term);
  const whole = x[side + "_count"] * term * price;
  let best = [need * whole, need, 0.0, ""];
  const hourly = cheapestHourly(x, side, ways, wall);
  if (uncovered > 0 && hourly !== null) {
    // The runs spread evenly over the span: each calendar hour of it needs this much by the hour.
    const perHour = n * hours / spanHours * hourly[0];
    for (const terms of [0, need - 1]) {
      const rest = uncovered - terms * term;
      const cost = terms * whole + rest * perHour;
      if (cost < best[0]) best = [cost, terms, rest, hourly[1]];
    }
  }
  return best;
}

// Compute cost of n runs on one side bought the named way, and the commitment terms bought.
export function computeCost(n, x, side, hours, wall) {
  const [cost, terms] = planCost(n, x, side, hours, wall, x[side + "_option"], x[side + "_price"].value,
    x[side + "_term_hours"], x[side + "_held_hours"], x[side + "_ways"]);
  return [cost, terms];
}

function regionWays(x, side, region) {
  if (region === x[side + "_region"]) return x[side + "_ways"] || [];
  return (x[side + "_ways_elsewhere"] || []).filter((w) => w.region === region);
}

// Compute cost of n runs bought one way with nothing held; null when that way cannot run the plan.
export function wayCost(n, x, side, baseHours, way) {
  const count = x[side + "_count"];
  const rate = (isNone(way.interruption) ? interruptionRate(x, side) : way.interruption).value;
  const factor = spotFactor(way.option === "spot", count, rate, x.lost_hours.value);
  if (factor === Infinity) return null;
  const hours = baseHours * factor;
  const termHours = isNone(way.term_hours) ? null : way.term_hours;
  const cost = planCost(n, x, side, hours, hours / count, way.option, way.usd_per_hour, termHours, 0.0,
    regionWays(x, side, way.region || ""))[0];
  return Number.isFinite(cost) ? cost : null;
}

// The accepted way whose plan costs least, when it is not the named way; null: the named way.
function chosenWay(x, side, baseHours) {
  if (x[side + "_held_hours"] > 0) return null;
  const ok = accepts(x, side);
  const named = namedWay(x, side);
  const option = named.option, region = named.region;
  let bestWay = null, best = wayCost(x.runs, x, side, baseHours, named);
  for (const way of [...(x[side + "_ways"] || []), ...(x[side + "_ways_elsewhere"] || [])]) {
    if (!ok.includes(way.option) || (way.option === option && (way.region || "") === region)) continue;
    const cost = wayCost(x.runs, x, side, baseHours, way);
    if (cost !== null && (best === null || cost < best)) { bestWay = way; best = cost; }
  }
  return bestWay;
}

// These inputs with each side bought the way its plan costs least among the ways it accepts.
export function planned(x) {
  let y = x;
  for (const [side, base] of [["gpu", x.gpu_hours], ["trainium", x.gpu_hours / x.relative_throughput.value]]) {
    const way = chosenWay(x, side, base);
    if (way !== null) {
      y = {
        ...y, [side + "_option"]: way.option, [side + "_price"]: span(way.usd_per_hour, way.usd_per_hour, way.usd_per_hour),
        [side + "_term_hours"]: isNone(way.term_hours) ? null : way.term_hours, [side + "_spot"]: way.option === "spot",
        [side + "_region"]: way.region || "", [side + "_ways"]: regionWays(x, side, way.region || ""),
        [side + "_accepts"]: accepts(x, side),
      };
      if (way.option === "spot") y[side + "_interruption_rate"] = way.rated ? way.interruption : null;
    }
  }
  return y;
}

export function planTotals(x, n, o) {
  return planTotalsAsPlanned(planned(x), n, o);
}

function planTotalsAsPlanned(x, n, o) {
  if (n === 0) return [0.0, 0.0];
  const [gpu] = computeCost(n, x, "gpu", o.gpu.hours_per_run, o.gpu.wall_clock_hours);
  const [trn] = computeCost(n, x, "trainium", o.trainium.hours_per_run, o.trainium.wall_clock_hours);
  return [gpu, portsNeeded(Math.ceil(n), x.runs_per_architecture) * o.port_cost + trn];
}

// One side bought as planned (`y`); the ways it could be bought priced from the workload as given (`x`).
function side(x, y, name, hours, readyDays) {
  const count = y[name + "_count"];
  const spot = y[name + "_spot"];
  const factor = spotFactor(spot, count, interruptionRate(y, name).value, y.lost_hours.value);
  const price = y[name + "_price"];
  const baseHours = hours;
  hours = hours * factor;
  const wall = hours / count;
  const term = isNone(y[name + "_term_hours"]) ? null : y[name + "_term_hours"];
  const held = y[name + "_held_hours"];
  const [compute, terms, hourlyHours, hourlyOption] = planCost(y.runs, y, name, hours, wall, y[name + "_option"], price.value,
    term, held, y[name + "_ways"]);
  const rate = term === null ? hourlyRate(y, name, y[name + "_option"], price.value, wall) : price.value;
  const cost = (rate === null ? Infinity : rate) * hours;
  let utilisation = null;
  if (term !== null) {
    const covered = terms * term + held;
    // Past the committed hours the plan buys by the hour: only the runs inside the committed hours
    // use them (the runs spread evenly over the span).
    const span = planSpan(y.runs, y, wall);
    const used = y.runs * hours * (span > 0 ? Math.min(covered, span) / span : 1.0);
    utilisation = covered > 0 ? used / (count * covered) : null;
  }
  const reasons = infeasibility(y, name);
  const late = isNone(y.needed_within_days) ? null : Math.max(0.0, readyDays - y.needed_within_days);
  const finish = readyDays + planSpan(y.runs, y, wall) / HOURS_PER_DAY;
  const finishLate = isNone(y.finish_within_days) ? null : Math.max(0.0, finish - y.finish_within_days);
  // Every way the catalog prices, accepted or not: a cheaper one is advice. A held reservation is the
  // named way's, so only plans that hold nothing compare whole ways.
  const options = [];
  if (x[name + "_held_hours"] === 0) {
    for (const way of [...(x[name + "_ways"] || []), ...(x[name + "_ways_elsewhere"] || [])]) {
      const total = wayCost(x.runs, x, name, baseHours, way);
      if (total !== null) options.push([way.option, total, way.region || ""]);
    }
  }
  const planOption = y[name + "_option"] || "", planRegion = y[name + "_region"] || "";
  let cheapest = planOption, where = planRegion, cheaperBy = 0.0;
  if (Number.isFinite(compute)) {
    // Only a way that costs strictly less displaces the plan's own, so a tie keeps its region.
    for (const [option, total, region] of options) {
      if (compute - total > cheaperBy) { cheapest = option; where = region; cheaperBy = compute - total; }
    }
  } else if (options.length) {
    // No way the side accepts can run the plan: the cheapest way that can is named as advice.
    const best = options.reduce((a, b) => (b[1] < a[1] ? b : a));
    cheapest = best[0]; where = best[2];
  }
  const b = y.block_limits;
  const onBlocks = planOption === "capacity-block" || (hourlyHours > 0 && hourlyOption === "capacity-block");
  const booking = onBlocks && !isNone(b) && Number.isFinite(wall) ? blockBooking(wall, b) : null;
  return {
    hours_per_run: hours, usd_per_hour: price.value, cost_per_run: cost, wall_clock_hours: wall, total: compute,
    spot_overhead: factor - 1, compute_total: compute, committed_terms: terms, utilisation, ready_days: readyDays,
    price_low: price.low, price_high: price.high, price_basis: priceBasis(price),
    feasible: reasons.length === 0, reasons, late_days: late, finish_days: finish, finish_late_days: finishLate,
    cheapest_option: cheapest, cheaper_by: cheaperBy, options, cheapest_region: where,
    plan_option: planOption, plan_region: planRegion, hourly_hours: hourlyHours, hourly_option: hourlyOption,
    term_hours: term, booking,
    spot_rate: spot ? interruptionRate(y, name).value : null, spot_rated: Boolean(spot && !isNone(y[name + "_interruption_rate"])),
  };
}

// The decision with every run booked as one block of the next length AWS sells, where the plan
// counts on an extension (sold only if AWS has the capacity then); null where none books one.
export function singleBlocks(x, o) {
  const b = x.block_limits;
  if (isNone(b) || isNone(b.extend_up_to)) return null;
  if (![o.trainium, o.gpu].some((sd) => !isNone(sd.booking) && sd.booking[2] > 0)) return null;
  return evaluate({ ...x, block_limits: { ...b, extend_up_to: null } });
}

// Every reason one side cannot run at all, whatever it costs.
export function infeasibility(x, name) {
  const reasons = [];
  if (name === "trainium" && x.excluded_by.length) reasons.push(["ruled-out", x.excluded_by]);
  if (x.region_excluded.includes(name)) reasons.push(["not-offered", x.allowed_regions]);
  if (x[name + "_availability"] === "unavailable") reasons.push(["unavailable", null]);
  if (x[name + "_spot"] && spotLoad(x[name + "_count"], interruptionRate(x, name).value, x.lost_hours.value) >= 1) {
    reasons.push(["spot-cannot-finish", null]);
  }
  const b = x.block_limits;
  if (x[name + "_option"] === "capacity-block" && !isNone(b) && x[name + "_count"] > b.across_blocks) {
    reasons.push(["blocks-cannot-hold", b.across_blocks]);
  }
  return reasons;
}

// Days before Trainium's first run: capacity lead time and the port one after the other, or side
// by side when the team ports while it waits for capacity.
export function readyDays(leadDays, portDays, overlap) {
  return overlap ? Math.max(leadDays, portDays) : leadDays + portDays;
}

// The decision for one workload, each side bought the way its plan costs least among those it accepts.
export function evaluate(given) {
  const x = planned(given);
  const portCost = x.port_weeks.value * x.engineer_week_usd + x.port_extra_usd;
  const portDays = x.port_weeks.value / x.port_engineers.value * DAYS_PER_WEEK;
  const gpu = side(given, x, "gpu", x.gpu_hours, x.gpu_lead_days);
  const trn = side(given, x, "trainium", x.gpu_hours / x.relative_throughput.value,
    readyDays(x.trainium_lead_days, portDays, x.port_during_lead));
  const committed = !isNone(x.gpu_term_hours) || !isNone(x.trainium_term_hours);
  // Under a commitment an hour costs what the plan pays for it, held hours nothing: per run, the
  // saving is the plans' compute difference shared over the runs.
  let saving = committed ? (gpu.compute_total - trn.compute_total) / x.runs : gpu.cost_per_run - trn.cost_per_run;
  if (!(Number.isFinite(trn.cost_per_run) && Number.isFinite(gpu.cost_per_run))) saving = 0.0; // a side that cannot finish on spot has no cost to save against
  const ports = portsNeeded(x.runs, x.runs_per_architecture);
  const gpuTotal = gpu.compute_total;
  const trnTotal = ports * portCost + trn.compute_total;
  trn.total = trnTotal;
  const difference = gpuTotal - trnTotal;
  const feasible = trn.feasible && gpu.feasible;
  let breakEven = saving > 0 && !committed && feasible ? portCost / saving : null;
  // With a port every k runs the cumulative difference is a saw-tooth: the break-even is the plan
  // length from which every longer plan is cheaper on Trainium.
  if (breakEven !== null && !isNone(x.runs_per_architecture)) breakEven = recurringBreakEven(saving, portCost, x.runs_per_architecture);
  const trace = [];
  const verdict = decide(x, trace, gpu, trn, difference, saving, portCost, ports, breakEven, committed);
  const decidedBy = [...trace].reverse().find((s) => s.verdict !== null).rule;
  return {
    trainium: trn,
    gpu,
    saving_per_run: saving,
    saving_pct: savingShare(saving, x.runs, gpu.compute_total),
    port_cost: portCost,
    ports,
    port_calendar_days: portDays,
    break_even_runs: breakEven,
    total_difference: difference,
    verdict,
    trace,
    decided_by: decidedBy,
    // Calendar hours one run takes at the plan's pace on Trainium: what turns runs into time.
    pace_hours: planSpan(1, x, trn.wall_clock_hours),
  };
}

function step(rule, verdict, code, numbers) {
  return { rule, verdict, code, numbers: numbers || {} };
}

// The steps in order, each in the trace; the first that gives a verdict ends the decision, and
// capacity may only tip the cost step's verdict.
function decide(x, trace, gpu, trn, difference, saving, portCost, ports, breakEven, committed) {
  trace.push(feasibilityStep(trn, gpu));
  if (trace[trace.length - 1].verdict !== null) return trace[trace.length - 1].verdict;
  if (!isNone(x.needed_within_days) || !isNone(x.finish_within_days)) {
    trace.push(deadlineStep(x, trn, gpu));
    if (trace[trace.length - 1].verdict !== null) return trace[trace.length - 1].verdict;
  }
  trace.push(costStep(x, trn, gpu, difference, saving, portCost, ports, breakEven, committed));
  const costVerdict = trace[trace.length - 1].verdict;
  trace.push(capacityStep(x, trn, gpu, costVerdict));
  return trace[trace.length - 1].verdict ?? costVerdict;
}

function feasibilityStep(trn, gpu) {
  const sides = { trainium: trn, gpu };
  const feasible = ["trainium", "gpu"].filter((name) => sides[name].feasible);
  if (feasible.length === 0) {
    return step("feasibility", "neither", "neither-can-run", { trainium_reasons: trn.reasons, gpu_reasons: gpu.reasons });
  }
  if (feasible.length === 1) {
    const out = feasible[0] === "trainium" ? "gpu" : "trainium";
    return step("feasibility", feasible[0], out + "-cannot-run", { [out + "_reasons"]: sides[out].reasons });
  }
  return step("feasibility", null, "both-can-run");
}

const startsOnTime = (x, sd) => isNone(x.needed_within_days) || sd.ready_days <= x.needed_within_days;
// Whether a side starts by the start deadline and finishes its whole plan by the finish deadline.
const onTime = (x, sd) => startsOnTime(x, sd) && (isNone(x.finish_within_days) || sd.finish_days <= x.finish_within_days);

function deadlineStep(x, trn, gpu) {
  const when = {
    needed_within_days: isNone(x.needed_within_days) ? null : x.needed_within_days, trainium_ready_days: trn.ready_days,
    gpu_ready_days: gpu.ready_days, trainium_late_days: trn.late_days, gpu_late_days: gpu.late_days,
  };
  if (!isNone(x.finish_within_days)) {
    Object.assign(when, { finish_within_days: x.finish_within_days, trainium_finish_days: trn.finish_days,
      gpu_finish_days: gpu.finish_days, trainium_finish_late_days: trn.finish_late_days, gpu_finish_late_days: gpu.finish_late_days });
  }
  const trnOk = onTime(x, trn), gpuOk = onTime(x, gpu);
  if (gpuOk && !trnOk) return step("deadline", "gpu", startsOnTime(x, trn) ? "trainium-finishes-late" : "trainium-late", when);
  if (trnOk && !gpuOk) return step("deadline", "trainium", startsOnTime(x, gpu) ? "gpu-finishes-late" : "gpu-late", when);
  // Neither on time: the one that finishes sooner where a finish date is set, else the one that starts sooner.
  const [trnDay, gpuDay] = isNone(x.finish_within_days) ? [trn.ready_days, gpu.ready_days] : [trn.finish_days, gpu.finish_days];
  if (!trnOk && trnDay !== gpuDay) {
    const soonest = trnDay < gpuDay ? "trainium" : "gpu";
    return step("deadline", soonest, "neither-on-time", when);
  }
  return step("deadline", null, trnOk ? "both-on-time" : "both-late-same-day", when);
}

function costStep(x, trn, gpu, difference, saving, portCost, ports, breakEven, committed) {
  const verdict = trn.total < gpu.total ? "trainium" : "gpu";
  const numbers = {
    gpu_total: gpu.total, trainium_total: trn.total, difference, saving_per_run: saving,
    port_cost: portCost, ports, break_even_runs: breakEven, runs: x.runs,
    trainium_price_basis: trn.price_basis, gpu_price_basis: gpu.price_basis,
  };
  let code;
  if (verdict === "trainium") code = "cost-trainium";
  else if (committed) code = "cost-committed";
  else if (saving <= 0) code = "cost-no-saving";
  else if (!isNone(x.runs_per_architecture) && breakEven === null) code = "cost-no-architecture-repays";
  else code = "cost-not-repaid";
  return step("cost", verdict, code, numbers);
}

// Capacity tips a close call only between sides that can both meet their deadlines, one of them soon.
function capacityStep(x, trn, gpu, verdict) {
  const needed = x.needed_within_days;
  const soon = [needed, x.finish_within_days].some((d) => !isNone(d) && d <= x.soon_days);
  const urgent = soon && onTime(x, trn) && onTime(x, gpu);
  const margin = x.close_call_margin;
  if (urgent && verdict === "gpu" && x.gpu_availability === "constrained" && x.trainium_availability === "available") {
    if (trn.total <= gpu.total * (1 + margin)) {
      return step("capacity", "trainium", "capacity-trainium",
        { margin, needed_within_days: needed, ratio: trn.total / gpu.total });
    }
  } else if (urgent && verdict === "trainium" && x.trainium_availability === "constrained" && x.gpu_availability === "available") {
    if (gpu.total <= trn.total * (1 + margin)) {
      return step("capacity", "gpu", "capacity-gpu",
        { margin, needed_within_days: needed, ratio: gpu.total / trn.total });
    }
  }
  return step("capacity", null, "capacity-unchanged", { needed_within_days: isNone(needed) ? null : needed });
}

// These inputs with one ranged input moved to one end of its range; an interruption rate moves every
// spot pool it stands for to the same end of that pool's own band.
function at(x, name, end) {
  const s = x[name];
  const y = { ...x };
  if (!isNone(s)) y[name] = span(s[end], s.low, s.high);
  if (name in POOL_INPUTS) {
    const owner = POOL_INPUTS[name], rated = owner !== null;
    for (const side of owner === null ? ["trainium", "gpu"] : [owner]) {
      for (const key of [side + "_ways", side + "_ways_elsewhere"]) {
        y[key] = (x[key] || []).map((w) => (!isNone(w.interruption) && Boolean(w.rated) === rated
          ? { ...w, interruption: span(w.interruption[end], w.interruption.low, w.interruption.high) } : w));
      }
    }
  }
  return y;
}

// The ends of a range that favour Trainium least and most, from the total difference at each
// end: the direction of some inputs depends on the case. Ties keep the usual direction.
function againstAndFor(name, low, high) {
  if (low === high) return RANGE_INPUTS[name];
  return low < high ? ["low", "high"] : ["high", "low"];
}

// The spot pools an interruption-rate input stands for, among those the sides would buy from.
function poolsOf(x, name) {
  const owner = POOL_INPUTS[name];
  return (owner === null ? ["trainium", "gpu"] : [owner]).flatMap((side) => spotPools(x, side))
    .filter((w) => Boolean(w.rated) === (owner !== null));
}

// The ranged inputs that can move this case (engine.py's ranged_inputs).
export function rangedInputs(x) {
  let names = Object.keys(RANGE_INPUTS).filter((n) => (n in POOL_INPUTS
    ? poolsOf(x, n).some((w) => !isNone(w.interruption) && isRange(w.interruption))
    : !isNone(x[n]) && isRange(x[n])));
  if (!(spotPools(x, "trainium").length || spotPools(x, "gpu").length)) names = names.filter((n) => n !== "lost_hours");
  if (isNone(x.needed_within_days) && isNone(x.finish_within_days)) names = names.filter((n) => n !== "port_engineers");
  return names;
}

// A ranged input's value at one end as the case there takes it: for a side's interruption rate, the
// rate of the pool its plan buys at that end, where it buys spot.
function rangeEndValue(x, name, end, o) {
  if (!(name in POOL_INPUTS)) return x[name][end];
  const owner = POOL_INPUTS[name];
  if (owner !== null && !isNone(o[owner].spot_rate)) return o[owner].spot_rate;
  return poolsOf(x, name)[0].interruption[end];
}

export function robustness(x, base) {
  base = base || evaluate(x);
  const ends = [];
  const flips = [];
  const names = rangedInputs(x);
  for (const name of names) {
    for (const end of ["low", "high"]) {
      const o = evaluate(at(x, name, end));
      ends.push({ input: name, end, value: rangeEndValue(x, name, end, o), verdict: o.verdict, total_difference: o.total_difference });
      if (o.verdict !== base.verdict && !flips.includes(name)) flips.push(name);
    }
  }
  // ends holds each name's low end, then its high end: those evaluations also give its direction.
  const directions = names.map((name, i) => againstAndFor(name, ends[2 * i].total_difference, ends[2 * i + 1].total_difference));
  const corners = [0, 1].map((sideIndex) => {
    let y = x;
    names.forEach((name, i) => { y = at(y, name, directions[i][sideIndex]); });
    const o = evaluate(y);
    return { input: "all", end: sideIndex === 0 ? "against" : "for", value: null, verdict: o.verdict, total_difference: o.total_difference };
  });
  // An extension AWS sells only if it has the capacity then: the plan with none is one more end.
  const single = singleBlocks(x, base);
  if (single !== null) {
    ends.push({ input: EXTENSION, end: "none", value: null, verdict: single.verdict, total_difference: single.total_difference });
    if (single.verdict !== base.verdict) flips.push(EXTENSION);
  }
  const holds = flips.length === 0;
  const joint = holds && corners.some((c) => c.verdict !== base.verdict);
  return { holds, flips_on: flips, ends, worst_case: corners[0], best_case: corners[1], joint_flip: joint };
}

// A side's cost per run in the long run, and how far its plan total can stray from that line.
function trend(x, o, side) {
  const sd = o[side];
  const term = x[side + "_term_hours"];
  if (isNone(term)) return [sd.cost_per_run, 0.0];
  const count = x[side + "_count"], price = x[side + "_price"].value;
  const w = planSpan(1, x, sd.wall_clock_hours);
  let slope = count * price * w;
  let far = slope;
  const hourly = cheapestHourly(x, side, x[side + "_ways"], sd.wall_clock_hours);
  const held = x[side + "_held_hours"];
  if (hourly !== null) {
    slope = Math.min(slope, sd.hours_per_run * hourly[0]);
    far = Math.max(far, sd.hours_per_run * hourly[0]);
  }
  return [slope, count * term * price + far * held / w];
}

// The last n in lo..hi for which `holds`, given that it holds from lo up to some point and not after.
// `guess` is where that point is thought to be: a wrong guess costs a bisection, never a wrong answer.
function lastTrue(holds, lo, hi, guess) {
  const g = Math.min(Math.max(guess, lo), hi);
  if (holds(g)) {
    if (g === hi || !holds(g + 1)) return g;
    lo = g + 1;
  } else {
    hi = g - 1;
  }
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2);
    if (holds(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The first n in lo..hi for which `holds`, given that it does not hold up to some point and holds
// from there to hi; `guess`, as for lastTrue.
function firstTrue(holds, lo, hi, guess) {
  const g = Math.min(Math.max(guess, lo), hi);
  if (holds(g)) {
    if (g === lo || !holds(g - 1)) return g;
    hi = g - 1;
  } else {
    lo = g + 1;
  }
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The last whole number on lo's side of where the line through (lo, atLo) and (hi, atHi) is 0.
function zeroGuess(lo, hi, atLo, atHi) {
  return lo + Math.floor((hi - lo) * (atLo / (atLo - atHi)));
}

// (first, last, behind) over consecutive stretches, each given as its own (first, last, behind).
function merged(parts) {
  const first = parts.map((p) => p[0]).find((v) => v !== null);
  const last = parts.map((p) => p[1]).reverse().find((v) => v !== null);
  const behind = parts.map((p) => p[2]).reverse().find((v) => v !== null);
  return [first ?? null, last ?? null, behind ?? null];
}

// Over plan lengths 1..limit: the shortest plan that costs less on Trainium, the longest, and the
// longest that does not, exactly as planTotals compares them; solved piece by piece (see engine.py).
function planLengths(x, o, limit) {
  const k = x.runs_per_architecture;
  const sides = [["gpu", o.gpu.hours_per_run, o.gpu.wall_clock_hours],
    ["trainium", o.trainium.hours_per_run, o.trainium.wall_clock_hours]];
  const seen = new Map();
  const at = (n) => {
    let r = seen.get(n);
    if (r === undefined) {
      const costs = [], keys = [];
      for (const [name, hours, wall] of sides) {
        const [cost, bought] = computeCost(n, x, name, hours, wall);
        const term = x[name + "_term_hours"];
        const need = isNone(term) ? null : Math.ceil(Math.max(0.0, planSpan(n, x, wall) - x[name + "_held_hours"]) / term);
        costs.push(cost);
        keys.push(need === null ? null : [need, bought < need]);
      }
      const [gpu, trn] = costs;
      r = [gpu, portsNeeded(n, k) * o.port_cost + trn, gpu - trn, keys[0], keys[1]];
      seen.set(n, r);
    }
    return r;
  };
  const ahead = (n) => at(n)[1] < at(n)[0];
  const gap = (n) => at(n)[0] - at(n)[1];

  // The last plan length from p on (up to hi) at which each side buys as it does at p.
  const pieceEnd = (p, hi) => {
    let end = hi;
    sides.forEach(([name, , wall], i) => {
      const key = at(p)[3 + i];
      if (key === null) return;
      const [need, byHour] = key;
      const held = x[name + "_held_hours"], term = x[name + "_term_hours"];
      let e = lastTrue((n) => at(n)[3 + i][0] === need, p, end, Math.floor((held + need * term) / planSpan(1, x, wall)));
      // With the terms fixed the hourly cost grows and the committed one does not: hourly buying ends once.
      if (byHour) e = lastTrue((n) => at(n)[3 + i][1], p, e, p);
      end = e;
    });
    return end;
  };

  // The first plan length down from p (to lo) at which each side buys as it does at p.
  const pieceStart = (p, lo) => {
    let start = lo;
    sides.forEach(([name, , wall], i) => {
      const key = at(p)[3 + i];
      if (key === null) return;
      const [need, byHour] = key;
      const held = x[name + "_held_hours"], term = x[name + "_term_hours"];
      let s = firstTrue((n) => at(n)[3 + i][0] === need, start, p, Math.floor((held + (need - 1) * term) / planSpan(1, x, wall)) + 1);
      // Hourly buying past a held reservation, where there is any, comes first in the stretch.
      if (!byHour) s = firstTrue((n) => !at(n)[3 + i][1], s, p, p);
      start = s;
    });
    return start;
  };

  // (first, last, behind) over a..b, where the difference is a line: it changes sign at most once.
  const line = (a, b) => {
    if (ahead(a) === ahead(b)) return ahead(a) ? [a, b, null] : [null, null, b];
    const s = lastTrue((n) => ahead(n) === ahead(a), a, b, zeroGuess(a, b, gap(a), gap(b)));
    return ahead(a) ? [a, s, b] : [s + 1, b, s];
  };

  // (first, last, behind) over whole architectures m1..m2 of a piece: within each the difference is
  // a line; at the same run of successive architectures it moves by one amount.
  const architectures = (m1, m2, rising) => {
    const [top, low] = rising ? [k, 1] : [1, k];
    const run = (m, r) => (m - 1) * k + r;
    const where = (holds, r) => {
      const a = holds(run(m1, r)), b = holds(run(m2, r));
      if (!(a || b)) return [null, null];
      if (a && b) return [m1, m2];
      const turn = lastTrue((m) => holds(run(m, r)) === a, m1, m2, zeroGuess(m1, m2, gap(run(m1, r)), gap(run(m2, r))));
      return a ? [m1, turn] : [turn + 1, m2];
    };
    const [upFirst, upLast] = where(ahead, top);
    const [, downLast] = where((n) => !ahead(n), low);
    const first = upFirst === null ? null : line(run(upFirst, 1), run(upFirst, k))[0];
    const last = upLast === null ? null : line(run(upLast, 1), run(upLast, k))[1];
    const behind = downLast === null ? null : line(run(downLast, 1), run(downLast, k))[2];
    return [first, last, behind];
  };

  // (first, last, behind) over a piece a..b.
  const piece = (a, b) => {
    if (isNone(k) || Math.floor((a - 1) / k) === Math.floor((b - 1) / k)) return line(a, b);
    const ma = Math.floor((a - 1) / k) + 1, mb = Math.floor((b - 1) / k) + 1;
    const parts = [line(a, ma * k)];
    if (mb - ma >= 2) parts.push(architectures(ma + 1, mb - 1, at(b)[2] > at(a)[2]));
    parts.push(line((mb - 1) * k + 1, b));
    return merged(parts);
  };

  // The first plan length (the last, going down from limit) at which Trainium is ahead, or (want
  // false) is not; stretches the totals alone settle are passed over in growing strides.
  const scan = (want, down) => {
    let p = down ? limit : 1, stride = 1;
    while (p >= 1 && p <= limit) {
      const q = down ? Math.max(1, p - stride + 1) : Math.min(limit, p + stride - 1);
      const lo = Math.min(p, q), hi = Math.max(p, q);
      const settled = at(hi)[1] < at(lo)[0] ? true : at(hi)[0] <= at(lo)[1] ? false : null;
      if (settled !== null) {
        if (settled === want) return p;
        p = down ? q - 1 : q + 1;
        stride *= 2;
        continue;
      }
      const [a, b] = down ? [pieceStart(p, 1), p] : [p, pieceEnd(p, limit)];
      const [first, last, behind] = piece(a, b);
      const found = down ? (want ? last : behind) : first;
      if (found !== null) return found;
      p = down ? a - 1 : b + 1;
      stride = Math.max(1, Math.floor(stride / 2));
    }
    return null;
  };

  const first = scan(true, false);
  if (first === null) return [null, null, limit]; // no plan is ahead, so the longest is not
  return [first, scan(true, true), scan(false, true)];
}

// For which plan lengths Trainium costs less: solved, not searched to a limit (see engine.py).
export function breakEven(x, o) {
  const never = { kind: "never", first: null, last: null, first_for_good: null };
  if (!(o.trainium.feasible && o.gpu.feasible)) return never;
  x = planned(x);
  if (isNone(x.gpu_term_hours) && isNone(x.trainium_term_hours)) {
    const s = o.saving_per_run, k = x.runs_per_architecture;
    if (o.break_even_runs === null) return never;
    const first = Math.floor(o.port_cost / s) + 1;
    return { kind: "from", first, last: null, first_for_good: isNone(k) ? first : o.break_even_runs };
  }
  const [gpuSlope, gpuFar] = trend(x, o, "gpu");
  const [trnSlope, trnFar] = trend(x, o, "trainium");
  const k = x.runs_per_architecture;
  const sigma = gpuSlope - trnSlope - (isNone(k) ? 0.0 : o.port_cost / k);
  const bound = gpuFar + trnFar + 2 * o.port_cost;
  // With parallel long-run lines (sigma 0) the sign never settles for good: every plan length the
  // schema allows is solved.
  const reach = sigma === 0 ? Infinity : bound / Math.abs(sigma);
  const limit = reach >= MAX_PLAN_RUNS ? MAX_PLAN_RUNS : Math.min(MAX_PLAN_RUNS, Math.floor(reach) + 2);
  const [first, last, behind] = planLengths(x, o, limit);
  if (first === null) return never;
  if (last === limit) return { kind: "from", first, last: null, first_for_good: behind === null ? 1 : behind + 1 };
  return { kind: "between", first, last, first_for_good: null };
}

// The first plan length at which Trainium's plan costs less (under recurring ports, from which every
// longer plan does); null when none does. `b`: breakEven(x, o), if known.
export function crossing(x, o, b) {
  const y = planned(x);
  if (isNone(y.gpu_term_hours) && isNone(y.trainium_term_hours)) return o.break_even_runs;
  return (b || breakEven(x, o)).first;
}

export function thresholds(x, o) {
  o = o || evaluate(x);
  if (!(o.trainium.feasible && o.gpu.feasible)) return { relative_throughput: null, runs: null, port_weeks: null, trainium_price: null, break_even: null };
  const trnFactor = 1 + o.trainium.spot_overhead;
  const gpuTotal = o.gpu.total;
  const fixed = o.ports * o.port_cost;
  const headroom = gpuTotal - fixed;
  let rel, price;
  const y = planned(x);
  if (isNone(y.trainium_term_hours)) {
    const trnHoursAtParity = y.runs * y.gpu_hours * trnFactor;
    rel = headroom > 0 ? y.trainium_price.value * trnHoursAtParity / headroom : null;
    price = headroom > 0 ? headroom * y.relative_throughput.value / trnHoursAtParity : null;
    const b = y.block_limits;
    if (y.trainium_option === "capacity-block" && !isNone(b) && headroom > 0) {
      // A run on blocks pays for the days booked, which move with throughput in steps (engine.py).
      const booked = bookedHoursBelow(headroom / (y.runs * y.trainium_count * y.trainium_price.value), b);
      rel = booked === null ? null : y.gpu_hours / (y.trainium_count * booked);
      price = headroom / (y.runs * (o.trainium.cost_per_run / y.trainium_price.value));
    }
  } else {
    rel = committedThroughput(x, o, gpuTotal - fixed);
    const reserved = y.trainium_count * o.trainium.committed_terms * y.trainium_term_hours;
    // Hours bought by the hour past the terms cost the same at any term rate (engine.py).
    const left = headroom - (o.trainium.compute_total - reserved * y.trainium_price.value);
    price = left > 0 && reserved > 0 ? left / reserved : null;
  }
  const perPort = (gpuTotal - o.trainium.compute_total) / o.ports - y.port_extra_usd;
  const weeks = perPort > 0 ? perPort / y.engineer_week_usd : null;
  // Feasibility and start dates do not move with the plan's length: only a cost verdict can turn on it.
  const costDecides = COST_RULES.includes(o.decided_by);
  const b = costDecides ? breakEven(x, o) : null;
  const runs = costDecides ? crossing(x, o, b) : null;
  return {
    relative_throughput: flipping(x, "relative_throughput", rel), runs,
    port_weeks: flipping(x, "port_weeks", weeks), trainium_price: flipping(x, "trainium_price", price),
    break_even: b,
  };
}

// The least relative throughput at which Trainium's committed compute costs less than `headroom`:
// a committed total moves with throughput in steps, so the boundary is found by halving an interval
// around the case's own value (the total never rises with throughput). Null when none is in reach.
function committedThroughput(x, o, headroom) {
  // Bought, at each throughput, the way its plan then costs least (planned), as evaluate does.
  const cheaper = (r) => {
    const atR = { ...x, relative_throughput: span(r, x.relative_throughput.low, x.relative_throughput.high) };
    return side(atR, planned(atR), "trainium", x.gpu_hours / r, 0.0).compute_total < headroom;
  };
  const r = x.relative_throughput.value;
  let lo = r, hi = r, found = false;
  if (cheaper(r)) {
    for (let i = 0; i < COMMITTED_BRACKET_STEPS; i++) {
      lo = lo / 2;
      if (!cheaper(lo)) { found = true; break; }
      hi = lo;
    }
  } else {
    for (let i = 0; i < COMMITTED_BRACKET_STEPS; i++) {
      hi = hi * 2;
      if (cheaper(hi)) { found = true; break; }
      lo = hi;
    }
  }
  if (!found) return null;
  for (let i = 0; i < COMMITTED_HALVINGS; i++) {
    const mid = (lo + hi) / 2;
    if (cheaper(mid)) hi = mid; else lo = mid;
  }
  return hi;
}

// The threshold, if the verdict just below it differs from the verdict just above it; else null.
function flipping(x, name, value) {
  if (value === null) return null;
  const s = x[name];
  const below = evaluate({ ...x, [name]: span(value * (1 - THRESHOLD_PROBE), s.low, s.high) });
  const above = evaluate({ ...x, [name]: span(value * (1 + THRESHOLD_PROBE), s.low, s.high) });
  return below.verdict !== above.verdict ? value : null;
}

// The cumulative cost of each side against runs, as the chart draws it: past the crossing when
// there is one, and always to the plan's runs.
// `b`: breakEven(x, o), if known (the thresholds carry it).
export function costCurve(x, o, b) {
  const cross = COST_RULES.includes(o.decided_by) ? crossing(x, o, b) : null;
  let horizon = Math.max(x.runs, 2);
  if (cross !== null) horizon = Math.max(horizon, Math.floor(cross * 1.5) + 1);
  horizon = Math.max(Math.min(horizon, CURVE_MAX_HORIZON), x.runs);
  const stepSize = Math.max(1, Math.floor(horizon / 100));
  const ns = [];
  for (let n = 0; n <= horizon; n += stepSize) ns.push(n);
  if (ns[ns.length - 1] !== horizon) ns.push(horizon);
  if (!ns.includes(x.runs)) { ns.push(x.runs); ns.sort((a, b) => a - b); }
  const y = planned(x);
  const rows = ns.map((n) => {
    const [gpu, trn] = planTotalsAsPlanned(y, n, o);
    return { runs: n, gpu, trainium: trn };
  });
  return { rows, crossing: cross };
}

// --- From a workload (the scenario file's shape) and the baked catalog to the flat inputs. ---

export function findPrice(data, instance, region, option) {
  return data.prices.find((p) => p.instance === instance && p.region === region && p.option === option) || null;
}

// Problems with names that point into the catalog, as [field, code] pairs: resolve.py's
// check_references, which words them for a scenario's author; wording.mjs's referenceError words
// them for the calculator's reader. The codes are these alone (tests/test_calculator_wording.py).
export function checkReferences(w, data) {
  const problems = [];
  for (const side of ["trainium", "gpu"]) {
    const c = w[side];
    const inst = data.instances[c.instance];
    if (!inst) { problems.push([`${side}.instance`, "unknown"]); continue; }
    if (inst.side !== side) { problems.push([`${side}.instance`, "other-side"]); continue; }
    const p = findPrice(data, c.instance, c.region, c.option);
    if (!p) problems.push([`${side}.option`, "no-price"]);
    else if (!p.offered) problems.push([`${side}.option`, "not-offered"]);
  }
  const allowed = w.regions || [];
  if (allowed.length && data.instances[w.trainium.instance] && data.instances[w.gpu.instance]) {
    const out = ["trainium", "gpu"].filter((side) => !offered(w, side, data));
    if (out.length === 2) problems.push(["regions", "offered-nowhere"]);
    for (const side of ["trainium", "gpu"]) {
      if (!out.includes(side) && !allowed.includes(w[side].region)) problems.push([`${side}.region`, "not-allowed"]);
    }
  }
  return problems;
}

// Whether a side's instance is offered in a region the workload may use (any, if it names none).
export function offered(w, side, data) {
  const allowed = w.regions || [];
  if (!allowed.length) return true;
  return data.instances[w[side].instance].regions.some((r) => allowed.includes(r));
}

export function gpuInstanceHours(w, data) {
  const rs = w.run_size;
  if (rs.gpu_instance_hours !== null && rs.gpu_instance_hours !== undefined) return rs.gpu_instance_hours;
  const flops = 6 * rs.params_billion * 1e9 * rs.tokens_billion * 1e9;
  const inst = data.instances[w.gpu.instance];
  const chip = data.chips[inst.chip];
  const tflops = rs.precision === "fp8" && chip.fp8_tflops !== null ? chip.fp8_tflops : chip.bf16_tflops;
  const peak = tflops * 1e12;
  return flops / (inst.chips * peak * rs.mfu) / 3600;
}

// Whether a constraint applies on a Trainium generation (every one when it names none).
const appliesOn = (c, chip) => isNone(c.chips) || c.chips.includes(chip);

export function portWeeks(w, data, chip = data.instances[w.trainium.instance].chip) {
  const porting = w.porting || {};
  if (porting.weeks) return span(porting.weeks.value, porting.weeks.low, porting.weeks.high);
  const a = data.assumptions;
  const m = a.neuron_experience[w.neuron_experience || "none"];
  const moved = (w.constraints || []).map((n) => a.constraints[n]).filter((c) => c.effect === "re-port");
  if (moved.length) {
    // The model already trains on Neuron: where its path ends it is ported again, that port in place
    // of the class's; where its path goes on it runs as it is.
    const again = moved.filter((c) => c.weeks && appliesOn(c, chip)).map((c) => c.weeks);
    if (!again.length) return span(0.0, 0.0, 0.0);
    const most = (end) => Math.max(...again.map((e) => e[end]));
    return span(most("value") * m, most("low") * m, most("high") * m);
  }
  const classes = Object.keys(a.porting_classes);
  // Constraints are a set, and a class counts what it includes: a lighter class plus constraints
  // never costs more than a heavier class that includes them. Each end is the least reading.
  const [lo, mid, hi] = ["low", "value", "high"].map((end) => {
    let best = null;
    for (const name of classes.slice(classes.indexOf(w.architecture))) {
      const pc = a.porting_classes[name];
      const included = pc.includes || [];
      let total = pc.weeks[end];
      for (const cname of w.constraints || []) {
        const c = a.constraints[cname];
        if (c.effect === "adds-weeks" && c.weeks && appliesOn(c, chip) && !included.includes(cname)) total = total + c.weeks[end];
      }
      best = best === null ? total : Math.min(best, total);
    }
    return best;
  });
  return span(mid * m, lo * m, hi * m);
}

// The stated constraints that rule Trainium out on a generation.
export function excludedBy(w, data, chip) {
  const a = data.assumptions;
  return (w.constraints || []).filter((n) => a.constraints[n].effect === "excludes" && appliesOn(a.constraints[n], chip));
}

function priceSpan(data, c) {
  const p = findPrice(data, c.instance, c.region, c.option);
  const lo = p.low === null ? p.usd_per_hour : p.low;
  const hi = p.high === null ? p.usd_per_hour : p.high;
  return span(p.usd_per_hour, lo, hi);
}

// Every way the catalog sells an instance in a region, in the catalog's order, spot with its own
// pool's rate; a figure AWS no longer lists is no way to buy (resolve.py's ways).
export function ways(data, instance, region) {
  return data.prices.filter((p) => p.instance === instance && p.region === region && p.offered && !p.vanished)
    .map((p) => {
      const own = p.option === "spot" ? spotRate(data, { instance, region }) : null;
      const ir = data.assumptions.spot_interruptions_per_instance_hour;
      const pool = p.option !== "spot" ? null : own === null ? span(ir.value, ir.low, ir.high) : own;
      return { option: p.option, usd_per_hour: p.usd_per_hour, term_hours: termHours(data, p.option), region: p.region,
        interruption: pool, rated: own !== null };
    });
}

// Every way the catalog sells an instance in the regions a workload may use other than the one it
// names, region by region in the workload's order. A workload that lists no regions has named one
// and said nothing about moving, so no other region is compared.
export function waysElsewhere(data, instance, region, allowed) {
  const out = [];
  const seen = new Set([region]);
  for (const r of allowed || []) {
    if (!seen.has(r)) {
      seen.add(r);
      out.push(...ways(data, instance, r));
    }
  }
  return out;
}

function spotRate(data, c) {
  const r = ((data.spot_rates || {})[c.instance] || {})[c.region];
  return r === undefined ? null : span(r.value, r.low, r.high);
}

const heldHours = (c) => (isNone(c.held_months) ? 0.0 : c.held_months * HOURS_PER_MONTH);
const termHours = (data, option) => (option in data.term_hours ? data.term_hours[option] : null);

export function resolve(w, data) {
  const a = data.assumptions;
  const ir = a.spot_interruptions_per_instance_hour;
  const lost = a.spot_hours_lost_per_interruption;
  const eng = a.port_engineers;
  const porting = w.porting || {};
  const availability = w.availability || {};
  const engineers = isNone(porting.engineers) ? span(eng.value, eng.low, eng.high) : span(porting.engineers, porting.engineers, porting.engineers);
  return {
    gpu_hours: gpuInstanceHours(w, data),
    relative_throughput: span(w.relative_throughput.value, w.relative_throughput.low, w.relative_throughput.high),
    trainium_price: priceSpan(data, w.trainium),
    gpu_price: priceSpan(data, w.gpu),
    trainium_spot: w.trainium.option === "spot",
    gpu_spot: w.gpu.option === "spot",
    interruption_rate: span(ir.value, ir.low, ir.high),
    // A side's own rate where the Advisor rates its pool (the calculator's data carries it, converted).
    trainium_interruption_rate: spotRate(data, w.trainium),
    gpu_interruption_rate: spotRate(data, w.gpu),
    horizon_hours: isNone(a.break_even_horizon_years) ? null : a.break_even_horizon_years * HOURS_PER_YEAR,
    lost_hours: span(lost.value, lost.low, lost.high),
    port_weeks: portWeeks(w, data),
    engineer_week_usd: porting.engineer_week_usd || a.engineer_week_usd,
    port_extra_usd: porting.extra_usd || 0,
    runs: w.runs,
    runs_per_architecture: w.runs_per_architecture === undefined ? null : w.runs_per_architecture,
    trainium_count: w.trainium.count || 1,
    gpu_count: w.gpu.count || 1,
    trainium_availability: availability.trainium || "available",
    gpu_availability: availability.gpu || "available",
    needed_within_days: availability.needed_within_days === undefined ? null : availability.needed_within_days,
    finish_within_days: isNone(availability.finish_within_days) ? null : availability.finish_within_days,
    soon_days: a.soon_days,
    close_call_margin: a.close_call_margin,
    excluded_by: excludedBy(w, data, data.instances[w.trainium.instance].chip),
    port_engineers: engineers,
    trainium_lead_days: availability.trainium_lead_days || 0,
    gpu_lead_days: availability.gpu_lead_days || 0,
    trainium_term_hours: termHours(data, w.trainium.option || "on-demand"),
    gpu_term_hours: termHours(data, w.gpu.option || "on-demand"),
    trainium_held_hours: heldHours(w.trainium),
    gpu_held_hours: heldHours(w.gpu),
    plan_hours: isNone(w.plan_months) ? null : w.plan_months * HOURS_PER_MONTH,
    region_excluded: ["trainium", "gpu"].filter((side) => !offered(w, side, data)),
    allowed_regions: w.regions || [],
    port_during_lead: availability.port_during_lead === true,
    trainium_option: w.trainium.option || "on-demand",
    gpu_option: w.gpu.option || "on-demand",
    trainium_ways: ways(data, w.trainium.instance, w.trainium.region),
    gpu_ways: ways(data, w.gpu.instance, w.gpu.region),
    trainium_region: w.trainium.region,
    gpu_region: w.gpu.region,
    trainium_ways_elsewhere: waysElsewhere(data, w.trainium.instance, w.trainium.region, w.regions),
    gpu_ways_elsewhere: waysElsewhere(data, w.gpu.instance, w.gpu.region, w.regions),
    trainium_accepts: accepted(w, "trainium"),
    gpu_accepts: accepted(w, "gpu"),
    block_limits: isNone(a.capacity_blocks) ? null : { ...a.capacity_blocks },
  };
}

// The ways one side accepts: its named way, then the workload's `buy:` list (on-demand when it gives
// none), each once.
export function accepted(w, side) {
  const named = w[side].option || "on-demand";
  const more = isNone(w.buy) ? ["on-demand"] : w.buy;
  return [named, ...more.filter((o) => o !== named)];
}

export function evaluateWorkload(w, data) {
  const inputs = resolve(w, data);
  const outcome = evaluate(inputs);
  // The break-even statement is solved once, for the thresholds, and drawn from there.
  const t = thresholds(inputs, outcome);
  return { inputs, outcome, robustness: robustness(inputs, outcome), thresholds: t,
    single_blocks: singleBlocksSummary(singleBlocks(inputs, outcome)), prices_used: usedPrices(w, data, outcome),
    curve: costCurve(inputs, outcome, t.break_even) };
}

// Every price record the plans use, by side (results.py's used_prices): each plan's way in the region
// it buys in, then the way it buys the hours past its terms, where that is another.
function usedPrices(w, data, o) {
  const out = [];
  for (const side of ["trainium", "gpu"]) {
    const sd = o[side];
    const options = [sd.plan_option];
    if (sd.hourly_hours > 0 && sd.hourly_option && sd.hourly_option !== sd.plan_option) options.push(sd.hourly_option);
    for (const option of options) out.push({ side, ...findPrice(data, w[side].instance, sd.plan_region, option) });
  }
  return out;
}

// The one-block reading of a plan as results publish it (results.py's single_blocks_summary).
function singleBlocksSummary(o) {
  if (o === null) return null;
  return { verdict: o.verdict, trainium_total: o.trainium.total, gpu_total: o.gpu.total, total_difference: o.total_difference,
    booking: { trainium: o.trainium.booking, gpu: o.gpu.booking } };
}

// Publish for classic scripts too (the page wiring), without a bundler.
if (typeof globalThis !== "undefined") {
  globalThis.GuideEngine = { evaluate, robustness, thresholds, costCurve, resolve, evaluateWorkload, checkReferences, findPrice, portsNeeded, rangedInputs };
}
