"""Rules a FinOps analyst checks on a committed plan, each a golden
case with the arithmetic worked by hand: the throughput at which a commitment's verdict flips, the
saving's share of the GPU plan, the scenario's `robust` as its page reads, and a port of nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core_support import engine_inputs, FROZEN, point
from generator.model.engine import Span, Way, evaluate, robustness, thresholds
from generator.model.schema import Workload


YEAR = 8760.0

# One run of 6,250 instance-hours on one GPU instance on demand at $20: $125,000. Trainium on one
# 1-year term at $12 an hour ($105,120 a term), with a port of 2 engineer-weeks at $6,000 ($12,000).
# At the case's throughput of 0.8 the run takes 6,250 / 0.8 = 7,812.5 hours: one term, $117,120 in
# all, so Trainium. Below 6,250 / 8,760 = 0.7135 it takes longer than a year: two terms, $222,240,
# so the GPU. The team buys the term only, so no hour is bought otherwise.
COMMITTED = engine_inputs(
    gpu_hours=6250.0,
    relative_throughput=Span(0.8, 0.6, 1.0),
    trainium_price=point(12.0),
    gpu_price=point(20.0),
    interruption_rate=point(0.0005),
    lost_hours=point(1.5),
    port_weeks=point(2.0),
    runs=1,
    trainium_count=1,
    gpu_count=1,
    trainium_term_hours=YEAR,
    trainium_option="commit-1y",
    gpu_option="on-demand",
    trainium_ways=(Way("commit-1y", 12.0, YEAR),),
    gpu_ways=(Way("on-demand", 20.0),),
)


def test_a_commitment_states_the_throughput_at_which_its_verdict_flips():
    o = evaluate(COMMITTED)
    assert (o.verdict, o.trainium.committed_terms) == ("trainium", 1)
    assert o.gpu.total == pytest.approx(125_000.0)
    assert o.trainium.total == pytest.approx(105_120.0 + 12_000.0)
    # The range's low end (0.6) needs two terms: the verdict flips on relative throughput ...
    assert robustness(COMMITTED, o).flips_on == ("relative_throughput",)
    # ... and the threshold says where: 6,250 / 8,760 = 0.7135 (GPU at 0.713, Trainium at 0.714).
    at = thresholds(COMMITTED, o).relative_throughput
    assert at == pytest.approx(6250 / 8760, rel=1e-12)
    assert evaluate(replace(COMMITTED, relative_throughput=Span(0.713, 0.6, 1.0))).verdict == "gpu"
    assert evaluate(replace(COMMITTED, relative_throughput=Span(0.714, 0.6, 1.0))).verdict == "trainium"


def test_no_committed_threshold_when_no_throughput_makes_the_term_pay():
    # A GPU run of $1,000 (50 hours at $20) never pays for a $105,120 term, however fast Trainium is.
    x = replace(COMMITTED, gpu_hours=50.0)
    assert evaluate(x).verdict == "gpu"
    assert thresholds(x).relative_throughput is None


def test_the_saving_share_is_the_plans_difference_over_the_gpu_plan():
    # By the hour it is 1 - Trainium's cost per run over the GPU's: 100 GPU hours at $40 against 80
    # Trainium hours at $20 is $4,000 against $1,600, a saving of 60 %.
    hourly = replace(COMMITTED, gpu_hours=100.0, relative_throughput=point(1.25), trainium_price=point(20.0),
                     gpu_price=point(40.0), runs=10, trainium_term_hours=None, trainium_option="on-demand",
                     trainium_ways=(Way("on-demand", 20.0),), gpu_ways=(Way("on-demand", 40.0),))
    assert evaluate(hourly).saving_pct == pytest.approx(0.6)
    # A GPU term the plan barely uses: one 1-year term at $40 is $350,400 against Trainium's 10 x 80
    # hours at $20, $16,000. The saving per run is (350,400 - 16,000) / 10 = $33,440; as a share of
    # the GPU plan it is 334,400 / 350,400 = 95.4 %, never the 836 % that dividing by one GPU run's
    # hourly cost ($4,000) gave.
    term = replace(hourly, gpu_term_hours=YEAR, gpu_option="commit-1y", gpu_ways=(Way("commit-1y", 40.0, YEAR),))
    o = evaluate(term)
    assert o.saving_per_run == pytest.approx(33_440.0)
    assert o.saving_pct == pytest.approx(334_400 / 350_400)
    # A GPU reservation already held for the whole plan costs nothing more: no share of $0.
    held = replace(term, gpu_held_hours=YEAR)
    o = evaluate(held)
    assert o.gpu.compute_total == 0 and o.saving_per_run == pytest.approx(-1_600.0)
    assert o.saving_pct is None


def test_a_team_already_on_neuron_ports_nothing():
    w = Workload.model_validate({
        "name": "w", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 100.0}, "runs": 3,
        "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1"},
        "gpu": {"instance": "p4d.24xlarge", "region": "us-east-1"},
        "relative_throughput": {"value": 1.0, "low": 0.9, "high": 1.1},
        "porting": {"weeks": {"value": 0, "low": 0, "high": 0}},
    })
    from generator.inputs.loader import load_catalog
    from generator.model.results import evaluate_workload

    o = evaluate_workload(w, load_catalog(FROZEN / "data")).outcome
    # No port: Trainium's total is its compute alone, and it is ahead from the first run.
    assert (o.port_cost, o.port_calendar_days) == (0.0, 0.0)
    assert o.trainium.total == pytest.approx(o.trainium.compute_total)
    assert o.break_even_runs == 0.0


def test_a_scenario_is_robust_only_as_its_page_says():
    from generator.inputs.loader import load_project

    r = next(s for s in load_project(FROZEN).results if s.id == "cuda-native-modest-volume")
    rob = r.workloads[0].robustness
    # No input alone flips it, but all of them at their worst at once do: the page says "joint".
    assert rob.holds and rob.joint_flip
    assert r.robust is False


# --- A finish-by deadline ----------------------------------------------------------------------------
# One run of 7,372.8 p5.48xlarge instance-hours on 8 instances: 921.6 hours, 38.4 days of wall-clock, on
# demand at $55.04, $405,799.49, starting at once. Trainium on 8 trn1.32xlarge at the same throughput:
# the same 38.4 days, $158,515.20 + an $18,000 port (2 engineer-weeks x 1.5 for a team new to Neuron),
# which 2 engineers take 1.5 weeks, 10.5 days, over. Trainium's plan is done on day 48.9, the GPU's on
# day 38.4. Cost alone says Trainium by $229,284; a team that must be done within 42 days (6 weeks) can
# only take the GPU.
def _six_weeks(**availability) -> Workload:
    return Workload.model_validate({
        "name": "deadline", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 7372.8}, "runs": 1,
        "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
        "gpu": {"instance": "p5.48xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
        "relative_throughput": {"value": 1.0, "low": 1.0, "high": 1.0}, "porting": {"engineers": 2},
        "availability": {"trainium": "available", "gpu": "available", **availability},
    })


def test_a_finish_date_is_checked_against_each_sides_last_run():
    from core_support import run_js_on_workloads
    from generator.inputs.loader import load_catalog
    from generator.model.resolve import resolve
    from generator.model.results import plain, present_workload, evaluate_workload
    from generator.rendering.calculator.data import calculator_data, workload_json

    catalog = load_catalog(FROZEN / "data")
    free = evaluate(resolve(_six_weeks(), catalog).inputs)
    assert free.verdict == "trainium" and free.total_difference == pytest.approx(7372.8 * (55.04 - 21.5) - 18_000)
    w = _six_weeks(finish_within_days=42)
    js = run_js_on_workloads([workload_json(w)], calculator_data(catalog))[0]
    for o in (plain(evaluate(resolve(w, catalog).inputs)), js["outcome"]):
        assert (o["verdict"], o["decided_by"]) == ("gpu", "deadline")
        assert o["trace"][1]["code"] == "trainium-finishes-late"
        assert o["trainium"]["finish_days"] == pytest.approx(10.5 + 38.4)
        assert o["gpu"]["finish_days"] == pytest.approx(38.4)
        assert o["trainium"]["finish_late_days"] == pytest.approx(6.9) and o["gpu"]["finish_late_days"] == 0
    step = present_workload(evaluate_workload(w, catalog))["trace"][1]
    assert step["text"] == ("Trainium cannot be done by the finish date: the wait, the port and its runs take longer. "
                            "To be done within 42 days; Trainium's plan ends in 48.9 days, the GPU's in 38.4 days.")
    # Seven weeks is enough for both: cost decides again.
    late_enough = _six_weeks(finish_within_days=49)
    x = resolve(late_enough, catalog).inputs
    assert evaluate(x).verdict == "trainium"


@pytest.mark.parametrize(("changes", "says"), [
    ({"availability": {"needed_within_days": 30, "finish_within_days": 20}},
     "finish_within_days (20) is sooner than needed_within_days (30)"),
    ({"plan_months": 3, "availability": {"finish_within_days": 60}},
     "plan_months (3, 91 days) spreads the runs past availability.finish_within_days (60)"),
])
def test_a_finish_date_that_disagrees_is_a_located_problem(tmp_path, changes, says):
    import yaml
    from generator.inputs.loader import load_catalog, load_scenario
    from generator.inputs.problems import InputError
    from generator.model.schema import MODELINE

    w = {"name": "w", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 100.0}, "runs": 2,
         "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1"}, "gpu": {"instance": "p4d.24xlarge", "region": "us-east-1"},
         "relative_throughput": {"value": 1.0, "low": 1.0, "high": 1.0}, **changes}
    path = tmp_path / "finish.yaml"
    path.write_text(MODELINE + "\n" + yaml.safe_dump({"title": "t", "summary": "s", "expect": "gpu", "sources": ["ours"],
                                                      "workloads": [w]}, sort_keys=False), encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_scenario(path, "scenarios/finish.yaml", load_catalog(FROZEN / "data"))
    text = str(e.value)
    assert says in text and "scenarios/finish.yaml:" in text
