"""The ways a team accepts to buy, plans that mix whole terms with hours bought by the hour, and the
limits Capacity Blocks are sold under: golden cases with the analyst's arithmetic, from the frozen
data (tests/fixtures/project/data), through both engines."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from core_support import FROZEN, run_js_on_workloads

from generator.inputs.loader import load_catalog, load_scenario
from generator.inputs.problems import InputError
from generator.model.engine import BlockLimits, block_hours, evaluate
from generator.model.resolve import resolve
from generator.model.schema import MODELINE, Workload
from generator.model.results import plain
from generator.model import wording
from generator.model.wording import plan_bought
from generator.rendering.calculator.data import calculator_data, workload_json

CATALOG = load_catalog(FROZEN / "data")
# Frozen figures the arithmetic below uses (USD an instance-hour, us-east-1).
P4DE_COMMIT_1Y, P4DE_ON_DEMAND, P4DE_BLOCK = 17.401365, 27.44705, 17.712
TRN1_ON_DEMAND, TRN1_BLOCK, P5_ON_DEMAND = 21.5, 9.532, 55.04
# A mainstream port by a team new to Neuron: 2 weeks x 1.5 x $6,000.
PORT = 2 * 1.5 * 6000


def workload(**changes) -> Workload:
    w = {
        "name": "plan", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 5840}, "runs": 14,
        "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
        "gpu": {"instance": "p4de.24xlarge", "region": "us-east-1", "option": "commit-1y", "count": 8},
        "relative_throughput": {"value": 0.9, "low": 0.9, "high": 0.9},
    }
    for key, value in changes.items():
        w[key] = value
    return Workload.model_validate(w)


def both_engines(w: Workload):
    """The Python outcome, and the JavaScript engine's, for one workload."""
    py = evaluate(resolve(w, CATALOG).inputs)
    js = run_js_on_workloads([workload_json(w)], calculator_data(CATALOG))[0]
    return py, js


# --- Plans that mix ways ---------------------------------------------------------------------------
# Fourteen runs back to back, each 730 hours on 8 p4de instances: 14 x 730 = 10,220 calendar hours,
# 14 months. A 1-year term of 8 instances costs 8 x 8,760 x 17.401365 = $1,219,487.66.
TERM = 8 * 8760 * P4DE_COMMIT_1Y
# Trainium at 0.9 of the throughput on 8 trn1 on demand: 14 x 5,840 / 0.9 instance-hours at $21.50,
# plus the port: $1,953,155.56 + $18,000 = $1,971,155.56.
TRAINIUM_ON_DEMAND = 14 * 5840 / 0.9 * TRN1_ON_DEMAND + PORT


def test_a_fourteen_month_plan_buys_one_term_and_two_months_by_the_hour():
    # Whole terms only, two of them: $2,438,975.32. One term and the last 1,460 hours on demand:
    # $1,219,487.66 + 1,460 x 8 x 27.44705 = $1,540,069.20. No term at all: 10,220 x 8 x 27.44705 =
    # $2,244,058.81. The mix is cheapest, and cheaper than Trainium's $1,971,155.56: the GPU wins.
    assert 2 * TERM == pytest.approx(2_438_975.32, abs=0.01)
    mixed = TERM + 1460 * 8 * P4DE_ON_DEMAND
    assert mixed == pytest.approx(1_540_069.20, abs=0.01)
    py, js = both_engines(workload())
    for o in (plain(py), js["outcome"]):
        assert o["verdict"] == "gpu"
        assert o["gpu"]["total"] == pytest.approx(mixed, rel=1e-12)
        assert o["trainium"]["total"] == pytest.approx(TRAINIUM_ON_DEMAND, rel=1e-12)
        assert (o["gpu"]["committed_terms"], o["gpu"]["hourly_hours"], o["gpu"]["hourly_option"]) == (1, pytest.approx(1460), "on-demand")
    x = plain(resolve(workload(), CATALOG).inputs)
    assert plan_bought(x, plain(py.gpu), "gpu") == "one 1-year term, then the plan's last 1,460 hours on demand"
    assert plan_bought(x, plain(py.trainium), "trainium") == "by the hour on demand"


def test_buy_nothing_else_keeps_the_gpu_to_whole_terms_and_trainium_wins():
    # `buy: []`: the GPU may only buy its commitment, two whole terms, $2,438,975.32 against Trainium's
    # $1,971,155.56 on demand (its named way).
    py, js = both_engines(workload(buy=[]))
    for o in (plain(py), js["outcome"]):
        assert o["verdict"] == "trainium"
        assert o["gpu"]["total"] == pytest.approx(2 * TERM, rel=1e-12)
        assert o["gpu"]["committed_terms"] == 2 and o["gpu"]["hourly_hours"] == 0
    # What on demand for the last two months would save is said as advice: spot on the GPU is cheaper
    # still, and named.
    assert py.gpu.cheaper_by > 2 * TERM - (TERM + 1460 * 8 * P4DE_ON_DEMAND)


def test_a_way_aws_no_longer_lists_is_not_planned_on():
    # The same fourteen months, with p4de on demand in us-east-1 found withdrawn by two refreshes a
    # week apart (`vanished`). The last two months cannot be bought by the hour at a rate AWS no longer
    # sells, so the GPU buys two whole terms, $2,438,975.32, and Trainium's $1,971,155.56 wins.
    withdrawn = CATALOG.model_copy(update={"prices": [
        p.model_copy(update={"vanished": dt.date(2026, 11, 20)})
        if (p.instance, p.region, p.option) == ("p4de.24xlarge", "us-east-1", "on-demand") else p
        for p in CATALOG.prices]})
    py = evaluate(resolve(workload(), withdrawn).inputs)
    js = run_js_on_workloads([workload_json(workload())], calculator_data(withdrawn))[0]
    for o in (plain(py), js["outcome"]):
        assert o["verdict"] == "trainium"
        assert o["gpu"]["total"] == pytest.approx(2 * TERM, rel=1e-12)
        assert (o["gpu"]["committed_terms"], o["gpu"]["hourly_hours"]) == (2, 0)


def test_capacity_blocks_accepted_by_both_sides_book_whole_days():
    # `buy: [capacity-block]` applies to both sides. Each run is booked as its own block and extended to
    # whole days: the GPU's 730-hour runs (30.4 days) as 31 days (a 28-day block, the longest sold under
    # it, and a 3-day extension), so an hour used costs 744 / 730 of the block rate. The GPU: one term,
    # then 1,460 hours on blocks, $1,219,487.66 + 1,460 x 8 x 17.712 x 744 / 730 = $1,430,331.31.
    # Trainium's 811.1-hour runs (5,840 / 0.9 / 8, 33.8 days) as 34 days, a 28-day block and a 6-day
    # extension: 14 x 5,840 / 0.9 x 9.532 x 816 / 811.1 + $18,000 = $889,148.54. Trainium wins.
    gpu = TERM + 1460 * 8 * P4DE_BLOCK * 744 / 730
    trn = 14 * 5840 / 0.9 * TRN1_BLOCK * (816 / (5840 / 0.9 / 8)) + PORT
    assert gpu == pytest.approx(1_430_331.31, abs=0.01) and trn == pytest.approx(889_148.54, abs=0.01)
    py, js = both_engines(workload(buy=["capacity-block"]))
    for o in (plain(py), js["outcome"]):
        assert o["verdict"] == "trainium"
        assert o["gpu"]["total"] == pytest.approx(gpu, rel=1e-12)
        assert o["gpu"]["hourly_option"] == "capacity-block"
        assert o["trainium"]["total"] == pytest.approx(trn, rel=1e-12)
        assert o["trainium"]["plan_option"] == "capacity-block"
    x = plain(resolve(workload(buy=["capacity-block"]), CATALOG).inputs)
    assert plan_bought(x, plain(py.gpu), "gpu") == ("one 1-year term, then the plan's last 1,460 hours on Capacity Blocks, each run "
                                                   "booked as a 28-day block and a 3-day extension (sold only if AWS has the capacity then)")
    assert plan_bought(x, plain(py.trainium), "trainium") == ("by the hour on Capacity Blocks, each run booked as a 28-day "
                                                             "block and a 6-day extension (sold only if AWS has the capacity then)")


# --- The ways a team accepts -------------------------------------------------------------------------
# Both sides named on spot at 1,400 instances: a load of 1,400 x 0.0005 x 1.5 = 1.05 interruptions'
# worth of lost progress an hour, so no run can be expected to finish on spot. One GPU run takes
# 140,000 p5 instance-hours; Trainium at half the throughput 280,000 trn1 instance-hours.
def spot_at_scale(**changes) -> Workload:
    w = {"run_size": {"gpu_instance_hours": 140_000}, "runs": 1,
         "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1", "option": "spot", "count": 1400},
         "gpu": {"instance": "p5.48xlarge", "region": "us-east-1", "option": "spot", "count": 1400},
         "relative_throughput": {"value": 0.5, "low": 0.5, "high": 0.5}}
    return workload(**(w | changes))


def test_spot_that_cannot_finish_falls_back_to_on_demand():
    # On demand, which every team accepts unless it says otherwise: Trainium 280,000 x 21.50 + 18,000 =
    # $6,038,000; the GPU 140,000 x 55.04 = $7,705,600. Trainium is cheaper.
    assert 1400 * 0.0005 * 1.5 == pytest.approx(1.05)
    assert 280_000 * TRN1_ON_DEMAND + PORT == 6_038_000 and 140_000 * P5_ON_DEMAND == pytest.approx(7_705_600)
    py, js = both_engines(spot_at_scale())
    for o in (plain(py), js["outcome"]):
        assert o["verdict"] == "trainium" and o["decided_by"] == "cost"
        assert o["trainium"]["total"] == pytest.approx(6_038_000, rel=1e-12)
        assert o["gpu"]["total"] == pytest.approx(7_705_600, rel=1e-12)
        assert (o["trainium"]["plan_option"], o["gpu"]["plan_option"]) == ("on-demand", "on-demand")


def test_spot_only_gives_neither_and_says_what_on_demand_would_cost():
    py, js = both_engines(spot_at_scale(buy=[]))
    for o in (plain(py), js["outcome"]):
        assert o["verdict"] == "neither"
        assert not o["trainium"]["feasible"] and not o["gpu"]["feasible"]
        # The advice names the cheapest way the team did not accept.
        assert o["gpu"]["cheapest_option"] == "on-demand"
    from generator.model.wording import _cheapest
    x = plain(resolve(spot_at_scale(buy=[]), CATALOG).inputs)
    assert _cheapest(x, plain(py.gpu), "gpu") == "not accepted, but on-demand in us-east-1 could run it for $7,705,600"


# --- Capacity Block limits -----------------------------------------------------------------------------
LIMITS = BlockLimits(per_block=64, across_blocks=256, daily_up_to=14, weekly_step=7, longest=182, extend_up_to=14)
# The same, counting on no extension: each run booked as one block of a length AWS sells.
ONE_BLOCK = BlockLimits(per_block=64, across_blocks=256, daily_up_to=14, weekly_step=7, longest=182)


def test_the_frozen_limits_are_awss():
    b = CATALOG.assumptions.capacity_blocks
    assert b is not None
    assert (b.instances_per_block.value, b.instances_across_blocks.value, b.daily_steps_up_to_days.value,
            b.weekly_step_days.value, b.longest_days.value, b.booked_ahead_weeks.value) == (64, 256, 14, 7, 182, 8)
    assert b.extension_daily_steps_up_to_days is not None and b.extension_daily_steps_up_to_days.value == 14
    # AWS's own pages, which show no date, state every selling rule the engine books by.
    assert {b.daily_steps_up_to_days.source, b.extension_daily_steps_up_to_days.source} == {"EC2-CB-GUIDE", "EC2-CB-EXTEND"}
    assert b.extension_daily_steps_up_to_days.as_of is None and CATALOG.sources["EC2-CB-EXTEND"].as_of is None
    assert resolve(workload(), CATALOG).inputs.block_limits == LIMITS


@pytest.mark.parametrize(("wall", "days", "one_block"), [
    (10, 1, 1),  # a 10-hour job pays a whole day
    (24, 1, 1), (24.5, 2, 2), (14 * 24, 14, 14),
    (15 * 24, 15, 21),  # past 14 days a block is sold in 7-day steps: a 14-day block and a 1-day extension
    (16.28 * 24, 17, 21),
    (22 * 24, 22, 28),  # a 21-day block and a 1-day extension
    (181 * 24, 181, 182),
    (183 * 24, 183, 183),  # a 182-day block, then a 1-day one
    (200 * 24, 200, 182 + 21),
])
def test_a_run_on_blocks_pays_whole_days_with_an_extension(wall: float, days: int, one_block: int):
    assert block_hours(wall, LIMITS) == days * 24
    assert block_hours(wall, ONE_BLOCK) == one_block * 24


def test_a_plan_blocks_cannot_hold_is_not_priced_on_blocks():
    # 1,333 p5 instances at once: more than the 256 all of an organisation's blocks hold.
    w = spot_at_scale(gpu={"instance": "p5.48xlarge", "region": "us-east-1", "option": "capacity-block", "count": 1333})
    py, js = both_engines(w)
    for o in (plain(py), js["outcome"]):
        # Bought on demand instead (accepted by default): 140,000 x 55.04.
        assert o["gpu"]["plan_option"] == "on-demand"
        assert o["gpu"]["total"] == pytest.approx(140_000 * P5_ON_DEMAND, rel=1e-12)
        assert "capacity-block" not in [way for way, _, _ in o["gpu"]["options"]]
    py, js = both_engines(spot_at_scale(buy=[], gpu={"instance": "p5.48xlarge", "region": "us-east-1",
                                                      "option": "capacity-block", "count": 1333}))
    for o in (plain(py), js["outcome"]):
        assert not o["gpu"]["feasible"]
        assert o["gpu"]["reasons"] == [["blocks-cannot-hold", 256]]
        assert wording.reason_text(o["gpu"]["reasons"][0]) == (
            "Capacity Blocks hold at most 256 instances across an organisation's blocks, fewer than it runs at once")


def test_256_instances_fit_in_blocks():
    w = workload(runs=1, run_size={"gpu_instance_hours": 2560}, buy=[],
                 gpu={"instance": "p4de.24xlarge", "region": "us-east-1", "option": "capacity-block", "count": 256})
    py, js = both_engines(w)
    for o in (plain(py), js["outcome"]):
        # 10 hours of wall-clock, booked as one day: 256 x 24 x 17.712.
        assert o["gpu"]["feasible"] and o["gpu"]["total"] == pytest.approx(256 * 24 * P4DE_BLOCK, rel=1e-12)


# --- The schema ------------------------------------------------------------------------------------------

def write(tmp_path: Path, buy) -> Path:
    scenario = {"title": "t", "summary": "s", "expect": "gpu", "sources": ["ours"],
                "workloads": [workload_json(workload()) | {"buy": buy}]}
    path = tmp_path / "buy.yaml"
    path.write_text(MODELINE + "\n" + yaml.safe_dump(scenario, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(("buy", "says"), [
    (["reserved"], "workloads.0.buy.0"),
    (["spot", "spot"], "buy must not repeat a way (repeated: spot)"),
    ("spot", "workloads.0.buy"),
])
def test_a_bad_buy_list_is_a_located_problem(tmp_path: Path, buy, says: str):
    with pytest.raises(InputError) as e:
        load_scenario(write(tmp_path, buy), "scenarios/buy.yaml", CATALOG)
    text = str(e.value)
    assert says in text and "scenarios/buy.yaml:" in text


def test_a_buy_list_loads_and_decides(tmp_path: Path):
    r = load_scenario(write(tmp_path, ["capacity-block"]), "scenarios/buy.yaml", CATALOG, check_expect=False)
    assert r.workloads[0].inputs.gpu_accepts == ("commit-1y", "capacity-block")
    assert r.verdict == "trainium"
    assert math.isclose(r.workloads[0].outcome.gpu.total, TERM + 1460 * 8 * P4DE_BLOCK * 744 / 730, rel_tol=1e-12)


def test_a_throughput_threshold_on_blocks_is_where_a_run_fits_fewer_days():
    # Trainium on trn2 Capacity Blocks at $35.7608, 8 instances, and nothing else (`buy: []`: the frozen
    # data also has an older on-demand figure for trn2); the GPU 6 runs x 1,500 h on p5 on demand
    # = $495,360. A heavy-custom-CUDA port by a team new to Neuron: 8 x 1.5 weeks x $6,000 = $72,000.
    # Trainium wins while 6 runs x 8 instances x (hours booked) x 35.7608 < 495,360 - 72,000 = 423,360:
    # a run may be booked for under 246.6 hours, so for 10 days (240 h) at most. A run of
    # 1,500 / rel / 8 hours fits 240 h from rel = 1,500 / (8 x 240) = 0.78125 up.
    w = workload(architecture="heavy-custom-cuda", runs=6, run_size={"gpu_instance_hours": 1500},
                 trainium={"instance": "trn2.48xlarge", "region": "us-east-2", "option": "capacity-block", "count": 8},
                 gpu={"instance": "p5.48xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
                 relative_throughput={"value": 0.7, "low": 0.6, "high": 0.9}, buy=[])
    x = resolve(w, CATALOG).inputs
    from generator.model.engine import Span, thresholds
    assert thresholds(x).relative_throughput == pytest.approx(1500 / (8 * 240), rel=1e-12)
    at = lambda r: evaluate(replace(x, relative_throughput=Span(r, 0.6, 0.9))).verdict  # noqa: E731
    assert (at(0.78), at(0.78125)) == ("gpu", "trainium")
    js = run_js_on_workloads([workload_json(w)], calculator_data(CATALOG))[0]
    assert js["thresholds"]["relative_throughput"] == pytest.approx(0.78125, rel=1e-12)


# --- Blocks booked as AWS sells them -----------------------------------------------------------------
# 20 runs on 32 trn2.48xlarge Capacity Blocks in us-east-2 at $35.7608, each 16.28 days of wall-clock
# (390.72 hours); the GPU 20 runs of 10,000 p5 instance-hours on demand, 20 x 10,000 x 55.04 =
# $11,008,000. A port of 10 engineer-weeks at $6,000: $60,000. AWS sells blocks of 1 to 14 days, then
# in 7-day steps, and extends a block by whole days: a run of 16.28 days is booked as 17 days, a
# 14-day block and a 3-day extension. Trainium: 20 x 32 x 17 x 24 x 35.7608 + 60,000 = $9,397,860.10,
# Trainium by $1,610,139.90. Counting on no extension, each run is booked as one 21-day block:
# 20 x 32 x 21 x 24 x 35.7608 + 60,000 = $11,595,003.65, and the GPU would win by $587,003.65.
EXTENDED = 20 * 32 * 17 * 24 * 35.7608 + 60_000
ONE_BLOCK_EACH = 20 * 32 * 21 * 24 * 35.7608 + 60_000


def sixteen_day_runs() -> Workload:
    return workload(runs=20, run_size={"gpu_instance_hours": 10_000},
                    trainium={"instance": "trn2.48xlarge", "region": "us-east-2", "option": "capacity-block", "count": 32},
                    gpu={"instance": "p5.48xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
                    relative_throughput={"value": 10_000 / (32 * 16.28 * 24), "low": 0.7, "high": 0.9}, buy=[],
                    porting={"weeks": {"value": 10, "low": 10, "high": 10}})


def test_a_sixteen_day_run_is_booked_as_seventeen_days_and_the_one_block_reading_is_beside_it():
    assert EXTENDED == pytest.approx(9_397_860.10, abs=0.01) and ONE_BLOCK_EACH == pytest.approx(11_595_003.65, abs=0.01)
    w = sixteen_day_runs()
    from generator.model.results import evaluate_workload, present_workload
    r = evaluate_workload(w, CATALOG)
    js = run_js_on_workloads([workload_json(w)], calculator_data(CATALOG))[0]
    for o, single in ((plain(r.outcome), r.single_blocks), (js["outcome"], js["single_blocks"])):
        assert o["verdict"] == "trainium"
        assert o["trainium"]["total"] == pytest.approx(EXTENDED, rel=1e-12)
        assert o["gpu"]["total"] == pytest.approx(11_008_000, rel=1e-12)
        assert list(o["trainium"]["booking"]) == [0, 14, 3]
        # Each run as one block of the next length AWS sells: the verdict turns.
        assert single["verdict"] == "gpu"
        assert single["trainium_total"] == pytest.approx(ONE_BLOCK_EACH, rel=1e-12)
        assert list(single["booking"]["trainium"]) == [0, 21, 0]
    # The verdict rests on the extension: robustness says it flips there, in both engines.
    for rob in (plain(r.robustness), js["robustness"]):
        assert rob["flips_on"] == ["block_extension"]
        assert rob["ends"][-1] | {"value": None} == {"input": "block_extension", "end": "none", "value": None, "verdict": "gpu",
                                                    "total_difference": pytest.approx(11_008_000 - ONE_BLOCK_EACH)}
    shown = present_workload(r)
    assert shown["robustness"]["sentence"].startswith("Flips on a Capacity Block extension being sold: with none to be had")
    bought = next(row for row in shown["summary"]["sides"] if row["label"] == "How the plan is bought")
    assert bought["trainium"]["text"] == ("by the hour on Capacity Blocks, each run booked as a 14-day block and a 3-day "
                                          "extension (sold only if AWS has the capacity then)")
    assert shown["booking_notes"] == [
        "If no extension can be had and each run is booked as one block of the next length AWS sells (a 21-day block), "
        "Trainium's plan costs $11,595,004 against the GPU's $11,008,000: the verdict would be GPU."]


def test_no_one_block_note_where_it_would_not_turn_the_verdict():
    # Ten times the GPU's hours: Trainium wins by far either way, so the extension is not what the
    # verdict rests on and no note is shown (the booking is still said).
    w = sixteen_day_runs()
    w = w.model_copy(update={"run_size": w.run_size.model_copy(update={"gpu_instance_hours": 100_000.0})})
    from generator.model.results import evaluate_workload, present_workload
    r = evaluate_workload(w, CATALOG)
    assert r.outcome.verdict == "trainium" and r.single_blocks is not None and r.single_blocks["verdict"] == "trainium"
    assert present_workload(r)["booking_notes"] == []


def test_a_fourteen_point_nine_day_trn1_run_is_booked_as_fifteen_days():
    # 14.88 days on 1 trn1.32xlarge block at $9.532: 15 days (a 14-day block and a 1-day extension),
    # 15 x 24 x 9.532 = $3,431.52 a run, where one block would be 21 days, $4,804.13.
    w = workload(runs=1, run_size={"gpu_instance_hours": 14.88 * 24}, buy=[],
                 trainium={"instance": "trn1.32xlarge", "region": "us-east-1", "option": "capacity-block", "count": 1},
                 relative_throughput={"value": 1.0, "low": 1.0, "high": 1.0})
    py, js = both_engines(w)
    for o in (plain(py), js["outcome"]):
        assert o["trainium"]["compute_total"] == pytest.approx(15 * 24 * TRN1_BLOCK, rel=1e-12)
        assert list(o["trainium"]["booking"]) == [0, 14, 1]
