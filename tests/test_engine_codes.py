"""The engine says nothing in words: each step of its trace and each reason a side cannot run is a
code with its numbers, in both languages, and `wording` alone turns them into sentences."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from core_support import run_js_on_inputs
from source_support import import_graph

from generator.model import wording
from generator.model.engine import REASON_CODES, STEP_CODES, BlockLimits, Inputs, Span, evaluate
from generator.model.results import plain

ROOT = Path(__file__).resolve().parent.parent
CALCULATOR = ROOT / "docs" / "assets" / "calculator"
ENGINE_MODULES = ("generator.model.engine", "generator.model.break_even", "generator.model.resolve")


def _point(v: float) -> Span:
    return Span(v, v, v)


BASE = Inputs(
    gpu_hours=100.0, relative_throughput=Span(1.25, 1.0, 1.5), trainium_price=_point(20.0), gpu_price=_point(40.0),
    trainium_spot=False, gpu_spot=False, interruption_rate=Span(0.0005, 0.0001, 0.002), lost_hours=Span(1.5, 0.5, 4.0),
    port_weeks=_point(2.0), engineer_week_usd=6000.0, port_extra_usd=0.0, runs=10, runs_per_architecture=None,
    trainium_count=4, gpu_count=8, trainium_availability="available", gpu_availability="available",
    needed_within_days=None, soon_days=30, close_call_margin=0.10, port_engineers=_point(2.0),
)
# One case for each thing a step can find, and every reason a side cannot run.
CASES = {
    "both-can-run": BASE,
    "neither-can-run": replace(BASE, excluded_by=("cuda-only-dependency",), region_excluded=("trainium", "gpu"),
                               allowed_regions=("eu-west-2",), gpu_availability="unavailable"),
    "trainium-cannot-run": replace(BASE, trainium_availability="unavailable"),
    "gpu-cannot-run": replace(BASE, gpu_spot=True, interruption_rate=Span(0.125, 0.00625, 0.125)),
    "blocks": replace(BASE, gpu_option="capacity-block", gpu_count=300,
                      block_limits=BlockLimits(per_block=64, across_blocks=256, daily_up_to=14, weekly_step=7, longest=182)),
    "trainium-late": replace(BASE, needed_within_days=3),
    "gpu-late": replace(BASE, needed_within_days=30, gpu_lead_days=40.0),
    "both-on-time": replace(BASE, needed_within_days=30),
    "both-late-same-day": replace(BASE, needed_within_days=3, gpu_lead_days=7.0),
    "neither-on-time": replace(BASE, needed_within_days=3, gpu_lead_days=30.0),
    # Trainium's ten runs end on day 15.3 (a 7-day port, then 8.3 days of runs), the GPU's on day 5.2.
    "trainium-finishes-late": replace(BASE, finish_within_days=10),
    "gpu-finishes-late": replace(BASE, finish_within_days=20, gpu_lead_days=18.0),
    "cost-no-saving": replace(BASE, relative_throughput=_point(0.4)),
    "cost-not-repaid": replace(BASE, runs=2),
    "cost-no-architecture-repays": replace(BASE, runs=12, runs_per_architecture=2),
    "cost-committed": replace(BASE, runs=2, trainium_term_hours=8760.0, plan_hours=8760.0),
    "capacity-trainium": replace(BASE, runs=4, gpu_availability="constrained", needed_within_days=20, close_call_margin=0.5),
    "capacity-gpu": replace(BASE, runs=10, trainium_availability="constrained", needed_within_days=20, close_call_margin=0.9),
}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_the_engine_imports_nothing_that_words_or_formats():
    graph = import_graph()
    for module in ENGINE_MODULES:
        reached = _reachable(graph, module)
        assert "generator.model.wording" not in reached and "generator.model.formatting" not in reached, (module, reached)
    imports = re.findall(r"""\bimport\b[^;]*?["']([^"']+)["']""", (CALCULATOR / "engine.mjs").read_text(encoding="utf-8"))
    assert imports == []  # the JavaScript engine imports nothing, wording.mjs least of all


def test_the_engines_results_carry_codes_and_numbers_not_sentences():
    py = [plain(evaluate(x)) for x in CASES.values()]
    js = [r["outcome"] for r in run_js_on_inputs(list(CASES.values()))]
    found, reasons = set(), set()
    for name, p, j in zip(CASES, py, js, strict=True):
        for o in (p, j):
            found |= {s["code"] for s in o["trace"]}
            reasons |= {r[0] for side in ("trainium", "gpu") for r in o[side]["reasons"]}
            # A code, an option, a region or a price basis: no string the engine returns has a space in it.
            assert [s for s in _strings(o) if " " in s] == [], name
        assert [s["code"] for s in p["trace"]] == [s["code"] for s in j["trace"]], name
    assert found == STEP_CODES  # every code is reached, and no other
    assert reasons == REASON_CODES


def test_wording_has_a_sentence_for_every_code():
    for name, x in CASES.items():
        o = wording.worded(plain(evaluate(x)))
        for s in o["trace"]:
            # Said in words: a sentence of the wording tables, never the code made readable.
            assert s["text"].endswith(".") and s["text"][0].isupper() and "-" not in s["text"].split(".")[0][:12], (name, s)
    o = wording.worded(plain(evaluate(CASES["neither-can-run"])))
    assert o["trace"][0]["text"] == (
        "Neither side can run. Trainium: a hard constraint rules it out (cuda-only-dependency); it is not offered in any "
        "region the workload may use (eu-west-2). The GPU option: it is not offered in any region the workload may use "
        "(eu-west-2); it cannot be had in the region and window needed.")
    assert o["gpu"]["reasons"] == ["it is not offered in any region the workload may use (eu-west-2)",
                                   "it cannot be had in the region and window needed"]
