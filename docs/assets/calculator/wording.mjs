// What a reader is told about one evaluated workload: the same function as generator/model/wording.py,
// giving the same strings (tests/test_parity.py). It takes the workload as evaluateWorkload returns
// it, the engine's cost curve and the two prices' source and date, and returns plain data;
// wiring.mjs only escapes and places it. The words themselves are wording.py's tables and templates,
// which the calculator's data carries (`words`, generator/rendering/calculator/data.py): `learn` them
// once, before anything is said. This half of the module holds only the logic of what is said.
// The end of this module fills the calculator page's own messages (its fields, link, buttons and
// download), which no scenario page says. Rules, inputs and thresholds this layer does not know get
// a generic label from their name.
import * as f from "./format.mjs";

let W = null;
let T = null;
let M = null;
// messages: calculator_messages.py's tables, which only the calculator page's own messages read.
export function learn(words, messages = null) {
  W = words;
  T = words.TEMPLATES;
  M = messages;
  f.learn(words.FORMATS);
}
// A template with `{name}` filled with values already formatted, as Python's str.format fills it.
const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
const say = (key, values) => fill(T[key], values);

const optionWords = (option) => W.OPTION_WORDS[option] ?? option;
// The answer's headings and column names, as a scenario page shows them.
export const answerLabels = () => W.ANSWER_LABELS;
export const ruledOutBy = (constraints) => say("ruled_out", { names: constraints.join(", ") });
export const notOfferedIn = (regions) => say("not_offered", { regions: regions.join(", ") });
export const blocksCannotHold = (across) => say("blocks_cannot_hold", { count: f.count(across) });

const termsWords = (n, option) => `${W.SMALL_COUNTS[n] || f.count(n)} ${W.TERM_WORDS[option]}${n === 1 ? "" : "s"}`;

// How each run is booked on Capacity Blocks (engine.mjs's blockBooking), as wording.py's booking_text says it.
export function bookingText([full, block, extra], x) {
  let text = say("block", { days: f.count(block) });
  if (extra) text = say("extended", { block: text, days: f.count(extra) });
  if (full) text = say("longest_first", { count: f.count(full), days: f.count(x.block_limits.longest), rest: text });
  return text;
}
const booked = (sd, x) => (sd.booking ? say("booked_as", { booking: bookingText(sd.booking, x) }) : "");

// How one side's plan is bought: held hours first, whole terms, then what is bought by the hour.
export function planBought(x, sd, side) {
  const option = sd.plan_option, region = sd.plan_region;
  const where = region && region !== (x[side + "_region"] || "") ? say("in_region", { region }) : "";
  if (!(option in W.TERM_WORDS)) {
    return say("by_the_hour", { way: W.HOURLY_WORDS[option] ?? option, where, booked: booked(sd, x) });
  }
  const held = x[side + "_held_hours"], terms = sd.committed_terms, hourly = sd.hourly_hours;
  const byHour = (W.HOURLY_WORDS[sd.hourly_option] ?? sd.hourly_option) + booked(sd, x);
  if (hourly && !(held || terms)) return say("no_term", { term: W.TERM_WORDS[option], way: byHour, where });
  const parts = [];
  if (held) parts.push(say("held_hours", { count: f.count(held) }));
  if (terms) parts.push(termsWords(terms, option));
  if (hourly) parts.push(say("last_hours", { count: f.count(hourly), way: byHour }));
  return (parts.join(T.then) || T.nothing_to_buy) + where;
}
export const neitherCanRun = (trainium, gpu) => say("neither_can_run", { trainium, gpu });
export const cannotRun = (side, reasons) => say("cannot_run", { side: W.SIDE_LABELS[side], reasons });
export const neitherOnTime = (soonest) => say("neither_on_time", { soonest: W.SOONEST[soonest] });

// One reason a side cannot run (engine.mjs's infeasibility: a code and its detail), as a sentence part.
export function reasonText([code, detail]) {
  if (code === "ruled-out") return ruledOutBy(detail);
  if (code === "not-offered") return notOfferedIn(detail);
  if (code === "blocks-cannot-hold") return blocksCannotHold(detail);
  return W.REASONS[code] ?? generic(code);
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
  return W.STEPS[code] ?? text.slice(0, 1).toUpperCase() + text.slice(1) + ".";
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

const generic = (name) => name.replace(/_/g, " ").replace(/-/g, " ");

export function ruleLabel(rule) {
  const text = generic(rule);
  return W.RULE_LABELS[rule] ?? text.slice(0, 1).toUpperCase() + text.slice(1);
}

export const rangeLabel = (name) => W.RANGE_LABELS[name] ?? generic(name);

const plural = (n, word) => `${word === "run" ? f.runs(n) : f.count(n)} ${word}${n === 1 ? "" : "s"}`;

export function rangeValue(name, v) {
  if (name === "relative_throughput") return f.ratio(v);
  if (name === "port_weeks") return v === null || v === undefined ? f.NONE : say(v === 1 ? "engineer_week" : "engineer_weeks", { weeks: f.weeks(v) });
  if (name === "trainium_price" || name === "gpu_price") return f.hourly(v);
  if (name === "block_extension") return T.no_extension;
  if (v === null || v === undefined) return f.NONE;
  if (name === "interruption_rate" || name === "trainium_interruption_rate" || name === "gpu_interruption_rate") return say("per_instance_hour", { rate: f.rate(v) });
  if (name === "lost_hours") return f.hours(v);
  if (name === "port_engineers") return say(v === 1 ? "engineer" : "engineers", { count: f.weeks(v) });
  return f.num(v, 2);
}

const cell = (key, value, text) => ({ key, value, text });

function step(s, runs) {
  const n = s.numbers || {};
  let text = s.text;
  if (s.rule === "cost" && "gpu_total" in n) {
    const planRuns = "runs" in n ? n.runs : runs;
    text += say("step_cost", { gpu: f.money(n.gpu_total), trainium: f.money(n.trainium_total), ports: plural(n.ports, "port"),
      port_cost: f.money(n.port_cost), runs: plural(planRuns, "run") });
  } else if (s.rule === "capacity" && s.verdict && "ratio" in n) {
    text += say("step_capacity", { ratio: f.ratio(n.ratio), margin: f.pct(n.margin) });
  } else if (s.rule === "deadline" && "trainium_ready_days" in n) {
    if (n.needed_within_days !== null && n.needed_within_days !== undefined) {
      text += say("step_deadline", { needed: f.days(n.needed_within_days), trainium: f.days(n.trainium_ready_days), gpu: f.days(n.gpu_ready_days) });
      if (n.trainium_late_days && n.gpu_late_days) text += say("step_late", { trainium: f.days(n.trainium_late_days), gpu: f.days(n.gpu_late_days) });
    }
    if (n.finish_within_days !== null && n.finish_within_days !== undefined) {
      text += say("step_finish", { finish: f.days(n.finish_within_days), trainium: f.days(n.trainium_finish_days), gpu: f.days(n.gpu_finish_days) });
      if (n.trainium_finish_late_days && n.gpu_finish_late_days) {
        text += say("step_finish_late", { trainium: f.days(n.trainium_finish_late_days), gpu: f.days(n.gpu_finish_late_days) });
      }
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
    decides_text: decides ? say("decides", { verdict: W.VERDICT_LABELS[decides] }) : "",
  };
}

export function robustState(rob) {
  if (rob.flips_on.length) return "flips";
  if (rob.joint_flip || !rob.holds) return "joint";
  return "robust";
}

export function robustWords(state, flipsOn) {
  if (state === "flips") return say("flips_on", { names: flipsOn.map(rangeLabel).join(", ") });
  return W.ROBUST_WORDS[state];
}

function robustnessOf(rob, verdict) {
  const state = robustState(rob);
  const ranges = rob.flips_on.filter((n) => n !== "block_extension").map(rangeLabel);
  let first;
  if (state === "robust" || state === "joint") first = T[state];
  else if (!ranges.length) first = T.flips_on_extension;
  else if (ranges.length === 1) first = say("flips_on_one", { name: ranges[0] });
  else first = say("flips_on_many", { names: ranges.join(", ") });
  if (state === "flips" && ranges.length && rob.flips_on.includes("block_extension")) first += " " + T.flips_on_extension;
  const V = W.VERDICT_LABELS;
  const sentence = say("robustness", { first, worst: V[rob.worst_case.verdict], best: V[rob.best_case.verdict] });
  const ends = rob.ends.map((e) => ({
    input: e.input, label: rangeLabel(e.input), end: e.end,
    value: e.value, value_text: rangeValue(e.input, e.value),
    verdict: e.verdict, verdict_label: V[e.verdict],
    difference: e.total_difference, difference_text: f.money(e.total_difference),
  }));
  return { state, words: robustWords(state, rob.flips_on), sentence, ends, verdict_label: V[verdict] };
}

// Calendar hours within which a break-even is told as runs: the data's horizon, never shorter than
// the plan being judged (wording.py's _horizon).
function horizonOf(x, o) {
  const horizon = x.horizon_hours ?? null;
  const pace = Number.isFinite(o.pace_hours) ? o.pace_hours : null;
  if (horizon === null || pace === null) return horizon;
  return Math.max(horizon, x.runs * pace);
}

// Whether n runs at the plan's pace take longer than the horizon.
function beyond(n, x, o) {
  const pace = Number.isFinite(o.pace_hours) ? o.pace_hours : null;
  const horizon = horizonOf(x, o);
  return pace !== null && horizon !== null && n * pace > horizon;
}

const notWithin = (x, o) => say("not_within", { time: f.calendar(horizonOf(x, o)) });

// A count of runs (`text`, as it reads) with the calendar time the runs take at the plan's pace;
// past the horizon, that it is not within it instead of the count.
function atPace(text, n, x, o) {
  if (beyond(n, x, o)) return notWithin(x, o);
  const pace = Number.isFinite(o.pace_hours) ? o.pace_hours : null;
  if (pace === null || n <= 1) return text;
  return say("at_pace", { runs: text, time: f.calendar(n * pace) });
}

// The first whole plan at which Trainium costs less, from where the cost lines cross (wording.py's _whole).
function whole(n, x, o) {
  if (committed(o) || (x.runs_per_architecture !== null && x.runs_per_architecture !== undefined)) return n;
  return Math.floor(n) + 1;
}

// The one statement of a break-even where the cost lines cross at n runs (wording.py's break_even_phrase).
export function breakEvenPhrase(n, x, o) {
  if (n === null || n === undefined) return { runs: null, short: T.never, sentence: T.never_breaks_even };
  const w = whole(n, x, o);
  if (beyond(w, x, o)) {
    return { runs: w, short: notWithin(x, o), sentence: say("no_break_even_within", { time: f.calendar(horizonOf(x, o)) }) };
  }
  if (w <= 1) return { runs: w, short: f.FIRST_RUN, sentence: T.first_run_repays };
  return { runs: w, short: plural(w, "run"), sentence: say("breaks_even_after", { runs: atPace(plural(w, "run"), w, x, o) }) };
}

function thresholdsOf(t, x, o) {
  // The break-even statement is told in the summary's break-even row, not as a value here.
  const labels = W.THRESHOLD_LABELS;
  const names = Object.keys(labels).filter((n) => n in t)
    .concat(Object.keys(t).filter((n) => !(n in labels) && n !== "break_even"));
  const items = names.map((name) => {
    const v = t[name];
    let text;
    if (v === null || v === undefined) text = f.NO_CROSSING;
    else if (name === "runs") {
      const w = whole(v, x, o);
      text = w <= 1 && !beyond(w, x, o) ? f.FIRST_RUN : atPace(plural(w, "run"), w, x, o);
    }
    else text = rangeValue(name, v);
    return { key: `threshold.${name}`, label: labels[name] ?? generic(name), value: v ?? null, text };
  });
  return { intro: T.thresholds, parts: items };
}

function leadOf(x, rob, t) {
  const at = t.relative_throughput;
  if (!rob.flips_on.includes("relative_throughput") || at === null || at === undefined) return null;
  const r = x.relative_throughput;
  return say("lead", { at: f.ratio(at), value: f.ratio(r.value), low: f.ratio(r.low), high: f.ratio(r.high) });
}

// Whether a side's plan is bought on spot: another way chosen, or the named way kept.
const onSpot = (x, o, side) => o[side].spot_rate !== null && o[side].spot_rate !== undefined;

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
  if (b.kind === "between") return say("only_between", { first: plural(b.first, "run"), last: atPace(plural(b.last, "run"), b.last, x, o) });
  if (b.kind === "from" && b.first_for_good !== b.first) {
    if (beyond(b.first_for_good, x, o)) return say("longer_beyond", { time: f.calendar(horizonOf(x, o)) });
    return say("every_longer", { first: atPace(plural(b.first_for_good, "run"), b.first_for_good, x, o) });
  }
  return "";
}

// The break-even as every output states it (wording.py's break_even_statement).
function breakEvenStatement(x, o, t) {
  const said = breakEvenPhrase(breakEvenValue(x, o, t), x, o);
  return { runs: said.runs, short: said.short, text: breakEven(x, o, t) };
}

// The summary's break-even cell: breakEvenPhrase with what each case adds to it.
function breakEven(x, o, t) {
  const be = o.break_even_runs;
  if (be !== null) {
    const said = breakEvenPhrase(be, x, o);
    if (beyond(said.runs, x, o)) return said.short;
    const counted = said.runs <= 1 ? f.FIRST_RUN : atPace(plural(said.runs, "run"), said.runs, x, o);
    if (x.runs_per_architecture !== null && x.runs_per_architecture !== undefined) return say("recurring_break_even", { runs: counted });
    return counted;
  }
  if (!(o.trainium.feasible && o.gpu.feasible)) return say("no_break_even_cannot_run", { none: f.NONE });
  if (committed(o)) {
    const first = t.runs ?? null;
    if (first === null) return say("committed_never", { none: f.NO_CROSSING });
    if (beyond(first, x, o)) return notWithin(x, o);
    return say("committed_first", { first: atPace(plural(first, "run"), first, x, o), lengths: planLengths(t.break_even, x, o) });
  }
  if (o.saving_per_run > 0 && x.runs_per_architecture !== null && x.runs_per_architecture !== undefined) {
    // Recurring ports that no architecture repays: how many runs one port would need, as a whole plan.
    const needs = Math.floor(o.port_cost / o.saving_per_run) + 1;
    const repay = beyond(needs, x, o) ? say("repay_beyond", { time: f.calendar(horizonOf(x, o)) })
      : say("repay_needs", { runs: atPace(plural(needs, "run"), needs, x, o) });
    return say("never_repaid", { repay, runs: plural(x.runs_per_architecture, "run") });
  }
  return say("never_saves", { none: f.NO_CROSSING });
}

// When a side's price is one end of the range its sources give and cost decided, say so by the verdict.
function priceNotes(o) {
  if (!["cost", "capacity"].includes(o.decided_by)) return [];
  const notes = [];
  for (const side of ["trainium", "gpu"]) {
    const sd = o[side];
    const basis = sd.price_basis;
    if (basis !== "low" && basis !== "high") continue;
    const favours = basis === "low" ? side : (side === "trainium" ? "gpu" : "trainium");
    notes.push({ side, basis, text: say("price_note", {
      side: W.VERDICT_LABELS[side], price: f.hourly(sd.usd_per_hour), end: W.END_WORDS[basis],
      low: f.hourly(sd.price_low), high: f.hourly(sd.price_high), favours: W.VERDICT_LABELS[favours],
      holds: W.ANSWER_LABELS.holds }) });
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
    for (const e of rob.ends) if (e.input === `${side}_price`) at[e.end] = W.VERDICT_LABELS[e.verdict];
    const span = say("span", { low: f.hourly(sd.price_low), high: f.hourly(sd.price_high) });
    let text, others;
    if (basis === "inside") {
      text = say("inside_range", { span });
      others = ["low", "high"].filter((end) => end in at).map((end) => say("at_end", { end, verdict: at[end] }));
    } else {
      text = say("end_of_range", { end: W.END_WORDS[basis], span });
      const other = basis === "low" ? "high" : "low";
      others = other in at ? [say("at_end", { end: other, verdict: at[other] })] : [];
    }
    marks[side] = { basis, text: [text, ...others].join("; ") };
  }
  return marks;
}

// Beside the verdict, where it rests on an extension: what booking each run as one block instead
// would cost, when that would change the verdict.
function bookingNotes(x, o, single) {
  if (!single || single.verdict === o.verdict) return [];
  const bookings = [single.booking.trainium, single.booking.gpu].filter(Boolean).map((b) => bookingText(b, x));
  return [say("single_blocks", { booking: bookings.join(T.and), trainium: f.money(single.trainium_total),
    gpu: f.money(single.gpu_total), verdict: W.VERDICT_LABELS[single.verdict] })];
}

// What to say beside relative throughput, the input no public benchmark measures: where the
// verdict flips, when cost over the plan decides it.
function guessOf(x, t, steps) {
  const at = t.relative_throughput ?? null;
  const decided = steps.filter((s) => s.decides);
  const rule = decided.length ? decided[decided.length - 1].rule : null;
  if (rule === "capacity" && at !== null) return { flip: at, text: say("guess_capacity", { at: f.ratio(at) }) };
  if (rule !== "cost" && rule !== "capacity") {
    const label = decided.length ? decided[decided.length - 1].label.toLowerCase() : T.guess_rules;
    return { flip: null, text: say("guess_not_cost", { label }) };
  }
  if (at === null) return { flip: null, text: say("guess_no_crossing", { none: f.NO_CROSSING }) };
  return { flip: at, text: say("guess_flip", { at: f.ratio(at) }) };
}

// The answer in three lines, for the summary that stays in view while the reader edits.
function glanceOf(o, steps, words) {
  const d = o.total_difference;
  let saving = !Number.isFinite(d) ? T.glance_no_cost : d === 0 ? T.glance_same
    : say("glance_less", { side: W.CHEAPER_SIDE[d > 0 ? "trainium" : "gpu"], amount: f.money(Math.abs(d)) });
  const decided = steps.filter((s) => s.decides);
  if (!decided.length) return { saving: saving + T.ports_included, reason: "", why: "" };
  const last = decided[decided.length - 1];
  saving += T.ports_included;
  // A side that cannot run has no cost worth setting against the other's.
  if (last.rule === "feasibility") saving = (W.CANNOT_RUN[o.verdict] ?? W.CANNOT_RUN.other) + T.not_compared;
  // Under cost the saving line already says why; under any other rule the rule's sentence does.
  const detail = last.rule === "cost" ? "" : say("detail", { reason: last.reason.replace(/\.+$/, "") });
  return { saving, reason: say("decided_by", { rule: last.label.toLowerCase(), detail, words }), why: last.reason };
}

function summaryOf(x, o, t) {
  const pair = (label, name, fmt) => ({
    label,
    trainium: cell(`trainium.${name}`, o.trainium[name], fmt(o.trainium[name])),
    gpu: cell(`gpu.${name}`, o.gpu[name], fmt(o.gpu[name])),
  });
  const L = W.SUMMARY_LABELS;
  const sides = [
    pair(L.hours_per_run, "hours_per_run", (v) => f.num(v, 1)),
    pair(L.cost_per_run, "cost_per_run", f.money),
    pair(L.wall_clock_hours, "wall_clock_hours", f.hours),
  ];
  // A plan bought by the hour has no terms to report.
  if (committed(o)) {
    const terms = {}, used = {};
    for (const side of ["trainium", "gpu"]) {
      const sd = o[side];
      const paid = (sd.utilisation ?? null) !== null;
      terms[side] = cell(`${side}.committed_terms`, sd.committed_terms,
        paid ? say("terms_paid", { count: f.count(sd.committed_terms) }) : T.terms_none);
      used[side] = paid ? cell(`${side}.utilisation`, sd.utilisation, f.pct(sd.utilisation)) : cell(null, null, T.no_commitment);
    }
    sides.push({ label: L.committed_terms, ...terms });
    sides.push({ label: L.utilisation, ...used });
  }
  if (onSpot(x, o, "trainium") || onSpot(x, o, "gpu")) {
    const spot = {};
    for (const side of ["trainium", "gpu"]) {
      const n = x[`${side}_count`];
      spot[side] = cell(`${side}.spot_overhead`, o[side].spot_overhead, onSpot(x, o, side)
        ? say("spot_overhead", { share: f.pct(o[side].spot_overhead), instances: plural(n, "instance"),
          rate: f.rate(o[side].spot_rate), basis: spotBasis(o[side]),
          hours: f.hours(x.lost_hours.value) })
        : T.not_on_spot);
    }
    sides.push({ label: L.spot_overhead, ...spot });
  }
  // Whether the port waits for capacity or runs beside it is an assumption the reader can change.
  const lead = x.trainium_lead_days ? T[x.port_during_lead ? "lead_overlap" : "lead_serial"] : "";
  const gpuDays = o.gpu.ready_days, trnDays = o.trainium.ready_days;
  // A team already on Neuron has no port to wait for (wording.py).
  const trnText = !trnDays ? T.at_once : !o.port_calendar_days ? say("waiting_capacity", { days: f.days(trnDays) })
    : say("after_port", { days: f.days(trnDays), lead });
  sides.push({
    label: L.ready_days,
    trainium: cell("trainium.ready_days", trnDays, trnText),
    gpu: cell("gpu.ready_days", gpuDays, gpuDays ? say("in_days", { days: f.days(gpuDays) }) : T.at_once),
  });
  if (x.finish_within_days !== null && x.finish_within_days !== undefined) {
    // Against a finish date, when each side's last run ends: the wait, the port and every run.
    const done = (side) => cell(`${side}.finish_days`, o[side].finish_days, say("in_days", { days: f.days(o[side].finish_days) }));
    sides.push({ label: L.finish_days, trainium: done("trainium"), gpu: done("gpu") });
  }
  // Said wherever a plan is not simply the named way by the hour: a term, another way or region, blocks.
  if (committed(o) || ["trainium", "gpu"].some((side) => o[side].plan_option !== x[side + "_option"]
    || o[side].plan_region !== x[side + "_region"] || o[side].plan_option === "capacity-block")) {
    const row = { label: L.plan_option };
    for (const side of ["trainium", "gpu"]) row[side] = cell(`${side}.plan_option`, o[side].plan_option, planBought(x, o[side], side));
    sides.push(row);
  }
  sides.push(pair(say("total_over", { runs: plural(x.runs, "run") }), "total", f.money));
  // The verdict buys each side the cheapest way it accepts; a cheaper way it does not accept is advice.
  if (["trainium", "gpu"].some((side) => (o[side].options || []).length)) {
    const row = { label: L.cheaper_by };
    for (const side of ["trainium", "gpu"]) {
      const sd = o[side];
      row[side] = cell(`${side}.cheaper_by`, sd.cheaper_by, cheapestWay(x, sd, side));
    }
    sides.push(row);
  }
  return {
    sides,
    rows: [
      { label: L.saving_per_run, ...cell("saving_per_run", o.saving_per_run, savingText(o.saving_per_run, o.saving_pct, o)) },
      { label: L.port_cost, ...cell("port_cost", o.port_cost, f.money(o.port_cost)) },
      { label: L.ports, ...cell("ports", o.ports, f.count(o.ports)) },
      { label: L.break_even_runs, ...cell("break_even_runs", breakEvenValue(x, o, t), breakEven(x, o, t)) },
      { label: L.total_difference, ...cell("total_difference", o.total_difference, f.money(o.total_difference)) },
    ],
  };
}

// Where a side's interruption rate comes from: its pool's rating, or the guide's own default.
const spotBasis = (sd) => T[sd.spot_rated ? "spot_pool" : "spot_default"];

// Which side cannot run, in words, or null when both can.
function sideThatCannotRun(o) {
  const trn = o.trainium.feasible, gpu = o.gpu.feasible;
  if (trn && gpu) return null;
  return W.CANNOT_RUN[!(trn || gpu) ? "neither" : !trn ? "gpu" : "trainium"];
}

export function savingText(saving, share, o) {
  // A saving per run on a side that cannot run is no saving a buyer can have.
  const cannot = sideThatCannotRun(o);
  if (cannot !== null) return cannot + T.not_compared;
  if (share === null) return say("saving_paid", { saving: f.money(saving) });
  return say("saving_share", { saving: f.money(saving), share: f.pct(share) });
}

// The cheapest way to buy one side's compute against the named way; a region is named only when the
// cheaper way is in another region than the named one.
function cheapestWay(x, sd, side) {
  const planned = optionWords(sd.plan_option);
  const here = sd.plan_region || "", there = sd.cheapest_region || "";
  if (!sd.feasible) {
    if ((sd.compute_total ?? null) === null && (sd.options || []).length) {
      // No way the side accepts can run the plan; one it does not accept can.
      const cost = Math.min(...sd.options.map((o) => o[1]));
      return say("not_accepted", { way: optionWords(sd.cheapest_option), region: there, cost: f.money(cost) });
    }
    return T.cannot_compare; // ways to buy matter only to a side that can run
  }
  if (!(sd.cheaper_by > 0)) return say(sd.plan_option === x[side + "_option"] ? "as_named" : "cheapest_accepted", { way: planned });
  // A plan that buys no term pays what it buys by the hour (wording.py).
  const noTerm = sd.plan_option in W.TERM_WORDS && sd.hourly_hours && !(sd.committed_terms || x[side + "_held_hours"]);
  const gain = say("less_than", { amount: f.money(sd.cheaper_by), way: noTerm ? optionWords(sd.hourly_option) : planned });
  if (there && there !== here) return say("cheaper_elsewhere", { way: optionWords(sd.cheapest_option), there, gain, here });
  return say("cheaper_here", { way: optionWords(sd.cheapest_option), gain });
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
  const marks = [mark(x.runs, say("plan_mark", { runs: plural(x.runs, "run") }), 10)];
  const crossing = curve.crossing;
  const said = breakEvenPhrase(crossing, x, o);
  if (crossing !== null && crossing !== undefined) {
    marks.push(mark(crossing, say("break_even_mark", { runs: said.runs <= 1 ? f.FIRST_RUN : plural(said.runs, "run") }), 26));
  }
  const asOf = prices.map((p) => f.date(p.as_of)).sort().pop();
  const source = sourceLine(prices);
  const ports = o.ports;
  const be = said.sentence;
  const summary = say("chart_summary", { runs: plural(x.runs, "run"), gpu: f.money(o.gpu.total), trainium: f.money(o.trainium.total),
    ports: plural(ports, "port"), port_cost: f.money(o.port_cost), each: ports === 1 ? "" : T.each, be });
  return {
    rows, marks, source, as_of: asOf,
    subtitle: say("subtitle", { source, as_of: asOf }),
    interp: x.runs_per_architecture || committed(o) ? "step-after" : "linear",
    summary,
  };
}

// Where the prices a workload's plans buy at come from, each source by its name and date (a chart
// copied into a post has no sources page to decode a key on), each once.
export function sourceLine(prices) {
  const named = [];
  for (const p of prices) {
    const text = say("source", { name: p.name || p.source, date: f.date(p.as_of) });
    if (!named.includes(text)) named.push(text);
  }
  return say("prices_from", { sources: named.join(T.and) });
}

const withdrawn = (day) => say("withdrawn", { date: f.date(day) });

// Each price record the plans buy at, as a line of the answer's sources.
function pricesUsed(prices) {
  return prices.map((p) => {
    let text = say("price_used", { side: W.VERDICT_LABELS[p.side], instance: p.instance, region: p.region,
      way: optionWords(p.option), price: f.hourly(p.usd_per_hour), source: p.name || p.source, date: f.date(p.as_of) });
    if (p.vanished) text += say("used_withdrawn", { withdrawn: withdrawn(p.vanished) });
    if (p.stale) text += say("used_stale", { days: f.count(p.age_days) });
    return { side: p.side, stale: Boolean(p.stale), text };
  });
}

// Beside a verdict the plans' costs decide, the stale prices it rests on.
function staleVerdict(o, prices) {
  const old = prices.filter((p) => p.stale);
  if (!old.length || !["cost", "capacity"].includes(o.decided_by)) return null;
  return say("stale_verdict", { prices: old.map((p) => say("stale_price", { instance: p.instance, region: p.region,
    way: optionWords(p.option), date: f.date(p.as_of), days: f.count(p.age_days) })).join(T.and) });
}

export function present(result, curve, prices) {
  const { inputs: x, robustness: rob, thresholds: t } = result;
  const o = worded(result.outcome);
  const verdict = o.verdict;
  const robustness = robustnessOf(rob, verdict);
  const steps = o.trace.map((s) => step(s, x.runs));
  return {
    verdict,
    verdict_label: W.VERDICT_LABELS[verdict],
    lead: leadOf(x, rob, t),
    live: say("live", { verdict: W.VERDICT_LABELS[verdict], words: robustness.words }),
    trace: steps,
    glance: glanceOf(o, steps, robustness.words),
    guess: guessOf(x, t, steps),
    summary: summaryOf(x, o, t),
    price_notes: priceNotes(o),
    booking_notes: bookingNotes(x, o, result.single_blocks),
    prices_used: pricesUsed(prices),
    stale_verdict: staleVerdict(o, prices),
    price_marks: priceMarks(o, rob),
    robustness,
    thresholds: thresholdsOf(t, x, o),
    break_even: breakEvenStatement(x, o, t),
    chart: chartOf(x, o, curve, prices),
  };
}

// ------------------------------------------------------------------------------------------------
// The calculator's own messages: what the form says about a field, a shared link, a button, the
// chart's accessible name and the scenario file it offers for download. Only the calculator page
// says these (a scenario page has no form); their templates are calculator_messages.py's, which
// the calculator's data carries (`messages`) for `learn`. wiring.mjs calls these and escapes what
// they return wherever it lands.
// ------------------------------------------------------------------------------------------------

const tell = (key, values = {}) => fill(M.MESSAGES[key], values);
// A message that fills nothing in, by its key in calculator_messages.MESSAGES.
export const message = (key) => tell(key);

// A number field's bound as the schema writes it, grouped by thousands where it is whole (the schema's are).
const bound = (x) => (Number.isInteger(x) ? f.count(x) : String(x));
export const mustBeMoreThan = (above) => tell("more_than", { bound: bound(above) });
export const mustBeAtLeast = (min) => tell("at_least", { bound: bound(min) });
export const mustBeAtMost = (max) => tell("at_most", { bound: bound(max) });

// A value and the range the reader gives it (what: the range's label, rangeLabel above).
export const rangeReversed = (what, low, high) => tell("range_reversed", { what, low, high });
export const valueBelowRange = (what, value, low) => tell("below_range", { what, value, low });
export const valueAboveRange = (what, value, high) => tell("above_range", { what, value, high });
export const lowEndAboveValue = (what, low, value) => tell("low_end_above", { what, low, value });
export const highEndBelowValue = (what, high, value) => tell("high_end_below", { what, high, value });

// What checkReferences (engine.mjs) finds about one side's instance or purchase option: a field and
// its code.
export function referenceError(w, [field, code]) {
  const regions = (w.regions || []).join(", ");
  if (field === "regions") return tell("offered_nowhere", { trainium: w.trainium.instance, gpu: w.gpu.instance, regions });
  const [side, what] = field.split(".");
  const c = w[side];
  if (what === "instance") {
    return c.instance ? tell("unknown_instance", { instance: c.instance, side: M.FORM_SIDES[side] })
      : tell("choose_instance", { side: M.FORM_SIDES[side] });
  }
  if (what === "region") return tell("region_not_allowed", { regions, instance: c.instance });
  const sale = { option: c.option, instance: c.instance, region: c.region };
  return code === "no-price" ? tell("no_price", sale) : tell("not_sold", sale);
}

// While a field is wrong: the answer kept for the last valid inputs, or none yet.
const markedFields = (count) => (count === 1 ? tell("one_marked") : tell("many_marked", { count }));
export const staleAnswer = (count) => tell("stale_answer", { fields: markedFields(count) });
export const noAnswerYet = (count) => tell("no_answer_yet", { fields: markedFields(count) });
// While a field the reader has not yet typed in is empty: no mark, an example, and this.
export const example = (value) => tell("example", { value });
const emptyFields = (count) => (count === 1 ? tell("one_empty") : tell("many_empty", { count }));
export const incompleteAnswer = (count) => tell("incomplete_answer", { fields: emptyFields(count) });
export const noAnswerUntilFilled = (count) => tell("no_answer_until_filled", { fields: emptyFields(count) });

// A list read as alternatives: "a", "a or b", "a, b or c".
const orList = (items) => (items.length < 2 ? items.join("")
  : items.slice(0, -1).join(tell("list_comma")) + tell("list_or") + items[items.length - 1]);
// Beside a way to buy that no side can be bought in where the reader stands: `here` and `there`
// are [instance, regions] pairs, the regions it is looked for in and those data/ prices it in.
export function wayUnpriced(way, here, there) {
  const sides = (pairs) => orList(pairs.map(([instance, regions]) => tell("way_side", { instance, regions: orList(regions) })));
  return tell("way_unpriced", { way: optionWords(way), sides: sides(here), elsewhere: there.length ? tell("way_elsewhere", { sides: sides(there) }) : "" });
}

// The prices line under the form. Each side's part is placed as given (wiring.mjs builds it as
// escaped markup, with the price's mark); priceSource is that part's tail.
// `checked`: the day one of AWS's APIs last gave the price again, where later than its own date.
export const priceSource = (name, asOf, checked = null) => (checked ? tell("price_checked", { name, as_of: asOf, checked })
  : tell("price_source", { name, as_of: asOf }));
export const pricesLine = (trainium, gpu) => tell("prices_line", { trainium, gpu });

// The form's choices: an architecture class with its port effort, a hard constraint with its effect.
export const architectureChoice = (label, low, high) => tell("architecture_choice", { label, low: f.weeks(low), high: f.weeks(high) });
export const constraintChoice = (c) => {
  const weeks = c.weeks ? f.weeks(c.weeks.value) : null;
  if (c.effect === "re-port") return tell("constraint_reports", { label: c.label, weeks, on: c.on });
  if (c.effect === "excludes") return c.on ? tell("constraint_excludes_on", { label: c.label, on: c.on }) : tell("constraint_excludes", { label: c.label });
  return c.on ? tell("constraint_adds_on", { label: c.label, weeks, on: c.on }) : tell("constraint_adds", { label: c.label, weeks });
};

// A shared link the page cannot follow in full: each parameter that falls back to its default, and why.
export const linkNotUsable = (fieldError) => tell("link_not_usable", { error: fieldError.replace(/\.$/, "").toLowerCase() });
export const linkFallBack = (label, key, given, fallback, why) => tell("link_fall_back", {
  label, key, given: JSON.stringify(given), why, fallback: fallback ? tell("link_fallback_value", { value: fallback }) : "" });
export const linkModeFallBack = (key, given) => tell("link_mode_fall_back", { key, given: JSON.stringify(given) });
export const linkNotice = (notes) => (notes.length ? tell("link_notice", { notes: notes.join(" ") }) : "");

// The buttons' status line.
export const loadedPreset = (label) => tell("loaded_preset", { label });
export const copyFromAddressBar = (href) => tell("copy_from_address_bar", { href });

// The chart's accessible name: what it shows, then the summary present() gives it.
export const chartName = (summary) => tell("chart_name", { summary });
export const scenarioSource = (href) => tell("scenario_source", { href });
