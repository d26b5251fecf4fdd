"""Hand-computed examples for every formula and rule of the engine.

Every expected number is written as the arithmetic a reader can redo on paper, from the inputs in
the test; none comes from calling the engine a second time. `BASE` is a round-number workload:

    GPU:      100 instance-hours a run at $40/h             -> $4,000 a run
    Trainium: 1.25x the GPU's throughput -> 100/1.25 = 80 h at $20/h -> $1,600 a run
    Port:     2 engineer-weeks at $6,000                     -> $12,000, paid once
    Plan:     10 runs -> GPU $40,000, Trainium $12,000 + $16,000 = $28,000
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import replace

import pytest

from core_support import BASE, point
from generator.model import engine
from generator.model.engine import Span, evaluate, ports_needed, robustness, thresholds
from generator.model.resolve import gpu_instance_hours, port_weeks, resolve
from generator.model.schema import Workload


def approx(x: float):
    return pytest.approx(x, rel=1e-12, abs=1e-9)


def rules(outcome) -> list[tuple[str, str | None]]:
    return [(s.rule, s.verdict) for s in outcome.trace]


# --- per-run arithmetic ---------------------------------------------------------------------------


def test_realistic_run_hours_cost_and_wall_clock():
    # Eight p5.48xlarge for a day at $55.04/h against trn2.48xlarge at $35.76/h, Trainium at 0.9x.
    x = replace(BASE, gpu_hours=8 * 24, relative_throughput=point(0.9), gpu_price=point(55.04),
                trainium_price=point(35.76), runs=12, trainium_count=8, gpu_count=8)
    o = evaluate(x)
    assert o.gpu.hours_per_run == approx(8 * 24)
    assert o.trainium.hours_per_run == approx(8 * 24 / 0.9)
    assert o.gpu.usd_per_hour == 55.04 and o.trainium.usd_per_hour == 35.76
    assert o.gpu.cost_per_run == approx(8 * 24 * 55.04)
    assert o.trainium.cost_per_run == approx(8 * 24 / 0.9 * 35.76)
    assert o.gpu.wall_clock_hours == approx(8 * 24 / 8)
    assert o.trainium.wall_clock_hours == approx(8 * 24 / 0.9 / 8)
    assert o.saving_per_run == approx(8 * 24 * 55.04 - 8 * 24 / 0.9 * 35.76)
    assert o.saving_pct == approx(1 - (8 * 24 / 0.9 * 35.76) / (8 * 24 * 55.04))


def test_base_example_every_number():
    o = evaluate(BASE)
    assert o.gpu.hours_per_run == approx(100)
    assert o.trainium.hours_per_run == approx(100 / 1.25)  # 80
    assert o.gpu.cost_per_run == approx(40 * 100)  # 4,000
    assert o.trainium.cost_per_run == approx(20 * 80)  # 1,600
    assert o.saving_per_run == approx(4000 - 1600)  # 2,400
    assert o.saving_pct == approx(2400 / 4000)  # 0.6
    assert o.port_cost == approx(2 * 6000)  # 12,000
    assert o.ports == 1
    assert o.break_even_runs == approx(12000 / 2400)  # 5
    assert o.gpu.total == approx(10 * 4000)  # 40,000
    assert o.trainium.total == approx(1 * 12000 + 10 * 1600)  # 28,000
    assert o.total_difference == approx(40000 - 28000)
    assert o.gpu.wall_clock_hours == approx(100 / 8)
    assert o.trainium.wall_clock_hours == approx(80 / 8)
    assert o.verdict == "trainium"


def test_spot_overhead_adds_hours_on_the_spot_side_only():
    gpu_spot = evaluate(replace(BASE, gpu_spot=True))
    assert gpu_spot.gpu.hours_per_run == approx(100 / (1 - 0.10))
    assert gpu_spot.gpu.cost_per_run == approx(40 * 100 / (1 - 0.10))
    assert gpu_spot.gpu.wall_clock_hours == approx(100 / (1 - 0.10) / 8)
    assert gpu_spot.trainium.hours_per_run == approx(100 / 1.25)

    trn_spot = evaluate(replace(BASE, trainium_spot=True))
    assert trn_spot.trainium.hours_per_run == approx(100 / 1.25 / (1 - 0.10))
    assert trn_spot.trainium.cost_per_run == approx(20 * 100 / 1.25 / (1 - 0.10))
    assert trn_spot.gpu.hours_per_run == approx(100)

    # 8 x 0.025 x 1 = 0.2 hours lost an hour on both sides: 1 / (1 - 0.2) = 1.25 times the hours.
    both = evaluate(replace(BASE, trainium_spot=True, gpu_spot=True, interruption_rate=Span(0.025, 0.00625, 0.025)))
    assert both.saving_per_run == approx(40 * 100 * 1.25 - 20 * 80 * 1.25)


def test_port_cost_includes_extra_one_off_cost():
    o = evaluate(replace(BASE, port_extra_usd=5000.0))
    assert o.port_cost == approx(2 * 6000 + 5000)
    assert o.break_even_runs == approx((2 * 6000 + 5000) / 2400)


@pytest.mark.parametrize(
    "runs, per_architecture, ports",
    [(10, None, 1), (1, None, 1), (10, 10, 1), (11, 10, 2), (9, 3, 3), (10, 3, 4), (1, 5, 1), (20, 2, 10)],
)
def test_ports_are_runs_over_runs_per_architecture_rounded_up(runs, per_architecture, ports):
    assert ports_needed(runs, per_architecture) == ports
    if per_architecture is not None:
        assert ports == math.ceil(runs / per_architecture)


def test_a_new_port_for_every_architecture_change():
    # 10 runs, architecture changes every 3 runs: ceil(10 / 3) = 4 ports.
    o = evaluate(replace(BASE, runs_per_architecture=3))
    assert o.ports == 4
    assert o.trainium.total == approx(4 * 12000 + 10 * 1600)  # 64,000
    assert o.gpu.total == approx(10 * 4000)
    assert o.total_difference == approx(40000 - 64000)
    assert o.verdict == "gpu"


def test_with_architecture_changes_one_more_run_can_cost_a_whole_new_port():
    # Every 6 runs is a new port. 6 runs: 6 * 2,400 = 14,400 saved against one 12,000 port: Trainium.
    # 7 runs: 7 * 2,400 = 16,800 saved against two ports, 24,000: GPU. This is why "more runs never
    # turn Trainium into GPU" only holds while the architecture stays the same.
    six = evaluate(replace(BASE, runs=6, runs_per_architecture=6))
    seven = evaluate(replace(BASE, runs=7, runs_per_architecture=6))
    assert six.total_difference == approx(6 * 2400 - 1 * 12000)
    assert seven.total_difference == approx(7 * 2400 - 2 * 12000)
    assert (six.verdict, seven.verdict) == ("trainium", "gpu")


def test_no_break_even_when_trainium_saves_nothing_per_run():
    # At half the GPU's throughput, Trainium takes 200 h at $20 = $4,000, the GPU's cost exactly.
    o = evaluate(replace(BASE, relative_throughput=point(0.5)))
    assert o.saving_per_run == approx(40 * 100 - 20 * 100 / 0.5)  # 0
    assert o.break_even_runs is None
    dearer = evaluate(replace(BASE, relative_throughput=point(0.4)))
    assert dearer.saving_per_run == approx(40 * 100 - 20 * 100 / 0.4)  # -1,000
    assert dearer.saving_pct == approx(-1000 / 4000)
    assert dearer.break_even_runs is None
    assert dearer.verdict == "gpu"
    (cost,) = [s for s in dearer.trace if s.rule == "cost"]
    assert cost.code == "cost-no-saving"


def test_break_even_boundary_ties_go_to_the_gpu():
    # Break-even is exactly 5 runs: at 5 runs both plans cost 12,000 + 5 * 1,600 = 5 * 4,000 = 20,000.
    at = evaluate(replace(BASE, runs=5))
    assert at.gpu.total == approx(5 * 4000) and at.trainium.total == approx(12000 + 5 * 1600)
    assert at.verdict == "gpu"  # a tie is not a saving: no reason to port
    assert evaluate(replace(BASE, runs=6)).verdict == "trainium"
    assert evaluate(replace(BASE, runs=4)).verdict == "gpu"


# --- through resolve: FLOPs-based hours, port weeks, prices --------------------------------------


def workload(**changes) -> Workload:
    data = {
        "name": "w",
        "architecture": "mainstream",
        "run_size": {"gpu_instance_hours": 100.0},
        "runs": 10,
        "trainium": {"instance": "trn2.48xlarge", "region": "us-east-2"},
        "gpu": {"instance": "p5.48xlarge", "region": "us-east-1"},
        "relative_throughput": {"value": 1.0, "low": 0.8, "high": 1.2},
    }
    data.update(changes)
    return Workload.model_validate(data)


def test_the_frozen_figures_the_hand_computations_use(catalog):
    c = catalog
    # The figures the hand computations below use; if data/ changes them, update the tests.
    assert c.instances["p5.48xlarge"].chips.value == 8
    assert c.peak_tflops("p5.48xlarge", "bf16") == 989
    assert c.peak_tflops("p5.48xlarge", "fp8") == 1979
    assert c.instances["p4d.24xlarge"].chips.value == 8
    assert c.chips["a100-40gb"].bf16_tflops.value == 312 and c.chips["a100-40gb"].fp8_tflops is None
    a = c.assumptions
    assert (a.porting_classes["mainstream"].weeks.value, a.porting_classes["mainstream"].weeks.low,
            a.porting_classes["mainstream"].weeks.high) == (2, 1, 3)
    assert (a.porting_classes["heavy-custom-cuda"].weeks.value, a.porting_classes["heavy-custom-cuda"].weeks.low,
            a.porting_classes["heavy-custom-cuda"].weeks.high) == (8, 4, 12)
    mc = a.porting_classes["moderate-custom"].weeks
    assert (mc.value, mc.low, mc.high) == (5, 3, 8)
    cw = a.constraints["custom-cuda-kernels"].weeks
    assert (cw.value, cw.low, cw.high) == (6, 4, 12)
    assert {k: e.value for k, e in a.neuron_experience.items()} == {"none": 1.5, "some": 1.25, "experienced": 1.0}
    assert a.engineer_week_usd.value == 6000
    ir, lost = a.spot_interruptions_per_instance_hour, a.spot_hours_lost_per_interruption
    assert (ir.value, ir.low, ir.high) == (0.0005, 0.0001, 0.002) and (lost.value, lost.low, lost.high) == (1.5, 0.5, 4)


def test_flops_based_gpu_hours(catalog):
    # 8B parameters, 2T tokens, MFU 0.35 on eight H100s (989 dense BF16 TFLOPS each).
    w = workload(run_size={"params_billion": 8.0, "tokens_billion": 2000.0, "mfu": 0.35})
    expected = 6 * 8e9 * 2000e9 / (8 * 989e12 * 0.35) / 3600
    assert gpu_instance_hours(w, catalog) == approx(expected)
    assert resolve(w, catalog).inputs.gpu_hours == approx(expected)  # about 9,630 instance-hours
    assert 9600 < expected < 9700


def test_flops_based_hours_at_fp8_and_on_a_chip_without_fp8(catalog):
    fp8 = workload(run_size={"params_billion": 8.0, "tokens_billion": 2000.0, "mfu": 0.35, "precision": "fp8"})
    assert gpu_instance_hours(fp8, catalog) == approx(6 * 8e9 * 2000e9 / (8 * 1979e12 * 0.35) / 3600)
    # A100 has no FP8: MFU is then measured against its BF16 peak.
    a100 = workload(
        gpu={"instance": "p4d.24xlarge", "region": "us-east-1"},
        run_size={"params_billion": 7.0, "tokens_billion": 100.0, "mfu": 0.5, "precision": "fp8"},
    )
    assert gpu_instance_hours(a100, catalog) == approx(6 * 7e9 * 100e9 / (8 * 312e12 * 0.5) / 3600)


def test_measured_hours_are_used_as_given(catalog):
    assert gpu_instance_hours(workload(run_size={"gpu_instance_hours": 192.0}), catalog) == 192.0


def test_port_weeks_from_class_experience_and_constraints(catalog):
    # A team new to Neuron (the default) takes half as long again as the class's routine port.
    assert port_weeks(workload(), catalog) == Span(2 * 1.5, 1 * 1.5, 3 * 1.5)
    assert port_weeks(workload(neuron_experience="some"), catalog) == Span(2 * 1.25, 1 * 1.25, 3 * 1.25)
    heavy = workload(architecture="heavy-custom-cuda", constraints=["custom-cuda-kernels"], neuron_experience="experienced")
    # The heavy-custom-cuda class already counts its custom kernels: the constraint adds nothing more.
    assert port_weeks(heavy, catalog) == Span(8, 4, 12)
    moderate = workload(architecture="moderate-custom", constraints=["custom-cuda-kernels"], neuron_experience="some")
    # As a list 5 + 6 weeks; the heavy class that includes custom kernels takes 8 (4-12), so no more.
    assert port_weeks(moderate, catalog) == Span(8 * 1.25, 4 * 1.25, 12 * 1.25)
    # A team's own estimate is the whole port: no class default, no experience multiplier.
    own = workload(porting={"weeks": {"value": 2, "low": 1.5, "high": 3}}, neuron_experience="none")
    assert port_weeks(own, catalog) == Span(2, 1.5, 3)


def test_a_class_plus_constraints_never_exceeds_a_heavier_class_that_includes_them(catalog):
    import itertools

    a = catalog.assumptions
    classes = list(a.porting_classes)
    adding = [n for n, c in a.constraints.items() if c.weeks is not None]
    subsets = [list(s) for k in range(len(adding) + 1) for s in itertools.combinations(adding, k)]
    for i, light in enumerate(classes):
        for constraints in subsets:
            w = port_weeks(workload(architecture=light, constraints=constraints, neuron_experience="experienced"), catalog)
            for heavy in classes[i + 1:]:
                h = port_weeks(workload(architecture=heavy, constraints=constraints, neuron_experience="experienced"), catalog)
                assert w.low <= h.low and w.value <= h.value and w.high <= h.high
                if set(constraints) <= set(a.porting_classes[heavy].includes):
                    weeks = a.porting_classes[heavy].weeks
                    assert w.low <= weeks.low and w.value <= weeks.value and w.high <= weeks.high


def test_resolve_prices_options_and_overrides(catalog):
    x = resolve(workload(
        trainium={"instance": "trn1.32xlarge", "region": "us-east-1", "option": "spot", "count": 16},
        gpu={"instance": "p5.48xlarge", "region": "us-east-1", "option": "spot", "count": 4},
        porting={"engineer_week_usd": 9000, "extra_usd": 2500},
        constraints=["tensorflow", "dynamic-shapes"],
        availability={"gpu": "constrained", "needed_within_days": 10},
    ), catalog).inputs
    p_trn = catalog.price("trn1.32xlarge", "us-east-1", "spot")
    p_gpu = catalog.price("p5.48xlarge", "us-east-1", "spot")
    assert x.trainium_price == Span(p_trn.usd_per_hour, p_trn.low, p_trn.high)
    assert x.gpu_price == Span(p_gpu.usd_per_hour, p_gpu.low, p_gpu.high)
    assert x.trainium_spot and x.gpu_spot
    assert x.interruption_rate == Span(0.0005, 0.0001, 0.002) and x.lost_hours == Span(1.5, 0.5, 4)
    assert (x.trainium_count, x.gpu_count) == (16, 4)
    assert (x.engineer_week_usd, x.port_extra_usd) == (9000, 2500)
    assert x.excluded_by == ("tensorflow",)  # dynamic-shapes adds weeks, it does not exclude
    assert x.port_weeks == Span((2 + 3) * 1.5, (1 + 2) * 1.5, (3 + 6) * 1.5)  # new to Neuron by default
    assert (x.gpu_availability, x.trainium_availability, x.needed_within_days) == ("constrained", "available", 10)


def test_an_unranged_price_resolves_to_a_point(catalog):
    x = resolve(workload(), catalog).inputs
    p = catalog.price("p5.48xlarge", "us-east-1", "on-demand")
    assert p.low is None and x.gpu_price == point(p.usd_per_hour)


# --- thresholds -----------------------------------------------------------------------------------


def test_thresholds_base_example():
    t = thresholds(BASE)
    # Relative throughput r at which 12,000 + 10 * 20 * 100 / r = 40,000: r = 20,000 / 28,000.
    assert t.relative_throughput == approx(10 * 20 * 100 / (40000 - 12000))
    # Runs: the break-even, 12,000 / 2,400 = 5.
    assert t.runs == approx(12000 / (4000 - 1600))
    # Port weeks w at which w * 6,000 + 16,000 = 40,000: w = 24,000 / 6,000 = 4.
    assert t.port_weeks == approx((40000 - 10 * 1600) / 6000)
    # Trainium price p at which 12,000 + 10 * p * 80 = 40,000: p = 28,000 / 800 = 35.
    assert t.trainium_price == approx((40000 - 12000) * 1.25 / (10 * 100))


@pytest.mark.parametrize("name", ["relative_throughput", "port_weeks", "trainium_price"])
def test_each_threshold_is_where_both_plans_cost_the_same(name):
    t = thresholds(BASE)
    v = getattr(t, name)
    o = evaluate(replace(BASE, **{name: point(v)}))
    assert o.total_difference == pytest.approx(0, abs=1e-6)


def test_spot_counts_interruptions_of_redone_work_and_is_infeasible_at_a_load_of_one():
    # 8 instances x 0.0125 x 1 h = 0.1 hours lost each hour: first order would say 1.1 times the
    # hours; with redone hours interrupted too it is 1 / (1 - 0.1) = 1.111.
    o = evaluate(replace(BASE, gpu_spot=True))
    assert o.gpu.spot_overhead == approx(1 / 0.9 - 1)
    # At 0.125 interruptions an instance-hour the load is 8 x 0.125 x 1 = 1: no end in expectation.
    out = evaluate(replace(BASE, gpu_spot=True, interruption_rate=Span(0.125, 0.00625, 0.125), trainium_price=point(400.0)))
    assert not out.gpu.feasible and out.gpu.reasons == (("spot-cannot-finish", None),)
    assert out.verdict == "trainium" and out.decided_by == "feasibility"
    assert thresholds(replace(BASE, gpu_spot=True, interruption_rate=Span(0.125, 0.00625, 0.125))).relative_throughput is None
    # Just under a load of 1 the run is very long but finite and priced.
    near = evaluate(replace(BASE, gpu_spot=True, interruption_rate=Span(0.12, 0.00625, 0.125)))
    assert near.gpu.feasible and near.gpu.hours_per_run == approx(100 / (1 - 0.96))


def test_thresholds_with_spot_extra_cost_and_several_ports():
    x = replace(BASE, trainium_spot=True, port_extra_usd=3000.0, runs=12, runs_per_architecture=6)
    # 2 ports of 2 * 6,000 + 3,000 = 15,000; Trainium runs 80 / (1 - 0.1) = 88.9 h at $20 = $1,777.78.
    t = thresholds(x)
    assert t.relative_throughput == approx(20 * 12 * 100 / 0.9 / (12 * 4000 - 2 * 15000))
    assert t.trainium_price == approx((12 * 4000 - 2 * 15000) * 1.25 / (12 * 100 / 0.9))
    assert t.port_weeks == approx(((12 * 4000 - 12 * 20 * 80 / 0.9) / 2 - 3000) / 6000)
    # Break-even 15,000 / (4,000 - 1,777.78) = 6.75 runs is more than the 6 runs an architecture lasts.
    assert t.runs is None


def test_runs_threshold_when_each_architecture_repays_its_port():
    t = thresholds(replace(BASE, runs_per_architecture=6))
    # One port is repaid in 12,000 / 2,400 = 5 runs, but the next port comes at run 7: only from
    # run 26 (after 4 architectures netting 2,400 each) is every longer plan cheaper on Trainium.
    assert t.runs == 26
    assert t.break_even is not None and (t.break_even.kind, t.break_even.first, t.break_even.first_for_good) == ("from", 6, 26)


def test_no_throughput_or_price_threshold_when_the_port_alone_outweighs_the_gpu_plan():
    # One run: the GPU plan costs 4,000, the port alone 12,000; no throughput or price repays it.
    t = thresholds(replace(BASE, runs=1))
    assert t.relative_throughput is None and t.trainium_price is None
    # A shorter port still can: (4,000 - 1,600) / 6,000 = 0.4 weeks.
    assert t.port_weeks == approx((4000 - 1600) / 6000)


def test_no_port_or_runs_threshold_when_trainium_runs_cost_more():
    dearer = thresholds(replace(BASE, relative_throughput=point(0.4)))  # 250 h at $20 = $5,000 > $4,000
    assert dearer.port_weeks is None and dearer.runs is None
    # Throughput and price thresholds still exist: 10 * 20 * 100 / 28,000 and 28,000 * 0.4 / 1,000.
    assert dearer.relative_throughput == approx(10 * 20 * 100 / (40000 - 12000))
    assert dearer.trainium_price == approx((40000 - 12000) * 0.4 / (10 * 100))


# --- robustness over ranges -----------------------------------------------------------------------


def test_robustness_evaluates_both_ends_of_every_range():
    r = robustness(BASE)
    # Prices are points and no side buys spot, so only throughput and port effort are ranges.
    ends = {(e.input, e.end): (e.value, e.verdict, e.total_difference) for e in r.ends}
    assert set(ends) == {("relative_throughput", "low"), ("relative_throughput", "high"),
                         ("port_weeks", "low"), ("port_weeks", "high")}
    assert ends[("relative_throughput", "low")][0] == 1.0
    assert ends[("relative_throughput", "low")][2] == approx(40000 - (12000 + 10 * 20 * 100 / 1.0))  # 8,000
    assert ends[("relative_throughput", "high")][2] == approx(40000 - (12000 + 10 * 20 * 100 / 1.5))
    assert ends[("port_weeks", "low")][2] == approx(40000 - (1 * 6000 + 16000))  # 18,000
    assert ends[("port_weeks", "high")][2] == approx(40000 - (3 * 6000 + 16000))  # 6,000
    assert all(v[1] == "trainium" for v in ends.values())
    assert r.holds and r.flips_on == ()
    # Worst case: throughput 1.0 and 3 weeks together; best case: 1.5 and 1 week.
    assert r.worst_case.total_difference == approx(40000 - (3 * 6000 + 10 * 20 * 100 / 1.0))  # 2,000
    assert r.best_case.total_difference == approx(40000 - (1 * 6000 + 10 * 20 * 100 / 1.5))
    assert (r.worst_case.verdict, r.best_case.verdict) == ("trainium", "trainium")


def test_robustness_names_the_range_that_flips_the_verdict():
    # At throughput 0.5 Trainium saves nothing per run, so the port is never repaid.
    r = robustness(replace(BASE, relative_throughput=Span(1.25, 0.5, 1.5)))
    assert not r.holds
    assert r.flips_on == ("relative_throughput",)
    low = [e for e in r.ends if e.input == "relative_throughput" and e.end == "low"][0]
    assert low.verdict == "gpu"
    assert low.total_difference == approx(40000 - (12000 + 10 * 20 * 100 / 0.5))  # -12,000


def test_robustness_catches_ranges_that_flip_only_together():
    # Each end alone keeps Trainium: 12,000 + 20,000 = 32,000 and 21,000 + 16,000 = 37,000 < 40,000.
    # Together: 3.5 * 6,000 + 10 * 20 * 100 / 1.0 = 41,000 > 40,000. Robust means no single input
    # flips it, so it holds, and the flip that needs several inputs at their worst is reported apart.
    x = replace(BASE, relative_throughput=Span(1.25, 1.0, 1.5), port_weeks=Span(2.0, 1.0, 3.5))
    r = robustness(x)
    assert r.flips_on == ()
    assert r.worst_case.verdict == "gpu"
    assert r.worst_case.total_difference == approx(40000 - (3.5 * 6000 + 10 * 20 * 100 / 1.0))
    assert r.holds and r.joint_flip


def test_prices_and_spot_inputs_are_ranged_only_where_they_apply():
    x = replace(BASE, gpu_spot=True, gpu_price=Span(40.0, 20.0, 60.0), trainium_price=Span(20.0, 15.0, 45.0))
    r = robustness(x)
    inputs = {e.input for e in r.ends}
    # lost_hours is a point in BASE; the interruption rate is a range.
    assert inputs == {"relative_throughput", "port_weeks", "trainium_price", "gpu_price", "interruption_rate"}
    ends = {(e.input, e.end): e for e in r.ends}
    # GPU on spot at its low price: 10 * 20 * 100 / (1 - 0.1) = 22,222 against 28,000 -> GPU.
    assert ends[("gpu_price", "low")].total_difference == approx(10 * 20 * 100 / 0.9 - 28000)
    assert ends[("gpu_price", "low")].verdict == "gpu"
    # Trainium at $45: 12,000 + 10 * 45 * 80 = 48,000 against 10 * 40 * 100 / 0.9 = 44,444 -> GPU.
    assert ends[("trainium_price", "high")].total_difference == approx(10 * 40 * 100 / 0.9 - (12000 + 10 * 45 * 80))
    # Interruptions at 0.025 an instance-hour: 8 * 0.025 * 1 = 0.2 lost an hour, GPU 10 * 40 * 100 / 0.8 = 50,000.
    assert ends[("interruption_rate", "high")].total_difference == approx(10 * 40 * 100 / 0.8 - 28000)
    assert set(r.flips_on) == {"trainium_price", "gpu_price"}
    # Worst case: throughput 1.0, 3 weeks, Trainium $45, GPU $20, and interruptions at their LOW end,
    # 0.05 lost an hour: only the GPU side is on spot, so fewer interruptions are what hurts Trainium.
    assert r.worst_case.total_difference == approx(10 * 20 * 100 / 0.95 - (3 * 6000 + 10 * 45 * 100))
    assert r.best_case.total_difference == approx(10 * 60 * 100 / 0.8 - (1 * 6000 + 10 * 15 * 100 / 1.5))
    # Without a spot side, the spot ranges do not count.
    assert "interruption_rate" not in {e.input for e in robustness(replace(x, gpu_spot=False)).ends}


# --- the rules of the trace -----------------------------------------------------------------------


def test_trace_of_a_cost_decision():
    o = evaluate(BASE)
    assert rules(o) == [("feasibility", None), ("cost", "trainium"), ("capacity", None)]
    cost = o.trace[1]
    assert cost.numbers["gpu_total"] == approx(40000)
    assert cost.numbers["trainium_total"] == approx(28000)
    assert cost.numbers["difference"] == approx(12000)
    assert cost.numbers["saving_per_run"] == approx(2400)
    assert cost.numbers["port_cost"] == approx(12000)
    assert cost.numbers["ports"] == 1
    assert cost.numbers["break_even_runs"] == approx(5)
    assert cost.numbers["runs"] == 10


def test_hard_constraint_rules_trainium_out_whatever_it_costs():
    o = evaluate(replace(BASE, excluded_by=("tensorflow", "multi-cloud"), gpu_price=point(400.0)))
    assert o.verdict == "gpu" and o.decided_by == "feasibility"
    assert rules(o) == [("feasibility", "gpu")]
    assert o.trace[0].code == "trainium-cannot-run"
    assert o.trace[0].numbers == {"trainium_reasons": (("ruled-out", ("tensorflow", "multi-cloud")),)}
    assert not o.trainium.feasible and o.gpu.feasible
    # The arithmetic is still reported beside the verdict.
    assert o.saving_per_run == approx(400 * 100 - 1600)


def test_availability_unavailable_side_is_out():
    no_trn = evaluate(replace(BASE, trainium_availability="unavailable"))
    assert no_trn.verdict == "gpu"
    assert rules(no_trn) == [("feasibility", "gpu")]
    # Even a dearer Trainium wins when the GPU cannot be had.
    no_gpu = evaluate(replace(BASE, gpu_availability="unavailable", trainium_price=point(100.0)))
    assert no_gpu.total_difference == approx(40000 - (12000 + 10 * 100 * 80))
    assert no_gpu.verdict == "trainium"
    assert rules(no_gpu) == [("feasibility", "trainium")]


def test_when_no_side_can_run_the_verdict_is_neither_with_every_reason():
    # Order does not decide: a constraint on Trainium and an unavailable GPU rule both out.
    o = evaluate(replace(BASE, excluded_by=("day-one-architectures",), gpu_availability="unavailable",
                         trainium_availability="unavailable"))
    assert o.verdict == "neither" and rules(o) == [("feasibility", "neither")]
    assert o.trainium.reasons == (("ruled-out", ("day-one-architectures",)), ("unavailable", None))
    assert o.gpu.reasons == (("unavailable", None),)
    assert o.trace[0].code == "neither-can-run"


# Close calls: Trainium at $30/h and throughput 1.0 costs 3,000 a run; over 10 runs 12,000 + 30,000
# = 42,000 against the GPU's 40,000: 5 % dearer, inside the 10 % margin.
CLOSE = replace(BASE, relative_throughput=Span(1.0, 0.8, 1.2), trainium_price=point(30.0))


def test_capacity_close_call_goes_to_trainium_when_gpus_are_constrained_and_needed_soon():
    x = replace(CLOSE, gpu_availability="constrained", needed_within_days=14)
    o = evaluate(x)
    assert o.trainium.total == approx(12000 + 10 * 30 * 100) and o.gpu.total == approx(40000)
    assert o.verdict == "trainium"
    assert rules(o) == [("feasibility", None), ("deadline", None), ("cost", "gpu"), ("capacity", "trainium")]
    cap = o.trace[-1]
    assert cap.numbers["ratio"] == approx(42000 / 40000)
    assert cap.numbers["margin"] == 0.10 and cap.numbers["needed_within_days"] == 14


@pytest.mark.parametrize(
    "change",
    [
        {"needed_within_days": None},  # not urgent
        {"needed_within_days": 31},  # later than soon_days (30)
        {"trainium_availability": "constrained"},  # both constrained: nothing to switch to
        {"gpu_availability": "available"},  # GPUs can be had
        {"trainium_price": point(34.0)},  # 12,000 + 34,000 = 46,000 > 40,000 * 1.1
    ],
)
def test_no_capacity_close_call_without_every_condition(change):
    x = replace(CLOSE, gpu_availability="constrained", needed_within_days=14)
    o = evaluate(replace(x, **change))
    assert o.verdict == "gpu"
    assert o.trace[-1].rule == "capacity" and o.trace[-1].verdict is None


def test_needed_within_exactly_soon_days_counts_as_soon():
    o = evaluate(replace(CLOSE, gpu_availability="constrained", needed_within_days=30))
    assert o.verdict == "trainium"


def test_capacity_close_call_goes_to_the_gpu_when_trainium_is_constrained_and_needed_soon():
    # Trainium at $28.5: 12,000 + 28,500 = 40,500 against GPU 42,000 (at $42): Trainium cheaper by 3.6 %.
    x = replace(CLOSE, trainium_price=point(28.5), gpu_price=point(42.0),
                trainium_availability="constrained", needed_within_days=7)
    o = evaluate(x)
    assert o.trainium.total == approx(12000 + 10 * 28.5 * 100) and o.gpu.total == approx(10 * 42 * 100)
    assert o.verdict == "gpu"
    assert rules(o) == [("feasibility", None), ("deadline", None), ("cost", "trainium"), ("capacity", "gpu")]
    assert o.trace[-1].numbers["ratio"] == approx(42000 / 40500)
    # Far outside the margin the cost verdict stands: Trainium 28,000 vs GPU 40,000 (43 % dearer).
    far = evaluate(replace(BASE, trainium_availability="constrained", needed_within_days=7))
    assert far.verdict == "trainium" and far.trace[-1].verdict is None


def test_the_last_deciding_step_is_the_verdict():
    for x in (BASE, replace(BASE, runs=1), replace(CLOSE, gpu_availability="constrained", needed_within_days=1)):
        o = evaluate(x)
        assert [s for s in o.trace if s.verdict is not None][-1].verdict == o.verdict


def test_changed_makes_what_dataclasses_replace_makes_and_refuses_a_field_the_class_lacks():
    x = BASE
    moved = engine.changed(x, relative_throughput=Span(2.0, 1.0, 3.0), runs=7)
    assert moved == replace(x, relative_throughput=Span(2.0, 1.0, 3.0), runs=7)
    assert (moved.runs, x.runs == 7) == (7, False)  # the original is left as it was
    with pytest.raises(TypeError, match="Inputs has no field runz"):
        engine.changed(x, runz=7)


def test_every_dataclass_of_the_engine_is_one_changed_may_copy():
    """`changed` copies an instance's attributes: valid only while no class computes a field in
    __post_init__, leaves one out of __init__, keeps slots or caches a property in the instance."""
    classes = [c for c in vars(engine).values() if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == engine.__name__]
    assert len(classes) >= 10
    for c in classes:
        assert "__post_init__" not in vars(c) and "__slots__" not in vars(c), c.__name__
        assert all(f.init for f in dataclasses.fields(c)), c.__name__
        assert not any(isinstance(v, functools.cached_property) for v in vars(c).values()), c.__name__
