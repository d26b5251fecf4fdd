"""The calculator's JavaScript engine against the Python engine, on thousands of generated cases.

Node runs the very files the site ships (docs/assets/calculator/engine.mjs and wording.mjs). Both
engines get the same workloads and the same catalog; verdicts, trace rules, cost curves and every
number must agree. Both present layers get the same evaluated workloads and must give the same
strings, so the calculator reads exactly as the scenario pages do.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from core_support import run_js_on_inputs, learned_env

from generator.rendering.calculator.data import calculator_data, workload_json
from generator.model.engine import Inputs, Span, cost_curve, evaluate, robustness, thresholds
from generator.inputs.loader import load_catalog
from generator.model.wording import present, price_refs
from generator.model.resolve import resolve
from generator.model.results import evaluate_workload, plain
from generator.model.schema import Workload

_EDGE_BASE = Inputs(
    gpu_hours=100.0, relative_throughput=Span(1.25, 1.0, 1.5), trainium_price=Span(20.0, 20.0, 20.0),
    gpu_price=Span(40.0, 40.0, 40.0), trainium_spot=False, gpu_spot=False,
    interruption_rate=Span(0.0005, 0.0001, 0.002), lost_hours=Span(1.5, 0.5, 4.0), port_weeks=Span(2.0, 2.0, 2.0),
    engineer_week_usd=6000.0, port_extra_usd=0.0, runs=10, runs_per_architecture=None, trainium_count=4, gpu_count=8,
    trainium_availability="available", gpu_availability="available", needed_within_days=None, soon_days=30,
    close_call_margin=0.10, port_engineers=Span(2.0, 1.0, 3.0),
)
ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "docs" / "assets" / "calculator" / "engine.mjs"
PRESENT = ROOT / "docs" / "assets" / "calculator" / "wording.mjs"
CASES = 10_000

RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { evaluateWorkload, costCurve, learn } = await import(pathToFileURL(process.argv[1]).href);
const payload = JSON.parse(readFileSync(0, "utf8"));
learn(payload.data.engine);
process.stdout.write(JSON.stringify(payload.workloads.map((w) => {
  const r = evaluateWorkload(w, payload.data);
  return { result: r, curve: costCurve(r.inputs, r.outcome) };
})));
"""

PRESENT_RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { present, learn } = await import(pathToFileURL(process.argv[1]).href);
learn(JSON.parse(process.env.GUIDE_WORDS));
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => present(c.result, c.curve, c.prices))));
"""

# Exact ties and boundaries generated numbers rarely hit: each is BASE-like with one thing on its edge.
EDGE_CASES: list[Inputs] = [
    _EDGE_BASE,
    replace(_EDGE_BASE, runs=5),  # totals tie exactly: 20,000 each
    replace(_EDGE_BASE, runs=10, runs_per_architecture=5),  # the port is repaid exactly as the architecture ends
    replace(_EDGE_BASE, runs=12, runs_per_architecture=6),
    replace(_EDGE_BASE, relative_throughput=Span(0.5, 0.5, 1.5)),  # no saving per run at all
    replace(_EDGE_BASE, trainium_price=Span(47.5, 47.5, 47.5), gpu_availability="constrained", needed_within_days=14,
            close_call_margin=0.25),  # Trainium exactly at the close-call margin
    replace(_EDGE_BASE, port_engineers=Span(1.0, 1.0, 2.0), needed_within_days=14),  # ready on the deadline day
    replace(_EDGE_BASE, port_engineers=Span(1.0, 1.0, 1.0), port_weeks=Span(2.0, 1.0, 3.0), needed_within_days=14),
    replace(_EDGE_BASE, needed_within_days=30, gpu_lead_days=30.0, trainium_lead_days=23.0),  # both exactly on time
    replace(_EDGE_BASE, trainium_term_hours=8760.0, plan_hours=8760.0),  # a plan that fills its term exactly
    replace(_EDGE_BASE, trainium_term_hours=8760.0, gpu_term_hours=8760.0, plan_hours=8760.0, trainium_held_hours=8760.0),
    replace(_EDGE_BASE, gpu_term_hours=26280.0, plan_hours=26280.0 * 3, runs=36),
    replace(_EDGE_BASE, gpu_spot=True, trainium_spot=True, gpu_count=64, trainium_count=64),
    replace(_EDGE_BASE, runs=301),
]



def _number(rng: random.Random, lo: float, hi: float, edges: list[float]) -> float:
    # One case in five sits on an edge value; the rest spread log-uniformly across the range.
    if rng.random() < 0.2:
        return rng.choice(edges)
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def generate(rng: random.Random, catalog) -> dict[str, Any]:
    offered = [p for p in catalog.prices if p.offered]
    side = {s: [p for p in offered if catalog.instances[p.instance].side == s] for s in ("trainium", "gpu")}
    trn, gpu = rng.choice(side["trainium"]), rng.choice(side["gpu"])
    if rng.random() < 0.5:
        run_size: dict[str, Any] = {"gpu_instance_hours": _number(rng, 0.01, 5e6, [0.01, 1, 24, 500, 5e6])}
    else:
        run_size = {
            "params_billion": _number(rng, 0.01, 2000, [0.01, 8, 70, 2000]),
            "tokens_billion": _number(rng, 0.1, 50000, [0.1, 1000, 50000]),
            "mfu": rng.choice([1.0, 0.01, rng.uniform(0.05, 0.6)]),
            "precision": rng.choice(["bf16", "fp8"]),
        }
    runs = rng.choice([1, 2, 3, 7, 30, 1000, 1_000_000, rng.randint(1, 200)])
    value = _number(rng, 0.05, 20, [0.05, 0.5, 1.0, 20])
    low = value * rng.choice([1.0, rng.uniform(0.2, 1.0)])
    high = value * rng.choice([1.0, rng.uniform(1.0, 3.0)])
    w: dict[str, Any] = {
        "name": "case",
        "architecture": rng.choice(["mainstream", "moderate-custom", "heavy-custom-cuda", "novel"]),
        "run_size": run_size,
        "runs": runs,
        # 256 and 257 sit either side of what Capacity Blocks hold across an organisation's blocks.
        "trainium": {"instance": trn.instance, "region": trn.region, "option": trn.option, "count": rng.choice([1, 3, 64, 256, 700])},
        "gpu": {"instance": gpu.instance, "region": gpu.region, "option": gpu.option, "count": rng.choice([1, 8, 257, 1000, 2000])},
        "relative_throughput": {"value": value, "low": low, "high": high},
        "neuron_experience": rng.choice(["none", "some", "experienced"]),
        "constraints": rng.sample(
            ["custom-cuda-kernels", "dynamic-shapes", "tensorflow", "day-one-architectures", "multi-cloud", "cuda-only-dependency",
             "supported-neuron-release", "neuron-pytorch-xla"],
            k=rng.choice([0, 0, 0, 1, 2]),
        ),
    }
    for side, p in (("trainium", trn), ("gpu", gpu)):
        if p.option in ("commit-1y", "commit-3y") and rng.random() < 0.4:
            w[side]["held_months"] = rng.choice([0, 6, 12, 36, rng.uniform(0, 36)])
    if rng.random() < 0.4:
        w["plan_months"] = rng.choice([1, 12, 36, 37, rng.uniform(0.5, 120)])
    if rng.random() < 0.25:
        offered = {r for side in (trn, gpu) for r in catalog.instances[side.instance].regions.value}
        regions = sorted(offered) + ["eu-west-2", "eu-west-1", "ap-northeast-1"]
        allowed = rng.sample(sorted(set(regions)), k=rng.choice([1, 2]))
        w["regions"] = allowed
    if rng.random() < 0.4:
        # The ways a team accepts: none beyond the named ones, or any set of them.
        w["buy"] = [] if rng.random() < 0.3 else rng.sample(
            ["on-demand", "spot", "capacity-block", "commit-1y", "commit-3y"], k=rng.randint(1, 5))
    if rng.random() < 0.5:
        w["runs_per_architecture"] = rng.choice([1, 2, runs, min(runs + 1, 1_000_000), rng.randint(1, 50)])
    porting: dict[str, Any] = {}
    if rng.random() < 0.4:
        wv = _number(rng, 0.1, 100, [0.1, 2, 100])
        porting["weeks"] = {"value": wv, "low": wv * rng.uniform(0.3, 1), "high": wv * rng.uniform(1, 3)}
    elif rng.random() < 0.05:
        porting["weeks"] = {"value": 0, "low": 0, "high": 0}  # a team already on Neuron
    if rng.random() < 0.4:
        porting["engineer_week_usd"] = _number(rng, 100, 50000, [100, 6000, 50000])
    if rng.random() < 0.3:
        porting["extra_usd"] = rng.choice([0, 1.5, 25000.0, _number(rng, 1, 1e6, [1])])
    if rng.random() < 0.3:
        porting["engineers"] = rng.choice([1, 2, 3, 0.5, rng.uniform(0.5, 8)])
    if porting:
        w["porting"] = porting
    avail = ["available", "constrained", "unavailable"]
    a = {"trainium": rng.choice(avail), "gpu": rng.choice(avail)}
    if a["trainium"] == a["gpu"] == "unavailable":
        a["gpu"] = "constrained"
    if rng.random() < 0.6:
        a["needed_within_days"] = rng.choice([1, 7, 14, 21, 29, 30, 31, 365])
    if rng.random() < 0.3:
        # A finish date no sooner than the start date, and no sooner than the plan's own months.
        finish = rng.choice([7, 21, 30, 42, 90, 365, rng.randint(1, 3650)])
        months = w.get("plan_months")
        floor = max(a.get("needed_within_days", 1), 0 if months is None else math.ceil(months * 730 / 24))
        a["finish_within_days"] = min(3650, max(finish, floor))
    for side in ("trainium", "gpu"):
        if rng.random() < 0.3:
            a[f"{side}_lead_days"] = rng.choice([0, 7, 14, 21, rng.uniform(0, 60)])
    if rng.random() < 0.2:
        a["port_during_lead"] = True
    w["availability"] = a
    if rng.random() < 0.08:
        # The capacity rule decides only in a narrow band: GPUs constrained, the run needed soon,
        # Trainium ready in time and close on cost. Uniform draws almost never land there.
        w["constraints"] = []
        w.pop("regions", None)
        w["availability"] = {"trainium": "available", "gpu": "constrained", "needed_within_days": rng.choice([14, 21, 30])}
        w["porting"] = {"weeks": {"value": 1.0, "low": 0.5, "high": 2.0}, "engineers": 2}
        # Search the throughput that lands in the band: which one does depends on prices and counts.
        # Throughput enters the inputs as itself, so the workload is resolved once and only the
        # verdict is worked out at each candidate.
        x = resolve(Workload.model_validate(w), catalog).inputs
        # Within the schema's bounds on relative throughput (0.01 to 100).
        for ratio in sorted({min(100.0, max(0.01, round(value * 1.03 ** k, 6))) for k in range(-60, 61)}):
            w["relative_throughput"] = {"value": ratio, "low": ratio, "high": ratio}
            if evaluate(replace(x, relative_throughput=Span(ratio, ratio, ratio))).decided_by == "capacity":
                break
    return w


def _compare(py: Any, js: Any, path: str, problems: list[str]) -> None:
    if isinstance(py, dict):
        if set(py) != set(js if isinstance(js, dict) else {}):
            problems.append(f"{path}: keys {sorted(py)} vs {sorted(js) if isinstance(js, dict) else js!r}")
            return
        for k in py:
            _compare(py[k], js[k], f"{path}.{k}", problems)
    elif isinstance(py, list):
        if not isinstance(js, list) or len(py) != len(js):
            problems.append(f"{path}: {py!r} vs {js!r}")
            return
        for i, (a, b) in enumerate(zip(py, js)):
            _compare(a, b, f"{path}[{i}]", problems)
    elif isinstance(py, bool) or py is None or isinstance(py, str):
        if py != js:
            problems.append(f"{path}: {py!r} vs {js!r}")
    elif isinstance(py, (int, float)):
        if not isinstance(js, (int, float)) or isinstance(js, bool):
            problems.append(f"{path}: {py!r} vs {js!r}")
        elif not math.isclose(py, js, rel_tol=1e-9, abs_tol=1e-9):
            problems.append(f"{path}: {py!r} vs {js!r}")
    else:
        problems.append(f"{path}: unexpected {type(py).__name__}")


@pytest.fixture(scope="module")
def cases():
    catalog = load_catalog(ROOT / "data")
    rng = random.Random(20261121)
    workloads = []
    while len(workloads) < CASES:
        w = Workload.model_validate(generate(rng, catalog))
        workloads.append(w)
    payload = {"data": calculator_data(catalog), "workloads": [workload_json(w) for w in workloads]}
    out = subprocess.run(
        ["node", "--input-type=module", "-e", RUNNER, str(ENGINE)],
        input=json.dumps(payload), capture_output=True, text=True, check=True,
    )
    ran = json.loads(out.stdout)
    assert len(ran) == len(workloads), f"Node returned {len(ran)} results for {len(workloads)} workloads"
    js = [r["result"] for r in ran]
    # The records each plan buys at: the catalog's rows in the calculator's data, named by their key.
    for r in js:
        r["prices_used"] = [{k: p[k] for k in ("side", "instance", "region", "option")} for p in r["prices_used"]]
    py, curves = [], []
    for w in workloads:
        r = evaluate_workload(w, catalog)
        py.append({"inputs": plain(r.inputs), "outcome": plain(r.outcome), "robustness": plain(r.robustness),
                   "thresholds": plain(r.thresholds), "single_blocks": plain(r.single_blocks),
                   "prices_used": [{"side": side, "instance": b.instance, "region": b.region, "option": b.option}
                                   for side, b in r.used_prices],
                   "curve": plain(cost_curve(r.inputs, r.outcome))})
        curves.append((py[-1]["curve"], price_refs(r)))
    return workloads, py, js, curves, [r["curve"] for r in ran]


@pytest.mark.slow  # the 10,000 generated workloads, through both engines
def test_there_are_enough_cases_and_they_cover_every_rule(cases):
    workloads, py, *_ = cases
    assert len(workloads) >= 10_000
    deciding = {[s for s in r["outcome"]["trace"] if s["verdict"]][-1]["rule"] for r in py}
    assert deciding == {"feasibility", "deadline", "cost", "capacity"}
    verdicts = {r["outcome"]["verdict"] for r in py}
    assert verdicts == {"trainium", "gpu", "neither"}
    # Neither side on time: the sooner one wins.
    assert any(r["outcome"]["decided_by"] == "deadline" and r["outcome"]["trainium"]["late_days"] and r["outcome"]["gpu"]["late_days"]
               for r in py)
    assert any(r["inputs"]["port_during_lead"] for r in py)
    # A port of nothing, and each side on spot at its own pool's rate (the Spot Instance Advisor's bucket).
    assert any(r["inputs"]["port_weeks"]["value"] == 0 for r in py)
    for side in ("trainium", "gpu"):
        assert any(r["inputs"][side + "_spot"] and r["inputs"][side + "_interruption_rate"] is not None for r in py)
    # A commitment on Trainium whose verdict flips on throughput states where.
    assert any(r["inputs"]["trainium_term_hours"] is not None and r["thresholds"]["relative_throughput"] is not None for r in py)
    # Spot at a scale where a run cannot be expected to finish, at the stated values and at a corner.
    assert any(not r["outcome"][side]["feasible"] and r["inputs"][side + "_spot"] for r in py for side in ("trainium", "gpu"))
    assert any(r["outcome"]["gpu"]["feasible"] and r["inputs"]["gpu_spot"] and not r["robustness"]["holds"]
               and r["inputs"]["gpu_count"] == 1000 for r in py)
    # Another way to buy is cheaper than the named one; and a held reservation is outlived by the hour.
    assert any(r["outcome"]["gpu"]["cheaper_by"] > 0 for r in py) and any(r["outcome"]["trainium"]["cheaper_by"] > 0 for r in py)
    # A cheaper way found in another region the workload may use, the named one being among them.
    assert any(r["outcome"][side]["cheaper_by"] > 0 and r["inputs"][side + "_region"] in r["inputs"]["allowed_regions"]
               and r["outcome"][side]["cheapest_region"] != r["inputs"][side + "_region"] for r in py for side in ("trainium", "gpu"))
    assert any(r["inputs"]["trainium_held_hours"] > 0 and r["outcome"]["trainium"]["committed_terms"] == 0
               and r["outcome"]["trainium"]["compute_total"] > 0 for r in py)
    assert any(r["outcome"]["break_even_runs"] is None for r in py)
    assert any(not r["robustness"]["holds"] for r in py) and any(r["robustness"]["holds"] for r in py)
    assert any(r["robustness"]["joint_flip"] for r in py)
    assert any(r["outcome"]["trainium"]["committed_terms"] > 1 for r in py)
    assert any(r["inputs"]["region_excluded"] for r in py)
    assert any(r["curve"]["crossing"] is not None and r["inputs"]["gpu_term_hours"] is not None for r in py)
    # A plan bought another way than the one named, some with a `buy:` list and some without.
    other = [r for r in py for side in ("trainium", "gpu") if r["outcome"][side]["plan_option"] != r["inputs"][side + "_option"]]
    assert any(r["inputs"]["gpu_accepts"] == [r["inputs"]["gpu_option"], "on-demand"] for r in other)
    assert any("spot" in r["inputs"]["trainium_accepts"][1:] or "spot" in r["inputs"]["gpu_accepts"][1:] for r in other)
    assert any(r["inputs"]["gpu_accepts"] == [r["inputs"]["gpu_option"]] for r in py)  # buy: []
    # Spot that cannot finish, bought on demand instead.
    assert any(r["inputs"][side + "_spot"] and r["outcome"][side]["feasible"] and r["outcome"][side]["plan_option"] != "spot"
               for r in py for side in ("trainium", "gpu"))
    # Mixed plans: whole terms and hours by the hour; and a commitment's plan that buys no term.
    assert any(s["committed_terms"] > 0 and s["hourly_hours"] > 0 for r in py for s in (r["outcome"]["trainium"], r["outcome"]["gpu"]))
    assert any(s["committed_terms"] == 0 and s["hourly_hours"] > 0 and r["inputs"][side + "_held_hours"] == 0
               for r in py for side, s in (("trainium", r["outcome"]["trainium"]), ("gpu", r["outcome"]["gpu"])))
    assert any(s["hourly_option"] == "capacity-block" for r in py for s in (r["outcome"]["trainium"], r["outcome"]["gpu"]))
    # Capacity Blocks: a plan they cannot hold, and one they can at the limit.
    assert any(r["inputs"]["gpu_option"] == "capacity-block" and r["inputs"]["gpu_count"] == 257 and not r["outcome"]["gpu"]["feasible"]
               for r in py)
    assert any(r["outcome"]["trainium"]["plan_option"] == "capacity-block" and r["inputs"]["trainium_count"] == 256 for r in py)
    # Spot bought in another region than the one named, at that region's own pool's rate; and a
    # verdict that flips on the rate of a pool reached through `buy:`, not named.
    assert any(r["outcome"][side]["plan_option"] == "spot" and r["outcome"][side]["plan_region"] != r["inputs"][side + "_region"]
               for r in py for side in ("trainium", "gpu"))
    assert any(not r["inputs"][side + "_spot"] and side + "_interruption_rate" in r["robustness"]["flips_on"]
               for r in py for side in ("trainium", "gpu"))
    # A finish date a side misses while the other meets it, and one neither meets.
    deadline = [s for r in py for s in r["outcome"]["trace"] if s["rule"] == "deadline"]
    assert {"trainium-finishes-late", "gpu-finishes-late"} <= {s["code"] for s in deadline}
    assert any(s["code"] == "neither-on-time" and s["numbers"].get("finish_within_days") is not None for s in deadline)
    # Runs booked with an extension, some whose verdict would turn on one block a run.
    assert any(s["booking"] and s["booking"][2] > 0 for r in py for s in (r["outcome"]["trainium"], r["outcome"]["gpu"]))
    assert any(r["single_blocks"] and r["single_blocks"]["verdict"] != r["outcome"]["verdict"] for r in py)
    # Constraints that apply on some Trainium generations only: ruling trn1 out but not trn2, and a
    # re-port that costs nothing on trn1 and its weeks on trn2.
    named = [(w.trainium.instance.split(".")[0], w.constraints, r["inputs"]) for w, r in zip(workloads, py, strict=True)]
    assert any(g == "trn1" and "supported-neuron-release" in x["excluded_by"] for g, c, x in named)
    assert any(g == "trn2" and "supported-neuron-release" in c and "supported-neuron-release" not in x["excluded_by"] for g, c, x in named)
    assert any(g in ("trn1", "trn1n") and "neuron-pytorch-xla" in c and x["port_weeks"]["value"] == 0 for g, c, x in named)
    assert any(g == "trn2" and "neuron-pytorch-xla" in c and x["port_weeks"]["value"] > 0 for g, c, x in named)


@pytest.mark.slow
def test_javascript_engine_equals_python_engine(cases):
    workloads, py, js, *_ = cases
    problems: list[str] = []
    for i, (a, b) in enumerate(zip(py, js, strict=True)):
        before = len(problems)
        _compare(a, b, f"case {i}", problems)
        if len(problems) > before and len(problems) < 20:
            problems.append(f"case {i} input: {json.dumps(workload_json(workloads[i]))}")
    assert not problems, "\n".join(problems[:40])


@pytest.mark.slow
def test_verdicts_and_trace_rules_agree(cases):
    _, py, js, *_ = cases
    for a, b in zip(py, js, strict=True):
        assert a["outcome"]["verdict"] == b["outcome"]["verdict"]
        assert [(s["rule"], s["verdict"]) for s in a["outcome"]["trace"]] == [(s["rule"], s["verdict"]) for s in b["outcome"]["trace"]]


def test_exact_ties_and_boundaries_agree():
    js = run_js_on_inputs(EDGE_CASES)
    problems: list[str] = []
    for i, (x, b) in enumerate(zip(EDGE_CASES, js, strict=True)):
        o = evaluate(x)
        a = {"outcome": plain(o), "robustness": plain(robustness(x, o)), "thresholds": plain(thresholds(x, o)),
             "curve": plain(cost_curve(x, o))}
        _compare(a, b, f"edge {i}", problems)
    assert not problems, "\n".join(problems[:40])
    # The tie goes to the GPU in both, and the deadline-day port counts as in time.
    assert js[1]["outcome"]["verdict"] == "gpu" and js[1]["outcome"]["total_difference"] == 0
    assert js[6]["outcome"]["trainium"]["ready_days"] == 14 and js[6]["outcome"]["verdict"] == "trainium"


@pytest.mark.slow
def test_cost_curves_agree(cases):
    _, _, _, curves, js_curves = cases
    problems: list[str] = []
    for i, ((py_curve, _), js_curve) in enumerate(zip(curves, js_curves, strict=True)):
        _compare(py_curve, js_curve, f"case {i} curve", problems)
    assert not problems, "\n".join(problems[:40])
    # The curve reaches the plan's runs, however long the plan.
    _, py, *_ = cases
    assert all(c[0]["rows"][-1]["runs"] >= r["inputs"]["runs"] for c, r in zip(curves, py, strict=True))


@pytest.fixture(scope="module")
def presented(cases):
    _, py, _, curves, _ = cases
    payload = [{"result": r, "curve": curve, "prices": prices} for r, (curve, prices) in zip(py, curves, strict=True)]
    out = subprocess.run(
        ["node", "--input-type=module", "-e", PRESENT_RUNNER, str(PRESENT)],
        input=json.dumps(payload), capture_output=True, text=True, check=True, env=learned_env(),
    )
    js = json.loads(out.stdout)
    assert len(js) == len(payload), f"Node presented {len(js)} of {len(payload)} workloads"
    return [present(c["result"], c["curve"], c["prices"]) for c in payload], js


def _floats(value: Any) -> Any:
    """Numbers as floats: JSON from Node writes 3.8e17 as an integer, which Python reads back as int."""
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


@pytest.mark.slow
def test_both_present_layers_tell_the_same_story(presented):
    py, js = presented
    wrong = [(i, a, b) for i, (a, b) in enumerate(zip(py, js, strict=True)) if _floats(a) != _floats(b)]
    if wrong:
        i, a, b = wrong[0]
        problems = [f"{k}: {a[k]!r} vs {b[k]!r}" for k in a if a[k] != b.get(k)]
        pytest.fail(f"{len(wrong)} cases differ; first: " + "\n".join(problems[:20]))


@pytest.mark.slow
def test_the_present_cases_cover_every_wording(presented):
    py, _ = presented
    assert {p["robustness"]["state"] for p in py} == {"robust", "joint", "flips"}
    assert any(p["lead"] for p in py) and any(p["lead"] is None for p in py)
    texts = [c["text"] for p in py for c in p["summary"]["rows"] if c["key"] == "break_even_runs"]
    assert any(t.startswith("no crossing:") for t in texts) and any(t.startswith("never:") for t in texts)
    committed = "the first plan that costs less on Trainium; a commitment"
    assert any(committed in t for t in texts), "no plan under a commitment whose lines cross among the cases"
    assert any(t == "in the first run" for t in texts), "no port repaid within the first run among the cases"
    assert not any(t.startswith("0") for t in texts), "a break-even reads as a fraction of a run"
    # A break-even marker appears only where the lines really cross.
    for p in py:
        labels = [m["label"] for m in p["chart"]["marks"]]
        be = next(c for c in p["summary"]["rows"] if c["key"] == "break_even_runs")
        # Under a commitment the totals step by terms: no per-run break-even, but the lines may still cross.
        crosses = committed in be["text"]
        if be["text"].startswith(("no crossing", "never")) and not crosses:
            assert not any(label.startswith("break-even") for label in labels)
        if crosses:
            assert any(label.startswith("break-even") for label in labels)
