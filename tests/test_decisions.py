"""Golden decisions: the situations a buyer brings, each with the answer a careful analyst gives, run
through the Python engine and the calculator's JavaScript engine on the frozen catalog.

The cases live in tests/fixtures/decisions/cases.yaml with their arithmetic. A case whose step of
the work is not done yet is an expected failure (strict: it must fail until that step lands).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from core_support import run_js_on_workloads

from generator.rendering.calculator.data import calculator_data
from generator.model.results import evaluate_workload, plain
from generator.model.schema import Workload

CASES = yaml.safe_load((Path(__file__).parent / "fixtures" / "decisions" / "cases.yaml").read_text())["cases"]
STEPS_DONE: set[int] = {1, 2, 3, 4, 5}


def _get(result: dict[str, Any], path: str) -> Any:
    value: Any = result
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def _mismatches(result: dict[str, Any], case: dict[str, Any]) -> list[str]:
    out = []
    expect = case.get("expect", {})
    if "verdict" in expect and result["outcome"]["verdict"] != expect["verdict"]:
        out.append(f"verdict {result['outcome']['verdict']!r}, expected {expect['verdict']!r}")
    if "decided_by" in expect and result["outcome"].get("decided_by") != expect["decided_by"]:
        out.append(f"decided by {result['outcome'].get('decided_by')!r}, expected {expect['decided_by']!r}")
    for path, want in case.get("checks", {}).items():
        try:
            got = _get(result, path)
        except (KeyError, TypeError, IndexError, ValueError):
            out.append(f"{path}: missing")
            continue
        if isinstance(want, dict) and "len" in want:
            ok = isinstance(got, list) and len(got) == want["len"]
        elif isinstance(want, dict) and "contains" in want:
            ok = isinstance(got, list) and want["contains"] in got
        elif isinstance(want, bool) or want is None or isinstance(want, str):
            ok = got == want
        else:
            ok = isinstance(got, (int, float)) and not isinstance(got, bool) and math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-6)
        if not ok:
            out.append(f"{path}: {got!r}, expected {want!r}")
    return out


@pytest.fixture(scope="module")
def javascript(catalog):
    # The workloads as written: the calculator takes them as a reader enters them.
    workloads = [c["workload"] for c in CASES]
    return dict(zip([c["id"] for c in CASES], run_js_on_workloads(workloads, calculator_data(catalog)), strict=True))


def _params():
    for c in CASES:
        marks = [] if c["step"] in STEPS_DONE else [pytest.mark.xfail(strict=True, reason=f"step {c['step']} of the decisions' work, not done yet")]
        yield pytest.param(c, id=c["id"], marks=marks)


@pytest.mark.parametrize("case", list(_params()))
def test_python_engine_gives_the_careful_answer(case, catalog):
    r = evaluate_workload(Workload.model_validate(case["workload"]), catalog)
    result = {"inputs": plain(r.inputs), "outcome": plain(r.outcome), "robustness": plain(r.robustness),
              "thresholds": plain(r.thresholds)}
    assert _mismatches(result, case) == []


@pytest.mark.parametrize("case", list(_params()))
def test_javascript_engine_gives_the_careful_answer(case, javascript):
    assert _mismatches(javascript[case["id"]], case) == []


def test_every_class_of_the_issue_has_a_case():
    # One case at least for each of the nine classes, by the step that handles it.
    assert {c["step"] for c in CASES} == {1, 2, 3, 4, 5}
    assert len(CASES) >= 9
