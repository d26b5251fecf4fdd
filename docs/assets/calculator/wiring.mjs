// The calculator page's wiring: read the form, ask engine.mjs, show the answer, keep the URL in
// step. All arithmetic and rules live in engine.mjs; nothing here computes a verdict. calculator.mjs
// loads this module on the page that has the form, and calls setup() each time the page is shown.
import { evaluateWorkload, checkReferences, findPrice, RANGE_LABELS } from "./engine.mjs";

const RULES = {
  "hard-constraint": "Hard constraints",
  availability: "Availability",
  cost: "Cost over the plan",
  deadline: "Deadline",
  capacity: "Capacity and urgency",
};
const VERDICTS = { trainium: "Trainium", gpu: "GPU" };
const DEFAULTS = {
  ti: "trn2.48xlarge", tr: "us-east-2", to: "on-demand", tc: "1",
  gi: "p5.48xlarge", gr: "us-east-1", go: "on-demand", gc: "1",
  rm: "hours", h: "500", p: "", k: "", u: "", q: "bf16",
  n: "10", a: "", r: "1", rl: "0.8", rh: "1.2",
  c: "mainstream", e: "none", w: "", wl: "", wh: "", x: "", xe: "0",
  ta: "available", ga: "available", s: "", k_: "",
  th: "", gh: "", pm: "", rg: "", pe: "", tl: "0", gl: "0",
};

let view = null; // the live chart, finalized before it is replaced
let data = null;
let template = null; // the chart's Vega spec, compiled at build time

const $ = (id) => document.getElementById(id);
// en-US numbers with exactly d decimals ("1,234.50"), rounded as the guide's Python pages round
// them (generator/formatting.py: the exact value of the double, to d places). Not Intl: the first
// NumberFormat a page makes loads locale data, tens of milliseconds before the first answer shows.
function fixed(v, d) {
  if (!Number.isFinite(v)) return String(v);
  const [whole, frac] = Math.abs(v).toFixed(d).split(".");
  const sign = v < 0 || Object.is(v, -0) ? "-" : "";
  return sign + whole.replace(/\B(?=(\d{3})+$)/g, ",") + (frac ? "." + frac : "");
}
const usd = (v, d = 0) => (v < 0 ? "-" : "") + "$" + fixed(Math.abs(v), d);
const num = (v, d = 2) => fixed(v, d);
const pct = (v) => (v * 100).toFixed(1) + " %";
const hours = (h) => (h >= 48 ? num(h / 24, 1) + " days" : num(h, 1) + " hours");
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");

function fields() {
  return Array.from(document.querySelectorAll("#guide-calc [name]"));
}

function readState() {
  const state = {};
  for (const el of fields()) {
    if (el.type === "radio") { if (el.checked) state[el.name] = el.value; }
    else state[el.name] = el.value;
  }
  state.k_ = Array.from(document.querySelectorAll("#calc-constraints input:checked")).map((c) => c.value).join(",");
  return state;
}

function writeState(state) {
  for (const el of fields()) {
    const v = state[el.name] ?? DEFAULTS[el.name] ?? "";
    if (el.type === "radio") el.checked = el.value === v;
    else el.value = v;
  }
  const chosen = (state.k_ ?? "").split(",").filter(Boolean);
  document.querySelectorAll("#calc-constraints input").forEach((c) => { c.checked = chosen.includes(c.value); });
}

function stateFromUrl() {
  const params = new URLSearchParams(window.location.search);
  const state = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS)) if (params.has(key)) state[key] = params.get(key);
  return state;
}

function urlFor(state) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) {
    if (value !== undefined && value !== DEFAULTS[key]) params.set(key, value);
  }
  const query = params.toString();
  return window.location.pathname + (query ? "?" + query : "");
}

function fillSelect(select, values, labels) {
  // Every recompute asks again for the regions and options on offer; most of the time they have
  // not changed, and rebuilding the list would only cost style and layout work.
  const options = select.options;
  if (options.length === values.length && values.every((v, i) => options[i].value === v)) return;
  const current = select.value;
  const list = document.createDocumentFragment();
  for (const v of values) {
    const opt = document.createElement("option");
    opt.value = v;
    opt.textContent = labels ? labels[v] ?? v : v;
    list.appendChild(opt);
  }
  select.replaceChildren(list);
  if (values.includes(current)) select.value = current;
}

// Regions and purchase options offered for the chosen instance, so only priced choices show.
function syncSide(prefix) {
  const inst = $(`calc-${prefix}-instance`).value;
  const offered = data.prices.filter((p) => p.instance === inst && p.offered);
  fillSelect($(`calc-${prefix}-region`), [...new Set(offered.map((p) => p.region))].sort());
  const region = $(`calc-${prefix}-region`).value;
  fillSelect($(`calc-${prefix}-option`), offered.filter((p) => p.region === region).map((p) => p.option), data.options);
}

function setError(id, message) {
  const input = $(id);
  const slot = $(id + "-error");
  if (slot) slot.textContent = message || "";
  if (input) {
    if (message) { input.setAttribute("aria-invalid", "true"); input.setAttribute("aria-describedby", id + "-error"); }
    else input.removeAttribute("aria-invalid");
  }
  return message ? 1 : 0;
}

// Parse one number field; returns [value, errorCount]. Empty is allowed only where it means something.
function number(id, { integer = false, min = null, above = null, max = null, optional = false } = {}) {
  const raw = $(id).value.trim();
  if (raw === "") return optional ? [null, setError(id, "")] : [null, setError(id, "Enter a number.")];
  const v = Number(raw);
  if (!Number.isFinite(v)) return [null, setError(id, "Enter a finite number.")];
  if (integer && !Number.isInteger(v)) return [null, setError(id, "Enter a whole number.")];
  if (above !== null && !(v > above)) return [null, setError(id, `Must be more than ${above}.`)];
  if (min !== null && v < min) return [null, setError(id, `Must be at least ${min}.`)];
  if (max !== null && v > max) return [null, setError(id, `Must be at most ${max}.`)];
  setError(id, "");
  return [v, 0];
}

// The form as a workload in the scenario file's shape, or the number of problems found.
function workloadFromForm() {
  let bad = 0;
  const take = (id, opts) => { const [v, e] = number(id, opts); bad += e; return v; };
  const mode = document.querySelector("input[name=rm]:checked")?.value || "hours";
  const runSize = {};
  if (mode === "hours") {
    runSize.gpu_instance_hours = take("calc-hours", { above: 0 });
    ["calc-params", "calc-tokens", "calc-mfu"].forEach((id) => setError(id, ""));
  } else {
    runSize.params_billion = take("calc-params", { above: 0 });
    runSize.tokens_billion = take("calc-tokens", { above: 0 });
    runSize.mfu = take("calc-mfu", { above: 0, max: 1 });
    runSize.precision = $("calc-precision").value;
    setError("calc-hours", "");
  }
  const runs = take("calc-runs", { integer: true, min: 1, max: 1000000 });
  const rpa = take("calc-rpa", { integer: true, min: 1, optional: true });
  const rel = take("calc-rel", { above: 0 });
  const relLow = take("calc-rel-low", { above: 0 });
  const relHigh = take("calc-rel-high", { above: 0 });
  if (rel !== null && relLow !== null && relHigh !== null && !(relLow <= rel && rel <= relHigh)) {
    bad += setError("calc-rel-low", "Needs low ≤ value ≤ high.");
  }
  const weeks = take("calc-weeks", { above: 0, optional: true });
  let porting = {};
  if (weeks !== null) {
    const wl = $("calc-weeks-low").value.trim() === "" ? weeks : take("calc-weeks-low", { above: 0 });
    const wh = $("calc-weeks-high").value.trim() === "" ? weeks : take("calc-weeks-high", { above: 0 });
    if (wl !== null && wh !== null && !(wl <= weeks && weeks <= wh)) bad += setError("calc-weeks-low", "Needs low ≤ value ≤ high.");
    porting.weeks = { value: weeks, low: wl, high: wh };
  } else {
    setError("calc-weeks-low", ""); setError("calc-weeks-high", "");
  }
  const weekUsd = take("calc-week-usd", { above: 0, optional: true });
  if (weekUsd !== null) porting.engineer_week_usd = weekUsd;
  const extra = take("calc-extra", { min: 0, optional: true });
  porting.extra_usd = extra ?? 0;
  const soon = take("calc-soon", { integer: true, min: 1, optional: true });
  const trnCount = take("calc-trn-count", { integer: true, min: 1, max: 100000 });
  const gpuCount = take("calc-gpu-count", { integer: true, min: 1, max: 100000 });
  const ta = $("calc-trn-avail").value, ga = $("calc-gpu-avail").value;
  $("calc-avail-error").textContent = ta === "unavailable" && ga === "unavailable" ? "Both sides are unavailable: there is nothing to compare." : "";
  if (ta === "unavailable" && ga === "unavailable") bad += 1;
  const engineers = take("calc-engineers", { above: 0, max: 100, optional: true });
  if (engineers !== null) porting.engineers = engineers;
  const planMonths = take("calc-plan-months", { above: 0, max: 600, optional: true });
  const held = {};
  for (const [side, prefix] of [["trainium", "trn"], ["gpu", "gpu"]]) {
    const id = `calc-${prefix}-held`;
    const v = take(id, { min: 0, max: 36, optional: true });
    const committed = $(`calc-${prefix}-option`).value.startsWith("commit-");
    if (v !== null && !committed) bad += setError(id, "Only for a 1- or 3-year commitment.");
    else if (v !== null) held[side] = v;
  }
  const lead = { trainium: take("calc-trn-lead", { min: 0, optional: true }), gpu: take("calc-gpu-lead", { min: 0, optional: true }) };
  const regions = $("calc-regions").value.split(",").map((r) => r.trim()).filter(Boolean);
  if (bad) return { bad };
  const w = {
    name: "your workload",
    architecture: $("calc-arch").value,
    run_size: runSize,
    runs,
    trainium: { instance: $("calc-trn-instance").value, region: $("calc-trn-region").value, option: $("calc-trn-option").value, count: trnCount },
    gpu: { instance: $("calc-gpu-instance").value, region: $("calc-gpu-region").value, option: $("calc-gpu-option").value, count: gpuCount },
    relative_throughput: { value: rel, low: relLow, high: relHigh },
    porting,
    neuron_experience: $("calc-exp").value,
    availability: { trainium: ta, gpu: ga },
    constraints: Array.from(document.querySelectorAll("#calc-constraints input:checked")).map((c) => c.value),
  };
  if (rpa !== null) w.runs_per_architecture = rpa;
  if (soon !== null) w.availability.needed_within_days = soon;
  for (const side of ["trainium", "gpu"]) {
    if (held[side] !== undefined) w[side].held_months = held[side];
    if (lead[side]) w.availability[`${side}_lead_days`] = lead[side];
  }
  if (planMonths !== null) w.plan_months = planMonths;
  if (regions.length) w.regions = regions;
  return { workload: w };
}

function traceText(s, x) {
  let t = `<strong>${RULES[s.rule]}.</strong> ${esc(s.text)}`;
  if (s.rule === "cost") {
    t += ` GPU ${usd(s.numbers.gpu_total)} against Trainium ${usd(s.numbers.trainium_total)} (${s.numbers.ports} port${s.numbers.ports === 1 ? "" : "s"} at ${usd(s.numbers.port_cost)} plus ${x.runs} runs).`;
  } else if (s.rule === "capacity" && s.verdict) {
    t += ` The other side's plan costs ${num(s.numbers.ratio, 3)} times as much; the margin is ${pct(s.numbers.margin)}.`;
  } else if (s.rule === "hard-constraint" && s.verdict) {
    t += ` (${esc(s.numbers.constraints ?? s.numbers.regions)})`;
  }
  if (s.verdict) t += ` <em>Decides: ${VERDICTS[s.verdict]}.</em>`;
  return t;
}

function cell(key, value, text) {
  const raw = value === null || value === undefined ? "none" : String(value);
  return `<td data-key="${key}" data-value="${raw}">${text}</td>`;
}

function render(result) {
  const { inputs: x, outcome: o, robustness: rob, thresholds: t } = result;
  const be = o.break_even_runs === null ? "none: Trainium never saves per run" : (o.break_even_runs < 0.1 ? "under 0.1" : num(o.break_even_runs, 1));
  const ends = rob.ends.map((e) => `<tr><td>${RANGE_LABELS[e.input]}</td><td>${e.end}</td><td>${num(e.value, 3)}</td><td>${VERDICTS[e.verdict]}</td><td>${usd(e.total_difference)}</td></tr>`).join("");
  const holds = rob.holds
    ? `Yes: the verdict is ${VERDICTS[o.verdict]} at both ends of every range.`
    : `No: ${rob.flips_on.map((n) => RANGE_LABELS[n]).join(", ") || "the ranges taken together"} can turn it.`;
  const th = (v, f) => (v === null ? "none" : f(v));
  $("calc-output").innerHTML = `
<div class="guide-verdict guide-verdict--${o.verdict}" data-verdict="${o.verdict}">
<p class="guide-verdict__label">Verdict: <strong>${VERDICTS[o.verdict]}</strong> <span class="guide-badge ${rob.holds ? "guide-badge--robust" : "guide-badge--flips"}" data-robust="${rob.holds ? "yes" : "flips"}">${rob.holds ? "holds across the ranges" : "flips within the ranges"}</span></p>
<ol class="guide-trace">${o.trace.map((s) => `<li data-rule="${s.rule}"${s.verdict ? ` data-decides="${s.verdict}"` : ""}>${traceText(s, x)}</li>`).join("")}</ol>
</div>
<table>
<thead><tr><th></th><th>Trainium</th><th>GPU</th></tr></thead>
<tbody>
<tr><td>Instance-hours per run</td>${cell("trainium.hours_per_run", o.trainium.hours_per_run, num(o.trainium.hours_per_run, 1))}${cell("gpu.hours_per_run", o.gpu.hours_per_run, num(o.gpu.hours_per_run, 1))}</tr>
<tr><td>Cost per run</td>${cell("trainium.cost_per_run", o.trainium.cost_per_run, usd(o.trainium.cost_per_run))}${cell("gpu.cost_per_run", o.gpu.cost_per_run, usd(o.gpu.cost_per_run))}</tr>
<tr><td>Wall-clock per run</td>${cell("trainium.wall_clock_hours", o.trainium.wall_clock_hours, hours(o.trainium.wall_clock_hours))}${cell("gpu.wall_clock_hours", o.gpu.wall_clock_hours, hours(o.gpu.wall_clock_hours))}</tr>
<tr><td>Total over ${x.runs} run${x.runs === 1 ? "" : "s"}</td>${cell("trainium.total", o.trainium.total, usd(o.trainium.total))}${cell("gpu.total", o.gpu.total, usd(o.gpu.total))}</tr>
</tbody></table>
<table><tbody>
<tr><td>Saving per run on Trainium</td>${cell("saving_per_run", o.saving_per_run, `${usd(o.saving_per_run)} (${pct(o.saving_pct)} of the GPU cost)`)}</tr>
<tr><td>Cost of one port</td>${cell("port_cost", o.port_cost, usd(o.port_cost))}</tr>
<tr><td>Ports over the plan</td>${cell("ports", o.ports, String(o.ports))}</tr>
<tr><td>Break-even runs</td>${cell("break_even_runs", o.break_even_runs, be)}</tr>
<tr><td>GPU total minus Trainium total</td>${cell("total_difference", o.total_difference, usd(o.total_difference))}</tr>
</tbody></table>
<h3>Does the verdict hold?</h3>
<p>${holds} With every range at the end least favourable to Trainium the verdict is ${VERDICTS[rob.worst_case.verdict]}; at the most favourable end it is ${VERDICTS[rob.best_case.verdict]}.</p>
${rob.ends.length ? `<table><thead><tr><th>Input</th><th>End</th><th>Value</th><th>Verdict</th><th>GPU total minus Trainium total</th></tr></thead><tbody>${ends}</tbody></table>` : ""}
<p>Where both sides cost the same over the plan, other inputs held: relative throughput <span data-key="threshold.relative_throughput" data-value="${t.relative_throughput ?? "none"}">${th(t.relative_throughput, (v) => num(v, 3))}</span>; runs <span data-key="threshold.runs" data-value="${t.runs ?? "none"}">${th(t.runs, (v) => num(v, 1))}</span>; port effort <span data-key="threshold.port_weeks" data-value="${t.port_weeks ?? "none"}">${th(t.port_weeks, (v) => num(v, 1))}</span> engineer-weeks; Trainium price <span data-key="threshold.trainium_price" data-value="${t.trainium_price ?? "none"}">${th(t.trainium_price, (v) => usd(v, 2))}</span> an hour.</p>`;
}

// The chart's data; the spec itself is compiled at build time (baked.chart) and filled here.
function chartData(w, result) {
  const { inputs: x, outcome: o } = result;
  let horizon = Math.max(x.runs, 2);
  if (o.break_even_runs !== null) horizon = Math.max(horizon, Math.floor(o.break_even_runs * 1.5) + 1);
  horizon = Math.min(horizon, 400);
  const step = Math.max(1, Math.floor(horizon / 100));
  const rows = [];
  for (let n = 0; n <= horizon; n += step) {
    const ports = n === 0 ? 0 : (x.runs_per_architecture ? Math.ceil(n / x.runs_per_architecture) : 1);
    rows.push({ runs: n, side: "GPU", cost: n * o.gpu.cost_per_run });
    rows.push({ runs: n, side: "Trainium", cost: ports * o.port_cost + n * o.trainium.cost_per_run });
  }
  // Labels near the right edge turn left of their line so they never run into the legend.
  const mark = (runs, label, row) => ({ runs, label, row, end: runs > 0.6 * horizon ? "right" : "left" });
  const marks = [mark(x.runs, `plan: ${x.runs} run${x.runs === 1 ? "" : "s"}`, 10)];
  if (o.break_even_runs !== null) marks.push(mark(o.break_even_runs, `break-even: ${num(o.break_even_runs, 1)} runs`, 26));
  const tp = findPrice(data, w.trainium.instance, w.trainium.region, w.trainium.option);
  const gp = findPrice(data, w.gpu.instance, w.gpu.region, w.gpu.option);
  const asOf = [tp.as_of, gp.as_of].sort().pop();
  const sources = [...new Set([tp.source, gp.source])].join(" and ");
  return { datasets: { rows, marks }, subtitle: `Source: prices from ${sources}. Figures as of ${asOf}.`, interp: x.runs_per_architecture ? "step-after" : "linear" };
}

// The chart draws once it comes near the screen (it sits below the form), so the runtime never
// holds up the first paint or the first answer; after that every recompute redraws it. Draws run
// one at a time, and the last state asked for is the one drawn.
const chart = { el: null, near: false, spec: null, theme: "light", busy: false, dirty: false };

function drawChart(w, result) {
  const el = $("calc-chart");
  if (!el || !window.GuideCharts) return;
  const filled = chartData(w, result);
  // Filled into the spec itself, so the first render already has the data (no empty-extent warnings).
  chart.spec = {
    ...template,
    title: { ...template.title, subtitle: [filled.subtitle] },
    data: template.data.map((d) => (d.name in filled.datasets ? { ...d, values: filled.datasets[d.name] } : d)),
    signals: template.signals.map((s) => (s.name === "interp" ? { ...s, value: filled.interp } : s)),
  };
  chart.theme = document.body.getAttribute("data-md-color-scheme") === "slate" ? "dark" : "light";
  if (chart.el !== el) {
    // A new page (instant navigation): forget the old chart, wait for this one to come near.
    if (view) { view.finalize(); view = null; }
    chart.el = el;
    chart.near = false;
    window.GuideCharts.whenNear(el, () => {
      if (chart.el !== el) return;
      chart.near = true;
      drawLatest();
    });
    return;
  }
  if (chart.near) drawLatest();
}

async function drawLatest() {
  if (chart.busy) { chart.dirty = true; return; }
  chart.busy = true;
  try {
    do {
      chart.dirty = false;
      const { el, spec, theme } = chart;
      await window.GuideCharts.loadRuntime();
      if (view) { view.finalize(); view = null; }
      view = await window.GuideCharts.draw(el, spec, theme);
    } while (chart.dirty);
  } catch (err) {
    chart.el.setAttribute("data-error", String(err));
    throw err;
  } finally {
    chart.busy = false;
  }
}

let current = null; // { workload, result } of the last good recompute

function recompute() {
  const started = performance.now();
  syncSide("trn");
  syncSide("gpu");
  document.querySelectorAll("#guide-calc [data-mode]").forEach((el) => {
    el.hidden = el.getAttribute("data-mode") !== (document.querySelector("input[name=rm]:checked")?.value || "hours");
  });
  const { workload, bad } = workloadFromForm();
  const root = $("guide-calc");
  if (!workload) {
    current = null;
    root.setAttribute("data-state", "invalid");
    $("calc-output").innerHTML = `<p class="guide-calc__invalid">Fix the ${bad === 1 ? "field" : bad + " fields"} marked above to see the answer.</p>`;
    return;
  }
  const problems = checkReferences(workload, data);
  if (problems.length) {
    current = null;
    root.setAttribute("data-state", "invalid");
    $("calc-output").innerHTML = `<p class="guide-calc__invalid">${problems.map((p) => esc(p[1])).join("<br>")}</p>`;
    return;
  }
  const result = evaluateWorkload(workload, data);
  render(result);
  const tp = findPrice(data, workload.trainium.instance, workload.trainium.region, workload.trainium.option);
  const gp = findPrice(data, workload.gpu.instance, workload.gpu.region, workload.gpu.option);
  const priceText = (p) => `${usd(p.usd_per_hour, 3)}/hour (${p.source}, ${p.as_of}${p.low !== null ? `; range ${usd(p.low, 2)} to ${usd(p.high, 2)}` : ""})`;
  $("calc-prices").textContent = `Trainium ${priceText(tp)}; GPU ${priceText(gp)}.`;
  current = { workload, result };
  root.setAttribute("data-state", "ok");
  root.setAttribute("data-recompute-ms", String(performance.now() - started));
  drawChart(workload, result);
}

// History: the first keystroke after a committed change opens a new entry and later keystrokes
// update it, so back and forward step through edits rather than through single characters.
let editing = false;

function onChange(committed) {
  recompute();
  const url = urlFor(readState());
  const here = window.location.pathname + window.location.search;
  if (url !== here) {
    if (editing) window.history.replaceState({ guideCalc: true }, "", url);
    else window.history.pushState({ guideCalc: true }, "", url);
  }
  editing = !committed && (editing || url !== here);
}

// A scenario file `guide validate` accepts, made from the form.
function toYaml(w, verdict) {
  const q = (s) => JSON.stringify(String(s));
  const n = (v) => String(v);
  const lines = [
    "# yaml-language-server: $schema=../schemas/scenario.schema.json",
    `title: ${q("My case, from the calculator")}`,
    `summary: ${q("Describe the team and the workload here.")}`,
    `expect: ${verdict}`,
    "sources:",
    `  - ${q("Calculator: " + window.location.href)}`,
    "workloads:",
    `  - name: ${q(w.name)}`,
    `    architecture: ${w.architecture}`,
    "    run_size:",
  ];
  for (const [k, v] of Object.entries(w.run_size)) lines.push(`      ${k}: ${typeof v === "string" ? v : n(v)}`);
  lines.push(`    runs: ${n(w.runs)}`);
  if (w.runs_per_architecture !== undefined) lines.push(`    runs_per_architecture: ${n(w.runs_per_architecture)}`);
  if (w.plan_months !== undefined) lines.push(`    plan_months: ${n(w.plan_months)}`);
  if (w.regions) lines.push(`    regions: [${w.regions.map(q).join(", ")}]`);
  for (const side of ["trainium", "gpu"]) {
    const c = w[side];
    const held = c.held_months === undefined ? "" : `, held_months: ${n(c.held_months)}`;
    lines.push(`    ${side}: {instance: ${c.instance}, region: ${c.region}, option: ${c.option}, count: ${n(c.count)}${held}}`);
  }
  const r = w.relative_throughput;
  lines.push(`    relative_throughput: {value: ${n(r.value)}, low: ${n(r.low)}, high: ${n(r.high)}}`);
  lines.push("    porting:");
  if (w.porting.weeks) lines.push(`      weeks: {value: ${n(w.porting.weeks.value)}, low: ${n(w.porting.weeks.low)}, high: ${n(w.porting.weeks.high)}}`);
  if (w.porting.engineer_week_usd !== undefined) lines.push(`      engineer_week_usd: ${n(w.porting.engineer_week_usd)}`);
  lines.push(`      extra_usd: ${n(w.porting.extra_usd)}`);
  if (w.porting.engineers !== undefined) lines.push(`      engineers: ${n(w.porting.engineers)}`);
  lines.push(`    neuron_experience: ${w.neuron_experience}`);
  lines.push("    availability:");
  lines.push(`      trainium: ${w.availability.trainium}`);
  lines.push(`      gpu: ${w.availability.gpu}`);
  if (w.availability.needed_within_days !== undefined) lines.push(`      needed_within_days: ${n(w.availability.needed_within_days)}`);
  for (const side of ["trainium", "gpu"]) {
    const v = w.availability[`${side}_lead_days`];
    if (v !== undefined) lines.push(`      ${side}_lead_days: ${n(v)}`);
  }
  lines.push(`    constraints: [${w.constraints.join(", ")}]`);
  return lines.join("\n") + "\n";
}

function presetState(workload) {
  const w = workload;
  const s = { ...DEFAULTS };
  s.ti = w.trainium.instance; s.tr = w.trainium.region; s.to = w.trainium.option; s.tc = String(w.trainium.count ?? 1);
  s.gi = w.gpu.instance; s.gr = w.gpu.region; s.go = w.gpu.option; s.gc = String(w.gpu.count ?? 1);
  const rs = w.run_size;
  if (rs.gpu_instance_hours !== undefined) { s.rm = "hours"; s.h = String(rs.gpu_instance_hours); }
  else { s.rm = "flops"; s.p = String(rs.params_billion); s.k = String(rs.tokens_billion); s.u = String(rs.mfu); s.q = rs.precision || "bf16"; }
  s.n = String(w.runs);
  s.a = w.runs_per_architecture === undefined ? "" : String(w.runs_per_architecture);
  s.r = String(w.relative_throughput.value); s.rl = String(w.relative_throughput.low); s.rh = String(w.relative_throughput.high);
  s.c = w.architecture; s.e = w.neuron_experience || "none";
  const p = w.porting || {};
  if (p.weeks) { s.w = String(p.weeks.value); s.wl = String(p.weeks.low); s.wh = String(p.weeks.high); }
  s.x = p.engineer_week_usd === undefined ? DEFAULTS.x : String(p.engineer_week_usd);
  s.xe = String(p.extra_usd ?? 0);
  const av = w.availability || {};
  s.ta = av.trainium || "available"; s.ga = av.gpu || "available";
  s.s = av.needed_within_days === undefined ? "" : String(av.needed_within_days);
  s.tl = String(av.trainium_lead_days ?? 0); s.gl = String(av.gpu_lead_days ?? 0);
  s.th = w.trainium.held_months === undefined ? "" : String(w.trainium.held_months);
  s.gh = w.gpu.held_months === undefined ? "" : String(w.gpu.held_months);
  s.pm = w.plan_months === undefined ? "" : String(w.plan_months);
  s.rg = (w.regions || []).join(", ");
  s.pe = p.engineers === undefined ? "" : String(p.engineers);
  s.k_ = (w.constraints || []).join(",");
  return s;
}

// On the page's first load the browser gets a turn between filling the lists and computing the
// first answer (to paint, to take a keystroke): one long task on a slow phone becomes two shorter
// ones. Pages that instant navigation swaps in (links, back and forward) are set up at once, so
// they never show without their answer.
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
let firstLoad = true;

// data-ready marks the form filled, the first answer shown and the listeners attached.
export async function setup() {
  const root = $("guide-calc");
  if (!root || root.getAttribute("data-setup")) return;
  root.setAttribute("data-setup", "true");
  const baked = JSON.parse($("guide-calc-data").content.textContent);
  data = baked.data;
  template = baked.chart;
  const presets = baked.presets;
  DEFAULTS.x = String(data.assumptions.engineer_week_usd);

  const bySide = (side) => Object.keys(data.instances).filter((i) => data.instances[i].side === side);
  fillSelect($("calc-trn-instance"), bySide("trainium"));
  fillSelect($("calc-gpu-instance"), bySide("gpu"));
  const classes = data.assumptions.porting_classes;
  fillSelect($("calc-arch"), Object.keys(classes), Object.fromEntries(Object.entries(classes).map(([k, v]) => [k, `${v.label} (${v.weeks.low} to ${v.weeks.high} weeks)`])));
  const box = $("calc-constraints");
  for (const [name, c] of Object.entries(data.assumptions.constraints)) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox"; input.value = name;
    label.appendChild(input);
    label.appendChild(document.createTextNode(` ${c.label} (${c.effect === "excludes" ? "rules Trainium out" : `adds ${c.weeks.value} weeks`})`));
    box.appendChild(label);
  }
  const presetSelect = $("calc-preset");
  for (const p of presets) {
    const opt = document.createElement("option");
    opt.value = p.id; opt.textContent = p.label;
    presetSelect.appendChild(opt);
  }

  if (firstLoad) {
    firstLoad = false;
    await nextTask();
    if ($("guide-calc") !== root) return; // the reader has already navigated away
  }

  const apply = (state) => {
    // Instance first, then the region and option lists that depend on it.
    $("calc-trn-instance").value = state.ti; syncSide("trn"); $("calc-trn-region").value = state.tr; syncSide("trn");
    $("calc-gpu-instance").value = state.gi; syncSide("gpu"); $("calc-gpu-region").value = state.gr; syncSide("gpu");
    writeState(state);
    recompute();
  };
  // ?from=<scenario>/<workload> (the link under every scenario chart) loads that scenario's inputs.
  const from = new URLSearchParams(window.location.search).get("from");
  const preset = from && presets.find((x) => x.id === from);
  if (preset) {
    apply(presetState(preset.workload));
    window.history.replaceState({ guideCalc: true }, "", urlFor(readState()));
    presetSelect.value = preset.id;
  } else {
    apply(stateFromUrl());
  }

  root.addEventListener("input", (ev) => { if (ev.target.type !== "checkbox" && ev.target.tagName !== "SELECT") onChange(false); });
  editing = false;
  root.addEventListener("change", (ev) => { if (ev.target.id !== "calc-preset") onChange(true); });
  $("calc-load").addEventListener("click", () => {
    const p = presets.find((x) => x.id === presetSelect.value);
    if (!p) return;
    apply(presetState(p.workload));
    onChange(true);
    $("calc-status").textContent = `Loaded: ${p.label}`;
  });
  $("calc-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
      $("calc-status").textContent = "Link copied.";
    } catch (err) {
      $("calc-status").textContent = "Copy this link from the address bar: " + window.location.href;
    }
  });
  $("calc-yaml").addEventListener("click", () => {
    if (!current) { $("calc-status").textContent = "Fix the marked fields first."; return; }
    const blob = new Blob([toYaml(current.workload, current.result.outcome.verdict)], { type: "application/yaml" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "my-case.yaml";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
  // Listeners outlive the page under instant navigation; each one checks its form is still shown.
  window.addEventListener("popstate", () => { if ($("guide-calc") === root) apply(stateFromUrl()); });
  new MutationObserver(() => { if ($("guide-calc") === root && current) drawChart(current.workload, current.result); })
    .observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  root.setAttribute("data-ready", "true");
}
