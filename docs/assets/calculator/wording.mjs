// What a reader is told about one evaluated workload: every sentence, label and formatted figure.
// The same function as generator/model/wording.py, giving the same strings (tests/test_parity.py). It
// takes the workload as evaluateWorkload returns it, the engine's cost curve and the two prices'
// source and date, and returns plain data; wiring.mjs only escapes and places it. The end of this
// module holds the calculator page's own messages (its fields, link, buttons and download).
// Rules, inputs and thresholds this layer does not know get a generic label from their name.
import * as f from "./format.mjs";

// The engine's own words (engine.mjs places them in its trace), as in generator/model/wording.py.
export const SIDE_LABELS = { trainium: "Trainium", gpu: "The GPU option" };
export const RANGE_LABELS = {
  relative_throughput: "relative throughput",
  port_weeks: "port effort",
  trainium_price: "Trainium price",
  gpu_price: "GPU price",
  interruption_rate: "spot interruptions per instance-hour",
  trainium_interruption_rate: "spot interruptions per instance-hour on Trainium",
  gpu_interruption_rate: "spot interruptions per instance-hour on the GPU",
  lost_hours: "hours of work lost per spot interruption",
  port_engineers: "engineers on the port",
};
export const STEPS = {
  "both-can-run": "Both sides can run: no constraint, region or availability rules either out.",
  "trainium-late": "Trainium cannot start by the deadline: the port and any lead time take longer.",
  "gpu-late": "The GPU option cannot start by the deadline; Trainium can.",
  "both-on-time": "Both sides can start by the deadline.",
  "both-late-same-day": "Neither side can start by the deadline, and both start on the same day.",
  "cost-trainium": "Over the plan, Trainium costs less, ports included.",
  "cost-committed": "Over the plan, with each commitment paid for its whole term, Trainium does not cost less.",
  "cost-no-saving": "Trainium does not cost less per run, so no number of runs repays the port.",
  "cost-no-architecture-repays": "No architecture lasts enough runs to repay its own port.",
  "cost-not-repaid": "Over the plan, the per-run saving does not repay the port cost.",
  "capacity-trainium": "GPUs are constrained, the run is needed soon, and Trainium is within the close-call margin.",
  "capacity-gpu": "Trainium is constrained, the run is needed soon, and the GPU is within the close-call margin.",
  "capacity-unchanged": "Capacity does not change the cost verdict.",
};
// Ways to buy as a sentence names them.
export const OPTION_WORDS = {
  "on-demand": "on-demand", spot: "spot", "commit-1y": "1-year commitment", "commit-3y": "3-year commitment",
  "capacity-block": "Capacity Block",
};
const optionWords = (option) => OPTION_WORDS[option] ?? option;
export const SOONEST = { trainium: "Trainium starts soonest.", gpu: "the GPU option starts soonest." };
export const REASONS = {
  unavailable: "it cannot be had in the region and window needed",
  "spot-cannot-finish": "on spot at this scale a run cannot be expected to finish: interruptions cost as many hours " +
    "of progress as it runs, or more",
};
export const ruledOutBy = (constraints) => "a hard constraint rules it out (" + constraints.join(", ") + ")";
export const notOfferedIn = (regions) => "it is not offered in any region the workload may use (" + regions.join(", ") + ")";
export const blocksCannotHold = (across) =>
  `Capacity Blocks hold at most ${f.count(across)} instances across an organisation's blocks, fewer than it runs at once`;

// How a plan's parts are bought, as a buyer says it.
const TERM_WORDS = { "commit-1y": "1-year term", "commit-3y": "3-year term" };
const HOURLY_WORDS = { "on-demand": "on demand", "capacity-block": "on Capacity Blocks", spot: "on spot" };
const SMALL_COUNTS = { 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine" };
const termsWords = (n, option) => `${SMALL_COUNTS[n] || f.count(n)} ${TERM_WORDS[option]}${n === 1 ? "" : "s"}`;

// How one side's plan is bought: held hours first, whole terms, then what is bought by the hour.
export function planBought(x, sd, side) {
  const option = sd.plan_option, region = sd.plan_region;
  const where = region && region !== (x[side + "_region"] || "") ? ` in ${region}` : "";
  if (!(option in TERM_WORDS)) {
    const whole = option === "capacity-block" && x.block_limits ? ", each run booked as whole days" : "";
    return `by the hour ${HOURLY_WORDS[option] ?? option}${where}${whole}`;
  }
  const held = x[side + "_held_hours"], terms = sd.committed_terms, hourly = sd.hourly_hours;
  const byHour = HOURLY_WORDS[sd.hourly_option] ?? sd.hourly_option;
  if (hourly && !(held || terms)) return `no ${TERM_WORDS[option]}: the whole plan ${byHour}${where}`;
  const parts = [];
  if (held) parts.push(`the ${f.count(held)} hours still held`);
  if (terms) parts.push(termsWords(terms, option));
  if (hourly) parts.push(`the plan's last ${f.count(hourly)} hours ${byHour}`);
  return (parts.join(", then ") || "nothing more to buy") + where;
}
export const neitherCanRun = (trn, gpu) => `Neither side can run. Trainium: ${trn}. The GPU option: ${gpu}.`;
export const cannotRun = (side, reasons) => `${SIDE_LABELS[side]} cannot run: ${reasons}.`;
export const neitherOnTime = (soonest) => "Neither side can start by the deadline; " + SOONEST[soonest];

// One reason a side cannot run (engine.mjs's infeasibility: a code and its detail), as a sentence part.
export function reasonText([code, detail]) {
  if (code === "ruled-out") return ruledOutBy(detail);
  if (code === "not-offered") return notOfferedIn(detail);
  if (code === "blocks-cannot-hold") return blocksCannotHold(detail);
  return REASONS[code] ?? generic(code);
}
const reasonsText = (reasons) => reasons.map(reasonText).join("; ");

// The sentence for what one step of the decision found.
export function stepText(s) {
  const code = s.code, n = s.numbers || {};
  if (code === "neither-can-run") return neitherCanRun(reasonsText(n.trainium_reasons), reasonsText(n.gpu_reasons));
  if (code === "trainium-cannot-run" || code === "gpu-cannot-run") {
    const side = code.split("-")[0];
    return cannotRun(side, reasonsText(n[side + "_reasons"]));
  }
  if (code === "neither-on-time") return neitherOnTime(s.verdict);
  const text = generic(code);
  return STEPS[code] ?? text.slice(0, 1).toUpperCase() + text.slice(1) + ".";
}

// An outcome with its codes said in words, as wording.py's worded gives it.
export function worded(o) {
  const out = { ...o };
  for (const side of ["trainium", "gpu"]) out[side] = { ...o[side], reasons: o[side].reasons.map(reasonText) };
  out.trace = o.trace.map((s) => {
    const numbers = Object.fromEntries(Object.entries(s.numbers || {}).map(([k, v]) => [k, k.endsWith("_reasons") ? reasonsText(v) : v]));
    return { rule: s.rule, verdict: s.verdict, text: stepText(s), numbers };
  });
  return out;
}

export const RULE_LABELS = {
  feasibility: "Feasibility",
  cost: "Cost over the plan",
  deadline: "Deadline",
  capacity: "Capacity and urgency",
};
export const VERDICT_LABELS = { trainium: "Trainium", gpu: "GPU", hybrid: "Hybrid", neither: "Neither" };
const ROBUST_WORDS = {
  robust: "robust",
  joint: "changes only when several inputs are at their worst at once",
};
const THRESHOLD_LABELS = {
  relative_throughput: "relative throughput",
  runs: "runs",
  port_weeks: "port effort",
  trainium_price: "Trainium price",
};

const generic = (name) => name.replace(/_/g, " ").replace(/-/g, " ");


export function ruleLabel(rule) {
  const text = generic(rule);
  return RULE_LABELS[rule] ?? text.slice(0, 1).toUpperCase() + text.slice(1);
}

export const rangeLabel = (name) => RANGE_LABELS[name] ?? generic(name);

const plural = (n, word) => `${word === "run" ? f.runs(n) : f.count(n)} ${word}${n === 1 ? "" : "s"}`;

export function rangeValue(name, v) {
  if (name === "relative_throughput") return f.ratio(v);
  if (name === "port_weeks") return v === null || v === undefined ? f.NONE : f.weeks(v) + (v === 1 ? " engineer-week" : " engineer-weeks");
  if (name === "trainium_price" || name === "gpu_price") return f.hourly(v);
  if (v === null || v === undefined) return f.NONE;
  if (name === "interruption_rate" || name === "trainium_interruption_rate" || name === "gpu_interruption_rate") return f.rate(v) + " per instance-hour";
  if (name === "lost_hours") return f.hours(v);
  if (name === "port_engineers") return f.weeks(v) + (v === 1 ? " engineer" : " engineers");
  return f.num(v, 2);
}

const cell = (key, value, text) => ({ key, value, text });

function step(s, runs) {
  const n = s.numbers || {};
  let text = s.text;
  if (s.rule === "cost" && "gpu_total" in n) {
    const planRuns = "runs" in n ? n.runs : runs;
    text += ` GPU ${f.money(n.gpu_total)} against Trainium ${f.money(n.trainium_total)} ` +
      `(${plural(n.ports, "port")} at ${f.money(n.port_cost)} plus ${plural(planRuns, "run")}).`;
  } else if (s.rule === "capacity" && s.verdict && "ratio" in n) {
    text += ` The other side's plan costs ${f.ratio(n.ratio)} as much; the margin is ${f.pct(n.margin)}.`;
  } else if (s.rule === "deadline" && "trainium_ready_days" in n) {
    text += ` Needed within ${f.days(n.needed_within_days)}; Trainium can start in ` +
      `${f.days(n.trainium_ready_days)}, the GPU in ${f.days(n.gpu_ready_days)}.`;
    if (n.trainium_late_days && n.gpu_late_days) {
      text += ` Trainium ${f.days(n.trainium_late_days)} late, the GPU ${f.days(n.gpu_late_days)} late.`;
    }
  }
  const decides = s.verdict;
  // The rule's own sentence without the figures: short enough for a row of the scenarios index and
  // the calculator's summary.
  const reason = s.text;
  return {
    rule: s.rule,
    label: ruleLabel(s.rule),
    text,
    reason,
    decides,
    decides_text: decides ? `Decides: ${VERDICT_LABELS[decides]}.` : "",
  };
}

export function robustState(rob) {
  if (rob.flips_on.length) return "flips";
  if (rob.joint_flip || !rob.holds) return "joint";
  return "robust";
}

export function robustWords(state, flipsOn) {
  if (state === "flips") return "flips on " + flipsOn.map(rangeLabel).join(", ");
  return ROBUST_WORDS[state];
}

function robustnessOf(rob, verdict) {
  const state = robustState(rob);
  const names = rob.flips_on.map(rangeLabel);
  let first;
  if (state === "robust") {
    first = "Robust: no single input moved across its range changes the verdict, " +
      "and neither do all of them at their worst or best at once.";
  } else if (state === "joint") {
    first = "No single input moved across its range changes the verdict; " +
      "it changes only when several inputs are at their worst at once.";
  } else if (names.length === 1) {
    first = `Flips on ${names[0]}: moving it to one end of its range changes the verdict.`;
  } else {
    first = `Flips on ${names.join(", ")}: moving any one of them to one end of its range changes the verdict.`;
  }
  const worst = rob.worst_case.verdict, best = rob.best_case.verdict;
  const sentence = `${first} With every range at the end least favourable to Trainium the verdict is ` +
    `${VERDICT_LABELS[worst]}; at the most favourable end it is ${VERDICT_LABELS[best]}.`;
  const ends = rob.ends.map((e) => ({
    input: e.input, label: rangeLabel(e.input), end: e.end,
    value: e.value, value_text: rangeValue(e.input, e.value),
    verdict: e.verdict, verdict_label: VERDICT_LABELS[e.verdict],
    difference: e.total_difference, difference_text: f.money(e.total_difference),
  }));
  return { state, words: robustWords(state, rob.flips_on), sentence, ends, verdict_label: VERDICT_LABELS[verdict] };
}

// Whether n runs at the plan's pace take longer than the horizon the data sets for a break-even.
function beyond(n, x, o) {
  const pace = Number.isFinite(o.pace_hours) ? o.pace_hours : null;
  const horizon = x.horizon_hours ?? null;
  return pace !== null && horizon !== null && n * pace > horizon;
}

const notWithin = (x) => `not within ${f.calendar(x.horizon_hours)} at this pace`;

// A count of runs (`text`, as it reads) with the calendar time the runs take at the plan's pace;
// past the horizon, that it is not within it instead of the count.
function atPace(text, n, x, o) {
  if (beyond(n, x, o)) return notWithin(x);
  const pace = Number.isFinite(o.pace_hours) ? o.pace_hours : null;
  if (pace === null || n <= 1) return text;
  return `${text} (${f.calendar(n * pace)} at the plan's pace)`;
}

function thresholdsOf(t, x, o) {
  // The break-even statement is told in the summary's break-even row, not as a value here.
  const names = Object.keys(THRESHOLD_LABELS).filter((n) => n in t)
    .concat(Object.keys(t).filter((n) => !(n in THRESHOLD_LABELS) && n !== "break_even"));
  const items = names.map((name) => {
    const v = t[name];
    let text;
    if (v === null || v === undefined) text = f.NO_CROSSING;
    else if (name === "runs") text = atPace(f.breakEven(v), v, x, o);
    else text = rangeValue(name, v);
    return { key: `threshold.${name}`, label: THRESHOLD_LABELS[name] ?? generic(name), value: v ?? null, text };
  });
  return { intro: "Where both sides cost the same over the plan, other inputs held:", parts: items };
}

function leadOf(x, rob, t) {
  const at = t.relative_throughput;
  if (!rob.flips_on.includes("relative_throughput") || at === null || at === undefined) return null;
  const r = x.relative_throughput;
  return `Trainium wins if it reaches at least ${f.ratio(at)} the GPU's throughput. ` +
    `This case puts it at ${f.ratio(r.value)}, within a range of ${f.ratio(r.low)} to ${f.ratio(r.high)}.`;
}

// Whether a side's plan is bought on spot: another way chosen, or the named way kept.
const onSpot = (x, o, side) => o[side].plan_option === "spot" || (o[side].plan_option === (x[side + "_option"] ?? "") && Boolean(x[side + "_spot"]));

// Whether either side's plan is bought on a commitment (whatever way it was named).
const committed = (o) => (o.trainium.term_hours ?? null) !== null || (o.gpu.term_hours ?? null) !== null;

// Runs at which Trainium starts to cost less: per run, or under a commitment the plan's crossing.
function breakEvenValue(x, o, t) {
  if (o.break_even_runs !== null) return o.break_even_runs;
  return committed(o) ? (t.runs ?? null) : null;
}

// The break-even statement over plan lengths, when it says more than one number.
function planLengths(b, x, o) {
  if (!b) return "";
  if (b.kind === "between") return `; Trainium costs less only for plans of ${f.runs(b.first)} to ${atPace(plural(b.last, "run"), b.last, x, o)}`;
  if (b.kind === "from" && b.first_for_good !== b.first) {
    if (beyond(b.first_for_good, x, o)) return `; every longer plan costs less on Trainium only beyond ${f.calendar(x.horizon_hours)} at this pace`;
    return `; Trainium costs less for every plan of ${atPace(plural(b.first_for_good, "run"), b.first_for_good, x, o)} or more`;
  }
  return "";
}

function breakEven(x, o, t) {
  const be = o.break_even_runs;
  if (be !== null) {
    if (beyond(be, x, o)) return notWithin(x);
    if (x.runs_per_architecture !== null && x.runs_per_architecture !== undefined) return `${atPace(f.breakEven(be), be, x, o)}: Trainium costs less for every plan this long or longer`;
    return atPace(f.breakEven(be), be, x, o);
  }
  if (committed(o)) {
    const first = t.runs ?? null;
    if (first === null) return `${f.NO_CROSSING}: Trainium's plan never costs less, and a commitment is paid by the term`;
    if (beyond(first, x, o)) return notWithin(x);
    const pace = Number.isFinite(o.pace_hours) ? o.pace_hours : null;
    const when = pace !== null && first > 1 ? `, ${f.calendar(first * pace)} at its pace` : "";
    return `${f.runs(first)} (plan${when}): the first run at which Trainium's plan costs less; ` +
      "a commitment is paid by the term, so no single run repays the port" + planLengths(t.break_even, x, o);
  }
  if (o.saving_per_run > 0) {
    const needs = o.port_cost / o.saving_per_run;
    const repay = beyond(needs, x, o) ? `takes longer than ${f.calendar(x.horizon_hours)} at this pace`
      : `needs ${atPace(f.runs(needs) + " runs", needs, x, o)}`;
    return `never: one port ${repay} to repay, and each architecture lasts ${plural(x.runs_per_architecture, "run")}`;
  }
  return `${f.NO_CROSSING}: Trainium never saves per run`;
}

// When a side's price is one end of the range its sources give and cost decided, say so by the verdict.
function priceNotes(o) {
  const decided = o.trace.filter((s) => s.verdict).map((s) => s.rule);
  if (!decided.length || !["cost", "capacity"].includes(decided[decided.length - 1])) return [];
  const notes = [];
  for (const side of ["trainium", "gpu"]) {
    const sd = o[side];
    const basis = sd.price_basis;
    if (basis !== "low" && basis !== "high") continue;
    const favours = basis === "low" ? side : (side === "trainium" ? "gpu" : "trainium");
    notes.push({ side, basis, text:
      `The ${VERDICT_LABELS[side]} price used, ${f.hourly(sd.usd_per_hour)}, is the ` +
      `${basis === "low" ? "lowest" : "highest"} figure the sources give (${f.hourly(sd.price_low)} to ` +
      `${f.hourly(sd.price_high)}): the end most favourable to ${VERDICT_LABELS[favours]}. ` +
      `Both ends are evaluated under "Does the verdict hold?".` });
  }
  return notes;
}

// Beside a price that is one end of (or inside) the range its sources give: which end, and the
// verdict at the other end, from the robustness ends the engine evaluated.
function priceMarks(o, rob) {
  const marks = {};
  for (const side of ["trainium", "gpu"]) {
    const sd = o[side];
    const basis = sd.price_basis;
    if (!["low", "high", "inside"].includes(basis)) continue;
    const at = {};
    for (const e of rob.ends) if (e.input === `${side}_price`) at[e.end] = VERDICT_LABELS[e.verdict];
    const span = `${f.hourly(sd.price_low)} to ${f.hourly(sd.price_high)}`;
    let text, others;
    if (basis === "inside") {
      text = `inside the sources' range, ${span}`;
      others = ["low", "high"].filter((end) => end in at).map((end) => `at the ${end} end: ${at[end]}`);
    } else {
      text = `the ${basis === "low" ? "lowest" : "highest"} of the sources' figures, ${span}`;
      const other = basis === "low" ? "high" : "low";
      others = other in at ? [`at the ${other} end: ${at[other]}`] : [];
    }
    marks[side] = { basis, text: [text, ...others].join("; ") };
  }
  return marks;
}

// What to say beside relative throughput, the input no public benchmark measures: where the
// verdict flips, when cost over the plan decides it.
function guessOf(x, t, steps) {
  const at = t.relative_throughput ?? null;
  const decided = steps.filter((s) => s.decides);
  const rule = decided.length ? decided[decided.length - 1].rule : null;
  if (rule === "capacity" && at !== null) {
    return { flip: at, text: `Both sides cost the same at ${f.ratio(at)}; near it, capacity and urgency decide the verdict.` };
  }
  if (rule !== "cost" && rule !== "capacity") {
    const label = decided.length ? decided[decided.length - 1].label.toLowerCase() : "the rules";
    return { flip: null, text: `No value flips the verdict, which is decided by ${label}, not by cost.` };
  }
  if (at === null) {
    return { flip: null, text: `Where the verdict flips: ${f.NO_CROSSING}; no value makes the two sides cost the same over the plan.` };
  }
  return { flip: at, text: `The verdict flips at ${f.ratio(at)}: above it Trainium costs less over the plan, below it the GPU.` };
}

// The answer in three lines, for the summary that stays in view while the reader edits.
function glanceOf(o, steps, words) {
  const d = o.total_difference;
  const saving = !Number.isFinite(d) ? "A side that cannot run has no cost over the plan"
    : d === 0 ? "Both sides cost the same over the plan"
    : `${d > 0 ? "Trainium" : "The GPU"} costs ${f.money(Math.abs(d))} less over the plan`;
  const decided = steps.filter((s) => s.decides);
  if (!decided.length) return { saving: saving + ", ports included.", reason: "", why: "" };
  const last = decided[decided.length - 1];
  let line = saving + ", ports included.";
  if (last.rule === "feasibility") {
    // A side that cannot run has no cost worth setting against the other's.
    const who = { neither: "Neither side can run", trainium: "The GPU option cannot run", gpu: "Trainium cannot run" };
    line = (who[o.verdict] ?? "One side cannot run") + ", so cost is not compared.";
  }
  // Under cost the saving line already says why; under any other rule the rule's sentence does.
  const detail = last.rule === "cost" ? "" : `: ${last.reason.replace(/\.+$/, "")}`;
  return { saving: line, reason: `Decided by ${last.label.toLowerCase()}${detail}; ${words}.`, why: last.reason };
}

function summaryOf(x, o, t) {
  const pair = (label, name, fmt) => ({
    label,
    trainium: cell(`trainium.${name}`, o.trainium[name], fmt(o.trainium[name])),
    gpu: cell(`gpu.${name}`, o.gpu[name], fmt(o.gpu[name])),
  });
  const sides = [
    pair("Instance-hours per run", "hours_per_run", (v) => f.num(v, 1)),
    pair("Cost per run", "cost_per_run", f.money),
    pair("Wall-clock per run", "wall_clock_hours", f.hours),
  ];
  // A plan bought by the hour has no terms to report.
  if (committed(o)) {
    const terms = {}, used = {};
    for (const side of ["trainium", "gpu"]) {
      const sd = o[side];
      const paid = (sd.utilisation ?? null) !== null;
      terms[side] = cell(`${side}.committed_terms`, sd.committed_terms,
        paid ? `${f.count(sd.committed_terms)}, paid whether used or not` : "none: paid by the hour used");
      used[side] = paid ? cell(`${side}.utilisation`, sd.utilisation, f.pct(sd.utilisation)) : cell(null, null, "no commitment");
    }
    sides.push({ label: "Commitment terms bought", ...terms });
    sides.push({ label: "Share of the reserved hours the plan uses", ...used });
  }
  if (onSpot(x, o, "trainium") || onSpot(x, o, "gpu")) {
    const spot = {};
    for (const side of ["trainium", "gpu"]) {
      const n = x[`${side}_count`];
      spot[side] = cell(`${side}.spot_overhead`, o[side].spot_overhead, onSpot(x, o, side)
        ? `${f.pct(o[side].spot_overhead)}: ${plural(n, "instance")} × ${f.rate((x[`${side}_interruption_rate`] || x.interruption_rate).value)} ` +
          `interruptions an instance-hour (${spotBasis(x, side)}) × ${f.hours(x.lost_hours.value)} lost each`
        : "none: not on spot");
    }
    sides.push({ label: "Extra hours for spot interruptions", ...spot });
  }
  let lead = "";
  if (x.trainium_lead_days) {
    lead = x.port_during_lead ? " or the wait for capacity, whichever is longer (ported while waiting)"
      : " and the wait for capacity, one after the other";
  }
  const gpuDays = o.gpu.ready_days, trnDays = o.trainium.ready_days;
  // A team already on Neuron has no port to wait for (wording.py).
  const trnText = !trnDays ? "at once" : !o.port_calendar_days ? `in ${f.days(trnDays)}, the wait for capacity`
    : `in ${f.days(trnDays)}, after the port${lead}`;
  sides.push({
    label: "First run can start",
    trainium: cell("trainium.ready_days", trnDays, trnText),
    gpu: cell("gpu.ready_days", gpuDays, gpuDays ? `in ${f.days(gpuDays)}` : "at once"),
  });
  // Said wherever a plan is not simply the named way by the hour: a term, another way or region, blocks.
  if (committed(o) || ["trainium", "gpu"].some((side) => o[side].plan_option !== x[side + "_option"]
    || o[side].plan_region !== x[side + "_region"] || o[side].plan_option === "capacity-block")) {
    const row = { label: "How the plan is bought" };
    for (const side of ["trainium", "gpu"]) row[side] = cell(`${side}.plan_option`, o[side].plan_option, planBought(x, o[side], side));
    sides.push(row);
  }
  sides.push(pair(`Total over ${plural(x.runs, "run")}`, "total", f.money));
  // The verdict buys each side the cheapest way it accepts; a cheaper way it does not accept is advice.
  if (["trainium", "gpu"].some((side) => (o[side].options || []).length)) {
    const row = { label: "Cheapest way to buy this plan's compute" };
    for (const side of ["trainium", "gpu"]) {
      const sd = o[side];
      row[side] = cell(`${side}.cheaper_by`, sd.cheaper_by, cheapestWay(x, sd, side));
    }
    sides.push(row);
  }
  return {
    sides,
    rows: [
      { label: "Saving per run on Trainium", ...cell("saving_per_run", o.saving_per_run, savingText(o.saving_per_run, o.saving_pct)) },
      { label: "Cost of one port", ...cell("port_cost", o.port_cost, f.money(o.port_cost)) },
      { label: "Ports over the plan", ...cell("ports", o.ports, f.count(o.ports)) },
      { label: "Break-even runs", ...cell("break_even_runs", breakEvenValue(x, o, t), breakEven(x, o, t)) },
      { label: "GPU total minus Trainium total", ...cell("total_difference", o.total_difference, f.money(o.total_difference)) },
    ],
  };
}

// The cheapest way to buy one side's compute against the named way; a region is named only when the
// cheaper way is in another region than the named one.
// Where a side's interruption rate comes from: its pool's rating, or the guide's own default.
const spotBasis = (x, side) => (x[`${side}_interruption_rate`] ? "the Spot Instance Advisor's band for this pool" : "the guide's default");

export function savingText(saving, share) {
  if (share === null) return `${f.money(saving)} (the GPU plan costs nothing more: its reservation is already paid)`;
  return `${f.money(saving)} (${f.pct(share)} of the GPU plan's cost)`;
}

function cheapestWay(x, sd, side) {
  const planned = optionWords(sd.plan_option);
  const here = sd.plan_region || "", there = sd.cheapest_region || "";
  if (!sd.feasible) {
    if ((sd.compute_total ?? null) === null && (sd.options || []).length) {
      // No way the side accepts can run the plan; one it does not accept can.
      const cost = Math.min(...sd.options.map((o) => o[1]));
      return `not accepted, but ${optionWords(sd.cheapest_option)} in ${there} could run it for ${f.money(cost)}`;
    }
    return "not compared: this side cannot run"; // ways to buy matter only to a side that can run
  }
  if (!(sd.cheaper_by > 0)) return sd.plan_option === x[side + "_option"] ? `${planned}, as named` : `${planned}, the cheapest way accepted`;
  // A plan that buys no term pays what it buys by the hour (wording.py).
  const noTerm = sd.plan_option in TERM_WORDS && sd.hourly_hours && !(sd.committed_terms || x[side + "_held_hours"]);
  const gain = `${f.money(sd.cheaper_by)} less than ${noTerm ? optionWords(sd.hourly_option) : planned}`;
  if (there && there !== here) return `${optionWords(sd.cheapest_option)} in ${there}, ${gain} in ${here}, if the team would buy it so`;
  return `${optionWords(sd.cheapest_option)}, ${gain}, if the team would buy it so`;
}

function chartOf(x, o, curve, prices) {
  const rows = [];
  for (const p of curve.rows) {
    rows.push({ runs: p.runs, side: "GPU", cost: p.gpu });
    rows.push({ runs: p.runs, side: "Trainium", cost: p.trainium });
  }
  const horizon = curve.rows.length ? curve.rows[curve.rows.length - 1].runs : x.runs;
  // Labels sit on two rows so they stay readable when the plan and the break-even are close, and
  // turn to the left of their line near the right edge so they never run into the legend.
  const mark = (runs, label, row) => ({ runs, label, row, end: runs > 0.6 * horizon ? "right" : "left" });
  const marks = [mark(x.runs, `plan: ${plural(x.runs, "run")}`, 10)];
  const crossing = curve.crossing;
  if (crossing !== null && crossing !== undefined) {
    marks.push(mark(crossing, `break-even: ${crossing <= 1 ? f.FIRST_RUN : plural(crossing, "run")}`, 26));
  }
  const asOf = [f.date(prices.trainium.as_of), f.date(prices.gpu.as_of)].sort().pop();
  const source = sourceLine(prices);
  const ports = o.ports;
  const be = crossing === null || crossing === undefined ? "never breaks even"
    : crossing <= 1 ? "pays the port back in the first run" : `breaks even after ${plural(crossing, "run")}`;
  const summary = `Over ${plural(x.runs, "run")} the GPU side costs ${f.money(o.gpu.total)} and the Trainium side ` +
    `${f.money(o.trainium.total)}, including ${plural(ports, "port")} at ${f.money(o.port_cost)}` +
    `${ports === 1 ? "" : " each"}. Trainium ${be}.`;
  return {
    rows, marks, source, as_of: asOf,
    subtitle: `Source: ${source}. Figures as of ${asOf}.`,
    interp: x.runs_per_architecture || committed(o) ? "step-after" : "linear",
    summary,
  };
}

// Where a workload's two prices come from, each source by its name and date (a chart copied into a
// post has no sources page to decode a key on), each once.
export function sourceLine(prices) {
  const named = [];
  for (const side of ["trainium", "gpu"]) {
    const p = prices[side];
    const text = `${p.name || p.source} (${f.date(p.as_of)})`;
    if (!named.includes(text)) named.push(text);
  }
  return "prices from " + named.join(" and ");
}

export function present(result, curve, prices) {
  const { inputs: x, robustness: rob, thresholds: t } = result;
  const o = worded(result.outcome);
  const verdict = o.verdict;
  const robustness = robustnessOf(rob, verdict);
  const steps = o.trace.map((s) => step(s, x.runs));
  return {
    verdict,
    verdict_label: VERDICT_LABELS[verdict],
    lead: leadOf(x, rob, t),
    live: `Verdict: ${VERDICT_LABELS[verdict]}, ${robustness.words}.`,
    trace: steps,
    glance: glanceOf(o, steps, robustness.words),
    guess: guessOf(x, t, steps),
    summary: summaryOf(x, o, t),
    price_notes: priceNotes(o),
    price_marks: priceMarks(o, rob),
    robustness,
    thresholds: thresholdsOf(t, x, o),
    chart: chartOf(x, o, curve, prices),
  };
}

// ------------------------------------------------------------------------------------------------
// The calculator's own messages: what the form says about a field, a shared link, a button, the
// chart's accessible name and the scenario file it offers for download. Only the calculator page
// says these (a scenario page has no form), so they have no counterpart in wording.py, except
// where noted. wiring.mjs calls these and escapes what they return wherever it lands.
// ------------------------------------------------------------------------------------------------

// A number field's checks (the bounds come from the field table, generator/rendering/calculator_fields.py).
export const ENTER_A_NUMBER = "Enter a number.";
export const ENTER_A_FINITE_NUMBER = "Enter a finite number.";
export const ENTER_A_WHOLE_NUMBER = "Enter a whole number.";
// A bound as the schema writes it, grouped by thousands where it is whole (the schema's are).
const bound = (x) => (Number.isInteger(x) ? f.count(x) : String(x));
export const mustBeMoreThan = (above) => `Must be more than ${bound(above)}.`;
export const mustBeAtLeast = (min) => `Must be at least ${bound(min)}.`;
export const mustBeAtMost = (max) => `Must be at most ${bound(max)}.`;

// A value and the range the reader gives it (what: the range's label, rangeLabel above), saying
// which way to move what.
export const rangeReversed = (what, low, high) => `The low end (${low}) is above the high end (${high}) of the ${what} range.`;
export const valueBelowRange = (what, value, low) =>
  `${value} is below this range's low end (${low}): lower the low end, or raise the ${what}.`;
export const valueAboveRange = (what, value, high) =>
  `${value} is above this range's high end (${high}): raise the high end, or lower the ${what}.`;
export const lowEndAboveValue = (what, low, value) =>
  `The low end (${low}) is above the ${what} itself (${value}): the range must contain it.`;
export const highEndBelowValue = (what, high, value) =>
  `The high end (${high}) is below the ${what} itself (${value}): the range must contain it.`;

// The form's other checks. generator/model/schema.py refuses a scenario file with both sides
// unavailable in its own (lower-case, validation) words.
export const BOTH_UNAVAILABLE = "Both sides are unavailable: there is nothing to compare.";
export const HELD_NEEDS_COMMITMENT = "Only for a 1- or 3-year commitment.";

// What checkReferences (engine.mjs) finds about one side's instance or purchase option, in a
// reader's words. generator/model/resolve.py says "... is not sold ... in ..." to a scenario author.
const FORM_SIDES = { trainium: "Trainium", gpu: "GPU" };
export function referenceError(w, [field, message]) {
  if (field === "regions") {
    return `Neither ${w.trainium.instance} nor ${w.gpu.instance} is offered in ${w.regions.join(", ")}: there is nothing to compare.`;
  }
  const [side, what] = field.split(".");
  const c = w[side];
  const name = FORM_SIDES[side];
  if (what === "instance") return c.instance ? `${c.instance} is not a ${name} instance this guide knows.` : `Choose a ${name} instance.`;
  if (what === "region") return `The workload may only use ${w.regions.join(", ")}: choose one of them for ${c.instance}.`;
  if (message.startsWith("no ")) return `This guide has no ${c.option} price for ${c.instance} in ${c.region}.`;
  return `${c.instance} is not sold ${c.option} in ${c.region}.`;
}

// While a field is wrong: the answer kept for the last valid inputs, or none yet.
const markedFields = (count) => (count === 1 ? "the field marked above" : `the ${count} fields marked above`);
export const staleAnswer = (count) => `Fix ${markedFields(count)}: the answer below is still the one for the last valid inputs.`;
export const noAnswerYet = (count) => `Fix ${markedFields(count)} to see the answer.`;

// The prices line under the form. Each side's part is placed as given (wiring.mjs builds it as
// escaped markup, with the price's mark); priceSource is that part's tail.
export const priceSource = (name, asOf) => `, from ${name}, ${asOf}`;
export const pricesLine = (trainium, gpu) => `Trainium ${trainium}. GPU ${gpu}.`;

// The form's choices: an architecture class with its port effort, a hard constraint with its effect.
export const architectureChoice = (label, low, high) => `${label} (${f.weeks(low)} to ${f.weeks(high)} engineer-weeks)`;
export const constraintChoice = (c) => `${c.label} (${c.effect === "excludes" ? "rules Trainium out" : `adds ${f.weeks(c.weeks.value)} engineer-weeks`})`;

// A shared link the page cannot follow in full: each parameter that falls back to its default, and why.
export const LINK_NOT_A_CHOICE = "is not one of the choices";
export const linkNotUsable = (fieldError) => `is not usable: ${fieldError.replace(/\.$/, "").toLowerCase()}`;
export const linkFallBack = (label, key, given, fallback, why) =>
  `${label} (${key}=${JSON.stringify(given)}) ${why}; the default${fallback ? ` (${fallback})` : ""} is used instead.`;
export const linkModeFallBack = (key, given) =>
  `The run-size mode (${key}=${JSON.stringify(given)}) is neither hours nor flops; hours is used instead.`;
export const linkNotice = (notes) => (notes.length ? "This link could not be followed in full. " + notes.join(" ") : "");

// The buttons' status line.
export const loadedPreset = (label) => `Loaded: ${label}`;
export const LINK_COPIED = "Link copied.";
export const copyFromAddressBar = (href) => "Copy this link from the address bar: " + href;
export const FIX_FIRST = "Fix the marked fields first.";

// The chart's accessible name: what it shows, then the summary present() gives it. The page's own
// markup (docs/calculator.md) carries the first sentence until the chart is drawn.
export const chartName = (summary) => "Cumulative cost against runs for both options. " + summary;

// The answer's headings and column names, as generator/templates/scenario.md.j2 writes them on a
// scenario page (tests/test_browser.py reads the columns by these names).
export const OUTPUT_LABELS = {
  verdict: "Verdict:",
  figure: "Figure",
  trainium: "Trainium",
  gpu: "GPU",
  holds: "Does the verdict hold?",
  input: "Input",
  end: "End",
  value: "Value",
  verdict_column: "Verdict",
  difference: "GPU total minus Trainium total",
};

// The scenario file the calculator offers for download: placeholders its author replaces.
export const SCENARIO_TITLE = "My case, from the calculator";
export const SCENARIO_SUMMARY = "Describe the team and the workload here.";
export const SCENARIO_WORKLOAD = "your workload";
export const scenarioSource = (href) => "Calculator: " + href;
