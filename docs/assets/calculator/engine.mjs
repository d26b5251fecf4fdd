// The calculator's engine: the same arithmetic and rules as generator/engine.py and
// generator/resolve.py, operation for operation, so both give the same numbers to the last bits.
// The parity test (tests/test_parity.py) runs this very file in Node against the Python engine.
// No DOM here: the page wiring lives in calculator.js.

export const RANGE_INPUTS = {
  relative_throughput: ["low", "high"],
  port_weeks: ["high", "low"],
  trainium_price: ["high", "low"],
  gpu_price: ["low", "high"],
  spot_overhead: ["high", "low"],
};

export const RANGE_LABELS = {
  relative_throughput: "relative throughput",
  port_weeks: "port effort",
  trainium_price: "Trainium price",
  gpu_price: "GPU price",
  spot_overhead: "spot interruption overhead",
};

const span = (value, low, high) => ({ value, low, high });
const isRange = (s) => s.low !== s.high;

export function portsNeeded(runs, runsPerArchitecture) {
  if (runsPerArchitecture === null || runsPerArchitecture === undefined) return 1;
  return Math.ceil(runs / runsPerArchitecture);
}

export function evaluate(x) {
  const gpuFactor = x.gpu_spot ? 1 + x.spot_overhead.value : 1.0;
  const trnFactor = x.trainium_spot ? 1 + x.spot_overhead.value : 1.0;
  const gpuHours = x.gpu_hours * gpuFactor;
  const trnHours = x.gpu_hours / x.relative_throughput.value * trnFactor;
  const gpuCost = x.gpu_price.value * gpuHours;
  const trnCost = x.trainium_price.value * trnHours;
  const saving = gpuCost - trnCost;
  const portCost = x.port_weeks.value * x.engineer_week_usd + x.port_extra_usd;
  const ports = portsNeeded(x.runs, x.runs_per_architecture);
  const gpuTotal = x.runs * gpuCost;
  const trnTotal = ports * portCost + x.runs * trnCost;
  const difference = gpuTotal - trnTotal;
  const breakEven = saving > 0 ? portCost / saving : null;
  const trace = [];
  const verdict = decide(x, trace, gpuTotal, trnTotal, difference, saving, portCost, ports, breakEven);
  return {
    trainium: {
      hours_per_run: trnHours, usd_per_hour: x.trainium_price.value, cost_per_run: trnCost,
      wall_clock_hours: trnHours / x.trainium_count, total: trnTotal,
    },
    gpu: {
      hours_per_run: gpuHours, usd_per_hour: x.gpu_price.value, cost_per_run: gpuCost,
      wall_clock_hours: gpuHours / x.gpu_count, total: gpuTotal,
    },
    saving_per_run: saving,
    saving_pct: saving / gpuCost,
    port_cost: portCost,
    ports,
    break_even_runs: breakEven,
    total_difference: difference,
    verdict,
    trace,
  };
}

function step(rule, verdict, text, numbers) {
  return { rule, verdict, text, numbers: numbers || {} };
}

function decide(x, trace, gpuTotal, trnTotal, difference, saving, portCost, ports, breakEven) {
  if (x.excluded_by.length) {
    trace.push(step("hard-constraint", "gpu", "A hard constraint rules Trainium out.", { constraints: x.excluded_by.join(", ") }));
    return "gpu";
  }
  trace.push(step("hard-constraint", null, "No hard constraint rules Trainium out."));

  if (x.trainium_availability === "unavailable") {
    trace.push(step("availability", "gpu", "Trainium cannot be had in the region and window needed."));
    return "gpu";
  }
  if (x.gpu_availability === "unavailable") {
    trace.push(step("availability", "trainium", "The GPU option cannot be had in the region and window needed."));
    return "trainium";
  }
  trace.push(step("availability", null, "Both options can be had."));

  const verdict = trnTotal < gpuTotal ? "trainium" : "gpu";
  const numbers = {
    gpu_total: gpuTotal, trainium_total: trnTotal, difference, saving_per_run: saving,
    port_cost: portCost, ports, break_even_runs: breakEven, runs: x.runs,
  };
  let text;
  if (verdict === "trainium") text = "Over the plan, Trainium costs less, ports included.";
  else if (saving <= 0) text = "Trainium does not cost less per run, so no number of runs repays the port.";
  else text = "Over the plan, the per-run saving does not repay the port cost.";
  trace.push(step("cost", verdict, text, numbers));

  const urgent = x.needed_within_days !== null && x.needed_within_days !== undefined && x.needed_within_days <= x.soon_days;
  const margin = x.close_call_margin;
  if (urgent && verdict === "gpu" && x.gpu_availability === "constrained" && x.trainium_availability === "available") {
    if (trnTotal <= gpuTotal * (1 + margin)) {
      trace.push(step("capacity", "trainium",
        "GPUs are constrained, the run is needed soon, and Trainium is within the close-call margin.",
        { margin, needed_within_days: x.needed_within_days, ratio: trnTotal / gpuTotal }));
      return "trainium";
    }
  } else if (urgent && verdict === "trainium" && x.trainium_availability === "constrained" && x.gpu_availability === "available") {
    if (gpuTotal <= trnTotal * (1 + margin)) {
      trace.push(step("capacity", "gpu",
        "Trainium is constrained, the run is needed soon, and the GPU is within the close-call margin.",
        { margin, needed_within_days: x.needed_within_days, ratio: gpuTotal / trnTotal }));
      return "gpu";
    }
  }
  trace.push(step("capacity", null, "Capacity does not change the cost verdict.",
    { needed_within_days: x.needed_within_days === undefined ? null : x.needed_within_days }));
  return verdict;
}

function at(x, name, end) {
  const s = x[name];
  return { ...x, [name]: span(s[end], s.low, s.high) };
}

// The ends of a range that favour Trainium least and most, found by evaluating both: the
// direction of some inputs depends on the case. Ties keep the usual direction.
export function againstAndFor(x, name) {
  const low = evaluate(at(x, name, "low")).total_difference;
  const high = evaluate(at(x, name, "high")).total_difference;
  if (low === high) return RANGE_INPUTS[name];
  return low < high ? ["low", "high"] : ["high", "low"];
}

export function rangedInputs(x) {
  const names = Object.keys(RANGE_INPUTS).filter((n) => isRange(x[n]));
  if (!(x.trainium_spot || x.gpu_spot)) {
    const i = names.indexOf("spot_overhead");
    if (i >= 0) names.splice(i, 1);
  }
  return names;
}

export function robustness(x, base) {
  base = base || evaluate(x);
  const ends = [];
  const flips = [];
  const names = rangedInputs(x);
  for (const name of names) {
    for (const end of ["low", "high"]) {
      const o = evaluate(at(x, name, end));
      ends.push({ input: name, end, value: x[name][end], verdict: o.verdict, total_difference: o.total_difference });
      if (o.verdict !== base.verdict && !flips.includes(name)) flips.push(name);
    }
  }
  const corners = [0, 1].map((side) => {
    let y = x;
    for (const name of names) y = at(y, name, againstAndFor(x, name)[side]);
    const o = evaluate(y);
    return { input: "all", end: side === 0 ? "against" : "for", value: null, verdict: o.verdict, total_difference: o.total_difference };
  });
  const holds = flips.length === 0 && corners.every((c) => c.verdict === base.verdict);
  return { holds, flips_on: flips, ends, worst_case: corners[0], best_case: corners[1] };
}

export function thresholds(x, o) {
  o = o || evaluate(x);
  const trnFactor = x.trainium_spot ? 1 + x.spot_overhead.value : 1.0;
  const gpuTotal = o.gpu.total;
  const fixed = o.ports * o.port_cost;
  const headroom = gpuTotal - fixed;
  const trnHoursAtParity = x.runs * x.gpu_hours * trnFactor;
  const rel = headroom > 0 ? x.trainium_price.value * trnHoursAtParity / headroom : null;
  const price = headroom > 0 ? headroom * x.relative_throughput.value / trnHoursAtParity : null;
  const perPort = (gpuTotal - x.runs * o.trainium.cost_per_run) / o.ports - x.port_extra_usd;
  const weeks = perPort > 0 ? perPort / x.engineer_week_usd : null;
  let runs = o.break_even_runs;
  if (runs !== null && x.runs_per_architecture !== null && x.runs_per_architecture !== undefined && runs > x.runs_per_architecture) {
    runs = null;
  }
  return { relative_throughput: rel, runs, port_weeks: weeks, trainium_price: price };
}

// --- From a workload (the scenario file's shape) and the baked catalog to the flat inputs. ---

export function findPrice(data, instance, region, option) {
  return data.prices.find((p) => p.instance === instance && p.region === region && p.option === option) || null;
}

// Problems with names that point into the catalog, as [field, message] pairs.
export function checkReferences(w, data) {
  const problems = [];
  for (const side of ["trainium", "gpu"]) {
    const c = w[side];
    const inst = data.instances[c.instance];
    if (!inst) { problems.push([`${side}.instance`, `unknown instance '${c.instance}'`]); continue; }
    if (inst.side !== side) { problems.push([`${side}.instance`, `${c.instance} is a ${inst.side} instance`]); continue; }
    const p = findPrice(data, c.instance, c.region, c.option);
    if (!p) problems.push([`${side}.option`, `no ${c.option} price for ${c.instance} in ${c.region}`]);
    else if (!p.offered) problems.push([`${side}.option`, `${c.instance} is not sold ${c.option} in ${c.region}`]);
  }
  return problems;
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

export function portWeeks(w, data) {
  const porting = w.porting || {};
  if (porting.weeks) return span(porting.weeks.value, porting.weeks.low, porting.weeks.high);
  const a = data.assumptions;
  const base = a.porting_classes[w.architecture].weeks;
  let lo = base.low, mid = base.value, hi = base.high;
  for (const name of w.constraints || []) {
    const c = a.constraints[name];
    if (c.weeks) { lo = lo + c.weeks.low; mid = mid + c.weeks.value; hi = hi + c.weeks.high; }
  }
  const m = a.neuron_experience[w.neuron_experience || "none"];
  return span(mid * m, lo * m, hi * m);
}

function priceSpan(data, c) {
  const p = findPrice(data, c.instance, c.region, c.option);
  const lo = p.low === null ? p.usd_per_hour : p.low;
  const hi = p.high === null ? p.usd_per_hour : p.high;
  return span(p.usd_per_hour, lo, hi);
}

export function resolve(w, data) {
  const a = data.assumptions;
  const so = a.spot_overhead;
  const porting = w.porting || {};
  const availability = w.availability || {};
  const constraints = w.constraints || [];
  return {
    gpu_hours: gpuInstanceHours(w, data),
    relative_throughput: span(w.relative_throughput.value, w.relative_throughput.low, w.relative_throughput.high),
    trainium_price: priceSpan(data, w.trainium),
    gpu_price: priceSpan(data, w.gpu),
    trainium_spot: w.trainium.option === "spot",
    gpu_spot: w.gpu.option === "spot",
    spot_overhead: span(so.value, so.low, so.high),
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
    soon_days: a.soon_days,
    close_call_margin: a.close_call_margin,
    excluded_by: constraints.filter((n) => a.constraints[n].effect === "excludes"),
  };
}

export function evaluateWorkload(w, data) {
  const inputs = resolve(w, data);
  const outcome = evaluate(inputs);
  return { inputs, outcome, robustness: robustness(inputs, outcome), thresholds: thresholds(inputs, outcome) };
}

// Publish for classic scripts too (the page wiring), without a bundler.
if (typeof globalThis !== "undefined") {
  globalThis.GuideEngine = { evaluate, robustness, thresholds, resolve, evaluateWorkload, checkReferences, findPrice, portsNeeded, rangedInputs, RANGE_LABELS };
}

// Cumulative cost of both sides against runs, from none to past the plan and the break-even, at
// about a hundred points (generator/engine.py: cost_curve).
export function costCurve(x, o) {
  let horizon = Math.max(x.runs, 2);
  if (o.break_even_runs !== null) horizon = Math.max(horizon, Math.floor(o.break_even_runs * 1.5) + 1);
  horizon = Math.max(Math.min(horizon, 400), x.runs);
  const step = Math.max(1, Math.floor(horizon / 100));
  const counts = [];
  for (let n = 0; n <= horizon; n += step) counts.push(n);
  if (counts[counts.length - 1] !== horizon) counts.push(horizon);
  const rpa = x.runs_per_architecture === undefined ? null : x.runs_per_architecture;
  const rows = counts.map((n) => {
    const ports = n === 0 ? 0 : portsNeeded(n, rpa);
    return { runs: n, gpu: n * o.gpu.cost_per_run, trainium: ports * o.port_cost + n * o.trainium.cost_per_run };
  });
  let crossing = o.break_even_runs;
  if (crossing !== null && (crossing > horizon || (rpa !== null && crossing > rpa))) crossing = null;
  return { rows, crossing };
}
