"""Hand-computed golden cases for the model's rules, each run through BOTH engines.

Every case is evaluated by the Python engine and by the JavaScript engine the site ships (in Node),
and every expected number is the arithmetic written next to it, never a second engine call. The
inputs are built by hand (or resolved against the small frozen catalog below), never from data/.

`BASE` is a round-number workload:

    GPU:      100 instance-hours a run at $40/h on 8 instances   -> $4,000 a run, 12.5 h wall-clock
    Trainium: 1.25x throughput -> 80 h at $20/h on 4 instances   -> $1,600 a run, 20 h wall-clock
    Port:     2 engineer-weeks at $6,000, 2 engineers            -> $12,000, 7 calendar days
    Plan:     10 runs -> GPU $40,000, Trainium $12,000 + $16,000 = $28,000
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from core_support import engine_inputs, point, run_js_on_inputs, run_js_on_workloads
from generator.rendering.calculator.data import calculator_data
from generator.model import wording
from generator.model.catalog import Assumptions, Catalog
from generator.model.engine import Inputs, Span, cost_curve, evaluate, robustness, thresholds
from generator.model.resolve import check_references, port_weeks, resolve
from generator.model.results import plain
from generator.model.schema import Workload


BASE = engine_inputs(
    gpu_hours=100.0,
    relative_throughput=Span(1.25, 1.0, 1.5),
    trainium_price=point(20.0),
    gpu_price=point(40.0),
    interruption_rate=Span(0.0005, 0.0001, 0.002),
    lost_hours=Span(1.5, 0.5, 4.0),
    port_weeks=point(2.0),
    runs=10,
    trainium_count=4,
    gpu_count=8,
)
YEAR = 8760.0

CASES: dict[str, Inputs] = {
    "base": BASE,
    # Commitments
    "trn-commit-1y": replace(BASE, trainium_term_hours=YEAR),
    "trn-commit-1y-two-years": replace(BASE, trainium_term_hours=YEAR, plan_hours=2 * YEAR),
    "trn-commit-held-year": replace(BASE, trainium_term_hours=YEAR, plan_hours=2 * YEAR, trainium_held_hours=YEAR),
    "gpu-commit-held": replace(BASE, gpu_term_hours=YEAR, gpu_held_hours=YEAR),
    "both-commit": replace(BASE, trainium_term_hours=YEAR, gpu_term_hours=YEAR),
    "term-exactly-full": replace(BASE, trainium_term_hours=YEAR, plan_hours=YEAR),
    # Calendar time
    "port-past-deadline": replace(BASE, port_weeks=point(3.0), port_engineers=point(1.0), needed_within_days=14),
    "port-meets-deadline": replace(BASE, port_weeks=point(3.0), port_engineers=point(2.0), needed_within_days=14),
    "port-ends-on-deadline": replace(BASE, port_weeks=point(2.0), port_engineers=point(1.0), needed_within_days=14),
    "neither-in-time": replace(BASE, port_weeks=point(3.0), port_engineers=point(1.0), needed_within_days=14, gpu_lead_days=15.0),
    "neither-in-time-same-day": replace(BASE, port_weeks=point(3.0), port_engineers=point(1.0), needed_within_days=14, gpu_lead_days=21.0),
    "gpu-late-trainium-ready": replace(BASE, needed_within_days=14, gpu_lead_days=20.0, gpu_price=point(10.0)),
    "close-call-port-too-long": replace(
        BASE, relative_throughput=point(1.0), trainium_price=point(30.0), gpu_availability="constrained",
        needed_within_days=14, port_weeks=point(3.0), port_engineers=point(1.0),
    ),
    "close-call-exact-margin": replace(
        BASE, relative_throughput=point(1.25), trainium_price=point(47.5), gpu_availability="constrained",
        needed_within_days=14, close_call_margin=0.25,
    ),
    # Recurring ports
    "ports-never-repaid": replace(BASE, runs=12, runs_per_architecture=3),
    "ports-tie-at-architecture-end": replace(BASE, runs=10, runs_per_architecture=5),
    "ports-repaid-within-architecture": replace(BASE, runs=12, runs_per_architecture=6),
    "exact-tie": replace(BASE, runs=5),
    # Spot
    "spot-1": replace(BASE, gpu_spot=True, gpu_count=1),
    "spot-64": replace(BASE, gpu_spot=True, gpu_count=64),
    # Hard constraints
    "trainium-not-in-region": replace(BASE, region_excluded=("trainium",), allowed_regions=("eu-west-2",)),
    "gpu-not-in-region": replace(BASE, region_excluded=("gpu",), allowed_regions=("eu-west-2",), trainium_price=point(400.0)),
    "cuda-only": replace(BASE, excluded_by=("cuda-only-dependency",)),
    # Robustness
    "joint-flip-only": replace(BASE, relative_throughput=Span(1.25, 1.0, 1.5), port_weeks=Span(2.0, 1.0, 3.5)),
    "curve-301": replace(BASE, runs=301),
}


@pytest.fixture(scope="module")
def both() -> dict[str, list[dict]]:
    names = list(CASES)
    js = run_js_on_inputs([CASES[n] for n in names])
    out = {}
    for name, j in zip(names, js, strict=True):
        x = CASES[name]
        o = evaluate(x)
        py = {"outcome": plain(o), "robustness": plain(robustness(x, o)), "thresholds": plain(thresholds(x, o)),
              "curve": plain(cost_curve(x, o))}
        out[name] = [py, j]
    return out


def approx(v: float):
    return pytest.approx(v, rel=1e-12, abs=1e-9)


def rules(r: dict) -> list[tuple[str, str | None]]:
    return [(s["rule"], s["verdict"]) for s in r["outcome"]["trace"]]


# --- commitments are paid for their whole term ------------------------------------------------------


def test_a_commitment_costs_its_whole_term_however_little_is_used(both):
    for r in both["trn-commit-1y"]:
        t = r["outcome"]["trainium"]
        # 10 runs x 20 h wall-clock = 200 h, inside one year: 4 instances x 8,760 h x $20.
        assert t["committed_terms"] == 1
        assert t["compute_total"] == approx(4 * 8760 * 20)  # 700,800, not 10 x 1,600 = 16,000
        assert t["total"] == approx(12000 + 4 * 8760 * 20)
        assert t["utilisation"] == approx(10 * 80 / (4 * 8760))  # 2.3 % of the reserved hours
        assert r["outcome"]["verdict"] == "gpu"
        assert r["outcome"]["break_even_runs"] is None  # no per-run saving repays a whole term
        # The GPU side is paid by the hour and has no term.
        assert r["outcome"]["gpu"]["utilisation"] is None and r["outcome"]["gpu"]["total"] == approx(40000)


def test_a_plan_longer_than_a_term_buys_another_term(both):
    for r in both["trn-commit-1y-two-years"]:
        assert r["outcome"]["trainium"]["committed_terms"] == 2
        assert r["outcome"]["trainium"]["compute_total"] == approx(2 * 4 * 8760 * 20)
    for r in both["term-exactly-full"]:
        # A plan of exactly one year fills one term and no more.
        assert r["outcome"]["trainium"]["committed_terms"] == 1


def test_a_held_reservation_is_sunk_and_only_the_rest_counts(both):
    for r in both["trn-commit-held-year"]:
        # Two years planned, one already held: one new term is bought.
        t = r["outcome"]["trainium"]
        assert t["committed_terms"] == 1
        assert t["compute_total"] == approx(4 * 8760 * 20)
        assert t["utilisation"] == approx(10 * 80 / (4 * (8760 + 8760)))
    for r in both["gpu-commit-held"]:
        # The GPU reservation already held covers the plan: its marginal cost is nothing.
        assert r["outcome"]["gpu"]["committed_terms"] == 0
        assert r["outcome"]["gpu"]["total"] == 0
        assert r["outcome"]["verdict"] == "gpu"


def test_with_commitments_on_both_sides_the_crossing_is_the_first_cheaper_run(both):
    for r in both["both-commit"]:
        gpu_term, trn_term = 8 * 8760 * 40, 4 * 8760 * 20  # 2,803,200 and 700,800
        assert r["outcome"]["gpu"]["total"] == approx(gpu_term)
        assert r["outcome"]["trainium"]["total"] == approx(12000 + trn_term)
        assert r["outcome"]["verdict"] == "trainium"
        assert r["curve"]["crossing"] == 1
        assert r["thresholds"]["runs"] == 1
        assert r["curve"]["rows"][0] == {"runs": 0, "gpu": 0, "trainium": 0}
        assert r["curve"]["rows"][1]["gpu"] == approx(gpu_term)
        # Trainium's price at which both plans cost the same: (2,803,200 - 12,000) / (4 x 8,760 h).
        assert r["thresholds"]["trainium_price"] == approx((gpu_term - 12000) / (4 * 8760))
        # Throughput moves only Trainium's terms: 10 runs of 100 hours on 4 instances span 250 / r hours,
        # and the GPU's $2,791,200 beyond the port pays for at most 3 of Trainium's $700,800 terms, so the
        # verdict turns where 250 / r = 3 x 8,760 hours: r = 0.0095.
        assert r["thresholds"]["relative_throughput"] == approx(250 / (3 * 8760))


# --- calendar time and deadlines --------------------------------------------------------------------


def test_a_port_longer_than_the_deadline_loses_on_urgency(both):
    for r in both["port-past-deadline"]:
        # 3 engineer-weeks by one engineer = 21 days > 14. Cost alone favours Trainium (34,000 < 40,000).
        assert r["outcome"]["port_calendar_days"] == approx(3 / 1 * 7)
        assert r["outcome"]["trainium"]["ready_days"] == approx(21)
        assert r["outcome"]["trainium"]["total"] == approx(18000 + 16000)
        assert r["outcome"]["verdict"] == "gpu"
        assert rules(r) == [("feasibility", None), ("deadline", "gpu")]
        assert r["outcome"]["trace"][-1]["numbers"] == {"needed_within_days": 14, "trainium_ready_days": 21, "gpu_ready_days": 0,
                                                        "trainium_late_days": 7, "gpu_late_days": 0}
    for r in both["port-meets-deadline"]:
        assert r["outcome"]["trainium"]["ready_days"] == approx(3 / 2 * 7)  # 10.5 days
        assert r["outcome"]["verdict"] == "trainium"
        assert ("deadline", None) in rules(r)


def test_a_port_ending_on_the_deadline_day_is_in_time(both):
    for r in both["port-ends-on-deadline"]:
        assert r["outcome"]["trainium"]["ready_days"] == approx(14)
        assert r["outcome"]["verdict"] == "trainium"


def test_when_neither_side_can_start_in_time_the_soonest_wins(both):
    for r in both["neither-in-time"]:
        # Trainium: a 3-week port by one engineer, 21 days, 7 late; the GPU: 15 days' lead, 1 late.
        # Trainium is cheaper, but the side a day late beats the side a week late.
        assert r["outcome"]["trainium"]["late_days"] == 7 and r["outcome"]["gpu"]["late_days"] == 1
        assert rules(r) == [("feasibility", None), ("deadline", "gpu")]
        assert r["outcome"]["total_difference"] > 0
    for r in both["neither-in-time-same-day"]:
        # Both 7 days late: the start does not tell them apart, so cost does.
        assert rules(r)[1] == ("deadline", None)
        assert rules(r)[2] == ("cost", "trainium")
    for r in both["gpu-late-trainium-ready"]:
        # Cheap GPUs ($1,000 a run) that arrive in 20 days lose to Trainium ready in 7.
        assert r["outcome"]["gpu"]["ready_days"] == 20
        assert r["outcome"]["verdict"] == "trainium"
        assert rules(r)[-1] == ("deadline", "trainium")


def test_the_capacity_close_call_needs_trainium_to_start_in_time(both):
    # The old rule gave a constrained-GPU close call to Trainium; here its port takes 3 weeks with one
    # engineer, 21 days, and the run must start in 14: the deadline decides before any close call.
    for r in both["close-call-port-too-long"]:
        assert r["outcome"]["verdict"] == "gpu"
        assert rules(r)[-1] == ("deadline", "gpu")
    # Exactly at the margin: 12,000 + 10 x 47.5 x 80 = 50,000 = 40,000 x 1.25 counts as a close call.
    for r in both["close-call-exact-margin"]:
        assert r["outcome"]["trainium"]["total"] == 50000 and r["outcome"]["gpu"]["total"] == 40000
        assert rules(r)[-1] == ("capacity", "trainium")
        assert r["outcome"]["trace"][-1]["numbers"]["ratio"] == approx(1.25)


# --- break-even that can happen ---------------------------------------------------------------------


def test_recurring_ports_that_are_never_repaid_have_no_break_even(both):
    for r in both["ports-never-repaid"]:
        # Repaying one port takes 12,000 / 2,400 = 5 runs; each architecture lasts 3.
        assert r["outcome"]["ports"] == 4
        assert r["outcome"]["break_even_runs"] is None
        assert r["thresholds"]["runs"] is None
        assert r["curve"]["crossing"] is None
        assert all(row["trainium"] >= row["gpu"] for row in r["curve"]["rows"])
        cost = [s for s in r["outcome"]["trace"] if s["rule"] == "cost"][0]
        assert cost["code"] == "cost-no-architecture-repays"
    for r in both["ports-tie-at-architecture-end"]:
        # At 5 runs the first port is exactly repaid (a tie), then the second port starts: never cheaper.
        assert r["outcome"]["break_even_runs"] is None and r["curve"]["crossing"] is None
    for r in both["ports-repaid-within-architecture"]:
        # 2,400 saved a run, a 12,000 port every 6 runs: each architecture nets 2,400. After m of them
        # and r runs of the next Trainium is ahead by 2,400 m + 2,400 r - 12,000: at 6, 11-12, 16-18,
        # 21-24, then every run from 26 on (at 25 a tie). A plan of 12 costs less; one of 13 does not.
        assert r["outcome"]["break_even_runs"] == 26
        assert r["curve"]["crossing"] == 26
        assert r["thresholds"]["break_even"] == {"kind": "from", "first": 6, "last": None, "first_for_good": 26}


def test_an_exact_tie_goes_to_the_gpu_and_marks_the_crossing_where_it_is(both):
    for r in both["exact-tie"]:
        assert r["outcome"]["gpu"]["total"] == 20000 and r["outcome"]["trainium"]["total"] == 20000
        assert r["outcome"]["verdict"] == "gpu"
        assert r["curve"]["crossing"] == approx(5)


def test_the_curve_reaches_the_plans_runs(both):
    for r in both["curve-301"]:
        runs = [row["runs"] for row in r["curve"]["rows"]]
        # Crossing at 5 runs; horizon 301, stepped by 3, ends on 301 itself.
        assert runs[-1] == 301 and runs[0] == 0 and runs[1] == 3
        last = r["curve"]["rows"][-1]
        assert last["gpu"] == approx(301 * 4000) and last["trainium"] == approx(12000 + 301 * 1600)


# --- spot overhead grows with the job ---------------------------------------------------------------


def test_spot_overhead_at_one_and_at_sixty_four_instances(both):
    for r in both["spot-1"]:
        g = r["outcome"]["gpu"]
        # 1 x 0.0005 x 1.5 = 0.00075 hours lost an hour; redone hours are interrupted too: 1 / (1 - 0.00075).
        assert g["spot_overhead"] == approx(1 / (1 - 0.00075) - 1)
        assert g["hours_per_run"] == approx(100 / (1 - 0.00075))
        assert g["cost_per_run"] == approx(40 * 100 / (1 - 0.00075))
    for r in both["spot-64"]:
        g = r["outcome"]["gpu"]
        assert g["spot_overhead"] == approx(1 / (1 - 64 * 0.0005 * 1.5) - 1)  # 5.04 %, not 4.8 %
        assert g["cost_per_run"] == approx(40 * 100 / (1 - 0.048))
        assert g["wall_clock_hours"] == approx(100 / (1 - 0.048) / 64)
        # Both spot inputs are ranged and count for robustness once a side is on spot.
        assert {e["input"] for e in r["robustness"]["ends"]} >= {"interruption_rate", "lost_hours"}


# --- hard constraints -------------------------------------------------------------------------------


def test_an_option_not_offered_in_an_allowed_region_is_out(both):
    for r in both["trainium-not-in-region"]:
        assert r["outcome"]["verdict"] == "gpu"
        assert rules(r) == [("feasibility", "gpu")]
        assert r["outcome"]["trace"][0]["numbers"] == {"trainium_reasons": [["not-offered", ["eu-west-2"]]]}
    for r in both["gpu-not-in-region"]:
        # Even a Trainium at $400/h wins when the GPU cannot be used where the data must stay.
        assert r["outcome"]["verdict"] == "trainium"
        assert rules(r) == [("feasibility", "trainium")]


def test_a_cuda_only_dependency_rules_trainium_out(both):
    for r in both["cuda-only"]:
        assert r["outcome"]["verdict"] == "gpu"
        assert r["outcome"]["trace"][0]["numbers"] == {"trainium_reasons": [["ruled-out", ["cuda-only-dependency"]]]}


# --- robustness -------------------------------------------------------------------------------------


def test_robust_means_no_single_input_flips_it_and_joint_flips_are_reported_apart(both):
    for r in both["joint-flip-only"]:
        # Each end alone keeps Trainium: 12,000 + 20,000 = 32,000 and 21,000 + 16,000 = 37,000 < 40,000.
        # Together: 3.5 x 6,000 + 10 x 20 x 100 / 1.0 = 41,000 > 40,000.
        rob = r["robustness"]
        assert rob["holds"] is True and rob["flips_on"] == []
        assert rob["joint_flip"] is True
        assert rob["worst_case"]["verdict"] == "gpu"
        assert rob["worst_case"]["total_difference"] == approx(40000 - 41000)
    for r in both["base"]:
        assert r["robustness"]["holds"] is True and r["robustness"]["joint_flip"] is False


def test_price_basis_says_where_the_price_used_sits_in_its_range():
    x = replace(BASE, trainium_price=Span(35.76, 35.76, 85.964), gpu_price=Span(28.11, 13.22, 52.08))
    py = plain(evaluate(x))
    (js,) = run_js_on_inputs([x])
    for o in (py, js["outcome"]):
        assert o["trainium"]["price_basis"] == "low"  # the cheapest figure: the end most favourable to Trainium
        assert (o["trainium"]["price_low"], o["trainium"]["price_high"]) == (35.76, 85.964)
        assert o["gpu"]["price_basis"] == "inside"
        cost = [s for s in o["trace"] if s["rule"] == "cost"][0]
        assert cost["numbers"]["trainium_price_basis"] == "low"


# --- through resolve, against a small frozen catalog ------------------------------------------------

D = dt.date(2026, 1, 1)


def fig(v: float) -> dict:
    return {"value": v, "source": "FIX", "as_of": D}


def rng(v: float, lo: float, hi: float) -> dict:
    return {"value": v, "low": lo, "high": hi, "source": "FIX", "as_of": D}


def instance(side: str, chip: str, regions: list[str]) -> dict:
    return {"side": side, "chip": chip, "regions": {"value": regions, "source": "FIX", "as_of": D}, "chips": fig(8),
            "accelerator_memory": fig(640), "accelerator_memory_unit": "GB", "vcpu": fig(192), "ram_gib": fig(2048),
            "network_gbps": fig(3200)}


def price(inst: str, region: str, usd: float, option: str = "on-demand") -> dict:
    return {"instance": inst, "region": region, "option": option, "usd_per_hour": usd, "source": "FIX", "as_of": D}


@pytest.fixture(scope="module")
def toy_catalog() -> Catalog:
    chip = {"name": "c", "vendor": "v", "bf16_tflops": fig(1000), "memory_gib": fig(80), "memory_bandwidth_tbps": fig(3)}
    c = {"label": "x", "source": "FIX", "as_of": D}
    assumptions = Assumptions.model_validate({
        "engineer_week_usd": fig(6000),
        "porting_classes": {
            "mainstream": {"label": "M", "examples": "e", "weeks": rng(2, 1, 3)},
            "moderate-custom": {"label": "MC", "examples": "e", "weeks": rng(5, 3, 8)},
            "heavy-custom-cuda": {"label": "H", "examples": "e", "weeks": rng(8, 4, 12), "includes": ["custom-cuda-kernels", "dynamic-shapes"]},
            "novel": {"label": "N", "examples": "e", "weeks": rng(10, 5, 16)},
        },
        "neuron_experience": {"none": fig(1.0), "some": fig(0.75), "experienced": fig(0.5)},
        "constraints": {
            "custom-cuda-kernels": {**c, "effect": "adds-weeks", "weeks": rng(6, 4, 12)},
            "dynamic-shapes": {**c, "effect": "adds-weeks", "weeks": rng(3, 2, 6)},
            "tensorflow": {**c, "effect": "excludes"},
            "day-one-architectures": {**c, "effect": "excludes"},
            "multi-cloud": {**c, "effect": "excludes"},
            "cuda-only-dependency": {**c, "effect": "excludes"},
        },
        "port_engineers": rng(2, 1, 3),
        "spot_interruptions_per_instance_hour": rng(0.0005, 0.0001, 0.002),
        "spot_hours_lost_per_interruption": rng(1.5, 0.5, 4),
        "close_call_margin": fig(0.1),
        "soon_days": fig(30),
    })
    return Catalog(
        sources={"FIX": {"title": "fixture", "kind": "assumption", "as_of": D}},
        chips={"g": chip, "t": chip},
        instances={"trn.x": instance("trainium", "t", ["us-east-2"]), "gpu.x": instance("gpu", "g", ["us-east-1", "eu-west-2"])},
        prices=[price("trn.x", "us-east-2", 20.0), price("gpu.x", "us-east-1", 40.0), price("gpu.x", "eu-west-2", 50.0),
                price("trn.x", "us-east-2", 12.0, "commit-1y")],
        assumptions=assumptions,
    )


def workload(**changes) -> Workload:
    data = {
        "name": "w", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 100.0}, "runs": 10,
        "trainium": {"instance": "trn.x", "region": "us-east-2", "count": 4},
        "gpu": {"instance": "gpu.x", "region": "us-east-1", "count": 8},
        "relative_throughput": {"value": 1.25, "low": 1.0, "high": 1.5},
    }
    data.update(changes)
    return Workload.model_validate(data)


def through_both(catalog: Catalog, workloads: list[Workload]) -> list[tuple[dict, dict]]:
    js = run_js_on_workloads([w.model_dump(mode="json", exclude_none=True) for w in workloads], calculator_data(catalog))
    out = []
    for w, j in zip(workloads, js, strict=True):
        x = resolve(w, catalog).inputs
        out.append(({"inputs": plain(x), "outcome": plain(evaluate(x))}, j))
    return out


def test_a_class_that_includes_custom_kernels_does_not_add_their_weeks_again(toy_catalog):
    heavy = workload(architecture="heavy-custom-cuda", constraints=["custom-cuda-kernels"])
    heavy_dyn = workload(architecture="heavy-custom-cuda", constraints=["custom-cuda-kernels", "dynamic-shapes"])
    moderate = workload(architecture="moderate-custom", constraints=["custom-cuda-kernels"])
    assert port_weeks(heavy, toy_catalog) == Span(8, 4, 12)  # not 8 + 6
    # The class names highly dynamic shapes among its examples: that constraint adds nothing either.
    assert port_weeks(heavy_dyn, toy_catalog) == Span(8, 4, 12)
    # A lighter class plus a constraint never costs more than the heavier class that includes it:
    # moderate-custom with kernels would be 5 + 6 = 11 (7-20) as a list; the heavy class is 8 (4-12).
    assert port_weeks(moderate, toy_catalog) == Span(8, 4, 12)
    # Where the lighter reading is cheaper it stands: mainstream with dynamic shapes, 2 + 3 = 5 (3-9).
    assert port_weeks(workload(architecture="mainstream", constraints=["dynamic-shapes"]), toy_catalog) == Span(5, 3, 9)
    for py, js in through_both(toy_catalog, [heavy, heavy_dyn, moderate]):
        assert js["inputs"]["port_weeks"] == py["inputs"]["port_weeks"]
    (py, js), = through_both(toy_catalog, [heavy])
    for r in (py, js):
        assert r["outcome"]["port_cost"] == approx(8 * 6000)


def test_regions_through_resolve(toy_catalog):
    london = workload(regions=["eu-west-2"], gpu={"instance": "gpu.x", "region": "eu-west-2", "count": 8})
    assert list(check_references((london,), toy_catalog)) == []
    (py, js), = through_both(toy_catalog, [london])
    assert js["problems"] == []
    for r in (py, js):
        assert r["inputs"]["region_excluded"] == ["trainium"]
        assert r["outcome"]["verdict"] == "gpu"
        assert wording.step_text(r["outcome"]["trace"][0]) == (
            "Trainium cannot run: it is not offered in any region the workload may use (eu-west-2).")
    # Priced outside the allowed regions: a located problem, in both engines' reference checks.
    wrong = workload(regions=["eu-west-2"])
    problems = list(check_references((wrong,), toy_catalog))
    assert [loc for loc, _ in problems] == [("workloads", 0, "gpu", "region")]
    (_, js), = through_both(toy_catalog, [wrong])
    assert [p[0] for p in js["problems"]] == ["gpu.region"]
    # Neither instance offered: nothing to compare.
    nowhere = workload(regions=["ap-south-1"])
    msgs = [m for _, m in check_references((nowhere,), toy_catalog)]
    assert any(m.startswith("unknown region") for m in msgs) and any(m.startswith("neither instance") for m in msgs)


def test_cuda_only_dependency_through_resolve(toy_catalog):
    w = workload(constraints=["cuda-only-dependency"])
    assert resolve(w, toy_catalog).inputs.excluded_by == ("cuda-only-dependency",)
    (py, js), = through_both(toy_catalog, [w])
    for r in (py, js):
        assert r["outcome"]["verdict"] == "gpu" and r["outcome"]["trace"][0]["rule"] == "feasibility"


def test_commitment_plan_months_and_held_reservation_through_resolve(toy_catalog):
    w = workload(trainium={"instance": "trn.x", "region": "us-east-2", "option": "commit-1y", "count": 4, "held_months": 6},
                 plan_months=18, porting={"engineers": 1})
    x = resolve(w, toy_catalog).inputs
    assert (x.trainium_term_hours, x.trainium_held_hours, x.plan_hours) == (8760, 6 * 730, 18 * 730)
    assert x.port_engineers == Span(1, 1, 1)
    (py, js), = through_both(toy_catalog, [w])
    for r in (py, js):
        # 18 months planned, 6 held: the runs of the 12 months beyond them (two thirds of 10 runs of
        # 80 instance-hours) cost 533 h x $20 on demand, far less than a new year at 4 x 8,760 h x $12.
        assert r["outcome"]["trainium"]["committed_terms"] == 0
        assert r["outcome"]["trainium"]["compute_total"] == approx(10 * 80 * (12 / 18) * 20)
        assert r["outcome"]["trainium"]["compute_total"] < 4 * 8760 * 12
        # Only the third of the runs inside the held six months uses the reservation's hours.
        assert r["outcome"]["trainium"]["utilisation"] == approx(10 * 80 * (6 / 18) / (4 * 6 * 730))
        assert r["outcome"]["port_calendar_days"] == approx(2 / 1 * 7)


# --- the scenario chart draws cost_curve and marks only a real crossing ----------------------------


def _chart(catalog: Catalog, **changes):
    from generator.rendering.charts.specs import cumulative_cost
    from generator.model.results import evaluate_scenario
    from generator.model.schema import Scenario

    s = Scenario.model_validate({"title": "t", "summary": "s", "expect": "gpu", "sources": ["test"],
                                 "workloads": [workload(**changes).model_dump(mode="json", exclude_none=True)]})
    r = evaluate_scenario("t", "t.yaml", s, catalog)
    return cumulative_cost(r, 0).spec["datasets"]


def test_the_chart_marks_break_even_where_the_lines_cross(toy_catalog):
    # $4,000 against $1,600 a run, a $12,000 port: the lines cross at 5 runs, where the plans tie; the
    # mark stands there and names the shortest plan that costs less, 6 runs.
    d = _chart(toy_catalog)
    marks = {m["label"]: m["runs"] for m in d["marks"]}
    assert marks == {"plan: 10 runs": 10, "break-even: 6 runs": approx(5)}
    gpu = {row["runs"]: row["cost"] for row in d["rows"] if row["side"] == "GPU"}
    trn = {row["runs"]: row["cost"] for row in d["rows"] if row["side"] == "Trainium"}
    assert gpu[10] == approx(10 * 4000) and trn[10] == approx(12000 + 10 * 1600)


def test_the_chart_has_no_break_even_when_no_architecture_repays_its_port(toy_catalog):
    d = _chart(toy_catalog, runs=12, runs_per_architecture=3)
    assert [m["label"] for m in d["marks"]] == ["plan: 12 runs"]
    trn = {row["runs"]: row["cost"] for row in d["rows"] if row["side"] == "Trainium"}
    assert trn[12] == approx(4 * 12000 + 12 * 1600)


def test_the_chart_reaches_the_plans_runs_and_never_rounds_a_crossing_to_zero(toy_catalog):
    d = _chart(toy_catalog, runs=301)
    assert max(row["runs"] for row in d["rows"]) == 301
    # A $30 port ($6,000 x 0.005 weeks) is repaid after 30 / 2,400 = 0.0125 runs.
    tiny = _chart(toy_catalog, porting={"weeks": {"value": 0.005, "low": 0.005, "high": 0.005}})
    (be,) = [m for m in tiny["marks"] if m["label"].startswith("break-even")]
    assert be["runs"] == approx(30 / 2400) and be["label"] == "break-even: in the first run"


def test_a_convertible_rate_is_labelled_and_only_on_a_commitment():
    from pydantic import ValidationError

    from generator.model.catalog import Price

    base = {"instance": "gpu.x", "region": "us-east-1", "usd_per_hour": 43.0, "source": "FIX", "as_of": D}
    assert Price.model_validate({**base, "option": "commit-1y", "reservation": "convertible"}).reservation == "convertible"
    with pytest.raises(ValidationError, match="only for commit-1y or commit-3y"):
        Price.model_validate({**base, "option": "on-demand", "reservation": "convertible"})
