"""The wording layer on hand-made cases, in Python and (through Node) in JavaScript: what a reader
is told when the engine reports something this layer does not know yet, when robustness turns only
jointly, when ports recur faster than they repay, and where the cost chart marks a break-even."""

from __future__ import annotations

import copy
from dataclasses import replace
import json
import math
import subprocess
from pathlib import Path

import pytest
from core_support import learned_env

from generator.model.engine import Inputs, Span, Way, cost_curve, evaluate, robustness, thresholds
from generator.model.results import plain
from generator.model.wording import ANSWER_LABELS, plan_bought, present

PRESENT = Path(__file__).resolve().parent.parent / "docs" / "assets" / "calculator" / "wording.mjs"
ENGINE = PRESENT.parent / "engine.mjs"
# The records the plans buy at, as price_refs gives them.
PRICES = [
    {"side": "trainium", "instance": "trn1.32xlarge", "region": "us-east-1", "option": "on-demand", "usd_per_hour": 21.5,
     "source": "VAN", "as_of": "2025-11-30", "name": "VAN", "vanished": None, "stale": False, "age_days": 10},
    {"side": "gpu", "instance": "p5.48xlarge", "region": "us-east-1", "option": "spot", "usd_per_hour": 28.11,
     "source": "SKY", "as_of": "2025-12-01", "name": "SKY", "vanished": None, "stale": False, "age_days": 9},
]

RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { present, learn } = await import(pathToFileURL(process.argv[1]).href);
learn(JSON.parse(process.env.GUIDE_WORDS));
const E = await import(pathToFileURL(process.argv[2]).href);
E.learn(JSON.parse(process.env.GUIDE_ENGINE));
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => ({
  shown: present(c.result, c.curve, c.prices),
  curve: E.costCurve(c.result.inputs, c.result.outcome),
}))));
"""


def _inputs(**changes) -> Inputs:
    base = dict(
        gpu_hours=500.0, relative_throughput=Span(1.0, 0.8, 1.2), trainium_price=Span(35.76, 35.76, 35.76),
        gpu_price=Span(55.04, 55.04, 55.04), trainium_spot=False, gpu_spot=False,
        interruption_rate=Span(0.0005, 0.0001, 0.002), lost_hours=Span(1.5, 0.5, 4.0),
        port_weeks=Span(2.0, 1.0, 3.0), engineer_week_usd=6000.0, port_extra_usd=0.0, runs=10, runs_per_architecture=None,
        trainium_count=1, gpu_count=1, trainium_availability="available", gpu_availability="available",
        needed_within_days=None, soon_days=30, close_call_margin=0.1,
    )
    return Inputs(**{**base, **changes})


def _case(x: Inputs) -> dict:
    o = evaluate(x)
    result = {"inputs": plain(x), "outcome": plain(o), "robustness": plain(robustness(x, o)), "thresholds": plain(thresholds(x, o))}
    return {"result": result, "curve": plain(cost_curve(x, o)), "prices": PRICES}


def _both(cases: list[dict], curves: bool = True) -> list[dict]:
    """Each case presented by Python and by JavaScript; they must agree, and the Python one is returned.
    With `curves`, both engines' cost curves for the case's own inputs must agree too."""
    out = subprocess.run(["node", "--input-type=module", "-e", RUNNER, str(PRESENT), str(ENGINE)],
                         input=json.dumps(cases), capture_output=True, text=True, check=True, env=learned_env())
    js = json.loads(out.stdout)
    assert len(js) == len(cases)
    py = [present(c["result"], c["curve"], c["prices"]) for c in cases]
    for p, j, c in zip(py, js, cases, strict=True):
        assert json.loads(json.dumps(p)) == j["shown"]
        if curves:
            assert [r["runs"] for r in c["curve"]["rows"]] == [r["runs"] for r in j["curve"]["rows"]]
    return py


def test_an_unknown_rule_and_code_get_a_generic_label_and_text():
    case = _case(_inputs())
    case["result"]["outcome"]["trace"].insert(2, {"rule": "calendar-time", "verdict": None, "code": "port-fits-before-due",
                                                 "numbers": {"weeks": 3}})
    (shown,) = _both([case])
    step = shown["trace"][2]
    assert (step["label"], step["text"], step["decides_text"]) == ("Calendar time", "Port fits before due.", "")


def test_an_unknown_ranged_input_and_threshold_read_as_plain_numbers():
    case = _case(_inputs())
    rob = case["result"]["robustness"]
    rob["ends"].append({"input": "lead_time_weeks", "end": "high", "value": 6.5, "verdict": "gpu", "total_difference": -10.0})
    rob["flips_on"] = ["lead_time_weeks"]
    case["result"]["thresholds"]["lead_time_weeks"] = 4.25
    (shown,) = _both([case])
    assert shown["robustness"]["words"] == "flips on lead time weeks"
    assert shown["robustness"]["ends"][-1]["value_text"] == "6.50"
    assert shown["thresholds"]["parts"][-1] == {"key": "threshold.lead_time_weeks", "label": "lead time weeks", "value": 4.25, "text": "4.25"}


def test_robust_joint_and_flips_are_told_apart_and_joint_flip_is_optional():
    robust = _case(_inputs())
    assert robust["result"]["robustness"]["holds"] and not robust["result"]["robustness"]["flips_on"]
    joint_missing = copy.deepcopy(robust)
    joint_missing["result"]["robustness"]["holds"] = False  # today's engine: the corners disagree
    joint_flag = copy.deepcopy(robust)
    joint_flag["result"]["robustness"]["joint_flip"] = True  # the engine that reports it separately
    flips = _case(_inputs(relative_throughput=Span(0.75, 0.6, 1.2)))
    shown = _both([robust, joint_missing, joint_flag, flips])
    assert [s["robustness"]["state"] for s in shown] == ["robust", "joint", "joint", "flips"]
    assert shown[0]["robustness"]["sentence"].startswith("Robust: no single input moved across its range changes the verdict")
    assert shown[1]["robustness"]["words"] == "changes only when several inputs are at their worst at once"
    assert shown[3]["robustness"]["words"] == "flips on relative throughput"
    assert shown[3]["live"] == "Verdict: Trainium, flips on relative throughput."


def test_the_threshold_leads_only_when_relative_throughput_turns_the_verdict():
    flips, holds = _both([_case(_inputs(relative_throughput=Span(0.75, 0.6, 1.2))), _case(_inputs())])
    assert flips["lead"] == ("Trainium wins if it reaches at least 0.68× the GPU's throughput. "
                             "This case puts it at 0.75×, within a range of 0.60× to 1.20×.")
    assert holds["lead"] is None


def test_units_on_every_sensitivity_value():
    x = _inputs(trainium_price=Span(35.76, 35.76, 85.964), gpu_spot=True)
    (shown,) = _both([_case(x)])
    values = {(e["input"], e["end"]): e["value_text"] for e in shown["robustness"]["ends"]}
    assert values == {
        ("relative_throughput", "low"): "0.80×", ("relative_throughput", "high"): "1.20×",
        ("port_weeks", "low"): "1 engineer-week", ("port_weeks", "high"): "3 engineer-weeks",
        ("trainium_price", "low"): "$35.76/h", ("trainium_price", "high"): "$85.96/h",
        ("interruption_rate", "low"): "0.0001 per instance-hour", ("interruption_rate", "high"): "0.002 per instance-hour",
        ("lost_hours", "low"): "0.5 hours", ("lost_hours", "high"): "4.0 hours",
    }


def test_a_port_repaid_within_the_first_run_says_so_in_the_table_and_the_chart():
    # 600 dollars of porting repaid by a 9,640-dollar saving a run: 0.062 runs, which no reader counts.
    (shown,) = _both([_case(_inputs(port_weeks=Span(0.1, 0.1, 0.1)))])
    row = next(c for c in shown["summary"]["rows"] if c["key"] == "break_even_runs")
    assert row["text"] == "in the first run"
    assert row["value"] == pytest.approx(600 / 9640, rel=1e-3)  # the figure itself stays in the data
    assert [m["label"] for m in shown["chart"]["marks"]] == ["plan: 10 runs", "break-even: in the first run"]
    assert shown["chart"]["summary"].endswith("Trainium pays the port back in the first run.")


# Golden wordings for the edge cases, the same in both engines (_both holds them equal).
def test_no_crossing_is_said_in_words_where_a_threshold_has_no_value():
    # Trainium dearer per run at every throughput in its range is not enough: a price so high that
    # no throughput makes the sides equal leaves the thresholds without a value.
    x = _inputs(trainium_price=Span(500.0, 500.0, 500.0))
    (shown,) = _both([_case(x)])
    parts = {p["key"]: p["text"] for p in shown["thresholds"]["parts"]}
    assert parts["threshold.runs"] == "no crossing"
    row = next(c for c in shown["summary"]["rows"] if c["key"] == "break_even_runs")
    assert row["text"] == "no crossing: Trainium never saves per run"
    assert shown["glance"] == {"saving": "The GPU costs $2,236,800 less over the plan, ports included.",
                               "reason": "Decided by cost over the plan; robust.",
                               "why": "Trainium does not cost less per run, so no number of runs repays the port."}


def test_the_flip_of_relative_throughput_and_the_glance_read_the_same_in_both_engines():
    (shown,) = _both([_case(_inputs())])
    at = shown["thresholds"]["parts"][0]
    assert at["key"] == "threshold.relative_throughput"
    assert shown["guess"] == {"flip": at["value"], "text": f"The verdict flips at {at['text']}: above it Trainium costs less "
                                                           "over the plan, below it the GPU."}
    assert shown["glance"]["saving"] == "Trainium costs $84,400 less over the plan, ports included."
    assert shown["glance"]["reason"] == "Decided by cost over the plan; robust."


def test_a_price_at_one_end_of_its_range_carries_which_end_and_the_other_ends_verdict():
    x = _inputs(trainium_price=Span(35.76, 35.76, 85.964))
    o = evaluate(x)
    assert o.trainium.price_basis == "low"
    (shown,) = _both([_case(x)])
    other = next(e for e in shown["robustness"]["ends"] if e["input"] == "trainium_price" and e["end"] == "high")
    assert shown["price_marks"] == {"trainium": {"basis": "low", "text": "the lowest of the sources' figures, $35.76/h to $85.96/h; "
                                                                        f"at the high end: {other['verdict_label']}"}}


def test_a_verdict_decided_before_cost_has_no_flip_and_says_what_decided_it():
    x = _inputs(trainium_availability="unavailable")
    (shown,) = _both([_case(x)])
    # No break-even where a side cannot run, and no sentence about architectures the case has none of.
    be = next(c for c in shown["summary"]["rows"] if c["key"] == "break_even_runs")
    assert be["text"] == "none: a side that cannot run has no break-even"
    assert shown["guess"]["flip"] is None
    assert shown["guess"]["text"] == "No value flips the verdict, which is decided by feasibility, not by cost."
    assert shown["glance"]["reason"] == ("Decided by feasibility: Trainium cannot run: it cannot be had in the region and window needed; "
                                         "robust.")
    assert shown["glance"]["saving"] == "Trainium cannot run, so cost is not compared."
    (neither,) = _both([_case(_inputs(trainium_availability="unavailable", gpu_availability="unavailable"))])
    assert neither["verdict"] == "neither"
    assert neither["glance"]["saving"] == "Neither side can run, so cost is not compared."


def test_recurring_ports_that_never_repay_draw_no_break_even():
    # A port every 2 runs, and one port takes about 12 runs of savings to repay.
    x = _inputs(runs=10, runs_per_architecture=2, port_weeks=Span(20.0, 20.0, 20.0))
    (shown,) = _both([_case(x)])
    row = next(c for c in shown["summary"]["rows"] if c["key"] == "break_even_runs")
    # 12.4 runs of savings: the thirteenth is the first after which one port is repaid.
    assert row["text"] == "never: one port needs 13 runs (8.9 months at the plan's pace) to repay, and each architecture lasts 2 runs"
    assert [m["label"] for m in shown["chart"]["marks"]] == ["plan: 10 runs"]
    assert shown["chart"]["summary"].endswith("Trainium never breaks even.")
    assert shown["chart"]["interp"] == "step-after"
    assert shown["chart"]["subtitle"] == "Source: prices from VAN (2025-11-30) and SKY (2025-12-01). Figures as of 2025-12-01."


@pytest.mark.parametrize("runs", [301, 401, 1000])
def test_the_cost_curve_reaches_the_plan(runs):
    x = _inputs(runs=runs)
    (shown,) = _both([_case(x)])
    last = shown["chart"]["rows"][-1]
    assert last["runs"] == runs
    assert len(shown["chart"]["rows"]) <= 2 * 102


def test_an_engine_with_deadlines_terms_and_regions_is_told_in_full():
    # The shape an engine with calendar time and commitment terms reports (generator/model/engine.py on
    # the model branch): extra trace rules and numbers, and per-side terms and ready days.
    case = _case(_inputs(runs_per_architecture=2, port_weeks=Span(20.0, 20.0, 20.0)))
    x, o = case["result"]["inputs"], case["result"]["outcome"]
    x.update(trainium_term_hours=8760.0, gpu_term_hours=None, trainium_lead_days=7.0)
    o["trainium"].update(committed_terms=2, utilisation=0.25, ready_days=21.0, term_hours=8760.0)
    o["gpu"].update(committed_terms=0, utilisation=None, ready_days=0.0)
    o["break_even_runs"] = None
    case["result"]["thresholds"]["runs"] = 7.5
    o["trace"][0] = {"rule": "feasibility", "verdict": "gpu", "code": "trainium-cannot-run",
                     "numbers": {"trainium_reasons": [["not-offered", ["eu-west-2"]]]}}
    o["trace"].insert(3, {"rule": "deadline", "verdict": "gpu", "code": "neither-on-time",
                          "numbers": {"needed_within_days": 14, "trainium_ready_days": 21.0, "gpu_ready_days": 15.0,
                                      "trainium_late_days": 7.0, "gpu_late_days": 1.0}})
    (shown,) = _both([case], curves=False)  # the outcome is edited by hand, so no engine drew this curve
    trace = {s["rule"]: s for s in shown["trace"]}
    assert trace["feasibility"]["text"] == "Trainium cannot run: it is not offered in any region the workload may use (eu-west-2)."
    assert trace["feasibility"]["label"] == "Feasibility"
    assert trace["deadline"]["label"] == "Deadline"
    assert trace["deadline"]["text"] == ("Neither side can start by the deadline; the GPU option starts soonest. Needed within 14 days; "
                                         "Trainium can start in 21 days, the GPU in 15 days. Trainium 7 days late, the GPU 1 day late.")
    rows = {r["label"]: r for r in shown["summary"]["sides"]}
    assert rows["Commitment terms bought"]["trainium"] == {"key": "trainium.committed_terms", "value": 2, "text": "2, paid whether used or not"}
    assert rows["Commitment terms bought"]["gpu"]["text"] == "none: paid by the hour used"
    assert rows["Share of the reserved hours the plan uses"]["trainium"]["text"] == "25 %"
    assert rows["Share of the reserved hours the plan uses"]["gpu"] == {"key": None, "value": None, "text": "no commitment"}
    assert rows["First run can start"]["trainium"]["text"] == "in 21 days, after the port and the wait for capacity, one after the other"
    assert rows["First run can start"]["gpu"]["text"] == "at once"
    assert shown["summary"]["sides"][-1]["label"] == "Total over 10 runs"
    be = next(c for c in shown["summary"]["rows"] if c["key"] == "break_even_runs")
    # The runs as calendar time too: 7.5 runs back to back, each as long as one Trainium run.
    assert be["text"] == ("7.5 runs (5.1 months at the plan's pace): the first plan that costs less on Trainium; "
                          "a commitment is paid by the term, so no single run repays the port")
    assert be["value"] == 7.5  # what the scenarios index sorts by
    assert shown["chart"]["interp"] == "step-after"


def test_without_a_commitment_no_commitment_row_is_invented():
    (shown,) = _both([_case(_inputs())])
    assert [r["label"] for r in shown["summary"]["sides"]] == [
        "Instance-hours per run", "Cost per run", "Wall-clock per run", "First run can start", "Total over 10 runs"]


TABLES_RUNNER = """
import { pathToFileURL } from "node:url";
const w = await import(pathToFileURL(process.argv[1]).href);
w.learn(JSON.parse(process.env.GUIDE_WORDS));
process.stdout.write(JSON.stringify([w.ruledOutBy(["tensorflow", "multi-cloud"]), w.notOfferedIn(["eu-west-2"]), w.neitherCanRun("a", "b"),
  w.cannotRun("gpu", "c"), w.cannotRun("trainium", "d"), w.neitherOnTime("gpu"), w.neitherOnTime("trainium"), w.blocksCannotHold(256)]));
"""


def test_the_engines_codes_read_the_same_in_both_languages():
    """Each language fills the same templates (wording.py's, which wording.mjs learns from the
    calculator's data) with the same figures."""
    from generator.model import wording as w

    out = subprocess.run(["node", "--input-type=module", "-e", TABLES_RUNNER, str(PRESENT)],
                         capture_output=True, text=True, check=True, env=learned_env())
    js = json.loads(out.stdout)
    assert js == [w.ruled_out_by(("tensorflow", "multi-cloud")), w.not_offered_in(("eu-west-2",)), w.neither_can_run("a", "b"),
                  w.cannot_run("gpu", "c"), w.cannot_run("trainium", "d"), w.neither_on_time("gpu"), w.neither_on_time("trainium"),
                  w.blocks_cannot_hold(256)]
    assert js[3] == "The GPU option cannot run: c."
    assert js[7] == "Capacity Blocks hold at most 256 instances across an organisation's blocks, fewer than it runs at once"


def test_a_cheaper_way_in_another_allowed_region_names_both_regions():
    # The GPU is named on demand in eu-west-2 (5,000 h x 55.04 = 275,200); the workload may also use
    # us-east-1, where on demand, which it accepts, costs 5,000 x 40 = 200,000: its plan is bought there.
    # Spot in us-east-1, which it does not accept, would cost 5,000 / (1 - 0.00075) x 20 = 100,075.06,
    # 99,924.94 less: advice, in the plan's own region, so no region is named. Trainium's Capacity
    # Block, not accepted either, is in its own region too.
    x = _inputs(gpu_option="on-demand", gpu_region="eu-west-2", gpu_ways=(Way("on-demand", 55.04, None, "eu-west-2"),),
                gpu_ways_elsewhere=(Way("on-demand", 40.0, None, "us-east-1"), Way("spot", 20.0, None, "us-east-1")),
                trainium_option="on-demand", trainium_region="us-east-2",
                trainium_ways=(Way("on-demand", 35.76, None, "us-east-2"), Way("capacity-block", 30.0, None, "us-east-2")))
    (shown,) = _both([_case(x)])
    row = next(r for r in shown["summary"]["sides"] if r["label"] == "Cheapest way to buy this plan's compute")
    assert row["gpu"]["text"] == "spot, $99,925 less than on-demand, if the team would buy it so"
    assert row["gpu"]["value"] == pytest.approx(200_000 - 100_000 / 0.99925)
    assert row["trainium"]["text"] == "Capacity Block, $28,800 less than on-demand, if the team would buy it so"
    bought = next(r for r in shown["summary"]["sides"] if r["label"] == "How the plan is bought")
    assert bought["gpu"]["text"] == "by the hour on demand in us-east-1"
    assert bought["trainium"]["text"] == "by the hour on demand"
    # Had the named region held the cheaper way, both regions would be named.
    y = replace(x, gpu_accepts=("on-demand",), gpu_ways_elsewhere=(Way("spot", 20.0, None, "us-east-1"),))
    (shown,) = _both([_case(y)])
    row = next(r for r in shown["summary"]["sides"] if r["label"] == "Cheapest way to buy this plan's compute")
    assert row["gpu"]["text"] == "spot in us-east-1, $175,125 less than on-demand in eu-west-2, if the team would buy it so"


def test_a_way_elsewhere_that_costs_the_same_leaves_the_named_way():
    x = _inputs(gpu_option="on-demand", gpu_region="eu-west-2", gpu_ways=(Way("on-demand", 55.04, None, "eu-west-2"),),
                gpu_ways_elsewhere=(Way("on-demand", 55.04, None, "us-east-1"),))
    (shown,) = _both([_case(x)])
    row = next(r for r in shown["summary"]["sides"] if r["label"] == "Cheapest way to buy this plan's compute")
    assert row["gpu"] == {"key": "gpu.cheaper_by", "value": 0.0, "text": "on-demand, as named"}


def test_a_side_that_cannot_run_has_no_cheaper_way_to_buy():
    # The GPU cannot be had at all; spot elsewhere would be cheaper than its named on demand, but a
    # way to buy a side that cannot run is no advice: both languages say it is not compared.
    x = _inputs(gpu_option="on-demand", gpu_region="eu-west-2", gpu_availability="unavailable",
                gpu_ways=(Way("on-demand", 55.04, None, "eu-west-2"),), gpu_ways_elsewhere=(Way("spot", 20.0, None, "us-east-1"),))
    o = evaluate(x)
    assert not o.gpu.feasible and o.gpu.cheaper_by > 0  # the engine still prices it
    (shown,) = _both([_case(x)])
    row = next(r for r in shown["summary"]["sides"] if r["label"] == "Cheapest way to buy this plan's compute")
    assert row["gpu"]["text"] == "not compared: this side cannot run"
    assert row["trainium"]["text"] != row["gpu"]["text"]


def test_a_break_even_reads_as_calendar_time_at_the_plans_pace_and_not_past_the_horizon():
    # 24 runs over 24 months: one run a month (730 hours), longer than a run takes.
    # Each run costs 100 GPU hours x $40 = $4,000 against 80 Trainium hours x $20 = $1,600, saving $2,400;
    # a port of 2 engineer-weeks x $6,000 = $12,000 is repaid after 12,000 / 2,400 = 5 runs, a tie: the
    # shortest plan that costs less on Trainium is 6 runs, 6 months.
    base = dict(gpu_hours=100.0, relative_throughput=Span(1.25, 1.25, 1.25), trainium_price=Span(20.0, 20.0, 20.0),
                gpu_price=Span(40.0, 40.0, 40.0), port_weeks=Span(2.0, 2.0, 2.0), runs=24, plan_hours=24 * 730.0,
                horizon_hours=3 * 8760.0)
    near = _inputs(**base)
    # A port of 200 engineer-weeks ($1,200,000) needs 500 runs: 500 months, past the 3-year horizon of
    # a 36-month plan.
    far = _inputs(**{**base, "port_weeks": Span(200.0, 200.0, 200.0), "runs": 36, "plan_hours": 36 * 730.0})
    assert evaluate(near).break_even_runs == 5 and evaluate(near).pace_hours == 730
    assert evaluate(far).break_even_runs == 500
    shown_near, shown_far = _both([_case(near), _case(far)])
    be = {p: next(c for c in s["summary"]["rows"] if c["key"] == "break_even_runs")
          for p, s in (("near", shown_near), ("far", shown_far))}
    assert be["near"]["text"] == "6 runs (6 months at the plan's pace)"
    assert be["far"]["text"] == "not within 3 years at this pace"
    assert be["far"]["value"] == 500  # the index still sorts by the runs
    runs = {p: next(i for i in s["thresholds"]["parts"] if i["key"] == "threshold.runs")
            for p, s in (("near", shown_near), ("far", shown_far))}
    assert runs["near"]["text"] == "6 runs (6 months at the plan's pace)"
    assert runs["far"]["text"] == "not within 3 years at this pace"
    # The chart's caption and its text alternative say the same, never "after 501 runs".
    assert shown_far["chart"]["summary"].endswith("Trainium does not break even within 3 years at this pace.")
    assert shown_far["break_even"] == {"runs": 501.0, "short": "not within 3 years at this pace",
                                       "text": "not within 3 years at this pace"}


def test_the_horizon_is_never_shorter_than_the_plan_it_judges():
    # 48 runs over 48 months, one a month; the port of 39.5 x $2,400 = $94,800 is repaid in the 40th
    # run (39.5 runs of savings): month 40 of a 4-year plan, past the 3-year horizon but within the
    # plan, so it is said as runs. At exactly 36 runs' worth ($86,400) the 36-run plan is a tie: the
    # first plan that costs less is 37 runs, past 3 years on a 36-month plan.
    base = dict(gpu_hours=100.0, relative_throughput=Span(1.25, 1.25, 1.25), trainium_price=Span(20.0, 20.0, 20.0),
                gpu_price=Span(40.0, 40.0, 40.0), engineer_week_usd=6000.0, horizon_hours=3 * 8760.0)
    long_plan = _inputs(**base, port_weeks=Span(15.8, 15.8, 15.8), runs=48, plan_hours=48 * 730.0)
    at_horizon = _inputs(**base, port_weeks=Span(14.4, 14.4, 14.4), runs=36, plan_hours=36 * 730.0)
    assert evaluate(long_plan).break_even_runs == pytest.approx(39.5) and evaluate(at_horizon).break_even_runs == pytest.approx(36)
    shown_long, shown_tie = _both([_case(long_plan), _case(at_horizon)])
    assert shown_long["break_even"]["text"] == "40 runs (3.3 years at the plan's pace)"
    assert shown_long["chart"]["summary"].endswith("Trainium breaks even after 40 runs (3.3 years at the plan's pace).")
    assert shown_tie["break_even"]["runs"] == 37 and shown_tie["break_even"]["short"] == "not within 3 years at this pace"


def test_a_spot_side_says_whether_its_rate_is_its_pools_rating_or_the_default():
    # 64 GPU instances on spot in a pool the Spot Instance Advisor rates "<5%" (2.5 % a month:
    # -ln(0.975) / 730 = 0.000035 an instance-hour), 64 Trainium instances on spot at the default 0.0005.
    rated = Span(-math.log(0.975) / 730, 0.0, -math.log(0.95) / 730)
    x = _inputs(gpu_spot=True, trainium_spot=True, gpu_count=64, trainium_count=64, gpu_interruption_rate=rated)
    (shown,) = _both([_case(x)])
    spot = next(r for r in shown["summary"]["sides"] if r["label"] == "Extra hours for spot interruptions")
    assert "64 instances × 0.000035 interruptions an instance-hour (the Spot Instance Advisor's band for this pool)" in spot["gpu"]["text"]
    assert "64 instances × 0.0005 interruptions an instance-hour (the guide's default)" in spot["trainium"]["text"]


def test_a_plan_is_written_out_in_words_in_both_languages():
    # One GPU on a 1-year term at $1 an hour, on demand at $2; 14 runs of 730 hours back to back, 10,220
    # hours: one term ($8,760), then the last 1,460 hours on demand ($2,920), against two terms
    # ($17,520) or all on demand ($20,440). With 4,380 hours still held, 5,840 are left: a term ($8,760)
    # costs less than them on demand ($11,680). With nothing but the term accepted: two terms.
    base = _inputs(gpu_hours=730.0, runs=14, gpu_option="commit-1y", gpu_term_hours=8760.0, gpu_price=Span(1.0, 1.0, 1.0),
                   gpu_ways=(Way("on-demand", 2.0), Way("commit-1y", 1.0, 8760.0)))
    cases = [base, replace(base, gpu_held_hours=4380.0), replace(base, gpu_accepts=("commit-1y",)),
             replace(base, runs=2, gpu_hours=365.0)]
    shown = _both([_case(x) for x in cases])
    said = [next(r for r in s["summary"]["sides"] if r["label"] == "How the plan is bought")["gpu"]["text"] for s in shown]
    assert said == [
        "one 1-year term, then the plan's last 1,460 hours on demand",
        "the 4,380 hours still held, then one 1-year term",
        "two 1-year terms",
        # 2 runs of 365 hours: 730 hours on demand ($1,460) cost less than a term ($8,760).
        "no 1-year term: the whole plan on demand",
    ]
    assert said[0] == plan_bought(plain(base), plain(evaluate(base).gpu), "gpu")


def test_a_price_at_one_end_of_its_sources_is_said_naming_the_section_that_tries_both(monkeypatch):
    (shown,) = _both([_case(_inputs(trainium_price=Span(30.0, 30.0, 40.0)))])
    (note,) = shown["price_notes"]
    assert (note["side"], note["basis"]) == ("trainium", "low")
    assert note["text"].startswith("The Trainium price used, $30.00/h, is the ")
    assert note["text"].endswith(' Both ends are evaluated under "Does the verdict hold?".')
    # The section is named by its heading as the page and the calculator title it, in both languages.
    monkeypatch.setitem(ANSWER_LABELS, "holds", "Will it hold?")
    (renamed,) = _both([_case(_inputs(trainium_price=Span(30.0, 30.0, 40.0)))])
    assert renamed["price_notes"][0]["text"].endswith(' Both ends are evaluated under "Will it hold?".')
