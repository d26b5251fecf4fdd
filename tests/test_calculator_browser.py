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

from conftest import REPO

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
    "break_even_runs": lambda o, t: o.break_even_runs,
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
            assert robust == ("yes" if w.robustness.holds else "flips"), (r.id, i)
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
    shutil.copytree(REPO / "data", folder / "data")
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
        ("#calc-rel", "0", "Must be more than 0."),
    ]:
        original = calc.page.input_value(field)
        calc.page.fill(field, value)
        error = calc.page.inner_text(f"{field}-error")
        assert error == message, (field, value, error)
        assert calc.page.get_attribute(field, "aria-invalid") == "true"
        output = calc.page.inner_text("#calc-output")
        assert "Fix the" in output and "NaN" not in output and "undefined" not in output
        calc.page.fill(field, original)
        assert calc.page.inner_text(f"{field}-error") == ""
        assert calc.page.get_attribute("#guide-calc", "data-state") == "ok"


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
    calc.page.goto(calc.base)
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
    # The answer is there at once; the chart, below the form, has not asked for the runtime yet.
    assert calc.verdict() in ("trainium", "gpu")
    calc.page.wait_for_timeout(300)
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
    from generator.formatting import usd

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


def test_the_new_model_inputs_reach_the_engine_from_the_form(calc: Calc, project):
    from generator.engine import evaluate
    from generator.resolve import resolve
    from generator.schema import Workload

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
    o = evaluate(resolve(w, project.catalog))
    assert o.trainium.committed_terms == 1 and o.port_calendar_days == 14
    assert calc.verdict() == o.verdict
    got = calc.values()
    for key in ("trainium.total", "gpu.total", "total_difference"):
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
