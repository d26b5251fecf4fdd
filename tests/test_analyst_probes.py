"""An analyst's probes: ordinary buying situations, each worked by hand from the frozen
data (tests/fixtures/project/data) before the engine ran, then held in both engines. The frozen copy
rates no spot pool, so spot uses the shared 0.0005 interruptions an instance-hour; a mainstream
port by a team new to Neuron is 2 x 1.5 engineer-weeks at $6,000, $18,000."""

from __future__ import annotations

import functools
import json
import subprocess

import pytest
from core_support import side, workload_of, REPO, catalog_with_stockholm_blocks, run_js_on_workloads, learned_env

from generator.model.engine import evaluate, thresholds
from generator.model.resolve import resolve
from generator.model.results import ScenarioResult, evaluate_workload
from generator.model.schema import Scenario, Workload
from generator.model.engine import cost_curve
from generator.model.results import plain
from generator.model.wording import present, price_refs
from generator.rendering.calculator.data import calculator_data, workload_json

# The frozen figures, with Stockholm's Capacity Blocks for the probe there.
CATALOG = catalog_with_stockholm_blocks()
# Frozen figures, USD an instance-hour, us-east-1 unless named.
TRN1 = {"on-demand": 21.5, "commit-1y": 13.22895, "commit-3y": 8.197, "capacity-block": 9.532}
P4D = {"on-demand": 21.957642, "commit-1y": 13.921094}
P4DE = {"on-demand": 27.44705, "capacity-block": 17.712}
P5 = {"on-demand": 55.04, "commit-3y": 23.777, "capacity-block": 41.528}
P5_STOCKHOLM_BLOCK, TRN1_STOCKHOLM_BLOCK = 37.76, 9.532
PORT = 2 * 1.5 * 6000
YEAR = 8760


PRESENT_RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { present, learn } = await import(pathToFileURL(process.argv[1]).href);
learn(JSON.parse(process.env.GUIDE_WORDS));
const c = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(present(c.result, c.curve, c.prices)));
"""


def presented(w: Workload) -> list[dict]:
    """What the page (Python) and the calculator (wording.mjs) tell a reader of one workload."""
    r = evaluate_workload(w, CATALOG)
    payload = {"result": {"inputs": plain(r.inputs), "outcome": plain(r.outcome), "robustness": plain(r.robustness),
                          "thresholds": plain(r.thresholds)},
               "curve": plain(cost_curve(r.inputs, r.outcome, r.thresholds.break_even)), "prices": price_refs(r)}
    out = subprocess.run(["node", "--input-type=module", "-e", PRESENT_RUNNER,
                          str(REPO / "docs" / "assets" / "calculator" / "wording.mjs")],
                         input=json.dumps(payload), capture_output=True, text=True, check=True, timeout=120, env=learned_env())
    return [present(payload["result"], payload["curve"], payload["prices"]), json.loads(out.stdout)]


def cell(shown: dict, label: str, side_name: str) -> str:
    return next(row[side_name]["text"] for row in shown["summary"]["sides"] if row["label"] == label)


ZERO_PORT = {"porting": {"weeks": {"value": 0, "low": 0, "high": 0}}, "neuron_experience": "experienced"}

PROBES: dict[str, Workload] = {
    # Fifteen 730-hour runs back to back on 8 instances each side: 10,950 calendar hours, a year and 2,190 hours.
    "mixed": workload_of(side("trn1.32xlarge", "commit-1y", 8), side("p4d.24xlarge", "commit-1y", 8), 5840, 15, name="probe"),
    "mixed, buy nothing else": workload_of(side("trn1.32xlarge", "commit-1y", 8), side("p4d.24xlarge", "commit-1y", 8),
                                        5840, 15, buy=[], name="probe"),
    # 1,500 instances on spot: a load of 1,500 x 0.0005 x 1.5 = 1.125, so no run finishes on spot.
    "spot at scale": workload_of(side("trn1.32xlarge", "spot", 1500), side("p5.48xlarge", "spot", 1500), 150_000, 2, 0.5, name="probe"),
    "spot at scale, spot only": workload_of(side("trn1.32xlarge", "spot", 1500), side("p5.48xlarge", "spot", 1500),
                                         150_000, 2, 0.5, buy=[], name="probe"),
    # Two-day GPU runs (48 hours) on as many blocks as the instances need.
    "blocks, 256": workload_of(side("trn1.32xlarge", "on-demand", 256), side("p5.48xlarge", "capacity-block", 256),
                            256 * 48, 1, 0.5, name="probe"),
    "blocks, 257": workload_of(side("trn1.32xlarge", "on-demand", 257), side("p5.48xlarge", "capacity-block", 257),
                            257 * 48, 1, 0.5, name="probe"),
    "blocks, 257, blocks only": workload_of(side("trn1.32xlarge", "on-demand", 257), side("p5.48xlarge", "capacity-block", 257),
                                         257 * 48, 1, 0.5, buy=[], name="probe"),
    # Five 10-hour runs on 8 instances; the team already trains on Neuron.
    "ten-hour runs": workload_of(side("trn1.32xlarge", "on-demand", 8), side("p4de.24xlarge", "capacity-block", 8), 80, 5,
                              **ZERO_PORT, name="probe"),
    "ten-hour runs, blocks only": workload_of(side("trn1.32xlarge", "on-demand", 8), side("p4de.24xlarge", "capacity-block", 8),
                                           80, 5, buy=[], **ZERO_PORT, name="probe"),
    # Three quarter-year GPU runs on 4 instances; Trainium on a 1-year term at 0.9 of the throughput.
    "committed": workload_of(side("trn1.32xlarge", "commit-1y", 4), side("p4d.24xlarge", "on-demand", 4), 8760, 3, 0.9, name="probe"),
    "committed, terms only": workload_of(side("trn1.32xlarge", "commit-1y", 4), side("p4d.24xlarge", "on-demand", 4),
                                      8760, 3, 0.9, buy=[], name="probe"),
    "long way to break even": workload_of(side("trn1.32xlarge", "on-demand", 1), side("p4d.24xlarge", "on-demand", 1), 100, 50, name="probe"),
    "stockholm": workload_of(side("trn1.32xlarge", "capacity-block", 32, "eu-north-1"),
                          side("p5.48xlarge", "capacity-block", 32, "eu-north-1"), 3840, 1, 0.45, regions=["eu-north-1"], name="probe"),
    "three-year term accepted": workload_of(side("trn1.32xlarge", "on-demand", 1), side("p5.48xlarge", "on-demand", 1), 730, 20,
                                         buy=["on-demand", "commit-3y"], name="probe"),
}


@functools.cache
def _outcomes() -> dict[str, tuple[dict, dict, dict, dict]]:
    """Each probe through both engines, run once: (Python outcome, Python thresholds, JS outcome, JS
    thresholds)."""
    js = run_js_on_workloads([workload_json(w) for w in PROBES.values()], calculator_data(CATALOG))
    out = {}
    for (name, w), j in zip(PROBES.items(), js, strict=True):
        x = resolve(w, CATALOG).inputs
        o = evaluate(x)
        out[name] = (plain(o), plain(thresholds(x, o)), j["outcome"], j["thresholds"])
    return out


def totals(outcomes, name: str, verdict: str, trainium: float, gpu: float) -> list[dict]:
    """Both engines' outcomes, once their verdict and totals are checked."""
    py, _, js, _ = outcomes[name]
    for o in (py, js):
        assert o["verdict"] == verdict, name
        assert o["trainium"]["total"] == pytest.approx(trainium, abs=0.01), name
        assert o["gpu"]["total"] == pytest.approx(gpu, abs=0.01), name
    return [py, js]


def threshold(outcomes, name: str, key: str) -> list:
    return [outcomes[name][1][key], outcomes[name][3][key]]


def test_a_term_and_an_hourly_remainder_on_both_sides():
    # One 1-year term of 8 instances: trn1 8 x 8,760 x 13.22895 = $927,084.82; p4d 8 x 8,760 x 13.921094
    # = $975,590.27. The last 2,190 hours on demand: trn1 2,190 x 8 x 21.50 = $376,680; p4d 2,190 x 8 x
    # 21.957642 = $384,697.89. Two whole terms ($1,854,169.63, $1,951,180.54) or all on demand
    # (10,950 x 8 x 21.50 = $1,883,400; x 21.957642 = $1,923,489.44) cost more. Trainium $927,084.82 +
    # $376,680 + $18,000 = $1,321,764.82 against the GPU's $1,360,288.16: Trainium by $38,523.34.
    trn = 8 * YEAR * TRN1["commit-1y"] + 2190 * 8 * TRN1["on-demand"] + PORT
    gpu = 8 * YEAR * P4D["commit-1y"] + 2190 * 8 * P4D["on-demand"]
    assert (round(trn, 2), round(gpu, 2)) == (1_321_764.82, 1_360_288.16)
    for o in totals(outcomes := _outcomes(), "mixed", "trainium", trn, gpu):
        for s in ("trainium", "gpu"):
            assert (o[s]["committed_terms"], o[s]["hourly_hours"], o[s]["hourly_option"]) == (1, pytest.approx(2190), "on-demand")
        # The saving's share: the compute difference over the GPU plan's, ports left out.
        assert o["saving_pct"] == pytest.approx((gpu - (trn - PORT)) / gpu)
    # Trainium's 1-year rate at which both plans cost the same: the term pays what the GPU plan leaves
    # after the port and the 2,190 hours on demand, ($1,360,288.16 - 18,000 - 376,680) / 70,080 = $13.78.
    assert threshold(outcomes, "mixed", "trainium_price") == [pytest.approx((gpu - PORT - 2190 * 8 * 21.5) / (8 * YEAR))] * 2
    assert threshold(outcomes, "mixed", "trainium_price")[0] == pytest.approx(13.7787, abs=1e-4)
    # Throughput: Trainium's runs stretch its remainder; 1 term + (10,950 / r - 8,760) x 172 + 18,000 =
    # $1,360,288.16 at r = 10,950 / (8,760 + 415,203.34 / 172) = 0.97996.
    assert threshold(outcomes, "mixed", "relative_throughput") == [pytest.approx(10950 / (8760 + (gpu - PORT - 8 * YEAR * 13.22895) / 172))] * 2
    # Plan length: up to 7 runs both buy by the hour (a term costs more than 7 months of it); at 7 runs
    # Trainium 7 x 730 x 172 + 18,000 = $896,920 against the GPU's 7 x 730 x 175.661 = $897,628.40.
    b = outcomes["mixed"][1]["break_even"]
    assert (b["kind"], b["first"]) == ("from", 7.0)


def test_buy_nothing_else_keeps_each_side_to_whole_terms():
    # Two whole terms each: Trainium $1,854,169.63 + $18,000 = $1,872,169.63, the GPU $1,951,180.54.
    trn, gpu = 2 * 8 * YEAR * TRN1["commit-1y"] + PORT, 2 * 8 * YEAR * P4D["commit-1y"]
    for o in totals(outcomes := _outcomes(), "mixed, buy nothing else", "trainium", trn, gpu):
        assert (o["trainium"]["committed_terms"], o["trainium"]["hourly_hours"]) == (2, 0)
    # A third term is needed once 15 runs at 730 / r hours pass 17,520 hours: r = 10,950 / 17,520 = 0.625.
    assert threshold(outcomes, "mixed, buy nothing else", "relative_throughput") == [pytest.approx(0.625)] * 2


def test_spot_that_cannot_finish_falls_back_to_on_demand_unless_the_team_buys_spot_only():
    # On demand: Trainium 2 x 150,000 / 0.5 x 21.50 + 18,000 = $12,918,000; the GPU 2 x 150,000 x 55.04 =
    # $16,512,000.
    assert 1500 * 0.0005 * 1.5 == pytest.approx(1.125)
    for o in totals(outcomes := _outcomes(), "spot at scale", "trainium", 12_918_000, 16_512_000):
        assert (o["trainium"]["plan_option"], o["gpu"]["plan_option"]) == ("on-demand", "on-demand")
    for o in (outcomes["spot at scale, spot only"][0], outcomes["spot at scale, spot only"][2]):
        assert (o["verdict"], o["decided_by"]) == ("neither", "feasibility")
        # What on demand would do is still named, as advice.
        assert (o["trainium"]["cheapest_option"], o["gpu"]["cheapest_option"]) == ("on-demand", "on-demand")


def test_capacity_blocks_hold_256_instances_and_no_more():
    # 256 p5 for 48 hours, two whole days: 12,288 x 41.528 = $510,296.06, less than on demand
    # ($676,331.52). Trainium 24,576 x 21.50 + 18,000 = $546,384: the GPU by $36,087.94.
    outcomes = _outcomes()
    for o in totals(outcomes, "blocks, 256", "gpu", 256 * 96 * TRN1["on-demand"] + PORT, 256 * 48 * P5["capacity-block"]):
        assert o["gpu"]["plan_option"] == "capacity-block"
    # 257: blocks cannot hold them, so the GPU is bought on demand, 12,336 x 55.04 = $678,973.44, against
    # Trainium's 24,672 x 21.50 + 18,000 = $548,448: Trainium.
    for o in totals(outcomes, "blocks, 257", "trainium", 257 * 96 * TRN1["on-demand"] + PORT, 257 * 48 * P5["on-demand"]):
        assert o["gpu"]["plan_option"] == "on-demand"
    # Blocks only: the GPU cannot run at all.
    for o in (outcomes["blocks, 257, blocks only"][0], outcomes["blocks, 257, blocks only"][2]):
        assert (o["verdict"], o["decided_by"]) == ("trainium", "feasibility")
        assert o["gpu"]["reasons"] == [["blocks-cannot-hold", 256]]


def test_a_ten_hour_run_on_a_block_pays_a_whole_day():
    # A block: 8 x 24 x 17.712 = $3,400.70 a run, $17,003.52 for five; on demand 80 x 27.44705 = $2,195.76
    # a run, $10,978.82. Trainium, no port: 5 x 80 x 21.50 = $8,600.
    outcomes = _outcomes()
    for o in totals(outcomes, "ten-hour runs", "trainium", 8600, 5 * 80 * P4DE["on-demand"]):
        assert o["gpu"]["plan_option"] == "on-demand"
        assert o["gpu"]["cheaper_by"] > 0  # spot is still named as advice
    for o in totals(outcomes, "ten-hour runs, blocks only", "trainium", 8600, 5 * 8 * 24 * P4DE["capacity-block"]):
        assert o["gpu"]["plan_option"] == "capacity-block"
    # No port: Trainium is ahead from its first run.
    assert [o["break_even_runs"] for o in (outcomes["ten-hour runs"][0], outcomes["ten-hour runs"][2])] == [0.0, 0.0]
    for shown in presented(PROBES["ten-hour runs"]):
        assert cell(shown, "First run can start", "trainium") == "at once"


def test_a_committed_verdict_states_where_throughput_flips_it():
    # Trainium at 0.9: each run 2,190 / 0.9 = 2,433.3 hours on 4 instances, 7,300 for three, one term:
    # 4 x 8,760 x 13.22895 = $463,542.41 + $18,000 = $481,542.41. The GPU on demand 3 x 8,760 x 21.957642
    # = $577,046.83. Trainium by $95,504.42.
    trn, gpu = 4 * YEAR * TRN1["commit-1y"] + PORT, 3 * 8760 * P4D["on-demand"]
    outcomes = _outcomes()
    totals(outcomes, "committed", "trainium", trn, gpu)
    totals(outcomes, "committed, terms only", "trainium", trn, gpu)
    # Terms only: a second term once 6,570 / r passes 8,760 hours, r = 0.75.
    assert threshold(outcomes, "committed, terms only", "relative_throughput") == [pytest.approx(0.75)] * 2
    # With on demand accepted the hours past the term are bought at 4 x 21.50 = $86 an hour: Trainium
    # costs less while (6,570 / r - 8,760) x 86 < $95,504.42, r > 6,570 / 9,870.52 = 0.66562.
    assert threshold(outcomes, "committed", "relative_throughput") == [pytest.approx(6570 / (8760 + (gpu - trn) / 86))] * 2
    # The 1-year rate at parity: ($577,046.83 - 18,000) / 35,040 = $15.95; port effort: $113,504.42 / 6,000.
    assert threshold(outcomes, "committed", "trainium_price") == [pytest.approx((gpu - PORT) / (4 * YEAR))] * 2
    assert threshold(outcomes, "committed", "port_weeks") == [pytest.approx((gpu - trn + PORT) / 6000)] * 2


def test_a_break_even_past_three_years_is_said_in_time():
    # $2,195.76 - $2,150 = $45.76 a run repays $18,000 after 393.3 runs, so from 394; at 100 hours a run
    # that is 39,400 hours, 4.5 years, past the 3-year horizon. Over 50 runs the GPU is cheaper.
    outcomes = _outcomes()
    totals(outcomes, "long way to break even", "gpu", 50 * 100 * TRN1["on-demand"] + PORT, 50 * 100 * P4D["on-demand"])
    assert [o["break_even_runs"] for o in (outcomes["long way to break even"][0], outcomes["long way to break even"][2])] == \
        [pytest.approx(PORT / (100 * (P4D["on-demand"] - 21.5)))] * 2
    for shown in presented(PROBES["long way to break even"]):
        runs = next(p for p in shown["thresholds"]["parts"] if p["key"] == "threshold.runs")
        assert runs["text"] == "not within 3 years at this pace"


def test_a_stockholm_p5_block_books_whole_days():
    # The GPU: 120-hour runs, 5 days, 3,840 x 37.76 = $144,998.40. Trainium at 0.45: 266.7 hours a run,
    # booked as 12 days, 32 x 288 x 9.532 = $87,846.91 + $18,000 = $105,846.91. Trainium by $39,151.49.
    trn = 32 * 288 * TRN1_STOCKHOLM_BLOCK + PORT
    for o in totals(outcomes := _outcomes(), "stockholm", "trainium", trn, 3840 * P5_STOCKHOLM_BLOCK):
        assert (o["trainium"]["plan_region"], o["gpu"]["plan_region"]) == ("eu-north-1", "eu-north-1")
    # Throughput: Trainium's booking must stay under $126,998.40 / (32 x 9.532) = 416.4 hours, so 17
    # days (a 14-day block and a 3-day extension; 18 would be 432 hours): 120 / r <= 408, r = 0.294.
    assert threshold(outcomes, "stockholm", "relative_throughput") == [pytest.approx(120 / 408)] * 2


def test_a_three_year_term_the_team_accepts_can_win_half_used():
    # 20 months of 730-hour runs on one p5: 14,600 hours on demand $803,584; one 3-year term
    # 26,280 x 23.777 = $624,859.56, paid whole though the plan uses 56 % of it. Trainium on its 3-year
    # rate: 26,280 x 8.197 + 18,000 = $233,417.16.
    for o in totals(_outcomes(), "three-year term accepted", "trainium", 26280 * TRN1["commit-3y"] + PORT,
                    26280 * P5["commit-3y"]):
        assert (o["trainium"]["plan_option"], o["gpu"]["plan_option"]) == ("commit-3y", "commit-3y")
        assert o["gpu"]["utilisation"] == pytest.approx(14600 / 26280)


def test_a_term_left_unbought_is_not_what_cheaper_advice_is_measured_against():
    # The GPU named on a 3-year p4d term for ten 100-hour runs: a term costs 26,280 x 9.374 = $246,348.72,
    # the 1,000 hours on demand $21,957.64, so no term is bought. Spot, 1,000 x 8.59 / (1 - 0.00075) =
    # $8,596.45, is $13,361 less than that plan, which is on demand, not a 3-year term.
    w = workload_of(side("trn1.32xlarge", "on-demand", 1), side("p4d.24xlarge", "commit-3y", 1), 100, 10, name="probe")
    spot = 1000 * 8.59 / (1 - 0.0005 * 1.5)
    assert 1000 * P4D["on-demand"] - spot == pytest.approx(13_361.19, abs=0.01)
    for shown in presented(w):
        assert cell(shown, "How the plan is bought", "gpu") == "no 3-year term: the whole plan on demand"
        assert cell(shown, "Cheapest way to buy this plan's compute", "gpu") == \
            "spot, $13,361 less than on-demand, if the team would buy it so"


def test_a_workload_neither_side_can_run_does_not_make_a_hybrid():
    # One GPU workload (blocks, 256) and one neither (spot only): the scenario goes to the GPU; with a
    # Trainium workload as well it is a hybrid, and only the Trainium workload's saving counts.
    names = ("blocks, 256", "spot at scale, spot only", "blocks, 257")
    results = {n: evaluate_workload(PROBES[n], CATALOG) for n in names}
    s = Scenario.model_validate({"title": "t", "summary": "s", "expect": "gpu", "sources": ["GUIDE"],
                                 "workloads": [{"name": "a", "architecture": "mainstream", "runs": 1,
                                                "run_size": {"gpu_instance_hours": 1},
                                                "trainium": side("trn1.32xlarge", "on-demand", 1),
                                                "gpu": side("p4d.24xlarge", "on-demand", 1),
                                                "relative_throughput": {"value": 1, "low": 1, "high": 1}}]})
    gpu_and_neither = ScenarioResult("t", "t.yaml", s, (results[names[0]], results[names[1]]))
    assert gpu_and_neither.verdict == "gpu"
    hybrid = ScenarioResult("t", "t.yaml", s, (results[names[0]], results[names[1]], results[names[2]]))
    assert hybrid.verdict == "hybrid"
    assert hybrid.total_difference == pytest.approx(257 * 48 * P5["on-demand"] - (257 * 96 * 21.5 + PORT))

