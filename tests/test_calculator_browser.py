"""The calculator in headless Chromium, on the built site served from 127.0.0.1.

Each shipped scenario loaded into the calculator must give the Python engine's verdict and numbers;
the URL must carry the whole state; the downloaded YAML must validate and evaluate the same way.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from site_support import FROZEN

RAW_KEYS = {
    "trainium.hours_per_run": lambda o, t: o.trainium.hours_per_run,
    "gpu.hours_per_run": lambda o, t: o.gpu.hours_per_run,
    "trainium.cost_per_run": lambda o, t: o.trainium.cost_per_run,
    "gpu.cost_per_run": lambda o, t: o.gpu.cost_per_run,
    "trainium.wall_clock_hours": lambda o, t: o.trainium.wall_clock_hours,
    "gpu.wall_clock_hours": lambda o, t: o.gpu.wall_clock_hours,
    "trainium.total": lambda o, t: o.trainium.total,
    "gpu.total": lambda o, t: o.gpu.total,
    "saving_per_run": lambda o, t: o.saving_per_run,
    "port_cost": lambda o, t: o.port_cost,
    "ports": lambda o, t: o.ports,
    # Under a commitment no run breaks even by itself; the calculator gives where the plan's lines cross.
    "break_even_runs": lambda o, t: o.break_even_runs if o.break_even_runs is not None else t.runs,
    "total_difference": lambda o, t: o.total_difference,
    "threshold.relative_throughput": lambda o, t: t.relative_throughput,
    "threshold.runs": lambda o, t: t.runs,
    "threshold.port_weeks": lambda o, t: t.port_weeks,
    "threshold.trainium_price": lambda o, t: t.trainium_price,
}


class Calc:
    def __init__(self, page, base: str):
        self.page = page
        self.base = base
        self.errors: list[str] = []
        self.outside: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", self._request)

    def _request(self, request) -> None:
        url = request.url
        if not (url.startswith("http://127.0.0.1") or url.startswith("data:") or url.startswith("blob:")):
            self.outside.append(url)

    def open(self, query: str = "") -> None:
        self.page.goto(self.base + "calculator/" + query)
        self.page.wait_for_selector("#guide-calc[data-ready]")

    def values(self) -> dict[str, str]:
        return self.page.eval_on_selector_all(
            "#calc-output [data-key]", "els => Object.fromEntries(els.map(e => [e.dataset.key, e.dataset.value]))"
        )

    def verdict(self) -> str:
        return self.page.get_attribute("#calc-output [data-verdict]", "data-verdict")

    def chart_drawn(self) -> None:
        """Scroll to the chart (it draws once it nears the screen) and wait until it is drawn."""
        self.page.locator("#calc-chart").scroll_into_view_if_needed()
        self.page.wait_for_selector("#calc-chart[data-drawn] svg")

    def load(self, preset: str) -> None:
        self.page.select_option("#calc-preset", preset)
        self.page.click("#calc-load")
        self.page.wait_for_function("id => document.getElementById('calc-status').textContent.startsWith('Loaded')", arg=preset)


@pytest.fixture
def calc(browser, served_site: str):
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    c = Calc(page, served_site)
    yield c
    context.close()
    assert not c.errors, c.errors
    assert not c.outside, c.outside


def _same(raw: str, expected) -> bool:
    if expected is None:
        return raw == "none"
    return math.isclose(float(raw), float(expected), rel_tol=1e-9, abs_tol=1e-9)


def test_every_shipped_scenario_gives_the_engines_answer(calc: Calc, project):
    calc.open()
    for r in project.results:
        for i, w in enumerate(r.workloads):
            calc.load(f"{r.id}/{i + 1}")
            assert calc.verdict() == w.outcome.verdict, (r.id, i)
            got = calc.values()
            for key, pick in RAW_KEYS.items():
                assert _same(got[key], pick(w.outcome, w.thresholds)), (r.id, i, key, got[key])
            rules = calc.page.eval_on_selector_all(
                "#calc-output .guide-trace li", "els => els.map(e => [e.dataset.rule, e.dataset.decides || null])"
            )
            assert rules == [[s.rule, s.verdict] for s in w.outcome.trace], (r.id, i)
            robust = calc.page.get_attribute("#calc-output [data-robust]", "data-robust")
            rob = w.robustness
            joint = rob.worst_case.verdict != w.outcome.verdict or rob.best_case.verdict != w.outcome.verdict
            assert robust == ("flips" if rob.flips_on else "joint" if joint else "robust"), (r.id, i)
            calc.chart_drawn()


def test_the_url_carries_the_state_and_back_and_forward_work(calc: Calc, project):
    calc.open()
    calc.load("large-run-gpus-constrained/1")
    shared = calc.page.url
    before = calc.values()
    assert "n=1" in shared and "go=capacity-block" in shared

    # A fresh tab at the shared link shows the same case.
    calc.page.goto("about:blank")
    calc.page.goto(shared)
    calc.page.wait_for_selector("#guide-calc[data-ready]")
    assert calc.values() == before
    assert calc.page.input_value("#calc-runs") == "1"

    # A committed change is a new history entry; back and forward move between them.
    calc.page.fill("#calc-runs", "40")
    calc.page.dispatch_event("#calc-runs", "change")
    calc.page.wait_for_function("() => location.search.includes('n=40')")
    calc.page.go_back()
    calc.page.wait_for_function("() => document.getElementById('calc-runs')?.value === '1' && document.querySelector('#guide-calc[data-ready]')")
    assert calc.values() == before
    calc.page.go_forward()
    calc.page.wait_for_function("() => document.getElementById('calc-runs')?.value === '40' && document.querySelector('#guide-calc[data-ready]')")
    assert calc.values() != before


def test_downloaded_yaml_validates_and_evaluates_the_same(calc: Calc, tmp_path: Path):
    calc.open("?n=25&r=0.9&rl=0.7&rh=1.3&c=moderate-custom&e=some&ga=constrained&s=10&k_=dynamic-shapes")
    verdict = calc.verdict()
    values = calc.values()
    with calc.page.expect_download() as info:
        calc.page.click("#calc-yaml")
    folder = tmp_path / "project"
    shutil.copytree(FROZEN / "data", folder / "data")
    (folder / "scenarios").mkdir()
    target = folder / "scenarios" / "my-case.yaml"
    info.value.save_as(target)

    check = subprocess.run([sys.executable, "-m", "generator", "--root", str(folder), "validate"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    out = subprocess.run(
        [sys.executable, "-m", "generator", "--root", str(folder), "evaluate", "--format", "json"],
        capture_output=True, text=True, check=True,
    )
    [result] = json.loads(out.stdout)
    assert result["verdict"] == verdict
    outcome = result["workloads"][0]["outcome"]
    assert _same(values["gpu.total"], outcome["gpu"]["total"])
    assert _same(values["trainium.total"], outcome["trainium"]["total"])


def test_impossible_input_gets_a_message_next_to_the_field(calc: Calc):
    calc.open()
    for field, value, message in [
        ("#calc-runs", "", "Enter a number."),
        ("#calc-runs", "-3", "Must be at least 1."),
        ("#calc-runs", "2.5", "Enter a whole number."),
        ("#calc-hours", "0", "Must be more than 0."),
        ("#calc-rel", "0", "Must be at least 0.01."),
    ]:
        original = calc.page.input_value(field)
        before = calc.values()
        calc.page.fill(field, value)
        error = calc.page.inner_text(f"{field}-error")
        assert error == message, (field, value, error)
        assert calc.page.get_attribute(field, "aria-invalid") == "true"
        # The answer for the last valid inputs stays, marked as such, and its summary is dimmed with it.
        assert calc.page.inner_text("#calc-stale").startswith("Fix the field marked above")
        assert calc.page.eval_on_selector("#calc-glance-verdict", "e => getComputedStyle(e.parentElement).opacity") == "0.55"
        assert calc.values() == before and calc.page.get_attribute("#calc-output", "data-stale") == "true"
        output = calc.page.inner_text("#calc-output")
        assert "NaN" not in output and "undefined" not in output
        calc.page.fill(field, original)
        assert calc.page.inner_text(f"{field}-error") == ""
        assert calc.page.get_attribute("#guide-calc", "data-state") == "ok"
        assert calc.page.is_hidden("#calc-stale") and calc.page.get_attribute("#calc-output", "data-stale") is None
        assert calc.page.eval_on_selector("#calc-glance-verdict", "e => getComputedStyle(e.parentElement).opacity") == "1"


def _at_most(model, name: str):
    """The schema's upper bound of one field, as pydantic holds it."""
    (le,) = [m.le for m in model.model_fields[name].metadata if getattr(m, "le", None) is not None]
    return le


def test_a_value_just_above_a_schema_bound_is_refused_at_its_field(calc: Calc):
    from generator.model.schema import Compute, Porting, Workload

    calc.open()
    for field, limit, above in [
        ("#calc-runs", _at_most(Workload, "runs"), _at_most(Workload, "runs") + 1),
        ("#calc-gpu-count", _at_most(Compute, "count"), _at_most(Compute, "count") + 1),
        ("#calc-engineers", _at_most(Porting, "engineers"), _at_most(Porting, "engineers") + 0.01),
        ("#calc-plan-months", _at_most(Workload, "plan_months"), _at_most(Workload, "plan_months") + 0.01),
    ]:
        original = calc.page.input_value(field)
        assert calc.page.get_attribute(field, "max") == str(limit), field
        calc.page.fill(field, str(above))
        assert calc.page.inner_text(f"{field}-error") == f"Must be at most {limit:,}.", field
        assert calc.page.get_attribute(field, "aria-invalid") == "true"
        assert calc.page.get_attribute("#guide-calc", "data-state") == "invalid"
        calc.page.fill(field, str(limit))
        assert calc.page.inner_text(f"{field}-error") == "", field
        assert calc.page.get_attribute("#guide-calc", "data-state") == "ok", field
        calc.page.fill(field, original)


def test_lists_and_typed_fields_stand_the_same_height_in_the_form(calc: Calc):
    calc.open()
    heights = calc.page.eval_on_selector_all(
        ".guide-calc__grid select, .guide-calc__grid input[type=number], .guide-calc__grid input[type=text]",
        "els => els.filter(e => e.offsetParent).map(e => [e.tagName, Math.round(e.getBoundingClientRect().height * 2) / 2])")
    assert {tag for tag, _ in heights} == {"SELECT", "INPUT"}
    assert len({h for _, h in heights}) == 1, heights


def test_every_input_has_a_label_and_the_keyboard_reaches_it(calc: Calc):
    calc.open()
    unlabelled = calc.page.eval_on_selector_all(
        "#guide-calc input:not([type=radio]):not([type=checkbox]), #guide-calc select",
        "els => els.filter(e => !document.querySelector(`label[for='${e.id}']`)).map(e => e.id || e.name)",
    )
    assert unlabelled == []
    # Tab from the runs field reaches the next one, and typing there recomputes.
    calc.page.focus("#calc-runs")
    calc.page.keyboard.press("Tab")
    assert calc.page.evaluate("document.activeElement.id") == "calc-rpa"
    calc.page.keyboard.type("3")
    calc.page.wait_for_function("() => location.search.includes('a=3')")
    assert calc.values()["ports"] == "4"  # ceil(10 runs / 3 per architecture)


def test_the_calculator_works_after_instant_navigation(calc: Calc):
    # Material takes over links only once it has read sitemap.xml: a click before is a plain visit.
    calc.page.goto(calc.base, wait_until="networkidle")
    calc.page.evaluate("window.__stayed = true")
    calc.page.click("nav.md-nav a[href$='calculator/']")
    calc.page.wait_for_selector("#guide-calc[data-ready]")
    assert calc.page.evaluate("window.__stayed === true"), "the page reloaded instead of navigating instantly"
    assert calc.verdict() in ("trainium", "gpu")
    calc.chart_drawn()


def test_the_chart_waits_until_it_nears_the_screen_then_follows_the_numbers(calc: Calc):
    runtime: list[str] = []
    calc.page.on("request", lambda r: runtime.append(r.url) if r.url.endswith("/assets/vendor/vega.js") else None)
    calc.open()
    # The answer is there at once; the chart, below the form, waits to come near the screen and
    # has not asked for the runtime.
    assert calc.verdict() in ("trainium", "gpu")
    calc.page.wait_for_selector("#calc-chart[data-waiting=near]", state="attached")
    assert runtime == [] and calc.page.evaluate("typeof window.vega") == "undefined"
    assert calc.page.get_attribute("#calc-chart", "data-drawn") is None

    calc.chart_drawn()
    assert len(runtime) == 1
    plan = "() => [...document.querySelectorAll('#calc-chart svg text')].map(t => t.textContent).find(t => t.startsWith('plan:'))"
    assert calc.page.evaluate(plan) == "plan: 10 runs"
    calc.page.fill("#calc-runs", "40")
    calc.page.wait_for_function(f"() => ({plan})() === 'plan: 40 runs'")
    # A change of palette redraws it in the other theme.
    calc.page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    calc.page.wait_for_selector("#calc-chart[data-theme=dark][data-drawn] svg")
    assert calc.page.evaluate(plan) == "plan: 40 runs"
    assert len(runtime) == 1


def test_dollar_figures_read_as_the_scenario_pages_write_them(calc: Calc, project):
    from generator.model.formatting import money as usd

    calc.open()
    for r in project.results:
        for i, w in enumerate(r.workloads):
            calc.load(f"{r.id}/{i + 1}")
            o = w.outcome
            expected = {
                "trainium.cost_per_run": o.trainium.cost_per_run, "gpu.cost_per_run": o.gpu.cost_per_run,
                "trainium.total": o.trainium.total, "gpu.total": o.gpu.total,
                "port_cost": o.port_cost, "total_difference": o.total_difference,
            }
            shown = calc.page.eval_on_selector_all(
                "#calc-output td[data-key]", "els => Object.fromEntries(els.map(e => [e.dataset.key, e.textContent]))"
            )
            for key, value in expected.items():
                assert shown[key] == usd(value), (r.id, i, key, shown[key], usd(value))


def test_a_value_typed_outside_its_range_takes_the_range_with_it_and_a_typed_end_is_checked(calc: Calc):
    calc.open()  # relative throughput 1, range 0.8 to 1.2
    before = calc.values()
    # A reader trying a value the range does not hold gets its answer: the end it passed follows it.
    calc.page.fill("#calc-rel", "0.7")
    calc.page.wait_for_function("() => document.getElementById('calc-rel-low').value === '0.7'")
    assert calc.page.get_attribute("#guide-calc", "data-state") == "ok"
    assert calc.page.inner_text("#calc-rel-error") == "" and calc.page.get_attribute("#calc-rel", "aria-invalid") is None
    assert calc.page.input_value("#calc-rel-high") == "1.2"
    assert calc.values()["trainium.hours_per_run"] != before["trainium.hours_per_run"]
    calc.page.fill("#calc-rel", "1.5")
    calc.page.wait_for_function("() => document.getElementById('calc-rel-high').value === '1.5'")
    assert calc.page.input_value("#calc-rel-low") == "0.7"
    # An end the reader types is theirs: one that leaves the value outside is marked where it was typed.
    before, verdict = calc.values(), calc.verdict()
    calc.page.fill("#calc-rel-high", "1.4")
    calc.page.wait_for_selector("#calc-rel-high[aria-invalid=true]")
    assert "below the relative throughput itself (1.5)" in calc.page.inner_text("#calc-rel-high-error")
    assert calc.page.inner_text("#calc-rel-error") == ""
    assert calc.values() == before and calc.verdict() == verdict
    assert "last valid inputs" in calc.page.inner_text("#calc-stale")


def test_a_bad_shared_link_says_which_parameter_and_falls_back_to_its_default(calc: Calc):
    calc.open("?ti=foo&n=-3&gr=mars-1&r=0.9")
    notice = calc.page.inner_text("#calc-link-notice")
    assert 'Trainium instance (ti="foo") is not one of the choices; the default (trn2.48xlarge) is used instead.' in notice
    assert 'Runs planned (n="-3") is not usable: must be at least 1; the default (10) is used instead.' in notice
    assert 'GPU region (gr="mars-1") is not one of the choices' in notice
    assert '(r=' not in notice  # a good parameter is kept, and not mentioned
    assert calc.page.input_value("#calc-trn-instance") == "trn2.48xlarge"
    assert calc.page.input_value("#calc-runs") == "10" and calc.page.input_value("#calc-rel") == "0.9"
    assert calc.page.get_attribute("#guide-calc", "data-state") == "ok" and calc.verdict() in ("trainium", "gpu")
    assert "unknown instance" not in calc.page.inner_text("#guide-calc")
    # The address bar no longer carries what could not be used.
    assert "ti=" not in calc.page.url and "n=" not in calc.page.url and "r=0.9" in calc.page.url


def test_an_empty_instance_in_a_link_is_explained_too(calc: Calc):
    calc.open("?gi=")
    assert 'GPU instance (gi="") is not one of the choices; the default (p5.48xlarge) is used instead.' in calc.page.inner_text("#calc-link-notice")
    assert calc.page.input_value("#calc-gpu-instance") == "p5.48xlarge"
    assert calc.page.get_attribute("#guide-calc", "data-state") == "ok"


def test_a_good_link_shows_no_notice(calc: Calc):
    calc.open("?n=25&r=0.9")
    assert calc.page.is_hidden("#calc-link-notice")


def test_only_a_short_verdict_line_is_live(calc: Calc):
    calc.open()
    live = calc.page.eval_on_selector_all("[aria-live]", "els => els.map(e => e.id)")
    assert "calc-live" in live
    inside = calc.page.evaluate("() => !!document.querySelector('#calc-output').closest('[aria-live]') || !!document.querySelector('#calc-output [aria-live]')")
    assert not inside, "the whole answer is a live region"
    text = calc.page.inner_text("#calc-live") or calc.page.text_content("#calc-live")
    assert text.startswith("Verdict: ") and len(text) < 120
    # Whatever the prices, a Trainium that cannot be had makes the verdict GPU, and the line says so.
    calc.page.select_option("#calc-trn-avail", "unavailable")
    calc.page.wait_for_function("() => document.getElementById('calc-live').textContent.startsWith('Verdict: GPU')")


# Counts, in the page, listeners on window for popstate and observers connected, so a test can see
# whether a visit to the calculator leaves anything behind when the reader moves on.
LIVE_COUNTER = """
window.__live = { popstate: 0, observers: 0 };
const add = EventTarget.prototype.addEventListener;
EventTarget.prototype.addEventListener = function (type, fn, opts) {
  if (this === window && type === "popstate") {
    window.__live.popstate++;
    const signal = opts && typeof opts === "object" ? opts.signal : null;
    if (signal) signal.addEventListener("abort", () => { window.__live.popstate--; });
  }
  return add.call(this, type, fn, opts);
};
for (const name of ["MutationObserver", "IntersectionObserver"]) {
  const Base = window[name];
  window[name] = class extends Base {
    observe(...args) { if (!this.__on) { this.__on = true; window.__live.observers++; } return super.observe(...args); }
    disconnect() { if (this.__on) { this.__on = false; window.__live.observers--; } return super.disconnect(); }
  };
}
"""


def test_visits_by_instant_navigation_leave_nothing_behind(calc: Calc):
    calc.page.add_init_script(LIVE_COUNTER)
    # Material takes over links only once it has read sitemap.xml: a click before is a plain visit.
    calc.page.goto(calc.base, wait_until="networkidle")
    calc.page.evaluate("window.__stayed = true")
    counts = []
    for _ in range(4):
        calc.page.click("nav.md-nav a[href$='calculator/']")
        calc.page.wait_for_selector("#guide-calc[data-ready]")
        counts.append(calc.page.evaluate("({...window.__live})"))
        calc.page.go_back()
        calc.page.wait_for_function("() => !document.getElementById('guide-calc')")
    assert calc.page.evaluate("window.__stayed === true"), "the page reloaded instead of navigating instantly"
    assert counts[-1] == counts[0], counts
    # Each visit still works.
    calc.page.click("nav.md-nav a[href$='calculator/']")
    calc.page.wait_for_selector("#guide-calc[data-ready]")
    calc.page.fill("#calc-runs", "40")
    calc.page.wait_for_function("() => location.search.includes('n=40')")


def test_a_calculator_that_cannot_load_says_so(browser, served_site: str):
    context = browser.new_context()
    page = context.new_page()
    page.route("**/assets/calculator/engine.mjs", lambda route: route.abort())
    try:
        page.goto(served_site + "calculator/")
        page.wait_for_selector("#guide-calc[data-state=failed]")
        text = page.inner_text("#calc-output")
        assert "could not load" in text and "needs JavaScript" not in text
    finally:
        context.close()


READ_SECTION = """([n]) => {
  const ol = document.querySelectorAll('.guide-trace')[n];
  const rob = document.querySelectorAll('p[data-robust]')[n];
  const scope = ol.closest('#calc-output') || document;
  const keys = [...document.querySelectorAll('[data-key]')].filter((e) => {
    if (scope !== document) return scope.contains(e);
    // The workload section a figure sits in: the last "Workload N:" heading before it.
    const heads = [...document.querySelectorAll('h2')].filter((x) => /^Workload \\d+:/.test(x.textContent));
    const mine = heads.filter((x) => x.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
    return mine === heads[n];
  });
  const lead = (ol.closest('.guide-verdict') || document.querySelector('.guide-verdict')).querySelectorAll('.guide-verdict__lead');
  return {
    trace: [...ol.querySelectorAll('li')].map((li) => li.textContent.trim()),
    robustness: rob.textContent.trim(),
    figures: Object.fromEntries(keys.filter((e) => e.closest('td, span')).map((e) => [e.dataset.key, e.textContent.trim()])),
    lead: [...lead].map((p) => p.textContent.trim()),
  };
}"""


def test_the_calculator_reads_as_the_scenario_page_does(calc: Calc, project):
    """Trace, robustness, thresholds and every figure read the same on the page and in the calculator."""
    checked = leads = 0
    for r in project.results:
        for i, w in enumerate(r.workloads):
            calc.page.goto(f"{calc.base}scenarios/{r.id}/")
            on_page = calc.page.evaluate(READ_SECTION, [i])
            calc.open(f"?from={r.id}/{i + 1}")
            in_calc = calc.page.evaluate(READ_SECTION, [0])
            assert in_calc["trace"] == on_page["trace"], (r.id, i)
            assert in_calc["robustness"] == on_page["robustness"], (r.id, i)
            shared = set(in_calc["figures"]) & set(on_page["figures"])
            assert len(shared) >= 17, (r.id, i, shared)
            for key in shared:
                assert in_calc["figures"][key] == on_page["figures"][key], (r.id, i, key)
            if len(r.workloads) == 1:  # a page with several workloads names each before its lead
                assert in_calc["lead"] == on_page["lead"], (r.id, i)
                leads += bool(in_calc["lead"])
            checked += 1
    assert checked == sum(len(r.workloads) for r in project.results)
    assert leads, "no shipped scenario leads with its throughput threshold; this test lost that case"
def test_the_new_model_inputs_reach_the_engine_from_the_form(calc: Calc, project):
    from generator.model.engine import evaluate
    from generator.model.resolve import resolve
    from generator.model.schema import Workload

    # A held Trainium reservation over an 18-month plan, one engineer on the port, a deadline with a
    # GPU lead time, and an allowed-regions list: every new input, through the URL and the form.
    query = ("?ti=trn1.32xlarge&tr=us-east-1&to=commit-1y&tc=8&gi=p4d.24xlarge&gr=us-east-1&go=on-demand&gc=8"
             "&h=1000&n=8&r=1.1&rl=0.9&rh=1.25&th=6&pm=18&pe=1&s=20&gl=3&rg=us-east-1")
    calc.open(query)
    w = Workload.model_validate({
        "name": "your workload", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 1000}, "runs": 8,
        "plan_months": 18, "regions": ["us-east-1"],
        "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1", "option": "commit-1y", "count": 8, "held_months": 6},
        "gpu": {"instance": "p4d.24xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
        "relative_throughput": {"value": 1.1, "low": 0.9, "high": 1.25},
        "porting": {"engineers": 1}, "availability": {"needed_within_days": 20, "gpu_lead_days": 3},
    })
    x = resolve(w, project.catalog).inputs
    o = evaluate(x)
    # A mainstream port (2 engineer-weeks) by a team new to Neuron (x1.5) and one engineer: 3 weeks,
    # a day past the 20-day deadline, so the deadline rule has something to say.
    assert o.port_calendar_days == 21
    # The six held months are sunk; the other twelve need about 4,850 instance-hours, far cheaper by
    # the hour than a new year's term for eight instances, so the plan buys no term.
    assert o.trainium.committed_terms == 0
    assert 0 < o.trainium.compute_total < x.trainium_count * x.trainium_term_hours * x.trainium_price.value
    assert calc.verdict() == o.verdict
    got = calc.values()
    for key in ("trainium.total", "gpu.total", "total_difference", "trainium.committed_terms"):
        side, _, name = key.partition(".")
        expected = getattr(getattr(o, side), name) if name else getattr(o, key)
        assert _same(got[key], expected), (key, got[key], expected)
    rules = calc.page.eval_on_selector_all("#calc-output .guide-trace li", "els => els.map(e => e.dataset.rule)")
    assert rules == [s.rule for s in o.trace] and "deadline" in rules
    # A held reservation on a side that is not committed is refused where it was typed.
    calc.page.fill("#calc-gpu-held", "3")
    calc.page.dispatch_event("#calc-gpu-held", "change")
    calc.page.wait_for_function("() => document.getElementById('calc-gpu-held-error').textContent !== ''")
    assert "commitment" in calc.page.text_content("#calc-gpu-held-error")


def test_a_regions_list_that_rules_out_a_chosen_region_marks_the_field_at_fault(calc: Calc):
    # Both instances are offered in us-east-1; the GPU side is priced in us-west-1.
    calc.open("?ti=trn1.32xlarge&tr=us-east-1&to=on-demand&gi=p5.48xlarge&gr=us-west-1&go=on-demand")
    assert calc.page.get_attribute("#guide-calc", "data-state") == "ok"
    calc.page.fill("#calc-regions", "us-east-1")
    assert calc.page.get_attribute("#guide-calc", "data-state") == "invalid"
    assert calc.page.inner_text("#calc-stale").startswith("Fix the field marked above")
    assert calc.page.get_attribute("#calc-gpu-region", "aria-invalid") == "true"
    assert calc.page.inner_text("#calc-gpu-region-error") == "The workload may only use us-east-1: choose one of them for p5.48xlarge."
    assert calc.page.get_attribute("#calc-trn-region", "aria-invalid") is None
    calc.page.select_option("#calc-gpu-region", "us-east-1")
    assert calc.page.get_attribute("#guide-calc", "data-state") == "ok"
    assert calc.page.inner_text("#calc-gpu-region-error") == ""
    assert calc.page.get_attribute("#calc-gpu-region", "aria-invalid") is None
    # A list neither instance is offered in is the list's own fault.
    calc.page.fill("#calc-regions", "mars-north-9")
    assert calc.page.inner_text("#calc-regions-error") == (
        "Neither trn1.32xlarge nor p5.48xlarge is offered in mars-north-9: there is nothing to compare.")
    assert calc.page.get_attribute("#calc-regions", "aria-invalid") == "true"
    calc.page.fill("#calc-regions", "")
    assert calc.page.get_attribute("#guide-calc", "data-state") == "ok"
    assert calc.page.inner_text("#calc-regions-error") == ""
    assert calc.page.get_attribute("#calc-regions", "aria-invalid") is None


SPOT_AT_SCALE = ("?ti=trn1.32xlarge&tr=us-east-1&to=spot&tc=1400&gi=p5.48xlarge&gr=us-east-1&go=spot&gc=1400"
                 "&rm=hours&h=140000&n=1&r=0.5&rl=0.5&rh=0.5&c=mainstream&e=none")


def test_the_ways_a_team_accepts_are_boxes_that_the_link_and_the_yaml_carry(calc: Calc, tmp_path: Path):
    # Both sides on spot at 1,400 instances cannot finish (load 1.05): with on demand accepted, the
    # default, Trainium wins on demand ($6,038,000 against $7,705,600, tests/test_buying_ways.py).
    calc.open(SPOT_AT_SCALE)
    assert calc.page.is_checked("#calc-buy input[value='on-demand']")
    assert calc.verdict() == "trainium"
    # Unticking on demand keeps each side to spot: neither can run, and the link says so.
    calc.page.uncheck("#calc-buy input[value='on-demand']")
    calc.page.wait_for_function("() => new URLSearchParams(location.search).get('b') === ''")
    assert calc.verdict() == "neither"
    with calc.page.expect_download() as info:
        calc.page.click("#calc-yaml")
    target = tmp_path / "case.yaml"
    info.value.save_as(target)
    assert "    buy: []\n" in target.read_text(encoding="utf-8")
    # The link alone brings the same choice back.
    calc.open(SPOT_AT_SCALE + "&b=")
    assert not calc.page.is_checked("#calc-buy input[value='on-demand']") and calc.verdict() == "neither"


def test_the_link_guide_mcp_gives_is_the_one_the_calculator_writes(calc: Calc, project):
    """`guide mcp` answers with a calculator link (calculator_fields.link_query): for every shipped
    workload it holds what the calculator's own URL holds once the workload is loaded, and opened, it
    shows the engine's verdict with no note of a parameter it could not take."""
    from urllib.parse import parse_qs

    from generator.rendering.calculator.data import workload_json
    from generator.rendering.calculator.fields import link_query

    reference = workload_json(project.reference.workload)
    week = project.catalog.assumptions.engineer_week_usd.value
    for r in project.results:
        for i, w in enumerate(r.workloads):
            query = link_query(workload_json(w.workload), reference, week)
            calc.open(f"?from={r.id}/{i + 1}")
            written = calc.page.evaluate("() => location.search.slice(1)")
            assert parse_qs(query, keep_blank_values=True) == parse_qs(written, keep_blank_values=True), (r.id, i)
            calc.open("?" + query)
            assert calc.verdict() == w.outcome.verdict, (r.id, i)
            assert calc.page.is_hidden("#calc-link-notice"), (r.id, i)


def _edit_to_gpu(calc: Calc) -> None:
    """The default case reads Trainium; one run alone leaves the port nothing to pay it back: the GPU."""
    assert calc.verdict() == "trainium"
    calc.page.fill("#calc-runs", "1")
    calc.page.dispatch_event("#calc-runs", "change")
    calc.page.wait_for_function("() => new URLSearchParams(location.search).get('n') === '1'")
    assert calc.verdict() == "gpu"


def _same_case(calc: Calc, came_from: str = "") -> None:
    try:
        calc.page.wait_for_function(
            "() => document.querySelector('#guide-calc[data-ready]') && location.pathname.endsWith('/calculator/')",
            timeout=90_000)
    except Exception as error:
        raise AssertionError(f"no calculator at {calc.page.url} after {came_from or 'the edit'}") from error
    assert calc.page.input_value("#calc-runs") == "1", calc.page.url
    assert calc.verdict() == "gpu", calc.page.url
    assert "n=1" in calc.page.url


@pytest.mark.parametrize("width", [360, 390, 1280])
def test_full_answer_keeps_the_case_the_reader_edited(calc: Calc, width: int):
    calc.page.set_viewport_size({"width": width, "height": 780})
    # Material takes over links once it has read sitemap.xml: wait for it, as a reader's tap would.
    calc.page.goto(calc.base + "calculator/", wait_until="networkidle")
    calc.page.wait_for_selector("#guide-calc[data-ready]")
    _edit_to_gpu(calc)
    calc.page.wait_for_selector("#calc-glance:not([hidden])")
    calc.page.click(".guide-calc__glance-more a")
    calc.page.wait_for_function("() => location.hash === '#calc-result-title'")
    _same_case(calc)
    assert calc.page.text_content("#calc-glance-verdict") == "GPU"


def test_every_link_on_the_calculator_keeps_an_edited_case(calc: Calc):
    """Each link of the page, followed after an edit: one to the page itself opens on the case, and one
    that leaves it finds the case again on the way back."""
    calc.page.set_viewport_size({"width": 1280, "height": 900})
    calc.page.goto(calc.base + "calculator/", wait_until="networkidle")
    calc.page.wait_for_selector("#guide-calc[data-ready]")
    _edit_to_gpu(calc)
    count = calc.page.eval_on_selector_all("a[href]", "els => els.length")
    followed = 0
    for i in range(count):
        target = calc.page.eval_on_selector_all("a[href]", "(els, i) => els[i] && els[i].href", i)
        if not target or not target.startswith(calc.base) or target.endswith((".xml", ".json", ".csv")):
            continue  # another site, or a file: nothing a reader's case returns from
        calc.page.eval_on_selector_all("a[href]", "(els, i) => els[i].click()", i)
        calc.page.wait_for_load_state()
        calc.page.wait_for_function("t => location.href === t || !location.pathname.endsWith('/calculator/')",
                                    arg=target.split("#")[0] if "/calculator/" not in target else target, timeout=90_000)
        if "/calculator/" not in calc.page.url:
            # Material moves the address before it swaps the page in: going back before the swap
            # would race its own navigation, which no reader's thumb does.
            calc.page.wait_for_function("() => !document.getElementById('guide-calc') && document.querySelector('article h1')",
                                        timeout=90_000)
            calc.page.go_back()
        _same_case(calc, target)
        followed += 1
    assert followed > 20


def test_constraints_that_apply_on_some_trainium_generations_only_work_from_the_form(calc: Calc, project):
    from generator.model.results import evaluate_workload
    from generator.model.schema import Workload

    # The repeated fine-tune on trn1: a policy of updated Neuron releases rules trn1 out, a model
    # already on PyTorch/XLA has nothing to port there; on trn2 the policy leaves it alone and the
    # model is ported again to TorchNeuron.
    sides = {"trn1": ("trn1.32xlarge", "us-east-1", "on-demand"), "trn2": ("trn2.48xlarge", "us-east-2", "capacity-block")}
    for gen, constraint, expected in (("trn1", "supported-neuron-release", "gpu"), ("trn1", "neuron-pytorch-xla", None),
                                      ("trn2", "supported-neuron-release", None), ("trn2", "neuron-pytorch-xla", None)):
        inst, region, option = sides[gen]
        calc.open(f"?ti={inst}&tr={region}&to={option}&tc=8&gi=p4de.24xlarge&gr=us-east-1&go=on-demand&gc=8"
                  f"&h=192&n=48&r=1.1&rl=0.9&rh=1.25&k_={constraint}")
        assert calc.page.is_checked(f"#calc-constraints input[value='{constraint}']")
        w = Workload.model_validate({
            "name": "your workload", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 192}, "runs": 48,
            "trainium": {"instance": inst, "region": region, "option": option, "count": 8},
            "gpu": {"instance": "p4de.24xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
            "relative_throughput": {"value": 1.1, "low": 0.9, "high": 1.25}, "constraints": [constraint],
        })
        o = evaluate_workload(w, project.catalog).outcome
        assert calc.verdict() == o.verdict and (expected is None or o.verdict == expected), (gen, constraint)
        got = calc.values()
        for key in ("port_cost", "trainium.total", "gpu.total"):
            side, _, name = key.partition(".")
            assert _same(got[key], getattr(getattr(o, side), name) if name else getattr(o, key)), (gen, constraint, key)
        if (gen, constraint) == ("trn1", "neuron-pytorch-xla"):
            assert o.port_cost == 0
        if (gen, constraint) == ("trn2", "neuron-pytorch-xla"):
            assert o.port_cost == 2 * 1.5 * 6000  # the re-port's 2 weeks, by a team new to Neuron


def test_a_finish_date_reaches_the_engine_and_a_disagreeing_one_is_refused_at_its_field(calc: Calc, project):
    calc.open("?fd=2")
    # Two days is too soon for either side's plan: the deadline decides, and each plan's end is shown.
    assert calc.page.locator("#calc-output li[data-rule='deadline']").count() == 1
    done = calc.values()
    assert float(done["trainium.finish_days"]) > 2 and float(done["gpu.finish_days"]) > 2
    calc.open("?s=30")
    calc.page.fill("#calc-finish", "10")
    calc.page.dispatch_event("#calc-finish", "change")
    assert calc.page.text_content("#calc-finish-error") == (
        "Sooner than the start deadline: a plan cannot be done before its run may start.")
    assert calc.page.get_attribute("#calc-finish", "aria-invalid") == "true"
    # A shared link with the same pair keeps the start date and says why it left the finish date out.
    calc.open("?s=30&fd=10")
    assert "Whole plan done within (fd=\"10\") is not usable" in calc.page.text_content("#calc-link-notice")


def test_the_answer_names_the_prices_its_plans_buy_at(calc: Calc):
    # Named on demand, accepting spot: the plan buys spot, and the answer cites the spot price.
    calc.open("?b=on-demand%2Cspot")
    used = calc.page.text_content("#calc-output [data-prices-used]")
    assert used.startswith("Prices the plans buy at:")
    plans = calc.page.eval_on_selector_all("#calc-output [data-key$='.plan_option']", "els => els.map(e => e.dataset.value)")
    assert "spot" in plans and ", spot, at $" in used
@pytest.mark.parametrize("width", [360, 1280])
def test_the_other_run_size_fields_open_with_examples_and_no_errors_and_the_summary_says_it_is_out_of_date(calc: Calc, width: int):
    calc.page.set_viewport_size({"width": width, "height": 780})
    calc.open()
    before = calc.values()
    calc.page.check("#calc-mode-flops")
    fields = ("#calc-params", "#calc-tokens", "#calc-mfu")
    # Nothing typed yet: no field is marked, each shows an example from a shipped scenario that gives it.
    assert [calc.page.inner_text(f + "-error") for f in fields] == ["", "", ""]
    assert [calc.page.get_attribute(f, "aria-invalid") for f in fields] == [None, None, None]
    assert [calc.page.get_attribute(f, "placeholder") for f in fields] == ["e.g. 8", "e.g. 2000", "e.g. 0.35"]
    # The old answer stays, and the summary that stays in view says at once that it is out of date.
    assert calc.values() == before and calc.page.get_attribute("#calc-output", "data-stale") == "true"
    assert calc.page.inner_text("#calc-stale") == "Fill in the 3 empty fields above: the answer below is still the one for the last complete inputs."
    stale = calc.page.locator("#calc-glance-stale")
    assert stale.is_visible() and stale.inner_text() == "Out of date: fill in the empty fields in the form."
    box = stale.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= 780, box
    # A field typed in and emptied again is marked, as any other.
    calc.page.fill("#calc-params", "8")
    calc.page.fill("#calc-params", "")
    assert calc.page.inner_text("#calc-params-error") == "Enter a number."
    assert calc.page.inner_text("#calc-glance-stale") == "Out of date: fix the marked fields in the form."
    for field, value in zip(fields, ("8", "2000", "0.35"), strict=True):
        calc.page.fill(field, value)
    assert calc.page.get_attribute("#guide-calc", "data-state") == "ok"
    assert calc.page.is_hidden("#calc-glance-stale") and calc.page.is_hidden("#calc-stale")


def _buy_notes(calc: Calc) -> dict[str, str]:
    return dict(calc.page.eval_on_selector_all(".guide-calc__why", "ps => ps.map(p => [p.id.split('-why-')[1], p.hidden ? '' : p.textContent])"))


def test_a_way_to_buy_that_changes_nothing_where_the_reader_stands_says_why_beside_its_box(calc: Calc, project):
    # The GPU in a region that data/ prices only on demand, the Trainium side where spot is not published.
    calc.open("?gr=us-west-1")
    before = calc.values()
    calc.page.check("#calc-buy input[value='spot']")
    calc.page.wait_for_function("() => new URLSearchParams(location.search).get('b') === 'on-demand,spot'")
    assert calc.values() == before  # the box changed nothing...
    notes = _buy_notes(calc)
    # ...and says so beside it, with where the guide does price spot for these instances, read from data/.
    spot_regions = sorted({p.region for p in project.catalog.prices if p.instance == "p5.48xlarge" and p.option == "spot" and p.offered})
    assert notes["spot"] == ("Changes nothing here: the guide has no spot price for trn2.48xlarge in us-east-2 or p5.48xlarge in "
                             f"us-west-1 (it has one for p5.48xlarge in {' or '.join(spot_regions)}).")
    assert notes["on-demand"] == "" and notes["capacity-block"] == ""
    described = calc.page.get_attribute("#calc-buy input[value='spot']", "aria-describedby")
    assert calc.page.inner_text(f"#{described}") == notes["spot"]
    # Where the reader stands changes: a region the GPU is sold spot in, listed for the workload, silences it.
    calc.page.fill("#calc-regions", "us-west-1, us-east-2, us-east-1")
    calc.page.wait_for_function("() => document.getElementById('calc-buy-why-spot').hidden")
    assert calc.values() != before
