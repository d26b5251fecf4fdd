"""The break-even statement over plan lengths against the totals themselves, plan length by plan length.

`break_even` solves for which plan lengths Trainium costs less without visiting them one by one;
here every plan length from 1 to 10,000 runs, and a sample up to the longest plan the schema allows,
is priced with `plan_totals` and compared with the statement. Brute force lives here only.

Hand-written cases, with the arithmetic beside them, pin the edges: an exact tie where a term ends,
a held reservation running out mid-plan, a port before every run, and long-run lines that run
parallel (sigma 0), whose sign never settles.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from core_support import point, run_js_on_inputs

from generator.model.engine import MAX_PLAN_RUNS, BreakEven, Inputs, Way, _trend, break_even, evaluate, plan_totals
from generator.model.results import plain

EVERY_LENGTH_TO = 10_000  # every plan length up to here is priced; beyond, a sample


def ahead(x: Inputs, n: int) -> bool:
    o = evaluate(x)
    gpu, trn = plan_totals(x, n, o)
    return trn < gpu


def disagreements(x: Inputs, b: BreakEven, lengths: list[int]) -> list[int]:
    """The plan lengths at which the statement and the totals disagree (exact ties go to the GPU)."""
    o = evaluate(x)
    wrong = []
    for n in lengths:
        gpu, trn = plan_totals(x, n, o)
        is_ahead = trn < gpu
        if b.kind == "never":
            said = False
        elif b.kind == "from":
            assert b.first is not None and b.first_for_good is not None
            if n >= b.first_for_good or n == b.first:
                said = True
            elif n < b.first or n == b.first_for_good - 1:
                said = False
            else:
                continue  # between the first plan ahead and the point from which all are, either may hold
        else:
            assert b.kind == "between" and b.first is not None and b.last is not None
            if n in (b.first, b.last):
                said = True
            elif n < b.first or n > b.last:
                said = False
            else:
                continue
        if said != is_ahead:
            wrong.append(n)
    return wrong


def lengths(rng: random.Random, b: BreakEven) -> list[int]:
    """Every plan length to EVERY_LENGTH_TO, the statement's own numbers and their neighbours, and a sample
    to the longest plan the schema allows."""
    named = {int(v) + d for v in (b.first, b.last, b.first_for_good) if v is not None for d in (-1, 0, 1)}
    sample = {rng.randint(EVERY_LENGTH_TO + 1, MAX_PLAN_RUNS) for _ in range(300)} | {MAX_PLAN_RUNS}
    return sorted(set(range(1, EVERY_LENGTH_TO + 1)) | {n for n in named if 1 <= n <= MAX_PLAN_RUNS} | sample)


# --- generated cases ----------------------------------------------------------------------------

TERMS = (None, 8760.0, 26280.0)


def generated(rng: random.Random) -> Inputs:
    """Cost decides; at least one side committed, often both; held hours (with an hourly way beyond
    them or not), plans spread over months, ports every k runs; and half the time Trainium priced so
    that both plans cost about the same at the plan's own length, where the sign changes."""
    trn_term, gpu_term = rng.choice(TERMS), rng.choice(TERMS)
    if trn_term is None and gpu_term is None:
        gpu_term = 8760.0
    round_numbers = rng.random() < 0.3  # ties in exact arithmetic come from round numbers

    def number(lo: float, hi: float) -> float:
        if round_numbers:
            return float(rng.choice([1, 2, 3, 4, 5, 8, 10, 12, 20, 24, 40, 50, 100, 120, 500, 1000]))
        return math.exp(rng.uniform(math.log(lo), math.log(hi)))

    def held(term: float | None) -> float:
        return 0.0 if term is None else rng.choice([0.0, 0.0, 4380.0, term, rng.uniform(0, 30_000)])

    def ways(price: float, term: float | None) -> tuple[Way, ...]:
        if rng.random() < 0.3:
            return ()
        return (Way("on-demand", price * rng.choice([1.0, 1.5, 3.0, number(1, 5)])), Way("commit", price, term))

    trn_price, gpu_price = number(1, 100), number(1, 100)
    x = Inputs(
        gpu_hours=number(0.5, 50_000) if rng.random() < 0.85 else number(1e4, 5e6),
        relative_throughput=point(rng.choice([1.0, 0.5, 2.0, 1.25, number(0.3, 3)])),
        trainium_price=point(trn_price), gpu_price=point(gpu_price), trainium_spot=False, gpu_spot=False,
        interruption_rate=point(0.001), lost_hours=point(1.0), port_weeks=point(number(0.1, 40)),
        engineer_week_usd=number(100, 20_000), port_extra_usd=rng.choice([0.0, number(1, 50_000)]),
        runs=rng.choice([1, 5, 10, 100, 1000, rng.randint(1, 5000)]),
        runs_per_architecture=rng.choice([None, None, 1, 2, 3, 7, 50, rng.randint(1, 500)]),
        trainium_count=rng.choice([1, 2, 4, 8, 64]), gpu_count=rng.choice([1, 2, 4, 8, 64]),
        trainium_availability="available", gpu_availability="available", needed_within_days=None, soon_days=30,
        close_call_margin=0.1, trainium_term_hours=trn_term, gpu_term_hours=gpu_term,
        trainium_held_hours=held(trn_term), gpu_held_hours=held(gpu_term),
        plan_hours=rng.choice([None, None, 8760.0, 26280.0, 730.0 * rng.uniform(0.5, 120)]),
        trainium_ways=ways(trn_price, trn_term), gpu_ways=ways(gpu_price, gpu_term),
    )
    o = evaluate(x)
    headroom = o.gpu.total - o.ports * o.port_cost
    if rng.random() < 0.5 and o.trainium.compute_total > 0 and headroom > 0:
        f = headroom / o.trainium.compute_total * rng.choice([1.0, 1.0, 0.999, 1.001, rng.uniform(0.5, 1.5)])
        x = replace(x, trainium_price=point(trn_price * f),
                    trainium_ways=tuple(Way(w.option, w.usd_per_hour * f, w.term_hours) for w in x.trainium_ways))
    return x


CASES = 60


@pytest.mark.slow  # 60 cases, each priced at 10,300 plan lengths
def test_the_statement_agrees_with_the_totals_at_every_plan_length():
    rng = random.Random(20261125)
    kinds: dict[str, int] = {}
    problems = []
    for i in range(CASES):
        x = generated(rng)
        b = break_even(x, evaluate(x))
        kinds[b.kind] = kinds.get(b.kind, 0) + 1
        wrong = disagreements(x, b, lengths(rng, b))
        if wrong:
            problems.append(f"case {i}: {b} disagrees at {wrong[:5]}: {x!r}")
    assert not problems, "\n".join(problems[:5])
    # Every kind of statement came up, so none is checked only in name.
    assert set(kinds) == {"from", "between", "never"}, kinds


@pytest.mark.slow  # Node solves the 60 generated cases, some with long stretches where the sign flips
def test_both_engines_give_the_same_statement_on_the_generated_cases():
    rng = random.Random(20261125)
    xs, statements = [], []
    for _ in range(CASES):
        xs.append(generated(rng))
        statements.append(break_even(xs[-1], evaluate(xs[-1])))
        lengths(rng, statements[-1])  # the same draws as the test above
    js = run_js_on_inputs(xs)
    wrong = [i for i, (b, r) in enumerate(zip(statements, js, strict=True)) if r["thresholds"]["break_even"] != plain(b)]
    assert wrong == []


# --- hand-written edges --------------------------------------------------------------------------

# One GPU on a one-year commitment at $1 an hour; each run spans 876 hours, so a term holds 10 runs and
# costs $8,760. Trainium by the hour at $0.50 for the same 876 hours: $438 a run. The GPU accepts only its
# commitment (`buy: []`): whole terms, nothing by the hour.
EDGE = Inputs(
    gpu_hours=876.0, relative_throughput=point(1.0), trainium_price=point(0.5), gpu_price=point(1.0),
    trainium_spot=False, gpu_spot=False, interruption_rate=point(0.001), lost_hours=point(1.0),
    port_weeks=point(1.0), engineer_week_usd=4380.0, port_extra_usd=0.0, runs=10, runs_per_architecture=None,
    trainium_count=1, gpu_count=1, trainium_availability="available", gpu_availability="available",
    needed_within_days=None, soon_days=30, close_call_margin=0.1, gpu_term_hours=8760.0,
    gpu_ways=(Way("on-demand", 2.0), Way("commit-1y", 1.0, 8760.0)), gpu_accepts=("commit-1y",),
)

# Exact tie where a term ends: GPU 8,760 x ceil(n/10), Trainium 4,380 + 438 n. Ahead for n = 1..9
# (8,760 > 4,380 + 438 x 9 = 8,322); at n = 10 both are 8,760, and a tie goes to the GPU; from 11 on
# the GPU pays for a second term and at every n = 10m Trainium leads by 4,380 (m - 1) >= 0, > 0 past 10.
TIE_AT_TERM_END = EDGE

# A held year on the GPU runs out after 10 runs: nothing more to pay up to there. Past it the GPU also
# accepts on demand at $2 (1,752 a run): at n = 10m + r (r = 1..10, m >= 1) it buys m - 1 whole terms and
# the last r runs by the hour while that costs less than one more term, so G = 8,760 (m - 1) +
# min(1,752 r, 8,760). Trainium T = 4,380 + 438 n = 4,380 + 4,380 m + 438 r, and
# G - T = 4,380 (m - 3) + min(1,752 r, 8,760) - 438 r. At m = 1 (n = 11-20) that is at most -4,380: behind.
# At m = 2, 1,314 r - 4,380 for r <= 5: behind at 21-23, ahead from 24; then 4,380 - 438 r, ahead at 26-29
# and a tie at 30 (17,520 each), which goes to the GPU. From m = 3 (n = 31) on, at least 1,314 r > 0.
HELD_RUNS_OUT = replace(EDGE, gpu_held_hours=8760.0, gpu_accepts=("commit-1y", "on-demand"))

# A port before every run (k = 1), at $500: Trainium 938 n against the GPU's 8,760 x ceil(n/10). At the
# first run of term m + 1 (n = 10m + 1) Trainium leads by 7,822 - 620 m, so for m up to 12; at the
# first run of the thirteenth term, n = 121, by 1,320 - 938 = 382; never after.
PORT_EVERY_RUN = replace(EDGE, runs_per_architecture=1, engineer_week_usd=500.0)

# Both sides on the same one-year terms at the same $876 a run, Trainium holding half a year, one port of
# $4,380: the long-run lines are parallel (sigma 0). In every 10 runs the GPU has bought one term more
# than Trainium for the first 5 and as many for the last 5, so Trainium leads by 4,380 at n mod 10 in
# 1..5 and trails by 4,380 otherwise, at every plan length: solved to the longest plan the schema allows.
PARALLEL = replace(EDGE, trainium_price=point(1.0), trainium_term_hours=8760.0, trainium_held_hours=4380.0,
                   trainium_ways=(Way("commit-1y", 1.0, 8760.0),), gpu_ways=(Way("commit-1y", 1.0, 8760.0),))

EDGES = [
    (TIE_AT_TERM_END, BreakEven("from", 1.0, None, 11.0)),
    (HELD_RUNS_OUT, BreakEven("from", 24.0, None, 31.0)),
    (PORT_EVERY_RUN, BreakEven("between", 1.0, 121.0, None)),
    (PARALLEL, BreakEven("between", 1.0, 999_995.0, None)),
]


@pytest.mark.parametrize(("x", "expected"), EDGES, ids=["tie-at-term-end", "held-runs-out", "port-every-run", "parallel"])
def test_hand_computed_edges(x: Inputs, expected: BreakEven):
    assert break_even(x, evaluate(x)) == expected


def test_the_edges_hold_as_the_arithmetic_says():
    # The ties and turns the statements rest on, priced directly.
    assert [ahead(TIE_AT_TERM_END, n) for n in (9, 10, 11)] == [True, False, True]
    assert plan_totals(TIE_AT_TERM_END, 10, evaluate(TIE_AT_TERM_END)) == (8760.0, 8760.0)
    assert [ahead(HELD_RUNS_OUT, n) for n in (10, 20, 23, 24, 29, 30, 31)] == [False, False, False, True, True, False, True]
    assert plan_totals(HELD_RUNS_OUT, 10, evaluate(HELD_RUNS_OUT))[0] == 0.0  # the held year is sunk
    assert [ahead(PORT_EVERY_RUN, n) for n in (111, 120, 121, 122, 131)] == [True, False, True, False, False]
    o = evaluate(PARALLEL)
    gpu_slope, _ = _trend(PARALLEL, o, "gpu")
    trn_slope, _ = _trend(PARALLEL, o, "trainium")
    assert gpu_slope - trn_slope == 0  # sigma: no port cycle, so the lines' gap never grows
    assert [ahead(PARALLEL, n) for n in (999_991, 999_995, 999_996, 1_000_000)] == [True, True, False, False]


@pytest.mark.slow  # each edge priced at 10,300 plan lengths
@pytest.mark.parametrize("x", [x for x, _ in EDGES], ids=["tie-at-term-end", "held-runs-out", "port-every-run", "parallel"])
def test_the_edges_agree_with_the_totals_at_every_plan_length(x: Inputs):
    b = break_even(x, evaluate(x))
    assert disagreements(x, b, lengths(random.Random(7), b)) == []


def test_both_engines_solve_the_edges_alike():
    js = run_js_on_inputs([x for x, _ in EDGES])
    for (x, expected), r in zip(EDGES, js, strict=True):
        assert r["thresholds"]["break_even"] == plain(expected)
        assert r["thresholds"]["break_even"] == plain(break_even(x, evaluate(x)))
