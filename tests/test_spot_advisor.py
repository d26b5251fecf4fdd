"""Spot interruptions by instance and region, from AWS's Spot Instance Advisor buckets. The
golden case: one 64-instance job on spot, Trainium on trn1.32xlarge and the GPU on
p5.48xlarge, both in us-east-1, where the Advisor snapshot rates trn1.32xlarge "<5%" and p5.48xlarge
">20%" of instances interrupted in a month. A bucket's monthly share s is taken as a steady rate r an
instance-hour with 1 - exp(-730 r) = s (our conversion), so r = -ln(1 - s) / 730."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from core_support import DATA
from generator.model.engine import evaluate, robustness
from generator.model.resolve import resolve, spot_risk
from generator.model.schema import Workload

BUCKETS = '''spot_interruption_buckets:
  "<5%": {value: 0.025, low: 0.0, high: 0.05, source: SPOT-ADV-2025-06, as_of: 2025-06-28}
  "5-10%": {value: 0.075, low: 0.05, high: 0.10, source: SPOT-ADV-2025-06, as_of: 2025-06-28}
  "10-15%": {value: 0.125, low: 0.10, high: 0.15, source: SPOT-ADV-2025-06, as_of: 2025-06-28}
  "15-20%": {value: 0.175, low: 0.15, high: 0.20, source: SPOT-ADV-2025-06, as_of: 2025-06-28}
  ">20%": {value: 0.306, low: 0.20, high: 0.768, source: GUIDE, as_of: 2026-11-27}
'''
SOURCE = '''  SPOT-ADV-2025-06:
    title: Spot Instance Advisor data, a snapshot committed 2025-06-28
    url: https://example.org/spot-advisor-data.json
    kind: primary
    as_of: 2025-06-28
'''


@pytest.fixture(scope="module")
def rated_catalog(tmp_path_factory: pytest.TempPathFactory):
    """The frozen data with the Advisor's buckets, and ratings for trn1.32xlarge and p5.48xlarge."""
    from generator.inputs.loader import load_catalog

    data = Path(shutil.copytree(DATA, tmp_path_factory.mktemp("spot") / "data"))
    (data / "assumptions.yaml").write_text((data / "assumptions.yaml").read_text() + BUCKETS)
    sources = (data / "sources.yaml").read_text()
    (data / "sources.yaml").write_text(sources.replace("sources:\n", "sources:\n" + SOURCE, 1))
    inst = (data / "instances.yaml").read_text()
    for name, pools in (("trn1.32xlarge", 'us-east-1: "<5%"'), ("p5.48xlarge", 'us-east-1: ">20%", eu-north-1: "<5%"')):
        head = f"  {name}:\n    side: "
        assert head in inst
        side = "trainium" if name.startswith("trn") else "gpu"
        inst = inst.replace(head + side + "\n", head + side + "\n" +
                            f'    spot_interruption: {{value: {{{pools}}}, source: SPOT-ADV-2025-06, as_of: 2025-06-28}}\n', 1)
    (data / "instances.yaml").write_text(inst)
    return load_catalog(data)


def job(trainium: dict) -> Workload:
    return Workload.model_validate({
        "name": "spot job", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 6400.0}, "runs": 10,
        "trainium": trainium,
        "gpu": {"instance": "p5.48xlarge", "region": "us-east-1", "option": "spot", "count": 64},
        "relative_throughput": {"value": 0.95, "low": 0.8, "high": 1.1},
    })


def test_each_side_takes_its_own_pools_bucket(rated_catalog):
    r = resolve(job({"instance": "trn1.32xlarge", "region": "us-east-1", "option": "spot", "count": 64}), rated_catalog)
    x = r.inputs
    # trn1.32xlarge "<5%": the midpoint 2.5 % a month is -ln(0.975) / 730 = 0.0000347 an instance-hour,
    # from 0 to -ln(0.95) / 730 = 0.0000703.
    assert x.trainium_interruption_rate.value == pytest.approx(3.4681929e-5, rel=1e-7)
    assert (x.trainium_interruption_rate.low, x.trainium_interruption_rate.high) == pytest.approx((0.0, 7.0264787e-5), rel=1e-7)
    # p5.48xlarge ">20%": 30.6 % a month is -ln(0.694) / 730 = 0.000500, from 0.000306 (20 %) to 0.00200 (76.8 %).
    assert x.gpu_interruption_rate.value == pytest.approx(5.0038811e-4, rel=1e-7)
    assert (x.gpu_interruption_rate.low, x.gpu_interruption_rate.high) == pytest.approx((3.0567610e-4, 2.0013944e-3), rel=1e-7)
    assert (r.trainium_spot_risk.bucket, r.trainium_spot_risk.source, str(r.trainium_spot_risk.as_of)) == (
        "<5%", "SPOT-ADV-2025-06", "2025-06-28")
    o = evaluate(x)
    # 64 instances x 0.0000347 x 1.5 hours lost = 0.333 % of each hour lost on Trainium: 0.334 % more hours;
    # 64 x 0.000500 x 1.5 = 4.80 % on the GPU: 5.05 % more hours. The shared default would have given both 5.04 %.
    load_trn = 64 * (-math.log(0.975) / 730) * 1.5
    load_gpu = 64 * (-math.log(1 - 0.306) / 730) * 1.5
    assert o.trainium.spot_overhead == pytest.approx(1 / (1 - load_trn) - 1, rel=1e-9)
    assert o.trainium.spot_overhead == pytest.approx(0.003341, abs=1e-6)
    assert o.gpu.spot_overhead == pytest.approx(1 / (1 - load_gpu) - 1, rel=1e-9)
    assert o.gpu.spot_overhead == pytest.approx(0.05046, abs=1e-5)
    # Each side's own range is what robustness moves, and only on the side on spot that has one.
    names = [e.input for e in robustness(x, o).ends]
    assert "trainium_interruption_rate" in names and "gpu_interruption_rate" in names and "interruption_rate" not in names


def test_a_pool_the_advisor_does_not_rate_takes_the_shared_default_labelled_ours(rated_catalog):
    risk = spot_risk(rated_catalog, "trn2.48xlarge", "us-east-2")
    assert risk.bucket is None and risk.source == "GUIDE"
    assert (risk.rate.value, risk.rate.low, risk.rate.high) == (0.0005, 0.0001, 0.002)
    r = resolve(job({"instance": "trn2.48xlarge", "region": "us-east-2", "count": 64}), rated_catalog)
    assert r.inputs.trainium_interruption_rate is None  # not on spot, and not rated: the shared figure
    assert r.inputs.gpu_interruption_rate is not None
    # A region the Advisor does not rate for a rated instance also takes the default.
    assert spot_risk(rated_catalog, "p5.48xlarge", "ap-northeast-1").bucket is None


# --- Each spot pool rated as itself ------------------------------------------------------------------
# The Advisor rates p5.48xlarge ">20%" in us-east-1 (30.6 % a month: 0.000500 an instance-hour, from
# 0.000306 to 0.00200) and "<5%" in eu-north-1 (2.5 %: 0.0000347). A GPU named on demand in
# eu-north-1, allowed us-east-1 and accepting spot, at 1,400 instances: us-east-1's spot at $28.11
# loses 1,400 x 0.000500 x 1.5 = 1.051 hours of progress an hour, so a run cannot finish there. Rated
# by eu-north-1's pool instead (0.073 an hour), it would look like 14,000 / (1 - 0.073) x 28.11 =
# $424,454 and win. The GPU's plan is on demand in the cheaper region it allows, us-east-1:
# 14,000 x 55.04 = $770,560. Trainium on trn2.48xlarge in us-east-2 on demand at 0.8 of the
# throughput: 17,500 x 35.76 + $18,000 = $643,800. Trainium, by $126,760.
US_EAST_1 = -math.log(1 - 0.306) / 730
EU_NORTH_1 = -math.log(1 - 0.025) / 730


def stockholm_team(gpu_count: int = 1400, buy: list[str] | None = None) -> Workload:
    return Workload.model_validate({
        "name": "stockholm", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 14_000.0}, "runs": 1,
        "trainium": {"instance": "trn2.48xlarge", "region": "us-east-2", "option": "on-demand", "count": 64},
        "gpu": {"instance": "p5.48xlarge", "region": "eu-north-1", "option": "on-demand", "count": gpu_count},
        "regions": ["eu-north-1", "us-east-1", "us-east-2"], "buy": ["on-demand", "spot"] if buy is None else buy,
        "relative_throughput": {"value": 0.8, "low": 0.8, "high": 0.8},
    })


def test_spot_bought_in_another_region_is_rated_by_that_regions_pool(rated_catalog):
    from core_support import run_js_on_workloads
    from generator.model.results import plain
    from generator.rendering.calculator.data import calculator_data, workload_json

    assert 1400 * US_EAST_1 * 1.5 == pytest.approx(1.0508, abs=1e-4)
    assert 14_000 / (1 - 1400 * EU_NORTH_1 * 1.5) * 28.11 == pytest.approx(424_454, abs=1)
    w = stockholm_team()
    x = resolve(w, rated_catalog).inputs
    spot = [way for way in x.gpu_ways_elsewhere if way.option == "spot"]
    assert [(way.region, way.rated) for way in spot] == [("us-east-1", True)]
    assert spot[0].interruption.value == pytest.approx(US_EAST_1, rel=1e-12)
    js = run_js_on_workloads([workload_json(w)], calculator_data(rated_catalog))[0]
    for o in (plain(evaluate(x)), js["outcome"]):
        assert o["verdict"] == "trainium"
        assert (o["gpu"]["plan_option"], o["gpu"]["plan_region"]) == ("on-demand", "us-east-1")
        assert o["gpu"]["total"] == pytest.approx(14_000 * 55.04, rel=1e-12)
        assert o["trainium"]["total"] == pytest.approx(17_500 * 35.76 + 18_000, rel=1e-12)
        # us-east-1's spot cannot finish at this size: it is not among the ways priced as advice.
        assert ("spot", "us-east-1") not in [(way, region) for way, _, region in o["gpu"]["options"]]


def test_the_cheaper_way_advice_prices_spot_elsewhere_at_that_pools_rate(rated_catalog):
    # Eight instances on demand only (`buy: []`): us-east-1's spot is advice, at its own pool's rate,
    # 14,000 x 28.11 / (1 - 8 x 0.000500 x 1.5) = $395,917.35, not eu-north-1's ($393,703.85), against
    # the plan on demand in us-east-1, the cheaper region it allows: 14,000 x 55.04 = $770,560.
    expected = 14_000 * 28.11 / (1 - 8 * US_EAST_1 * 1.5)
    assert expected == pytest.approx(395_917.35, abs=0.01)
    o = evaluate(resolve(stockholm_team(gpu_count=8, buy=[]), rated_catalog).inputs)
    spot = {region: cost for way, cost, region in o.gpu.options if way == "spot"}
    assert spot["us-east-1"] == pytest.approx(expected, rel=1e-12)
    assert (o.gpu.plan_option, o.gpu.plan_region, o.gpu.cheapest_option, o.gpu.cheapest_region) == (
        "on-demand", "us-east-1", "spot", "us-east-1")
    assert o.gpu.cheaper_by == pytest.approx(14_000 * 55.04 - expected, rel=1e-12)


# --- Spot's uncertainty follows the plan -------------------------------------------------------------
# 400 p5.48xlarge in us-east-1, 10 hours a run. Spot at $28.11 loses 400 x 0.000500 x 1.5 = 0.300 of
# each hour: 4,000 / 0.700 x 28.11 = $160,682. At the top of the pool's band (0.00200) it loses 1.20,
# and at 4 hours lost an interruption 0.80 (five times the hours, $562,600): spot no longer pays and
# the GPU buys on demand, 4,000 x 55.04 = $220,160. Trainium on trn2.48xlarge on demand at 0.9:
# 4,444.4 x 35.76 + $18,000 = $176,933.33. So the GPU wins at the band's value and Trainium at its
# top, whether spot is the way the team names or one it accepts.
def us_east_team(gpu_option: str, buy: list[str]) -> Workload:
    return Workload.model_validate({
        "name": "spot", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 4_000.0}, "runs": 1,
        "trainium": {"instance": "trn2.48xlarge", "region": "us-east-2", "option": "on-demand", "count": 16},
        "gpu": {"instance": "p5.48xlarge", "region": "us-east-1", "option": gpu_option, "count": 400},
        "buy": buy, "relative_throughput": {"value": 0.9, "low": 0.9, "high": 0.9},
    })


@pytest.mark.parametrize(("named", "buy"), [("spot", ["on-demand"]), ("on-demand", ["on-demand", "spot"])])
def test_spot_reached_through_buy_carries_the_same_uncertainty_as_spot_named(rated_catalog, named: str, buy: list[str]):
    from core_support import run_js_on_workloads
    from generator.model.results import plain
    from generator.rendering.calculator.data import calculator_data, workload_json

    w = us_east_team(named, buy)
    x = resolve(w, rated_catalog).inputs
    o = evaluate(x)
    assert (o.verdict, o.gpu.plan_option) == ("gpu", "spot")
    assert o.gpu.total == pytest.approx(4_000 / (1 - 400 * US_EAST_1 * 1.5) * 28.11, rel=1e-12)
    assert o.trainium.total == pytest.approx(4_000 / 0.9 * 35.76 + 18_000, rel=1e-12)
    js = run_js_on_workloads([workload_json(w)], calculator_data(rated_catalog))[0]
    for rob in (plain(robustness(x, o)), js["robustness"]):
        assert set(rob["flips_on"]) >= {"gpu_interruption_rate", "lost_hours"}
        top = next(e for e in rob["ends"] if (e["input"], e["end"]) == ("gpu_interruption_rate", "high"))
        # At the top of us-east-1's band the GPU's plan is on demand: Trainium by $43,226.67.
        assert top["verdict"] == "trainium"
        assert top["total_difference"] == pytest.approx(4_000 * 55.04 - (4_000 / 0.9 * 35.76 + 18_000), rel=1e-9)
        low = next(e for e in rob["ends"] if (e["input"], e["end"]) == ("gpu_interruption_rate", "low"))
        assert low["value"] == pytest.approx(-math.log(1 - 0.20) / 730, rel=1e-12)
