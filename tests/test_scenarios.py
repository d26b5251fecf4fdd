"""Every scenario in scenarios/ reaches the lean its author claims, and a scenario whose claim is
wrong fails validation with both verdicts and the numbers that decided it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from core_support import SCENARIOS
from generator.inputs.loader import InputError, load_scenario
from generator.model.results import evaluate_scenario
from generator.model.schema import Scenario

FILES = sorted(SCENARIOS.glob("*.yaml"))
WRONG = {"trainium": "gpu", "gpu": "trainium", "hybrid": "trainium"}


def raw_expect(path: Path) -> str:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))["expect"]


def test_the_guide_has_its_ten_situations():
    # The eight situations of the decision guide and the two reported cases.
    assert len(FILES) >= 10, [f.name for f in FILES]


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario_reaches_its_expected_lean(path: Path, catalog):
    result = load_scenario(path, f"scenarios/{path.name}", catalog)
    assert result.id == path.stem
    assert result.verdict == raw_expect(path) == result.scenario.expect
    for w in result.workloads:
        deciding = [s for s in w.outcome.trace if s.verdict is not None]
        assert deciding and deciding[-1].verdict == w.outcome.verdict, w.workload.name


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_a_wrong_expectation_fails_with_both_verdicts_and_the_deciding_numbers(path: Path, tmp_path: Path, catalog):
    text = path.read_text(encoding="utf-8")
    expect = raw_expect(path)
    wrong = WRONG[expect]
    changed = re.sub(rf"^expect: {expect}$", f"expect: {wrong}", text, count=1, flags=re.M)
    assert changed != text
    copy = tmp_path / "scenarios" / path.name
    copy.parent.mkdir()
    copy.write_text(changed, encoding="utf-8")

    with pytest.raises(InputError) as err:
        load_scenario(copy, f"scenarios/{path.name}", catalog)
    (problem,) = err.value.problems
    line = 1 + text.splitlines().index(f"expect: {expect}")
    assert (problem.path, problem.line, problem.col, problem.field) == (f"scenarios/{path.name}", line, 9, "expect")
    assert problem.message.startswith(f"the engine's verdict is {expect} but expect says {wrong}: ")
    assert problem.message.endswith(f" (got '{wrong}')")

    # The numbers in the message are the ones the engine computed for the original file.
    from generator.model.formatting import money, runs

    original = evaluate_scenario(path.stem, path.name, Scenario.model_validate(YAML(typ="safe", pure=True).load(text)), catalog)
    for w in original.workloads:
        o = w.outcome
        deciding = [s for s in o.trace if s.verdict is not None][-1]
        assert f"{w.workload.name}: {o.verdict} by rule {deciding.rule} " in problem.message
        assert f"GPU {money(o.gpu.total)} vs Trainium {money(o.trainium.total)} over {w.inputs.runs} runs" in problem.message
        assert f"{o.ports} port(s) at {money(o.port_cost)}" in problem.message
        assert f"saving per run {money(o.saving_per_run)}" in problem.message
        assert f"break-even runs {runs(o.break_even_runs)})" in problem.message


def _workload(name: str, **changes) -> dict:
    w = {
        "name": name,
        "architecture": "mainstream",
        "run_size": {"gpu_instance_hours": 500.0},
        "runs": 24,
        "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1"},
        "gpu": {"instance": "p4d.24xlarge", "region": "us-east-1"},
        "relative_throughput": {"value": 1.1, "low": 1.0, "high": 1.2},
    }
    w.update(changes)
    return w


def _scenario(*workloads: dict) -> Scenario:
    return Scenario.model_validate(
        {"title": "t", "summary": "s", "expect": "hybrid", "sources": ["test"], "workloads": list(workloads)}
    )


def test_scenario_verdict_is_hybrid_only_when_workloads_go_different_ways(catalog):
    production = _workload("production")
    research = _workload("research", constraints=["day-one-architectures"])
    mixed = evaluate_scenario("mixed", "mixed.yaml", _scenario(production, research), catalog)
    assert [w.outcome.verdict for w in mixed.workloads] == ["trainium", "gpu"]
    assert mixed.verdict == "hybrid"
    both_gpu = evaluate_scenario("g", "g.yaml", _scenario(research, dict(research, name="more research")), catalog)
    assert both_gpu.verdict == "gpu"
    both_trn = evaluate_scenario("t", "t.yaml", _scenario(production, dict(production, name="more production")), catalog)
    assert both_trn.verdict == "trainium"
    # One GPU workload and one that neither side can run (Trainium ruled out, no GPU to be had): the
    # scenario goes to the GPU, since nothing goes to Trainium. Not a hybrid: no workload goes to Trainium.
    stuck = dict(research, name="stuck", availability={"gpu": "unavailable"})
    gpu_and_neither = evaluate_scenario("n", "n.yaml", _scenario(research, stuck), catalog)
    assert [w.outcome.verdict for w in gpu_and_neither.workloads] == ["gpu", "neither"]
    assert gpu_and_neither.verdict == "gpu"
    trn_and_neither = evaluate_scenario("tn", "tn.yaml", _scenario(production, stuck), catalog)
    assert trn_and_neither.verdict == "trainium"
    only_neither = evaluate_scenario("nn", "nn.yaml", _scenario(stuck), catalog)
    assert only_neither.verdict == "neither"
    # A hybrid's saving per run is the workload it sends to Trainium; the GPU one saves nothing.
    assert mixed.workloads[1].outcome.saving_per_run != 0
    assert mixed.saving_per_run == pytest.approx(mixed.workloads[0].outcome.saving_per_run)
    assert mixed.total_difference == pytest.approx(mixed.workloads[0].outcome.total_difference)
    # Otherwise a scenario's saving adds up its workloads'.
    assert both_trn.saving_per_run == pytest.approx(sum(w.outcome.saving_per_run for w in both_trn.workloads))
    assert both_gpu.saving_per_run == pytest.approx(sum(w.outcome.saving_per_run for w in both_gpu.workloads))
