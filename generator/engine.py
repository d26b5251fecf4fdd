"""The decision engine: pure arithmetic and rules over resolved numbers. No I/O, no lookups.

`evaluate` is the whole decision for one workload. It works on `Inputs`, a flat record of numbers,
so that the calculator's JavaScript port can mirror it line for line; `generator.resolve` turns a
scenario plus the catalog into `Inputs`. Keep the order of floating-point operations here and in
the JavaScript module the same: the parity test compares them to 1e-9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Literal

Verdict = Literal["trainium", "gpu"]

# Range-carrying inputs, each with the end that favours Trainium less ("against") and more ("for").
RANGE_INPUTS: dict[str, tuple[str, str]] = {
    "relative_throughput": ("low", "high"),
    "port_weeks": ("high", "low"),
    "trainium_price": ("high", "low"),
    "gpu_price": ("low", "high"),
    "spot_overhead": ("high", "low"),
}
RANGE_LABELS = {
    "relative_throughput": "relative throughput",
    "port_weeks": "port effort",
    "trainium_price": "Trainium price",
    "gpu_price": "GPU price",
    "spot_overhead": "spot interruption overhead",
}


@dataclass(frozen=True)
class Span:
    value: float
    low: float
    high: float

    def at(self, end: str) -> float:
        return {"value": self.value, "low": self.low, "high": self.high}[end]

    @property
    def is_range(self) -> bool:
        return self.low != self.high


@dataclass(frozen=True)
class Inputs:
    gpu_hours: float  # instance-hours of one run on the GPU option, before any spot overhead
    relative_throughput: Span  # Trainium instance throughput / GPU instance throughput
    trainium_price: Span  # USD per instance-hour
    gpu_price: Span
    trainium_spot: bool
    gpu_spot: bool
    spot_overhead: Span  # fraction of extra hours lost to interruptions on spot
    port_weeks: Span  # engineer-weeks for one port, after team experience and constraints
    engineer_week_usd: float
    port_extra_usd: float
    runs: int
    runs_per_architecture: int | None  # None: the architecture does not change during the plan
    trainium_count: int
    gpu_count: int
    trainium_availability: str
    gpu_availability: str
    needed_within_days: int | None
    soon_days: float
    close_call_margin: float
    excluded_by: tuple[str, ...] = ()

    def at(self, name: str, end: str) -> Inputs:
        """These inputs with one ranged input moved to one end of its range."""
        span: Span = getattr(self, name)
        v = span.at(end)
        return replace(self, **{name: Span(v, span.low, span.high)})


@dataclass(frozen=True)
class Step:
    rule: str
    verdict: Verdict | None  # None: the rule was checked and did not decide
    text: str
    numbers: dict[str, float | int | str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Side:
    hours_per_run: float
    usd_per_hour: float
    cost_per_run: float
    wall_clock_hours: float
    total: float


@dataclass(frozen=True)
class Outcome:
    trainium: Side
    gpu: Side
    saving_per_run: float
    saving_pct: float  # price-performance advantage: 1 - trainium cost / gpu cost per run
    port_cost: float
    ports: int
    break_even_runs: float | None
    total_difference: float  # gpu total - trainium total; positive means Trainium is cheaper
    verdict: Verdict
    trace: tuple[Step, ...]


def ports_needed(runs: int, runs_per_architecture: int | None) -> int:
    if runs_per_architecture is None:
        return 1
    return -(-runs // runs_per_architecture)


def evaluate(x: Inputs) -> Outcome:
    gpu_factor = 1 + x.spot_overhead.value if x.gpu_spot else 1.0
    trn_factor = 1 + x.spot_overhead.value if x.trainium_spot else 1.0
    gpu_hours = x.gpu_hours * gpu_factor
    trn_hours = x.gpu_hours / x.relative_throughput.value * trn_factor
    gpu_cost = x.gpu_price.value * gpu_hours
    trn_cost = x.trainium_price.value * trn_hours
    saving = gpu_cost - trn_cost
    port_cost = x.port_weeks.value * x.engineer_week_usd + x.port_extra_usd
    ports = ports_needed(x.runs, x.runs_per_architecture)
    gpu_total = x.runs * gpu_cost
    trn_total = ports * port_cost + x.runs * trn_cost
    difference = gpu_total - trn_total
    break_even = port_cost / saving if saving > 0 else None

    trace: list[Step] = []
    verdict = _decide(x, trace, gpu_total, trn_total, difference, saving, port_cost, ports, break_even)
    return Outcome(
        trainium=Side(trn_hours, x.trainium_price.value, trn_cost, trn_hours / x.trainium_count, trn_total),
        gpu=Side(gpu_hours, x.gpu_price.value, gpu_cost, gpu_hours / x.gpu_count, gpu_total),
        saving_per_run=saving,
        saving_pct=saving / gpu_cost,
        port_cost=port_cost,
        ports=ports,
        break_even_runs=break_even,
        total_difference=difference,
        verdict=verdict,
        trace=tuple(trace),
    )


def _decide(
    x: Inputs,
    trace: list[Step],
    gpu_total: float,
    trn_total: float,
    difference: float,
    saving: float,
    port_cost: float,
    ports: int,
    break_even: float | None,
) -> Verdict:
    if x.excluded_by:
        trace.append(Step("hard-constraint", "gpu", "A hard constraint rules Trainium out.", {"constraints": ", ".join(x.excluded_by)}))
        return "gpu"
    trace.append(Step("hard-constraint", None, "No hard constraint rules Trainium out.", {}))

    if x.trainium_availability == "unavailable":
        trace.append(Step("availability", "gpu", "Trainium cannot be had in the region and window needed.", {}))
        return "gpu"
    if x.gpu_availability == "unavailable":
        trace.append(Step("availability", "trainium", "The GPU option cannot be had in the region and window needed.", {}))
        return "trainium"
    trace.append(Step("availability", None, "Both options can be had.", {}))

    verdict: Verdict = "trainium" if trn_total < gpu_total else "gpu"
    numbers: dict[str, float | int | str | None] = {
        "gpu_total": gpu_total,
        "trainium_total": trn_total,
        "difference": difference,
        "saving_per_run": saving,
        "port_cost": port_cost,
        "ports": ports,
        "break_even_runs": break_even,
        "runs": x.runs,
    }
    if verdict == "trainium":
        text = "Over the plan, Trainium costs less, ports included."
    elif saving <= 0:
        text = "Trainium does not cost less per run, so no number of runs repays the port."
    else:
        text = "Over the plan, the per-run saving does not repay the port cost."
    trace.append(Step("cost", verdict, text, numbers))

    urgent = x.needed_within_days is not None and x.needed_within_days <= x.soon_days
    margin = x.close_call_margin
    if urgent and verdict == "gpu" and x.gpu_availability == "constrained" and x.trainium_availability == "available":
        if trn_total <= gpu_total * (1 + margin):
            trace.append(Step(
                "capacity", "trainium",
                "GPUs are constrained, the run is needed soon, and Trainium is within the close-call margin.",
                {"margin": margin, "needed_within_days": x.needed_within_days, "ratio": trn_total / gpu_total},
            ))
            return "trainium"
    elif urgent and verdict == "trainium" and x.trainium_availability == "constrained" and x.gpu_availability == "available":
        if gpu_total <= trn_total * (1 + margin):
            trace.append(Step(
                "capacity", "gpu",
                "Trainium is constrained, the run is needed soon, and the GPU is within the close-call margin.",
                {"margin": margin, "needed_within_days": x.needed_within_days, "ratio": gpu_total / trn_total},
            ))
            return "gpu"
    trace.append(Step("capacity", None, "Capacity does not change the cost verdict.", {"needed_within_days": x.needed_within_days}))
    return verdict


@dataclass(frozen=True)
class RangeEnd:
    input: str
    end: str
    value: float
    verdict: Verdict
    total_difference: float


@dataclass(frozen=True)
class Robustness:
    holds: bool
    flips_on: tuple[str, ...]
    ends: tuple[RangeEnd, ...]
    worst_case: RangeEnd  # every range at the end that favours Trainium least
    best_case: RangeEnd


def against_and_for(x: Inputs, name: str) -> tuple[str, str]:
    """The ends of a range that favour Trainium least and most, found by evaluating both: the
    direction of some inputs depends on the case (spot overhead helps Trainium when only the GPU
    side is on spot). Ties keep the usual direction."""
    low = evaluate(x.at(name, "low")).total_difference
    high = evaluate(x.at(name, "high")).total_difference
    if low == high:
        return RANGE_INPUTS[name]
    return ("low", "high") if low < high else ("high", "low")


def ranged_inputs(x: Inputs) -> list[str]:
    names = [n for n in RANGE_INPUTS if getattr(x, n).is_range]
    if not (x.trainium_spot or x.gpu_spot) and "spot_overhead" in names:
        names.remove("spot_overhead")
    return names


def robustness(x: Inputs, base: Outcome | None = None) -> Robustness:
    base = base or evaluate(x)
    ends: list[RangeEnd] = []
    flips: list[str] = []
    names = ranged_inputs(x)
    for name in names:
        for end in ("low", "high"):
            o = evaluate(x.at(name, end))
            ends.append(RangeEnd(name, end, getattr(x, name).at(end), o.verdict, o.total_difference))
            if o.verdict != base.verdict and name not in flips:
                flips.append(name)
    corners = []
    for side in (0, 1):
        y = x
        for name in names:
            y = y.at(name, against_and_for(x, name)[side])
        o = evaluate(y)
        corners.append(RangeEnd("all", ("against", "for")[side], math.nan, o.verdict, o.total_difference))
    holds = not flips and all(c.verdict == base.verdict for c in corners)
    return Robustness(holds, tuple(flips), tuple(ends), corners[0], corners[1])


@dataclass(frozen=True)
class Thresholds:
    """Values of one input, others held, at which both sides cost the same over the plan."""

    relative_throughput: float | None
    runs: float | None
    port_weeks: float | None
    trainium_price: float | None


def thresholds(x: Inputs, o: Outcome | None = None) -> Thresholds:
    o = o or evaluate(x)
    trn_factor = 1 + x.spot_overhead.value if x.trainium_spot else 1.0
    gpu_total = o.gpu.total
    fixed = o.ports * o.port_cost
    headroom = gpu_total - fixed
    trn_hours_at_parity = x.runs * x.gpu_hours * trn_factor
    rel = x.trainium_price.value * trn_hours_at_parity / headroom if headroom > 0 else None
    price = headroom * x.relative_throughput.value / trn_hours_at_parity if headroom > 0 else None
    per_port = (gpu_total - x.runs * o.trainium.cost_per_run) / o.ports - x.port_extra_usd
    weeks = per_port / x.engineer_week_usd if per_port > 0 else None
    runs = o.break_even_runs
    if runs is not None and x.runs_per_architecture is not None and runs > x.runs_per_architecture:
        # Each architecture is retired before its port is repaid: no plan length makes Trainium cheaper.
        runs = None
    return Thresholds(rel, runs, weeks, price)


@dataclass(frozen=True)
class CurvePoint:
    runs: int
    gpu: float  # cumulative cost of the GPU side after `runs` runs
    trainium: float  # the same for Trainium, ports included


@dataclass(frozen=True)
class CostCurve:
    rows: tuple[CurvePoint, ...]
    crossing: float | None  # runs at which Trainium's cumulative cost first meets the GPU's; None: never in view


def cost_curve(x: Inputs, o: Outcome) -> CostCurve:
    """Cumulative cost of both sides against runs, from none to past the plan and the break-even,
    at about a hundred points. A new architecture every `runs_per_architecture` runs adds a port."""
    horizon = max(x.runs, 2)
    if o.break_even_runs is not None:
        horizon = max(horizon, math.floor(o.break_even_runs * 1.5) + 1)
    horizon = max(min(horizon, 400), x.runs)
    step = max(1, horizon // 100)
    counts = list(range(0, horizon + 1, step))
    if counts[-1] != horizon:
        counts.append(horizon)
    rows = []
    for n in counts:
        ports = 0 if n == 0 else ports_needed(n, x.runs_per_architecture)
        rows.append(CurvePoint(n, n * o.gpu.cost_per_run, ports * o.port_cost + n * o.trainium.cost_per_run))
    crossing = o.break_even_runs
    if crossing is not None and (crossing > horizon or (x.runs_per_architecture is not None and crossing > x.runs_per_architecture)):
        # An architecture retired before its port is repaid starts the next port: the lines never meet.
        crossing = None
    return CostCurve(tuple(rows), crossing)
