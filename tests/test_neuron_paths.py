"""Trainium's software path by generation (data/neuron.yaml), worked by hand from the frozen data
(tests/fixtures/project/data) before the engine ran, then held in both engines.

PyTorch training on Trainium1 (trn1, trn1n) stays on Neuron 2.28, released 2026-02-26: the last
release with PyTorch/XLA training and NxD Training, where TorchNeuron, the PyTorch path of the current
release, runs on Trainium2 and Trainium3 only. The frozen data stands as on 2026-11-23, when the
current release was 2.33 (2026-10-19); data/ has 2.34 (2026-11-30) since. A team that may train only on a
release still updated (`supported-neuron-release`) has no way onto trn1; a model that already trains
on Neuron through PyTorch/XLA (`neuron-pytorch-xla`) runs on trn1 as it is and is re-ported to
TorchNeuron on trn2 and trn3, 2 engineer-weeks (1 to 4) by the guide's own figure."""

from __future__ import annotations

import functools
import json
import subprocess

import pytest
from core_support import side, workload_of, DATA, REPO, learned_env, run_js_on_workloads

from generator.inputs.loader import load_catalog
from generator.model import trn3
from generator.model.engine import Span
from generator.model.resolve import excluded_by, port_weeks
from generator.model.results import evaluate_workload, pin_sentence, workload_dict
from generator.model.schema import Workload
from generator.rendering.calculator.data import calculator_data, workload_json

CATALOG = load_catalog(DATA)
P4DE, TRN1, TRN2_BLOCK, P5_BLOCK = 27.44705, 21.5, 35.7608, 41.528
WEEK = 6000


# The supported-releases scenario: the repeated fine-tune of 48 runs of 192 p4de instance-hours, which
# trn1 would win ($198,131 against $252,952), under a policy that rules trn1 out.
FINE_TUNE = dict(trainium=side("trn1.32xlarge", "on-demand", 8), gpu=side("p4de.24xlarge", "on-demand", 8), hours=192, runs=48,
                 throughput=Span(1.1, 0.9, 1.25), neuron_experience="none")
# The NxD Training team's move: 12 runs of 16 instances for 90 hours, booked as 4-day blocks on both
# sides. `buy: []` keeps each side to its block: the frozen data still has an old trn2 on-demand figure.
MOVE = dict(trainium=side("trn2.48xlarge", "capacity-block", 16, "us-east-2"), gpu=side("p5.48xlarge", "capacity-block", 16),
            hours=1440, runs=12, throughput=Span(1.0, 0.8, 1.2), neuron_experience="experienced", buy=[])

CASES: dict[str, Workload] = {
    "fine-tune, trn1, supported releases only": workload_of(**FINE_TUNE, constraints=["supported-neuron-release"]),
    "fine-tune, trn1": workload_of(**FINE_TUNE),
    "move to trn2": workload_of(**MOVE, constraints=["supported-neuron-release", "neuron-pytorch-xla"]),
    # The same team staying on trn1 (trn1.32xlarge blocks, 16 x 90 / 1.0 hours): nothing to port there.
    "stay on trn1": workload_of(**{**MOVE, "trainium": side("trn1.32xlarge", "capacity-block", 16)}, constraints=["neuron-pytorch-xla"]),
}


@functools.cache
def _outcomes() -> dict[str, tuple[dict, dict]]:
    """Each case's result in Python (as `guide evaluate --format json` writes it) and in engine.mjs."""
    names = list(CASES)
    js = run_js_on_workloads([workload_json(CASES[n]) for n in names], calculator_data(CATALOG))
    return {n: (workload_dict(evaluate_workload(CASES[n], CATALOG)), j) for n, j in zip(names, js, strict=True)}


def both(name: str) -> list[tuple[dict, dict]]:
    """(inputs, outcome) of a case in each engine."""
    py, js = _outcomes()[name]
    return [(py["inputs"], py["outcome"]), (js["inputs"], js["outcome"])]


def test_pytorch_training_on_trainium1_stays_on_neuron_2_28():
    n = CATALOG.neuron
    assert n.pin("trainium1") == "2.28.0" and str(n.releases["2.28.0"].released) == "2026-02-26"
    assert n.pin("trainium2") is None and n.pin("trainium3") is None
    assert n.current == "2.33.0" and str(n.releases[n.current].released) == "2026-10-19"
    # TorchNeuron lists Trainium2 and Trainium3 only; JAX still lists Trainium1.
    assert [p.label for p in n.on("trainium1", current=True)] == ["JAX NeuronX"]
    assert "TorchNeuron" in [p.label for p in n.on("trainium2", "pytorch", current=True)]


def test_a_policy_of_updated_releases_rules_trn1_out_whatever_it_saves():
    # trn1 would cost 48 x 192 / 1.1 x 21.50 = $180,130.91 plus a port of 2 x 1.5 weeks, $18,000:
    # $198,130.91 against the GPU's 48 x 192 x 27.44705 = $252,952.01. Under the policy it cannot run.
    for x, o in both("fine-tune, trn1, supported releases only"):
        assert x["excluded_by"] == ["supported-neuron-release"]
        assert (o["verdict"], o["decided_by"]) == ("gpu", "feasibility")
        assert not o["trainium"]["feasible"]
        assert o["gpu"]["total"] == pytest.approx(48 * 192 * P4DE, rel=1e-9)
    for x, o in both("fine-tune, trn1"):
        assert x["excluded_by"] == [] and o["verdict"] == "trainium"
        assert o["trainium"]["total"] == pytest.approx(48 * 192 / 1.1 * TRN1 + 3 * WEEK, rel=1e-9)
        assert o["gpu"]["total"] - o["trainium"]["total"] == pytest.approx(54821.10, abs=0.01)


def test_a_model_on_pytorch_xla_is_re_ported_to_trn2_in_place_of_the_class_port():
    # 1,440 / 1.0 / 16 = 90 hours, a 4-day block a side: Trainium 16 x 96 x 35.7608 = $54,928.59 a run,
    # the GPU 16 x 96 x 41.528 = $63,787.01. Re-port: 2 weeks x 1.0 (experienced) x $6,000 = $12,000.
    # Over 12 runs $671,143.07 against $765,444.10: Trainium by $94,301.03, repaid in 1.35 runs.
    for x, o in both("move to trn2"):
        assert x["excluded_by"] == []  # the policy rules out trn1, not trn2
        assert x["port_weeks"] == {"value": 2.0, "low": 1.0, "high": 4.0}
        assert o["port_cost"] == pytest.approx(2 * WEEK)
        assert o["trainium"]["total"] == pytest.approx(12 * 16 * 96 * TRN2_BLOCK + 2 * WEEK, rel=1e-9)
        assert o["gpu"]["total"] == pytest.approx(12 * 16 * 96 * P5_BLOCK, rel=1e-9)
        assert o["verdict"] == "trainium" and o["total_difference"] == pytest.approx(94301.03, abs=0.01)
        assert o["break_even_runs"] == pytest.approx(12000 / (16 * 96 * (P5_BLOCK - TRN2_BLOCK)), rel=1e-9)
    # Below 96 hours a run, 1,440 / 16 / 96 = 0.9375, a trn2 run books a fifth day ($68,660.74) and the
    # GPU wins: the verdict flips on throughput there.
    py, js = _outcomes()["move to trn2"]
    for result in (py, js):
        assert result["thresholds"]["relative_throughput"] == pytest.approx(0.9375, abs=1e-6)
        assert result["robustness"]["flips_on"] == ["relative_throughput"]


def test_on_trn1_the_same_model_runs_as_it_is_and_is_pinned():
    for x, o in both("stay on trn1"):
        assert x["port_weeks"] == {"value": 0.0, "low": 0.0, "high": 0.0}
        assert o["port_cost"] == 0
    r = evaluate_workload(CASES["stay on trn1"], CATALOG)
    assert r.neuron_pin is not None and r.neuron_pin.release == "2.28.0"
    # What leaving costs, for an experienced team: the re-port's own weeks.
    assert r.neuron_pin.report == "neuron-pytorch-xla" and r.neuron_pin.report_weeks == Span(2.0, 1.0, 4.0)


def test_the_pin_is_said_with_its_dates_and_what_is_current_and_is_in_the_json():
    r = evaluate_workload(CASES["fine-tune, trn1"], CATALOG)
    said = pin_sentence(r)
    assert said is not None and said["lead"] == "Pinned to Neuron 2.28.0."
    text = said["text"]
    assert text.startswith("PyTorch training on trn1.32xlarge (AWS Trainium (Trn1)) runs on Neuron 2.28.0 "
                           "at the newest, released 2026-02-26, the last release with PyTorch/XLA training and NxD Training.")
    assert "The current release, 2.33.0 of 2026-10-19, trains PyTorch only on AWS Trainium2 and AWS Trainium3, through " \
           "TorchNeuron (beta) and TorchTitan Neuron (beta); on this generation it offers JAX NeuronX (beta)." in text
    # A team new to Neuron: the re-port's 2 weeks (1 to 4) half as long again.
    assert text.endswith("a port of its own: 3 engineer-weeks (1.5 to 6) by the guide's own figure (the constraint neuron-pytorch-xla).")
    pin = workload_dict(r)["neuron_pin"]
    assert pin["release"] == "2.28.0" and pin["released"] == "2026-02-26"
    assert {"NRN-NXDT-EOS", "NRN-228-RN", "NRN-233-RN", "NRN-TORCH", "NRN-JAX-SETUP"} <= set(pin["sources"])
    assert all(key in CATALOG.sources for key in pin["sources"])
    # trn2 has a current PyTorch path: nothing to pin.
    moved = evaluate_workload(CASES["move to trn2"], CATALOG)
    assert moved.neuron_pin is None and pin_sentence(moved) is None and workload_dict(moved)["neuron_pin"] is None


def test_trainium3s_price_to_beat_applies_the_constraints_as_they_are_on_trainium3():
    w = CASES["fine-tune, trn1, supported releases only"]
    assert excluded_by(w, CATALOG, "trainium1") == ("supported-neuron-release",)
    assert excluded_by(w, CATALOG, "trainium3") == ()
    beats = trn3.price_to_beat(CATALOG, evaluate_workload(w, CATALOG))
    assert beats and all(b.decides is None and b.prices[1].usd_per_hour is not None for b in beats)
    stay = CASES["stay on trn1"]
    assert port_weeks(stay, CATALOG) == Span(0.0, 0.0, 0.0)
    assert port_weeks(stay, CATALOG, "trainium3") == Span(2.0, 1.0, 4.0)


def test_the_calculator_offers_both_constraints_with_the_generations_they_apply_to():
    constraints = calculator_data(CATALOG)["assumptions"]["constraints"]
    assert constraints["supported-neuron-release"] | {"weeks": None} == {
        "label": CATALOG.assumptions.constraints["supported-neuron-release"].label, "effect": "excludes", "weeks": None,
        "chips": ["trainium1"], "on": "AWS Trainium (Trn1)"}
    assert constraints["neuron-pytorch-xla"]["on"] == "AWS Trainium2 and AWS Trainium3"
    script = """
    const say = await import(process.argv[1]);
    say.learn(JSON.parse(process.env.GUIDE_WORDS), JSON.parse(process.env.GUIDE_MESSAGES));
    const c = JSON.parse(process.argv[2]);
    process.stdout.write(JSON.stringify([say.constraintChoice(c["supported-neuron-release"]), say.constraintChoice(c["neuron-pytorch-xla"])]));
    """
    out = subprocess.run(["node", "--input-type=module", "-e", script, (REPO / "docs/assets/calculator/wording.mjs").as_uri(),
                          json.dumps(constraints)], capture_output=True, text=True, check=True, env=learned_env())
    assert json.loads(out.stdout) == [
        "Must train on a Neuron release AWS still updates for its framework (rules out AWS Trainium (Trn1))",
        "Already trains on Neuron through PyTorch/XLA or NxD Training, on Neuron 2.28 or earlier "
        "(a port of 2 engineer-weeks on AWS Trainium2 and AWS Trainium3, none on the others)",
    ]

