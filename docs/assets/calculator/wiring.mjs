// The calculator page's wiring: read the form, ask engine.mjs, place what wording.mjs says, keep
// the URL in step. Arithmetic and rules live in engine.mjs and every sentence, label and figure a
// reader sees comes from wording.mjs (the same words as the scenario pages, and the form's own
// messages); this module writes none (tests/test_calculator_wording.py) and only escapes and
// places them. calculator.mjs loads it on the page that has the form, calls setup() each time that
// page is shown and teardown() when the reader leaves it.
import { evaluateWorkload, checkReferences, findPrice, ways, learn as learnEngine } from "./engine.mjs";
import * as say from "./wording.mjs";
import { hourly, hourlyExact } from "./format.mjs";

// The form's fields as the page bakes them in (generator/rendering/calculator/fields.py): each one's
// URL parameter, id, path in a workload and what a value may be, read from the scenario schema at
// build time. setup() reads them; nothing here restates a bound or a parameter's name.
let FIELDS = [];
let byId = {};
let byPath = {};
let mode = null; // the run-size way: hours or parameters, tokens and MFU
let checks = null; // the hard constraints' boxes
let buy = null; // the boxes of the ways the team would also buy
let checkGroups = []; // every group of boxes: a value each, the checked boxes' values joined by commas

// Every form field's value by its URL parameter where the URL gives none: the reference workload's
// (data/reference.yaml, baked into the page), filled in by setup(), so the calculator starts where
// the home page's example is.
const DEFAULTS = {};

let view = null; // the live chart, finalized before it is replaced
let data = null;
let template = null; // the chart's Vega spec, compiled at build time
let visit = null; // { root, abort, observer, answerSeen }: what this showing of the page set up, undone by teardown()
let lastEdited = null; // the id of the field the reader changed last, where a range error belongs
// The fields the reader has typed in (or a link filled) on this visit: only those are marked for
// being empty. One not yet touched shows its example and waits (`missing` counts them).
const typed = new Set();
let missing = 0;

const $ = (id) => document.getElementById(id);
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
  for (const g of checkGroups) state[g.key] = checked(g).join(",");
  return state;
}

function writeState(state) {
  for (const el of fields()) {
    const v = state[el.name] ?? DEFAULTS[el.name] ?? "";
    if (el.type === "radio") el.checked = el.value === v;
    else el.value = v;
  }
  for (const g of checkGroups) {
    const chosen = (state[g.key] ?? DEFAULTS[g.key] ?? "").split(",").filter(Boolean);
    document.querySelectorAll(`#${g.id} input`).forEach((c) => { c.checked = chosen.includes(c.value); });
  }
}

const checked = (g) => Array.from(document.querySelectorAll(`#${g.id} input:checked`)).map((c) => c.value);

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

// The address holds the reader's case, and so does every link on the page that leads back to it (the
// answer's anchor, the header's and the navigation's own entry): followed, by Material's instant
// navigation or not, such a link opens on the case, never on the defaults.
function setAddress(url, push = false) {
  if (push) window.history.pushState({ guideCalc: true }, "", url);
  else window.history.replaceState({ guideCalc: true }, "", url);
  keepCaseInLinks();
}

function keepCaseInLinks() {
  const page = window.location.origin + window.location.pathname;
  for (const a of document.querySelectorAll("a[href]")) {
    if (!a.dataset.guideHref) a.dataset.guideHref = a.getAttribute("href");
    const target = new URL(a.dataset.guideHref, page);
    if (target.origin + target.pathname !== page || a.dataset.guideHref.includes("?")) continue;
    a.setAttribute("href", window.location.pathname + window.location.search + target.hash);
  }
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
  if (slot && slot.textContent !== (message || "")) slot.textContent = message || "";
  if (input) {
    if (message) { input.setAttribute("aria-invalid", "true"); input.setAttribute("aria-describedby", id + "-error"); }
    else input.removeAttribute("aria-invalid");
  }
  return message ? 1 : 0;
}

// What a number field's text is worth under its field's checks (a row of the field table):
// [value, message], the message empty when the value is usable. Empty is allowed only where it
// means something.
export function checkNumber(text, { integer = false, min = null, above = null, max = null, optional = false } = {}) {
  const raw = text.trim();
  if (raw === "") return [null, optional ? "" : say.message("enter_a_number")];
  const v = Number(raw);
  if (!Number.isFinite(v)) return [null, say.message("enter_a_finite_number")];
  if (integer && !Number.isInteger(v)) return [null, say.message("enter_a_whole_number")];
  if (above !== null && !(v > above)) return [null, say.mustBeMoreThan(above)];
  if (min !== null && v < min) return [null, say.mustBeAtLeast(min)];
  if (max !== null && v > max) return [null, say.mustBeAtMost(max)];
  return [v, ""];
}

// Parse one number field by its field's checks; returns [value, errorCount]. An empty field the
// reader has not typed in is no error yet: it is counted in `missing` and left unmarked.
function number(id) {
  const [v, message] = checkNumber($(id).value, byId[id]);
  if (message && $(id).value.trim() === "" && !typed.has(id)) {
    missing += 1;
    return [v, setError(id, "")];
  }
  return [v, setError(id, message)];
}

// A value typed outside its own range takes the range with it: the end it passed moves to it, so a
// reader trying 0.5 sees its answer rather than an error. Ends the reader typed are left as typed.
// Returns the range as it now stands.
function follow(ids, [value, low, high]) {
  if (lastEdited !== ids[0] || low > high) return [low, high];
  if (value < low) { $(ids[1]).value = $(ids[0]).value; return [value, high]; }
  if (value > high) { $(ids[2]).value = $(ids[0]).value; return [low, value]; }
  return [low, high];
}

// A value outside its own range: the message goes under the field the reader changed last of the
// three (the value when it was none of them), saying which way to move what.
function rangeError(ids, [value, low, high], what) {
  if (low <= value && value <= high) return 0;
  let at = ids.includes(lastEdited) ? lastEdited : ids[0];
  if (low > high) at = lastEdited === ids[2] ? ids[2] : ids[1];
  let message;
  if (low > high) message = say.rangeReversed(what, low, high);
  else if (at === ids[0]) message = value < low ? say.valueBelowRange(what, value, low) : say.valueAboveRange(what, value, high);
  else if (at === ids[1]) message = say.lowEndAboveValue(what, low, value);
  else message = say.highEndBelowValue(what, high, value);
  return setError(at, message);
}

// The form as a workload in the scenario file's shape, or the number of problems found.
function workloadFromForm() {
  let bad = 0;
  missing = 0;
  const take = (id) => { const [v, e] = number(id); bad += e; return v; };
  const runSize = {};
  if (chosenMode() === "hours") {
    runSize.gpu_instance_hours = take("calc-hours");
    ["calc-params", "calc-tokens", "calc-mfu"].forEach((id) => setError(id, ""));
  } else {
    runSize.params_billion = take("calc-params");
    runSize.tokens_billion = take("calc-tokens");
    runSize.mfu = take("calc-mfu");
    runSize.precision = $("calc-precision").value;
    setError("calc-hours", "");
  }
  const runs = take("calc-runs");
  const rpa = take("calc-rpa");
  const rel = take("calc-rel");
  let relLow = take("calc-rel-low");
  let relHigh = take("calc-rel-high");
  if (rel !== null && relLow !== null && relHigh !== null) {
    [relLow, relHigh] = follow(["calc-rel", "calc-rel-low", "calc-rel-high"], [rel, relLow, relHigh]);
    bad += rangeError(["calc-rel", "calc-rel-low", "calc-rel-high"], [rel, relLow, relHigh], say.rangeLabel("relative_throughput"));
  }
  const weeksValue = take("calc-weeks");
  let porting = {};
  if (weeksValue !== null) {
    const weeks = weeksValue;
    // An empty end means the estimate itself; only a typed end is parsed (and can be wrong).
    const end = (id) => ($(id).value.trim() === "" ? (setError(id, ""), weeks) : take(id));
    let wl = end("calc-weeks-low");
    let wh = end("calc-weeks-high");
    if (wl !== null && wh !== null && $("calc-weeks-low").value.trim() !== "" && $("calc-weeks-high").value.trim() !== "") {
      [wl, wh] = follow(["calc-weeks", "calc-weeks-low", "calc-weeks-high"], [weeks, wl, wh]);
    }
    if (wl !== null && wh !== null) {
      bad += rangeError(["calc-weeks", "calc-weeks-low", "calc-weeks-high"], [weeks, wl, wh], say.rangeLabel("port_weeks"));
    }
    porting.weeks = { value: weeks, low: wl, high: wh };
  } else {
    setError("calc-weeks-low", ""); setError("calc-weeks-high", "");
  }
  const weekUsd = take("calc-week-usd");
  if (weekUsd !== null) porting.engineer_week_usd = weekUsd;
  const extra = take("calc-extra");
  porting.extra_usd = extra ?? 0;
  const soon = take("calc-soon");
  const finish = take("calc-finish");
  const trnCount = take("calc-trn-count");
  const gpuCount = take("calc-gpu-count");
  const ta = $("calc-trn-avail").value, ga = $("calc-gpu-avail").value;
  $("calc-avail-error").textContent = ta === "unavailable" && ga === "unavailable" ? say.message("both_unavailable") : "";
  if (ta === "unavailable" && ga === "unavailable") bad += 1;
  const engineers = take("calc-engineers");
  if (engineers !== null) porting.engineers = engineers;
  const planMonths = take("calc-plan-months");
  // The finish date against the start deadline and the plan's own span, as the scenario schema checks them.
  if (finish !== null && soon !== null && finish < soon) bad += setError("calc-finish", say.message("finish_before_start"));
  else if (finish !== null && planMonths !== null && planMonths * data.days_per_month > finish) {
    bad += setError("calc-finish", say.message("plan_past_finish"));
  }
  const held = {};
  for (const [side, prefix] of [["trainium", "trn"], ["gpu", "gpu"]]) {
    const id = `calc-${prefix}-held`;
    const v = take(id);
    const committed = $(`calc-${prefix}-option`).value.startsWith("commit-");
    if (v !== null && !committed) bad += setError(id, say.message("held_needs_commitment"));
    else if (v !== null) held[side] = v;
  }
  const lead = { trainium: take("calc-trn-lead"), gpu: take("calc-gpu-lead") };
  const regions = $("calc-regions").value.split(",").map((r) => r.trim()).filter(Boolean);
  if (bad || missing) return { bad, missing };
  const w = {
    name: say.message("scenario_workload"),
    architecture: $("calc-arch").value,
    run_size: runSize,
    runs,
    trainium: { instance: $("calc-trn-instance").value, region: $("calc-trn-region").value, option: $("calc-trn-option").value, count: trnCount },
    gpu: { instance: $("calc-gpu-instance").value, region: $("calc-gpu-region").value, option: $("calc-gpu-option").value, count: gpuCount },
    relative_throughput: { value: rel, low: relLow, high: relHigh },
    porting,
    neuron_experience: $("calc-exp").value,
    availability: { trainium: ta, gpu: ga },
    constraints: checked(checks),
  };
  // On demand alone is what a workload that lists no ways accepts: the list is left out then.
  const ways = checked(buy);
  if (ways.join(",") !== buy.default) w.buy = ways;
  if (rpa !== null) w.runs_per_architecture = rpa;
  if (soon !== null) w.availability.needed_within_days = soon;
  if (finish !== null) w.availability.finish_within_days = finish;
  for (const side of ["trainium", "gpu"]) {
    if (held[side] !== undefined) w[side].held_months = held[side];
    if (lead[side]) w.availability[`${side}_lead_days`] = lead[side];
  }
  if (planMonths !== null) w.plan_months = planMonths;
  if (regions.length) w.regions = regions;
  return { workload: w };
}

// data-label names a cell's column where a narrow screen stacks each row (guide.css).
const cell = (c, label = "") => {
  const named = label ? ` data-label="${esc(label)}"` : "";
  return c.key ? `<td${named} data-key="${esc(c.key)}" data-value="${esc(c.value ?? "none")}">${esc(c.text)}</td>` : `<td${named}>${esc(c.text)}</td>`;
};

// Places what wording.mjs says; every string is escaped here, whatever its origin.
function render(shown) {
  const L = say.answerLabels();
  const rob = shown.robustness;
  const t = shown.thresholds;
  const badge = rob.state === "robust" ? "robust" : "flips";
  const trace = shown.trace.map((s) => `<li data-rule="${esc(s.rule)}"${s.decides ? ` data-decides="${esc(s.decides)}"` : ""}>` +
    `<strong>${esc(s.label)}.</strong> ${esc(s.text)}${s.decides ? ` <em>${esc(s.decides_text)}</em>` : ""}</li>`).join("");
  const sides = shown.summary.sides.map((r) => `<tr><td>${esc(r.label)}</td>${cell(r.trainium, L.trainium)}${cell(r.gpu, L.gpu)}</tr>`).join("");
  const rows = shown.summary.rows.map((c) => `<tr><td>${esc(c.label)}</td>${cell(c)}</tr>`).join("");
  const ends = rob.ends.map((e) => `<tr><td>${esc(e.label)}</td><td data-label="${esc(L.end)}">${esc(e.end)}</td><td data-label="${esc(L.value)}">${esc(e.value_text)}</td>` +
    `<td data-label="${esc(L.verdict_column)}">${esc(e.verdict_label)}</td><td data-label="${esc(L.difference)}">${esc(e.difference_text)}</td></tr>`).join("");
  const parts = t.parts.map((it) => `${esc(it.label)}: <span data-key="${esc(it.key)}" data-value="${esc(it.value ?? "none")}">${esc(it.text)}</span>`).join("; ");
  $("calc-output").innerHTML = `
<div class="guide-verdict guide-verdict--${esc(shown.verdict)}" data-verdict="${esc(shown.verdict)}">
${shown.lead ? `<p class="guide-verdict__lead">${esc(shown.lead)}</p>` : ""}
<p class="guide-verdict__label">${esc(L.verdict)} <strong>${esc(shown.verdict_label)}</strong> <span class="guide-badge guide-badge--${badge}" data-robust="${esc(rob.state)}">${esc(rob.words)}</span></p>
<ol class="guide-trace">${trace}</ol>
${shown.price_notes.map((n) => `<p class="guide-price-basis" data-price-basis="${esc(n.side)}:${esc(n.basis)}">${esc(n.text)}</p>`).join("")}
${shown.stale_verdict ? `<p class="guide-stale-verdict" data-stale-verdict>${esc(shown.stale_verdict)}</p>` : ""}
${shown.booking_notes.map((n) => `<p class="guide-booking-note" data-booking-note>${esc(n)}</p>`).join("")}
</div>
<table data-table="numbers">
<thead><tr><th>${esc(L.figure)}</th><th>${esc(L.trainium)}</th><th>${esc(L.gpu)}</th></tr></thead>
<tbody>${sides}</tbody></table>
<table data-table="numbers"><tbody>${rows}</tbody></table>
<p class="guide-prices-used" data-prices-used>${esc(L.prices_used)} ${shown.prices_used.map((u) =>
    `<span data-used="${esc(u.side)}"${u.stale ? " data-stale" : ""}>${esc(u.text)}</span>`).join("; ")}.</p>
<h3>${esc(L.holds)}</h3>
<p data-robust="${esc(rob.state)}">${esc(rob.sentence)}</p>
${ends ? `<table data-table="ranges"><thead><tr><th>${esc(L.input)}</th><th>${esc(L.end)}</th><th>${esc(L.value)}</th><th>${esc(L.verdict_column)}</th><th>${esc(L.difference)}</th></tr></thead><tbody>${ends}</tbody></table>` : ""}
<p>${esc(t.intro)} ${parts}.</p>`;
  glance(shown);
  // Only this short line is live: the whole answer re-read on every keystroke would drown the form.
  const live = $("calc-live");
  if (live && live.textContent !== shown.live) live.textContent = shown.live;
}

// The answer at a glance, kept in view beside the form (a wide screen) or pinned under it (a phone),
// and the flip point beside relative throughput. Text is set only when it changed: a field edit
// that leaves the verdict alone moves nothing on the screen.
function glance(shown) {
  const set = (id, text) => { const el = $(id); if (el && el.textContent !== text) el.textContent = text; };
  const box = $("calc-glance");
  if (!box) return;
  box.hidden = false;
  box.setAttribute("data-verdict", shown.verdict);
  set("calc-glance-verdict", shown.verdict_label);
  set("calc-glance-saving", shown.glance.saving);
  set("calc-glance-reason", shown.glance.reason);
  set("calc-guess-flip", shown.guess.text);
}

// The chart draws once it comes near the screen (it sits below the form), so the runtime never
// holds up the first paint or the first answer; after that every recompute redraws it. Draws run
// one at a time, and the last state asked for is the one drawn.
const chart = { el: null, near: false, spec: null, theme: "light", busy: false, dirty: false, stopNear: null };

function drawChart(filled) {
  const el = $("calc-chart");
  if (!el || !window.GuideCharts) return;
  const datasets = { rows: filled.rows, marks: filled.marks };
  el.setAttribute("aria-label", say.chartName(filled.summary));
  // Filled into the spec itself, so the first render already has the data (no empty-extent warnings).
  chart.spec = {
    ...template,
    title: { ...template.title, subtitle: [filled.subtitle] },
    data: template.data.map((d) => (d.name in datasets ? { ...d, values: datasets[d.name] } : d)),
    signals: template.signals.map((s) => (s.name === "interp" ? { ...s, value: filled.interp } : s)),
  };
  chart.theme = document.body.getAttribute("data-md-color-scheme") === "slate" ? "dark" : "light";
  if (chart.el !== el) {
    // A new page (instant navigation): forget the old chart, wait for this one to come near.
    if (view) { view.finalize(); view = null; }
    if (chart.stopNear) chart.stopNear();
    chart.el = el;
    chart.near = false;
    // data-waiting says the chart is waiting to come near the screen: a test waits for it before
    // checking that nothing was fetched yet.
    el.setAttribute("data-waiting", "near");
    chart.stopNear = window.GuideCharts.whenNear(el, () => {
      if (chart.el !== el) return;
      el.removeAttribute("data-waiting");
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
      if (chart.el !== el) continue; // the reader left the page while the runtime loaded
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

let current = null; // { workload, result, shown } of the last good recompute
let pricesShown = ""; // the price line as last placed, so an edit that leaves it alone does not re-announce it

// What checkReferences finds goes under the field it names (its path in the field table), in
// wording.mjs's words; the ids it marked are cleared at the next check.
let referenceMarked = [];

// The answer stays for the last valid inputs while a field is wrong, marked as such, so a reader
// who mistypes does not lose it; only before any valid input is there nothing to show.
// A field marked wrong is told first; else the empty fields the reader has yet to fill (`empty`).
// The answer at a glance says it too, where the reader is (on a phone it is pinned to the screen).
function invalid(count, empty = 0) {
  const root = $("guide-calc");
  root.setAttribute("data-state", "invalid");
  const note = $("calc-stale");
  const stale = $("calc-glance-stale");
  if (stale) {
    stale.textContent = count ? say.message("glance_fix") : say.message("glance_fill");
    stale.hidden = false;
  }
  if (current) {
    note.textContent = count ? say.staleAnswer(count) : say.incompleteAnswer(empty);
    note.hidden = false;
    $("calc-output").setAttribute("data-stale", "true");
  } else {
    note.hidden = true;
    const text = count ? say.noAnswerYet(count) : say.noAnswerUntilFilled(empty);
    $("calc-output").innerHTML = `<p class="guide-calc__invalid">${esc(text)}</p>`;
  }
}

// Beside each way to buy: why ticking it changes nothing, where neither side is sold that way in any
// region it may use (its own, and the workload's list). Read from the calculator's data as the engine
// reads it (engine.mjs `ways`), so it follows whatever data/ prices.
function explainBoxes(w) {
  const sides = [w.trainium, w.gpu];
  const regionsOf = (c) => [c.region, ...(w.regions || []).filter((r) => r !== c.region)];
  const sold = (c, option, regions) => regions.filter((r) => ways(data, c.instance, r).some((p) => p.option === option));
  const allRegions = [...new Set(data.prices.map((p) => p.region))].sort();
  for (const box of document.querySelectorAll(`#${buy.id} input`)) {
    const note = $(`${buy.id}-why-${box.value}`);
    if (!note) continue;
    const here = sides.map((c) => [c, regionsOf(c)]);
    const priced = here.some(([c, regions]) => sold(c, box.value, regions).length);
    const text = priced ? "" : say.wayUnpriced(box.value,
      here.map(([c, regions]) => [c.instance, regions]),
      sides.map((c) => [c.instance, sold(c, box.value, allRegions)]).filter(([, regions]) => regions.length));
    if (note.textContent !== text) note.textContent = text;
    note.hidden = !text;
  }
}

function recompute() {
  const started = performance.now();
  syncSide("trn");
  syncSide("gpu");
  document.querySelectorAll("#guide-calc [data-mode]").forEach((el) => {
    el.hidden = el.getAttribute("data-mode") !== chosenMode();
  });
  const { workload, bad, missing: empty } = workloadFromForm();
  const root = $("guide-calc");
  referenceMarked.forEach((id) => setError(id, ""));
  referenceMarked = [];
  if (!workload) { invalid(bad, empty); return; }
  const problems = checkReferences(workload, data);
  if (problems.length) {
    for (const p of problems) {
      const id = byPath[p[0]].id;
      setError(id, say.referenceError(workload, p));
      referenceMarked.push(id);
    }
    invalid(problems.length);
    return;
  }
  const result = evaluateWorkload(workload, data);
  const tp = findPrice(data, workload.trainium.instance, workload.trainium.region, workload.trainium.option);
  const gp = findPrice(data, workload.gpu.instance, workload.gpu.region, workload.gpu.option);
  // The answer names the prices its plans buy at, which need not be the ones the form names.
  const refs = result.prices_used.map((p) => ({
    side: p.side, instance: p.instance, region: p.region, option: p.option, usd_per_hour: p.usd_per_hour,
    source: p.source, as_of: p.as_of, name: data.sources[p.source]?.name ?? p.source,
    vanished: p.vanished ?? null, stale: Boolean(p.stale), age_days: p.age_days ?? null,
  }));
  const shown = say.present(result, result.curve, refs);
  render(shown);
  $("calc-stale").hidden = true;
  if ($("calc-glance-stale")) $("calc-glance-stale").hidden = true;
  explainBoxes(workload);
  $("calc-output").removeAttribute("data-stale");
  // Each price to the cent with the rate as its source gives it on hover, its source by title and
  // date, and where its sources disagree, which end it is and the verdict at the other end.
  const priceHtml = (side, p) => {
    const src = data.sources[p.source];
    const mark = shown.price_marks[side];
    return `<span title="${esc(hourlyExact(p.usd_per_hour))}">${esc(hourly(p.usd_per_hour))}</span>` +
      (mark ? ` <span class="guide-price-mark" data-price-mark="${esc(side)}:${esc(mark.basis)}">(${esc(mark.text)})</span>` : "") +
      esc(say.priceSource(src ? src.name : p.source, p.as_of, p.checked));
  };
  const pricesHtml = say.pricesLine(priceHtml("trainium", tp), priceHtml("gpu", gp));
  if (pricesShown !== pricesHtml) { $("calc-prices").innerHTML = pricesHtml; pricesShown = pricesHtml; }
  current = { workload, result, shown };
  root.setAttribute("data-state", "ok");
  root.setAttribute("data-recompute-ms", String(performance.now() - started));
  drawChart(shown.chart);
}

// History: the first keystroke after a committed change opens a new entry and later keystrokes
// update it, so back and forward step through edits rather than through single characters.
let editing = false;

function onChange(committed) {
  recompute();
  // The link keeps the last case that has an answer: a value the checks refuse is never shared.
  if ($("guide-calc").getAttribute("data-state") !== "ok") return;
  const url = urlFor(readState());
  const here = window.location.pathname + window.location.search;
  if (url !== here) {
    setAddress(url, !editing);
  }
  editing = !committed && (editing || url !== here);
}

// A scenario file `guide validate` accepts, made from the form.
function toYaml(w, verdict) {
  const q = (s) => JSON.stringify(String(s));
  const n = (v) => String(v);
  const lines = [
    "# yaml-language-server: $schema=../schemas/scenario.schema.json",
    `title: ${q(say.message("scenario_title"))}`,
    `summary: ${q(say.message("scenario_summary"))}`,
    `expect: ${verdict}`,
    "sources:",
    `  - ${q(say.scenarioSource(window.location.href))}`,
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
  if (w.buy) lines.push(`    buy: [${w.buy.join(", ")}]`);
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
  if (w.availability.finish_within_days !== undefined) lines.push(`      finish_within_days: ${n(w.availability.finish_within_days)}`);
  for (const side of ["trainium", "gpu"]) {
    const v = w.availability[`${side}_lead_days`];
    if (v !== undefined) lines.push(`      ${side}_lead_days: ${n(v)}`);
  }
  lines.push(`    constraints: [${w.constraints.join(", ")}]`);
  return lines.join("\n") + "\n";
}

const at = (w, path) => path.split(".").reduce((o, part) => (o === undefined || o === null ? undefined : o[part]), w);
const asText = (f) => (f.default === undefined ? "" : String(f.default));

// A workload as the form's state: each field read at its path in the workload, or its default where
// the workload leaves it out. Fields of the run size's other way keep what the form had for them.
function presetState(w) {
  const s = { ...DEFAULTS };
  const way = FIELDS.some((f) => f.mode === "hours" && at(w, f.path) !== undefined) ? "hours" : "flops";
  s[mode.key] = way;
  for (const f of FIELDS) {
    if (!f.path || (f.mode && f.mode !== way)) continue;
    const v = at(w, f.path);
    if (Array.isArray(v)) s[f.key] = v.join(f.kind === "checks" ? "," : ", ");
    else s[f.key] = v === undefined ? asText(f) : String(v);
  }
  return s;
}

function chosenMode() {
  return document.querySelector(`input[name="${mode.key}"]:checked`)?.value || mode.default;
}

// On the page's first load the browser gets a turn between filling the lists and computing the
// first answer (to paint, to take a keystroke): one long task on a slow phone becomes two shorter
// ones. Pages that instant navigation swaps in (links, back and forward) are set up at once, so
// they never show without their answer.
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
let firstLoad = true;

// What a shared link asked for that this page cannot take: each such parameter falls back to its
// default, and the reader is told which one and why. Returns the state to apply and the notes.
function checkLink(asked) {
  const params = new URLSearchParams(window.location.search);
  const notes = [];
  const state = { ...asked };
  const label = (el) => {
    const l = document.querySelector(`label[for='${el.id}']`);
    if (!l) return el.name;
    const copy = l.cloneNode(true);
    copy.querySelectorAll(".guide-unit").forEach((u) => u.remove());
    return copy.textContent.trim();
  };
  const fallBack = (key, el, why) => {
    notes.push(say.linkFallBack(label(el), key, params.get(key), DEFAULTS[key], why));
    state[key] = DEFAULTS[key];
  };
  // Choices first: a value the list does not offer cannot be selected at all.
  const trial = (key) => {
    const el = document.querySelector(`#guide-calc select[name="${key}"]`);
    if (!el || !params.has(key)) return;
    if (![...el.options].some((o) => o.value === state[key])) fallBack(key, el, say.message("link_not_a_choice"));
  };
  for (const [side, prefix] of [["trainium", "trn"], ["gpu", "gpu"]]) {
    const [instance, region, option] = ["instance", "region", "option"].map((part) => byPath[`${side}.${part}`]);
    trial(instance.key);
    $(instance.id).value = state[instance.key]; syncSide(prefix);
    trial(region.key);
    $(region.id).value = state[region.key]; syncSide(prefix);
    trial(option.key);
  }
  for (const f of FIELDS) if (f.kind === "select" && !/^(trainium|gpu)\./.test(f.path)) trial(f.key);
  if (params.has(mode.key) && !mode.choices.includes(state[mode.key])) {
    notes.push(say.linkModeFallBack(mode.key, params.get(mode.key)));
    state[mode.key] = DEFAULTS[mode.key];
  }
  // Then numbers: whatever the form would mark as wrong, an empty one the link gives included.
  for (const el of fields()) if (params.has(el.name) && el.id) typed.add(el.id);
  writeState(state);
  workloadFromForm();
  for (const el of fields()) {
    if (el.getAttribute("aria-invalid") !== "true" || !params.has(el.name)) continue;
    fallBack(el.name, el, say.linkNotUsable($(el.id + "-error").textContent));
  }
  return { state, notes };
}

// Everything one showing of the page set up outside its own form (listeners on window, observers),
// undone when the reader leaves: instant navigation keeps this module and window alive for the visit.
export function teardown() {
  if (!visit) return;
  visit.abort.abort();
  visit.observer.disconnect();
  visit.answerSeen.disconnect();
  if (chart.stopNear) chart.stopNear();
  if (view) { view.finalize(); view = null; }
  Object.assign(chart, { el: null, near: false, spec: null, dirty: false, stopNear: null });
  visit = null;
  current = null;
  pricesShown = "";
  lastEdited = null;
  referenceMarked = [];
  typed.clear();
}

// data-ready marks the form filled, the first answer shown and the listeners attached.
export async function setup() {
  const root = $("guide-calc");
  if (!root || root.getAttribute("data-setup")) return;
  teardown();
  root.setAttribute("data-setup", "true");
  const abort = new AbortController();
  const { signal } = abort;
  visit = { root, abort, observer: new MutationObserver(() => { if (current) drawChart(current.shown.chart); }),
    // Once the full answer is on the screen (or scrolled past), the pinned summary steps aside: on a
    // phone it would sit right above the answer's own verdict, saying it twice (calculator.css).
    // The screen is taken to reach far above itself: a jump from the form to past the answer's title
    // (a link, a fling) never has the title on the screen, yet crosses that edge and is seen.
    answerSeen: new IntersectionObserver(([entry]) => {
      $("calc-glance")?.toggleAttribute("data-answer-seen", entry.boundingClientRect.top < window.innerHeight);
    }, { rootMargin: "100000px 0px 0px 0px" }) };
  const baked = JSON.parse($("guide-calc-data").content.textContent);
  data = baked.data;
  learnEngine(data.engine);
  say.learn(data.words, data.messages);
  template = baked.chart;
  const presets = baked.presets;
  FIELDS = baked.fields;
  byId = Object.fromEntries(FIELDS.map((f) => [f.id, f]));
  byPath = Object.fromEntries(FIELDS.filter((f) => f.path).map((f) => [f.path, f]));
  mode = FIELDS.find((f) => f.kind === "radio");
  checks = byPath.constraints;
  buy = byPath.buy;
  checkGroups = FIELDS.filter((f) => f.kind === "checks");
  // Where a workload names no engineer-week cost, the form shows the guide's own.
  byPath["porting.engineer_week_usd"].default = data.assumptions.engineer_week_usd;
  for (const key of Object.keys(DEFAULTS)) delete DEFAULTS[key];
  for (const f of FIELDS) DEFAULTS[f.key] = asText(f);
  Object.assign(DEFAULTS, presetState(baked.reference));

  const bySide = (side) => Object.keys(data.instances).filter((i) => data.instances[i].side === side);
  fillSelect($("calc-trn-instance"), bySide("trainium"));
  fillSelect($("calc-gpu-instance"), bySide("gpu"));
  const classes = data.assumptions.porting_classes;
  fillSelect($("calc-arch"), Object.keys(classes), Object.fromEntries(Object.entries(classes).map(([k, v]) => [k, say.architectureChoice(v.label, v.weeks.low, v.weeks.high)])));
  const box = $(checks.id);
  for (const [name, c] of Object.entries(data.assumptions.constraints)) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox"; input.value = name;
    label.appendChild(input);
    label.appendChild(document.createTextNode(" " + say.constraintChoice(c)));
    box.appendChild(label);
  }
  // A field that starts empty (the other way to give the run size) shows an example from a shipped
  // scenario that gives it, never a value of its own.
  for (const f of FIELDS) {
    if (f.kind !== "number" || !f.path || f.optional || DEFAULTS[f.key] !== "") continue;
    const given = presets.map((p) => at(p.workload, f.path)).find((v) => v !== undefined && v !== null);
    if (given !== undefined) $(f.id).placeholder = say.example(String(given));
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
    if ($("guide-calc") !== root || visit?.root !== root) return; // the reader has already navigated away
  }

  const apply = (state) => {
    // Instance first, then the region and option lists that depend on it.
    $("calc-trn-instance").value = state.ti; syncSide("trn"); $("calc-trn-region").value = state.tr; syncSide("trn");
    $("calc-gpu-instance").value = state.gi; syncSide("gpu"); $("calc-gpu-region").value = state.gr; syncSide("gpu");
    writeState(state);
    recompute();
  };
  const fromLink = () => {
    const { state, notes } = checkLink(stateFromUrl());
    const notice = $("calc-link-notice");
    notice.textContent = say.linkNotice(notes);
    notice.hidden = !notes.length;
    apply(state);
    if (notes.length) setAddress(urlFor(readState()));
    else keepCaseInLinks();
  };
  // ?from=<scenario>/<workload> (the link under every scenario chart) loads that scenario's inputs.
  const from = new URLSearchParams(window.location.search).get("from");
  const preset = from && presets.find((x) => x.id === from);
  if (preset) {
    apply(presetState(preset.workload));
    setAddress(urlFor(readState()));
    presetSelect.value = preset.id;
  } else {
    fromLink();
  }

  const edited = (ev) => { if (ev.target.id) { lastEdited = ev.target.id; typed.add(ev.target.id); } };
  root.addEventListener("input", (ev) => { edited(ev); if (ev.target.type !== "checkbox" && ev.target.tagName !== "SELECT") onChange(false); }, { signal });
  editing = false;
  root.addEventListener("change", (ev) => { edited(ev); if (ev.target.id !== "calc-preset") onChange(true); }, { signal });
  $("calc-load").addEventListener("click", () => {
    const p = presets.find((x) => x.id === presetSelect.value);
    if (!p) return;
    apply(presetState(p.workload));
    onChange(true);
    $("calc-status").textContent = say.loadedPreset(p.label);
  }, { signal });
  $("calc-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
      $("calc-status").textContent = say.message("link_copied");
    } catch (err) {
      $("calc-status").textContent = say.copyFromAddressBar(window.location.href);
    }
  }, { signal });
  $("calc-yaml").addEventListener("click", () => {
    if (!current || root.getAttribute("data-state") !== "ok") { $("calc-status").textContent = say.message("fix_first"); return; }
    const blob = new Blob([toYaml(current.workload, current.result.outcome.verdict)], { type: "application/yaml" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "my-case.yaml";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }, { signal });
  window.addEventListener("popstate", () => { if ($("guide-calc") === root) fromLink(); }, { signal });
  visit.observer.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  visit.answerSeen.observe($("calc-result-title"));
  root.setAttribute("data-ready", "true");
}
