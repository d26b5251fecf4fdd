"""The decision engine: pure arithmetic and rules over resolved numbers. No I/O, no lookups.

`evaluate` is the whole decision for one workload. It works on `Inputs`, a flat record of numbers,
so that the calculator's JavaScript port can mirror it line for line; `generator.model.resolve` turns a
scenario plus the catalog into `Inputs`. Keep the order of floating-point operations here and in
the JavaScript module the same: the parity test compares them to 1e-9.

The one decision, as pure functions, in three steps: feasibility per side with every reason
(constraints, regions, availability, no accepted way that can run: spot that cannot finish, more
instances than Capacity Blocks hold; none feasible gives "neither"; the deadline, where the sooner
side wins when neither is on time); the cost of the whole plan over its calendar for every way to
buy in every region the workload lists, each side bought the cheapest way it accepts (`planned`: its
named way and its `buy:` list, on demand by default; held hours sunk, then the cheapest number of
whole terms and the rest by the hour; Capacity Blocks booked as whole days per run), the ways it
does not accept priced as advice; the cheaper feasible side. Robustness, thresholds (shown only
where they flip the verdict; under a Trainium commitment the throughput one found by halving, since
a committed total moves in steps) and break-even (solved, not searched: `break_even.py` does the
search over the totals the engine hands it) come from the same function; also the cost curve and
each plan's pace (calendar hours a run takes), which turns runs into time. No I/O, no lookups, no
words: each step and each reason a side cannot run is a code with its numbers (`STEP_CODES`,
`REASON_CODES`; `tests/test_engine_codes.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from generator.model import break_even as solver

Verdict = Literal["trainium", "gpu", "neither"]
# A threshold is shown only if the verdict differs this little either side of it.
THRESHOLD_PROBE = 1e-6
# The rules whose verdict the plan's costs decide; thresholds over runs mean something only there.
COST_RULES = ("cost", "capacity")
# What each step of the decision found, by the step's rule, and each reason a side cannot run, as codes
# with numbers: the engine says nothing in words (generator/model/wording.py turns these into sentences).
STEP_RULES: dict[str, tuple[str, ...]] = {
    "feasibility": ("both-can-run", "neither-can-run", "trainium-cannot-run", "gpu-cannot-run"),
    "deadline": ("trainium-late", "gpu-late", "trainium-finishes-late", "gpu-finishes-late", "both-on-time",
                 "both-late-same-day", "neither-on-time"),
    "cost": ("cost-trainium", "cost-committed", "cost-no-saving", "cost-no-architecture-repays", "cost-not-repaid"),
    "capacity": ("capacity-trainium", "capacity-gpu", "capacity-unchanged"),
}
STEP_CODES = frozenset(code for codes in STEP_RULES.values() for code in codes)
REASON_CODES = frozenset({"ruled-out", "not-offered", "unavailable", "spot-cannot-finish", "blocks-cannot-hold"})
# A reason with its detail: the constraints or regions it names, the instances blocks hold, or None.
Reason = tuple[str, Any]

# Range-carrying inputs, each with the end that favours Trainium less ("against") and more ("for").
RANGE_INPUTS: dict[str, tuple[str, str]] = {
    "relative_throughput": ("low", "high"),
    "port_weeks": ("high", "low"),
    "trainium_price": ("high", "low"),
    "gpu_price": ("low", "high"),
    "interruption_rate": ("high", "low"),
    "trainium_interruption_rate": ("high", "low"),
    "gpu_interruption_rate": ("low", "high"),
    "lost_hours": ("high", "low"),
    "port_engineers": ("low", "high"),
}
HOURS_PER_MONTH = 730.0  # 8,760 hours a year over 12 months
HOURS_PER_YEAR = 12 * HOURS_PER_MONTH
DAYS_PER_WEEK = 7.0
# The most runs a scenario may plan (generator.model.schema): break-even statements cover plans up to it.
MAX_PLAN_RUNS = 1_000_000
CURVE_MAX_HORIZON = 400
# The committed throughput threshold: doublings to bracket it (2^20, a millionth to a million times the
# case's value), then halvings of the bracket (2^-60 of its width: below any difference a page shows).
COMMITTED_BRACKET_STEPS = 20
COMMITTED_HALVINGS = 60


_D = TypeVar("_D")


def changed(obj: _D, **changes: Any) -> _D:
    """`dataclasses.replace` for this module's frozen dataclasses, without running `__init__` over
    every field again: a workload's verdict, robustness and thresholds derive some forty variants of
    its inputs, and replace took a third of the engine's time. It makes what replace makes while none
    of them has `__post_init__`, `init=False` fields, slots or cached properties (tests/test_engine.py
    checks each)."""
    unknown = changes.keys() - obj.__dataclass_fields__.keys()  # type: ignore[attr-defined]
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {', '.join(sorted(unknown))}")
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__, **changes)
    return new


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
class Way:
    """One way data/ prices a side's instance in a region: by the hour (term None) or a commitment.
    On spot, the interruption rate of the pool it buys (the instance's in that region): the Spot
    Instance Advisor's band where it rates the pool (rated), else the shared default."""

    option: str
    usd_per_hour: float
    term_hours: float | None = None
    region: str = ""
    interruption: Span | None = None
    rated: bool = False


# What robustness calls the reading in which no Capacity Block extension can be had (`single_blocks`).
EXTENSION = "block_extension"
# The ranged inputs that are spot pools' interruption rates, and the side whose pools each moves
# (None: every pool the Advisor does not rate, on both sides, which take the shared default).
POOL_INPUTS: dict[str, str | None] = {"interruption_rate": None, "trainium_interruption_rate": "trainium",
                                      "gpu_interruption_rate": "gpu"}


# Ways that are paid by the hour and not interrupted: what a plan buys beyond its commitment's terms.
HOURLY_OPTIONS = ("on-demand", "capacity-block")
HOURS_PER_DAY = 24.0


def constants() -> dict[str, Any]:
    """The constants this module computes with, as the calculator's data carries them
    (generator/rendering/calculator/data.py): engine.mjs `learn`s them and writes none of them again.
    RANGE_INPUTS is a list, not an object: the data is written with its keys sorted, and the order of
    the ranged inputs is the order a verdict's flips are named in."""
    return {
        "RANGE_INPUTS": [[name, *ends] for name, ends in RANGE_INPUTS.items()],
        "HOURS_PER_MONTH": HOURS_PER_MONTH, "HOURS_PER_YEAR": HOURS_PER_YEAR, "HOURS_PER_DAY": HOURS_PER_DAY,
        "DAYS_PER_WEEK": DAYS_PER_WEEK, "MAX_PLAN_RUNS": MAX_PLAN_RUNS, "CURVE_MAX_HORIZON": CURVE_MAX_HORIZON,
        "COMMITTED_BRACKET_STEPS": COMMITTED_BRACKET_STEPS, "COMMITTED_HALVINGS": COMMITTED_HALVINGS,
        "THRESHOLD_PROBE": THRESHOLD_PROBE, "COST_RULES": list(COST_RULES), "HOURLY_OPTIONS": list(HOURLY_OPTIONS),
        "POOL_INPUTS": POOL_INPUTS, "EXTENSION": EXTENSION,
    }


@dataclass(frozen=True)
class BlockLimits:
    """How AWS sells Capacity Blocks (data/assumptions.yaml): instances one block and all of an
    organisation's blocks hold, the lengths a block is sold in, in days, and how long one extension
    bought in daily steps may be (None: no extension is counted on)."""

    per_block: float
    across_blocks: float
    daily_up_to: float
    weekly_step: float
    longest: float
    extend_up_to: float | None = None


@dataclass(frozen=True)
class Inputs:
    gpu_hours: float  # instance-hours of one run on the GPU option, before any spot overhead
    relative_throughput: Span  # Trainium instance throughput / GPU instance throughput
    trainium_price: Span  # USD per instance-hour
    gpu_price: Span
    trainium_spot: bool
    gpu_spot: bool
    interruption_rate: Span  # spot interruptions per instance-hour, where a side has no rate of its own
    lost_hours: Span  # hours of the whole job's progress lost to each interruption
    port_weeks: Span  # engineer-weeks for one port, after team experience and constraints
    engineer_week_usd: float
    port_extra_usd: float
    runs: int
    runs_per_architecture: int | None  # None: the architecture does not change during the plan
    trainium_count: int
    gpu_count: int
    trainium_availability: str
    gpu_availability: str
    needed_within_days: int | None  # days within which the first run must start; None: no start deadline
    soon_days: float
    close_call_margin: float
    excluded_by: tuple[str, ...] = ()
    port_engineers: Span = Span(1.0, 1.0, 1.0)  # engineers working on a port at once
    trainium_lead_days: float = 0.0  # days before the capacity can be had
    gpu_lead_days: float = 0.0
    trainium_term_hours: float | None = None  # a commitment's term; None when paid by the hour used
    gpu_term_hours: float | None = None
    trainium_held_hours: float = 0.0  # hours left on a commitment the team already holds (sunk)
    gpu_held_hours: float = 0.0
    plan_hours: float | None = None  # calendar hours the plan spans; None: runs back to back
    region_excluded: tuple[str, ...] = ()  # sides whose instance is offered in no allowed region
    allowed_regions: tuple[str, ...] = ()
    port_during_lead: bool = False  # the port is done while waiting for capacity, not after it
    trainium_option: str = ""  # the way the scenario names to buy each side
    gpu_option: str = ""
    trainium_ways: tuple[Way, ...] = ()  # every way data/ prices the side's instance in its region
    gpu_ways: tuple[Way, ...] = ()
    trainium_region: str = ""  # the region the scenario names for each side
    gpu_region: str = ""
    # Every way data/ prices the side's instance in the other regions the workload may use: priced
    # beside the named way, never used for the verdict or for what a held reservation leaves to buy.
    trainium_ways_elsewhere: tuple[Way, ...] = ()
    gpu_ways_elsewhere: tuple[Way, ...] = ()
    # The side's instance's spot pool in its region, where a source rates it; None: interruption_rate.
    trainium_interruption_rate: Span | None = None
    gpu_interruption_rate: Span | None = None
    # Calendar hours past which a break-even is said as "not within" rather than as runs; None: no limit.
    horizon_hours: float | None = None
    # The ways each side accepts: its named way and the workload's `buy:` list (on demand when it gives
    # none). None: the named way and on demand.
    trainium_accepts: tuple[str, ...] | None = None
    gpu_accepts: tuple[str, ...] | None = None
    block_limits: BlockLimits | None = None  # None: Capacity Blocks are priced by the hour used
    finish_within_days: int | None = None  # days within which the whole plan must be done; None: no finish deadline

    def at(self, name: str, end: str) -> Inputs:
        """These inputs with one ranged input moved to one end of its range. An interruption rate moves
        every spot pool it stands for to the same end of that pool's own band, in every region."""
        span: Span | None = getattr(self, name)
        # A side named in a region the Advisor does not rate has no rate of its own: only its pools move.
        moved: dict[str, Any] = {} if span is None else {name: Span(span.at(end), span.low, span.high)}
        if name in POOL_INPUTS:
            owner, rated = POOL_INPUTS[name], POOL_INPUTS[name] is not None
            for side in ("trainium", "gpu") if owner is None else (owner,):
                for key in (side + "_ways", side + "_ways_elsewhere"):
                    moved[key] = tuple(
                        changed(w, interruption=Span(w.interruption.at(end), w.interruption.low, w.interruption.high))
                        if w.interruption is not None and w.rated == rated else w for w in getattr(self, key))
        return changed(self, **moved)


@dataclass(frozen=True)
class Step:
    rule: str
    verdict: Verdict | None  # None: the rule was checked and did not decide
    code: str  # what the rule found, one of STEP_CODES: `wording` says it in a sentence
    numbers: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Side:
    hours_per_run: float  # instance-hours, spot overhead included
    usd_per_hour: float
    cost_per_run: float  # the hours one run uses at the hourly rate
    wall_clock_hours: float
    total: float  # compute over the plan (a commitment's whole terms), ports included on Trainium
    spot_overhead: float  # fraction of extra hours lost to interruptions; 0 when not on spot
    compute_total: float
    committed_terms: int  # commitment terms the plan buys (beyond any it already holds)
    utilisation: float | None  # share of the committed instance-hours the plan uses
    ready_days: float  # days before the first run can start (lead time, and the port on Trainium)
    price_low: float
    price_high: float
    price_basis: str  # where the price used sits in its range: point, low, high or inside
    feasible: bool = True  # nothing rules this side out
    reasons: tuple[Reason, ...] = ()  # every reason it cannot run, when it cannot
    late_days: float | None = None  # days after the deadline it can start (0 when on time); None: no deadline
    finish_days: float = 0.0  # days from now to the end of the plan's last run: the wait, the port, every run
    finish_late_days: float | None = None  # days after the finish deadline it ends (0 when on time); None: no such deadline
    cheapest_option: str = ""  # the way to buy the plan's compute that costs least ("" when none is known)
    cheaper_by: float = 0.0  # how much less than the named way it costs
    options: tuple[tuple[str, float, str], ...] = ()  # the plan's compute cost bought each way: (option, cost, region)
    cheapest_region: str = ""  # where the cheapest way is bought (the named region unless another costs less)
    plan_option: str = ""  # the way the verdict's plan is bought: the cheapest the side accepts
    plan_region: str = ""
    hourly_hours: float = 0.0  # calendar hours bought by the hour past a commitment's held hours and terms
    hourly_option: str = ""  # the way those hours are bought ("" when there are none)
    term_hours: float | None = None  # the plan's commitment term; None when it is bought by the hour
    # How each run is booked on Capacity Blocks where the plan buys them (`block_booking`); None otherwise.
    booking: tuple[int, float, float] | None = None
    # On spot: the interruptions per instance-hour of the pool bought, and whether the Advisor rates it.
    spot_rate: float | None = None
    spot_rated: bool = False


@dataclass(frozen=True)
class Outcome:
    trainium: Side
    gpu: Side
    saving_per_run: float
    saving_pct: float | None  # the plans' compute difference over the GPU plan's; None when that costs nothing
    port_cost: float
    ports: int
    port_calendar_days: float
    break_even_runs: float | None
    total_difference: float  # gpu total - trainium total; positive means Trainium is cheaper
    verdict: Verdict
    trace: tuple[Step, ...]
    decided_by: str = "cost"  # the rule of the step that gave the verdict
    # Calendar hours one run takes at the plan's pace on Trainium (back to back, or spread over the plan's
    # months): what turns a count of runs, such as a break-even, into time.
    pace_hours: float = 0.0


def recurring_break_even(s: float, port: float, k: int) -> float | None:
    """The least N such that every plan of N runs or more costs less on Trainium, when each run
    saves s and a port costing `port` is paid every k runs; None when no plan length does.
    After m whole architectures and r runs (1..k) of the next, Trainium is ahead by
    m (k s - port) + r s - port: each architecture nets c = k s - port, and the worst point of
    each is its first run."""
    c = k * s - port
    if s <= 0 or c <= 0:
        return None
    if s > port:
        return 1.0
    m = math.floor((port - s) / c) + 1  # the first architecture ahead from its first run
    r = math.floor((port - (m - 1) * c) / s) + 1  # where the one before it gets ahead for good
    return float((m - 1) * k + r)


def saving_share(saving: float, runs: int, gpu_compute: float) -> float | None:
    """The saving as a share of what the GPU plan's compute costs: the plans' difference over the GPU
    plan's total, whether an hour is bought by the hour or under a commitment (by the hour it is
    1 - Trainium's cost per run over the GPU's). None when the GPU plan costs nothing more (its
    reservation already held): no share of nothing. A side that cannot finish saves 0."""
    if saving == 0:
        return 0.0
    if not gpu_compute > 0 or math.isinf(gpu_compute):
        return None
    return saving * runs / gpu_compute


def ports_needed(runs: int, runs_per_architecture: int | None) -> int:
    if runs_per_architecture is None:
        return 1
    return -(-runs // runs_per_architecture)


def interruption_rate(x: Inputs, side: str) -> Span:
    """Spot interruptions per instance-hour for one side: its own pool's, or the shared figure."""
    own = getattr(x, side + "_interruption_rate")
    return x.interruption_rate if own is None else own


def named_way(x: Inputs, side: str) -> Way:
    """The way a side is named to be bought, its pool's rate with it on spot."""
    spot = getattr(x, side + "_spot")
    return Way(getattr(x, side + "_option"), getattr(x, side + "_price").value, getattr(x, side + "_term_hours"),
               getattr(x, side + "_region"), interruption_rate(x, side) if spot else None,
               spot and getattr(x, side + "_interruption_rate") is not None)


def spot_pools(x: Inputs, side: str) -> tuple[Way, ...]:
    """The spot pools a side would buy from: the named way's on spot, and when it accepts spot, its
    spot ways in every region it may use."""
    pools = [named_way(x, side)] if getattr(x, side + "_spot") else []
    if "spot" in accepts(x, side):
        pools += [w for w in (*getattr(x, side + "_ways"), *getattr(x, side + "_ways_elsewhere"))
                  if w.option == "spot" and w.interruption is not None]
    return tuple(pools)


def spot_load(count: int, rate: float, lost: float) -> float:
    """Hours of progress a synchronous job on spot loses per hour of wall-clock time: it restarts
    whole when any of its instances is interrupted, so count x interruptions per instance-hour x
    hours lost each."""
    return count * rate * lost


def spot_factor(spot: bool, count: int, rate: float, lost: float) -> float:
    """Wall-clock time over work on spot. Interruptions strike the hours spent redoing lost work as
    well as new work: each hour of wall-clock time keeps only 1 - load hours of progress, so a run
    takes work / (1 - load). At a load of 1 or more it cannot be expected to finish (infinite)."""
    if not spot:
        return 1.0
    load = spot_load(count, rate, lost)
    return 1 / (1 - load) if load < 1 else math.inf


def price_basis(s: Span) -> str:
    if not s.is_range:
        return "point"
    if s.value == s.low:
        return "low"
    if s.value == s.high:
        return "high"
    return "inside"


def plan_span(n: float, x: Inputs, wall: float) -> float:
    """Calendar hours n runs span: back to back, or spread over the plan's months."""
    span = n * wall
    if x.plan_hours is not None:
        span = max(span, n * x.plan_hours / x.runs)
    return span


def accepts(x: Inputs, side: str) -> tuple[str, ...]:
    """The ways one side accepts to buy its compute."""
    a = getattr(x, side + "_accepts")
    return (getattr(x, side + "_option"), "on-demand") if a is None else a


def block_length(days: float, b: BlockLimits, up: bool) -> float:
    """The length AWS sells a block in nearest `days` (up to `longest`): the shortest not under it
    (up) or the longest not over it."""
    if days <= b.daily_up_to:
        return days
    steps = (days - b.daily_up_to) / b.weekly_step
    return b.daily_up_to + (math.ceil(steps) if up else math.floor(steps)) * b.weekly_step


def block_booking(wall: float, b: BlockLimits) -> tuple[int, float, float]:
    """How one run of `wall` hours is booked on Capacity Blocks, in whole days (every block starts and
    ends at the same hour): blocks of the longest length one after another while more remains than
    one holds (ours), then a block of a length AWS sells and an extension for the days past it, or,
    where no extension is counted on or one cannot reach them, the next length AWS sells. Returns the
    longest blocks before the last, the last block's days and its extension's days."""
    days = math.ceil(wall / HOURS_PER_DAY)
    full = math.floor((days - 1) / b.longest)
    rest = days - full * b.longest
    block = block_length(rest, b, up=False)
    extra = rest - block
    if extra > 0 and (b.extend_up_to is None or extra > b.extend_up_to):
        block, extra = block_length(rest, b, up=True), 0.0
    return full, block, extra


def block_hours(wall: float, b: BlockLimits) -> float:
    """Hours a run of `wall` hours pays for on Capacity Blocks, booked as `block_booking` books it."""
    full, block, extra = block_booking(wall, b)
    return (full * b.longest + block + extra) * HOURS_PER_DAY


def booked_hours_below(limit: float, b: BlockLimits) -> float | None:
    """The most hours a run can be booked for on Capacity Blocks that stay under `limit` hours (a
    length `block_hours` books); None when not even one day does."""
    days = math.ceil(limit / HOURS_PER_DAY) - 1
    if days < 1:
        return None
    full = math.floor((days - 1) / b.longest)
    rest = days - full * b.longest
    block = block_length(rest, b, up=False)
    if b.extend_up_to is None or rest - block > b.extend_up_to:
        rest = block
    return (full * b.longest + rest) * HOURS_PER_DAY


def hourly_rate(x: Inputs, side: str, option: str, usd_per_hour: float, wall: float) -> float | None:
    """What an instance-hour of a run costs bought by the hour one way: on Capacity Blocks the whole
    days booked, spread over the hours used; None when blocks cannot hold the side's instances."""
    b = x.block_limits
    if option != "capacity-block" or b is None:
        return usd_per_hour
    if getattr(x, side + "_count") > b.across_blocks:
        return None
    return usd_per_hour * (block_hours(wall, b) / wall)


def cheapest_hourly(x: Inputs, side: str, ways: tuple[Way, ...], wall: float) -> tuple[float, str] | None:
    """The cheapest rate an instance-hour is bought at by the hour among the ways the side accepts,
    and its way; None when it accepts none that can run."""
    ok = accepts(x, side)
    best: tuple[float, str] | None = None
    for w in ways:
        if w.option in HOURLY_OPTIONS and w.option in ok:
            rate = hourly_rate(x, side, w.option, w.usd_per_hour, wall)
            if rate is not None and (best is None or rate < best[0]):
                best = (rate, w.option)
    return best


def plan_cost(n: float, x: Inputs, side: str, hours: float, wall: float, option: str, price: float,
              term: float | None, held: float, ways: tuple[Way, ...]) -> tuple[float, int, float, str]:
    """Compute cost of n runs of `hours` instance-hours on one side bought one way (`ways`: those of
    its region), the commitment terms it buys, and the calendar hours bought by the hour and how.
    By the hour, the hours used (on Capacity Blocks, whole days); infinite when the way cannot hold
    the plan. On a commitment, hours still held are sunk; past them, whichever number of whole
    terms costs least, none included, with the rest bought by the hour the cheapest way accepted. A
    term is paid for every hour of it, used or not."""
    if term is None:
        rate = hourly_rate(x, side, option, price, wall)
        return n * ((math.inf if rate is None else rate) * hours), 0, 0.0, ""
    span = plan_span(n, x, wall)
    uncovered = max(0.0, span - held)
    need = math.ceil(uncovered / term)
    whole = getattr(x, side + "_count") * term * price
    best = (need * whole, need, 0.0, "")
    hourly = cheapest_hourly(x, side, ways, wall)
    if uncovered > 0 and hourly is not None:
        # The runs spread evenly over the span: each calendar hour of it needs this much by the hour.
        per_hour = n * hours / span * hourly[0]
        for terms in (0, need - 1):
            rest = uncovered - terms * term
            cost = terms * whole + rest * per_hour
            if cost < best[0]:
                best = (cost, terms, rest, hourly[1])
    return best


def compute_cost(n: float, x: Inputs, side: str, hours: float, wall: float) -> tuple[float, int]:
    """Compute cost of n runs of `hours` instance-hours on one side, bought the named way, and the
    commitment terms bought (see `plan_cost`)."""
    cost, terms, _, _ = plan_cost(n, x, side, hours, wall, getattr(x, side + "_option"), getattr(x, side + "_price").value,
                                  getattr(x, side + "_term_hours"), getattr(x, side + "_held_hours"), getattr(x, side + "_ways"))
    return cost, terms


def region_ways(x: Inputs, side: str, region: str) -> tuple[Way, ...]:
    if region == getattr(x, side + "_region"):
        return getattr(x, side + "_ways")
    return tuple(w for w in getattr(x, side + "_ways_elsewhere") if w.region == region)


def way_cost(n: float, x: Inputs, side: str, base_hours: float, way: Way) -> float | None:
    """Compute cost of n runs bought one way with nothing held (a commitment mixed with the hourly
    ways the side accepts in the way's region); None when that way cannot run the plan."""
    count = getattr(x, side + "_count")
    rate = (interruption_rate(x, side) if way.interruption is None else way.interruption).value
    factor = spot_factor(way.option == "spot", count, rate, x.lost_hours.value)
    if math.isinf(factor):
        return None
    hours = base_hours * factor
    cost = plan_cost(n, x, side, hours, hours / count, way.option, way.usd_per_hour, way.term_hours, 0.0,
                     region_ways(x, side, way.region))[0]
    return cost if math.isfinite(cost) else None


def chosen_way(x: Inputs, side: str, base_hours: float) -> Way | None:
    """The way among those the side accepts, in its region or another the workload allows, whose
    plan costs least, when it is not the named way; None: the named way. A held reservation is the
    named way's, so a side that holds one keeps it. A tie keeps the way found first, the named one
    first of all."""
    if getattr(x, side + "_held_hours") > 0:
        return None
    ok = accepts(x, side)
    named = named_way(x, side)
    option, region = named.option, named.region
    best_way, best = None, way_cost(x.runs, x, side, base_hours, named)
    for way in getattr(x, side + "_ways") + getattr(x, side + "_ways_elsewhere"):
        if way.option not in ok or (way.option == option and way.region == region):
            continue
        cost = way_cost(x.runs, x, side, base_hours, way)
        if cost is not None and (best is None or cost < best):
            best_way, best = way, cost
    return best_way


def planned(x: Inputs) -> Inputs:
    """These inputs with each side bought the way its plan costs least among the ways it accepts:
    what the verdict, the break-even and the thresholds price."""
    y = x
    for side, base in (("gpu", x.gpu_hours), ("trainium", x.gpu_hours / x.relative_throughput.value)):
        way = chosen_way(x, side, base)
        if way is not None:
            pool = {side + "_interruption_rate": way.interruption if way.rated else None} if way.option == "spot" else {}
            y = changed(y, **{side + "_option": way.option, side + "_price": Span(way.usd_per_hour, way.usd_per_hour, way.usd_per_hour),
                              side + "_term_hours": way.term_hours, side + "_spot": way.option == "spot",
                              side + "_region": way.region, side + "_ways": region_ways(x, side, way.region),
                              side + "_accepts": accepts(x, side)}, **pool)
    return y


def plan_totals(x: Inputs, n: float, o: Outcome) -> tuple[float, float]:
    """GPU and Trainium totals of a plan of n runs, otherwise as `x`, each side bought the way its
    plan of x.runs is."""
    return _plan_totals(planned(x), n, o)


def _plan_totals(x: Inputs, n: float, o: Outcome) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    gpu, _ = compute_cost(n, x, "gpu", o.gpu.hours_per_run, o.gpu.wall_clock_hours)
    trn, _ = compute_cost(n, x, "trainium", o.trainium.hours_per_run, o.trainium.wall_clock_hours)
    return gpu, ports_needed(math.ceil(n), x.runs_per_architecture) * o.port_cost + trn


def _side(x: Inputs, y: Inputs, side: str, hours: float, ready_days: float) -> Side:
    """One side bought as planned (`y`, from `planned(x)`); the ways it could be bought, accepted or
    not, priced from the workload as given (`x`)."""
    count = getattr(y, side + "_count")
    spot = getattr(y, side + "_spot")
    factor = spot_factor(spot, count, interruption_rate(y, side).value, y.lost_hours.value)
    price: Span = getattr(y, side + "_price")
    base_hours = hours
    hours = hours * factor
    wall = hours / count
    term = getattr(y, side + "_term_hours")
    held = getattr(y, side + "_held_hours")
    compute, terms, hourly_hours, hourly_option = plan_cost(
        y.runs, y, side, hours, wall, getattr(y, side + "_option"), price.value, term, held, getattr(y, side + "_ways"))
    rate = hourly_rate(y, side, getattr(y, side + "_option"), price.value, wall) if term is None else price.value
    cost = (math.inf if rate is None else rate) * hours
    utilisation = None
    if term is not None:
        covered = terms * term + held
        # Past the committed hours the plan buys by the hour: only the runs inside the committed
        # hours use them (the runs spread evenly over the span).
        span = plan_span(y.runs, y, wall)
        used = y.runs * hours * (min(covered, span) / span if span > 0 else 1.0)
        utilisation = used / (count * covered) if covered > 0 else None
    reasons = infeasibility(y, side)
    late = None if y.needed_within_days is None else max(0.0, ready_days - y.needed_within_days)
    finish = ready_days + plan_span(y.runs, y, wall) / HOURS_PER_DAY
    finish_late = None if y.finish_within_days is None else max(0.0, finish - y.finish_within_days)
    # Every way data/ prices, in the named region and then in the other regions the workload may
    # use, whether the side accepts it or not: a cheaper one is advice. A held reservation is already
    # the named way's, so only plans that hold nothing compare whole ways.
    options: list[tuple[str, float, str]] = []
    if getattr(x, side + "_held_hours") == 0:
        for way in getattr(x, side + "_ways") + getattr(x, side + "_ways_elsewhere"):
            total = way_cost(x.runs, x, side, base_hours, way)
            if total is not None:
                options.append((way.option, total, way.region))
    plan_option, plan_region = getattr(y, side + "_option"), getattr(y, side + "_region")
    cheapest, where, cheaper_by = plan_option, plan_region, 0.0
    if math.isfinite(compute):
        # Only a way that costs strictly less displaces the plan's own, so a tie keeps its region.
        for option, total, region in options:
            if compute - total > cheaper_by:
                cheapest, where, cheaper_by = option, region, compute - total
    elif options:
        # No way the side accepts can run the plan: the cheapest way that can is named as advice.
        cheapest, _, where = min(options, key=lambda o: o[1])
    b = y.block_limits
    on_blocks = plan_option == "capacity-block" or (hourly_hours > 0 and hourly_option == "capacity-block")
    booking = block_booking(wall, b) if on_blocks and b is not None and math.isfinite(wall) else None
    return Side(hours, price.value, cost, wall, compute, factor - 1, compute, terms, utilisation, ready_days,
                price.low, price.high, price_basis(price), not reasons, reasons, late, finish, finish_late, cheapest, cheaper_by,
                tuple(options), where, plan_option, plan_region, hourly_hours, hourly_option, term, booking,
                interruption_rate(y, side).value if spot else None, spot and getattr(y, side + "_interruption_rate") is not None)


def single_blocks(x: Inputs, o: Outcome) -> Outcome | None:
    """The decision with every run booked as one block of the next length AWS sells, where the plan
    counts on an extension: an extension is sold only if AWS has the capacity when it is asked for,
    so the verdict must say what it rests on. None where no plan books an extension."""
    b = x.block_limits
    if b is None or b.extend_up_to is None:
        return None
    if not any(sd.booking is not None and sd.booking[2] > 0 for sd in (o.trainium, o.gpu)):
        return None
    return evaluate(changed(x, block_limits=changed(b, extend_up_to=None)))


def infeasibility(x: Inputs, side: str) -> tuple[Reason, ...]:
    """Every reason one side cannot run at all, whatever it costs, each as a code and its detail."""
    reasons: list[Reason] = []
    if side == "trainium" and x.excluded_by:
        reasons.append(("ruled-out", x.excluded_by))
    if side in x.region_excluded:
        reasons.append(("not-offered", x.allowed_regions))
    if getattr(x, side + "_availability") == "unavailable":
        reasons.append(("unavailable", None))
    if getattr(x, side + "_spot"):
        load = spot_load(getattr(x, side + "_count"), interruption_rate(x, side).value, x.lost_hours.value)
        if load >= 1:
            reasons.append(("spot-cannot-finish", None))
    b = x.block_limits
    if getattr(x, side + "_option") == "capacity-block" and b is not None and getattr(x, side + "_count") > b.across_blocks:
        reasons.append(("blocks-cannot-hold", b.across_blocks))
    return tuple(reasons)


def ready_days(lead_days: float, port_days: float, overlap: bool) -> float:
    """Days before Trainium's first run: capacity lead time and the port one after the other, or
    side by side when the team ports while it waits for capacity."""
    return max(lead_days, port_days) if overlap else lead_days + port_days


def evaluate(x: Inputs) -> Outcome:
    """The decision for one workload, each side bought the way its plan costs least among the ways
    it accepts (`planned`)."""
    y = planned(x)
    port_cost = x.port_weeks.value * x.engineer_week_usd + x.port_extra_usd
    port_days = x.port_weeks.value / x.port_engineers.value * DAYS_PER_WEEK
    gpu = _side(x, y, "gpu", x.gpu_hours, x.gpu_lead_days)
    trn = _side(x, y, "trainium", x.gpu_hours / x.relative_throughput.value,
                ready_days(x.trainium_lead_days, port_days, x.port_during_lead))
    x = y
    committed = x.gpu_term_hours is not None or x.trainium_term_hours is not None
    # Under a commitment an hour costs what the plan pays for it, held hours nothing: per run, the
    # saving is the plans' compute difference shared over the runs.
    saving = (gpu.compute_total - trn.compute_total) / x.runs if committed else gpu.cost_per_run - trn.cost_per_run
    if not (math.isfinite(trn.cost_per_run) and math.isfinite(gpu.cost_per_run)):
        saving = 0.0  # a side that cannot finish on spot has no cost to save against
    ports = ports_needed(x.runs, x.runs_per_architecture)
    gpu_total = gpu.compute_total
    trn_total = ports * port_cost + trn.compute_total
    trn = changed(trn, total=trn_total)
    difference = gpu_total - trn_total
    feasible = trn.feasible and gpu.feasible
    break_even = port_cost / saving if saving > 0 and not committed and feasible else None
    if break_even is not None and x.runs_per_architecture is not None:
        # With a port every k runs the cumulative difference is a saw-tooth: the break-even is the
        # plan length from which every longer plan is cheaper on Trainium.
        break_even = recurring_break_even(saving, port_cost, x.runs_per_architecture)

    trace: list[Step] = []
    verdict = _decide(x, trace, gpu, trn, difference, saving, port_cost, ports, break_even, committed)
    decided_by = next(s.rule for s in reversed(trace) if s.verdict is not None)
    return Outcome(
        trainium=trn,
        gpu=gpu,
        saving_per_run=saving,
        saving_pct=saving_share(saving, x.runs, gpu.compute_total),
        port_cost=port_cost,
        ports=ports,
        port_calendar_days=port_days,
        break_even_runs=break_even,
        total_difference=difference,
        verdict=verdict,
        trace=tuple(trace),
        decided_by=decided_by,
        pace_hours=plan_span(1, x, trn.wall_clock_hours),
    )


def _decide(
    x: Inputs,
    trace: list[Step],
    gpu: Side,
    trn: Side,
    difference: float,
    saving: float,
    port_cost: float,
    ports: int,
    break_even: float | None,
    committed: bool,
) -> Verdict:
    """The steps in order, each in the trace; the first that gives a verdict ends the decision, and
    capacity may only tip the cost step's verdict."""
    trace.append(_feasibility(trn, gpu))
    if trace[-1].verdict is not None:
        return trace[-1].verdict
    if x.needed_within_days is not None or x.finish_within_days is not None:
        trace.append(_deadline(x, trn, gpu))
        if trace[-1].verdict is not None:
            return trace[-1].verdict
    trace.append(_cost(x, trn, gpu, difference, saving, port_cost, ports, break_even, committed))
    cost_verdict = trace[-1].verdict
    assert cost_verdict is not None
    trace.append(_capacity(x, trn, gpu, cost_verdict))
    return trace[-1].verdict or cost_verdict


def _feasibility(trn: Side, gpu: Side) -> Step:
    sides = {"trainium": trn, "gpu": gpu}
    feasible = [name for name, s in sides.items() if s.feasible]
    if not feasible:
        return Step("feasibility", "neither", "neither-can-run",
                    {"trainium_reasons": trn.reasons, "gpu_reasons": gpu.reasons})
    if len(feasible) == 1:
        out = "gpu" if feasible[0] == "trainium" else "trainium"
        return Step("feasibility", feasible[0], out + "-cannot-run", {out + "_reasons": sides[out].reasons})  # type: ignore[arg-type]
    return Step("feasibility", None, "both-can-run", {})


def starts_on_time(x: Inputs, sd: Side) -> bool:
    return x.needed_within_days is None or sd.ready_days <= x.needed_within_days


def on_time(x: Inputs, sd: Side) -> bool:
    """Whether a side starts by the start deadline and finishes its whole plan by the finish deadline."""
    return starts_on_time(x, sd) and (x.finish_within_days is None or sd.finish_days <= x.finish_within_days)


def _deadline(x: Inputs, trn: Side, gpu: Side) -> Step:
    when: dict[str, Any] = {"needed_within_days": x.needed_within_days, "trainium_ready_days": trn.ready_days,
                            "gpu_ready_days": gpu.ready_days, "trainium_late_days": trn.late_days, "gpu_late_days": gpu.late_days}
    if x.finish_within_days is not None:
        when |= {"finish_within_days": x.finish_within_days, "trainium_finish_days": trn.finish_days,
                 "gpu_finish_days": gpu.finish_days, "trainium_finish_late_days": trn.finish_late_days,
                 "gpu_finish_late_days": gpu.finish_late_days}
    trn_ok, gpu_ok = on_time(x, trn), on_time(x, gpu)
    if gpu_ok and not trn_ok:
        return Step("deadline", "gpu", "trainium-late" if not starts_on_time(x, trn) else "trainium-finishes-late", when)
    if trn_ok and not gpu_ok:
        return Step("deadline", "trainium", "gpu-late" if not starts_on_time(x, gpu) else "gpu-finishes-late", when)
    # Neither on time: the one that finishes sooner where a finish date is set, else the one that starts sooner.
    trn_day, gpu_day = ((trn.finish_days, gpu.finish_days) if x.finish_within_days is not None
                        else (trn.ready_days, gpu.ready_days))
    if not trn_ok and trn_day != gpu_day:
        soonest: Verdict = "trainium" if trn_day < gpu_day else "gpu"
        return Step("deadline", soonest, "neither-on-time", when)
    return Step("deadline", None, "both-on-time" if trn_ok else "both-late-same-day", when)


def _cost(x: Inputs, trn: Side, gpu: Side, difference: float, saving: float, port_cost: float, ports: int,
          break_even: float | None, committed: bool) -> Step:
    verdict: Verdict = "trainium" if trn.total < gpu.total else "gpu"
    numbers: dict[str, float | int | str | None] = {
        "gpu_total": gpu.total,
        "trainium_total": trn.total,
        "difference": difference,
        "saving_per_run": saving,
        "port_cost": port_cost,
        "ports": ports,
        "break_even_runs": break_even,
        "runs": x.runs,
        "trainium_price_basis": trn.price_basis,
        "gpu_price_basis": gpu.price_basis,
    }
    if verdict == "trainium":
        code = "cost-trainium"
    elif committed:
        code = "cost-committed"
    elif saving <= 0:
        code = "cost-no-saving"
    elif x.runs_per_architecture is not None and break_even is None:
        code = "cost-no-architecture-repays"
    else:
        code = "cost-not-repaid"
    return Step("cost", verdict, code, numbers)


def _capacity(x: Inputs, trn: Side, gpu: Side, verdict: Verdict) -> Step:
    """Capacity tips a close call only between sides that can both meet their deadlines, one of them soon."""
    needed = x.needed_within_days
    soon = any(d is not None and d <= x.soon_days for d in (needed, x.finish_within_days))
    urgent = soon and on_time(x, trn) and on_time(x, gpu)
    margin = x.close_call_margin
    if urgent and verdict == "gpu" and x.gpu_availability == "constrained" and x.trainium_availability == "available":
        if trn.total <= gpu.total * (1 + margin):
            return Step("capacity", "trainium", "capacity-trainium",
                        {"margin": margin, "needed_within_days": needed, "ratio": trn.total / gpu.total})
    elif urgent and verdict == "trainium" and x.trainium_availability == "constrained" and x.gpu_availability == "available":
        if gpu.total <= trn.total * (1 + margin):
            return Step("capacity", "gpu", "capacity-gpu",
                        {"margin": margin, "needed_within_days": needed, "ratio": gpu.total / trn.total})
    return Step("capacity", None, "capacity-unchanged", {"needed_within_days": needed})


@dataclass(frozen=True)
class RangeEnd:
    input: str
    end: str
    value: float
    verdict: Verdict
    total_difference: float


@dataclass(frozen=True)
class Robustness:
    holds: bool  # no single input moved across its own range changes the verdict
    flips_on: tuple[str, ...]
    ends: tuple[RangeEnd, ...]
    worst_case: RangeEnd  # every range at the end that favours Trainium least
    best_case: RangeEnd
    joint_flip: bool = False  # holds, yet the all-worst or all-best corner gives the other verdict


def against_and_for(name: str, low: float, high: float) -> tuple[str, str]:
    """The ends of a range that favour Trainium least and most, from the total difference at each
    end: the direction of some inputs depends on the case (spot overhead helps Trainium when only
    the GPU side is on spot). Ties keep the usual direction."""
    if low == high:
        return RANGE_INPUTS[name]
    return ("low", "high") if low < high else ("high", "low")


def pools_of(x: Inputs, name: str) -> list[Way]:
    """The spot pools an interruption-rate input stands for, among those the sides would buy from."""
    owner = POOL_INPUTS[name]
    return [w for side in (("trainium", "gpu") if owner is None else (owner,)) for w in spot_pools(x, side)
            if w.rated == (owner is not None)]


def ranged_inputs(x: Inputs) -> list[str]:
    """The ranged inputs that can move this case: an interruption rate only where a side would buy a
    pool it stands for (named on spot, or accepting spot in a region it may use), hours lost only
    where a side would buy spot at all, engineers on the port only against a deadline."""
    names = []
    for n in RANGE_INPUTS:
        if n in POOL_INPUTS:
            if any(w.interruption is not None and w.interruption.is_range for w in pools_of(x, n)):
                names.append(n)
        elif getattr(x, n) is not None and getattr(x, n).is_range:
            names.append(n)
    if not (spot_pools(x, "trainium") or spot_pools(x, "gpu")):
        names = [n for n in names if n != "lost_hours"]
    if x.needed_within_days is None and x.finish_within_days is None:
        names = [n for n in names if n != "port_engineers"]
    return names


def range_end_value(x: Inputs, name: str, end: str, o: Outcome) -> float:
    """A ranged input's value at one end, as the case there takes it: for a side's interruption rate,
    the rate of the pool its plan buys at that end (pools differ by region), where it buys spot."""
    if name not in POOL_INPUTS:
        return getattr(x, name).at(end)
    owner = POOL_INPUTS[name]
    if owner is not None and getattr(o, owner).spot_rate is not None:
        return getattr(o, owner).spot_rate
    pool = pools_of(x, name)[0].interruption
    assert pool is not None, "ranged_inputs lists a pool input only where it has a pool"
    return pool.at(end)


def robustness(x: Inputs, base: Outcome | None = None) -> Robustness:
    base = base or evaluate(x)
    ends: list[RangeEnd] = []
    flips: list[str] = []
    names = ranged_inputs(x)
    for name in names:
        for end in ("low", "high"):
            o = evaluate(x.at(name, end))
            ends.append(RangeEnd(name, end, range_end_value(x, name, end, o), o.verdict, o.total_difference))
            if o.verdict != base.verdict and name not in flips:
                flips.append(name)
    # ends holds each name's low end, then its high end: those evaluations also give its direction.
    directions = [against_and_for(low.input, low.total_difference, high.total_difference)
                  for low, high in zip(ends[::2], ends[1::2], strict=True)]
    corners = []
    for side in (0, 1):
        y = x
        for name, direction in zip(names, directions, strict=True):
            y = y.at(name, direction[side])
        o = evaluate(y)
        corners.append(RangeEnd("all", ("against", "for")[side], math.nan, o.verdict, o.total_difference))
    # An extension AWS sells only if it has the capacity then: the plan with none is one more end.
    single = single_blocks(x, base)
    if single is not None:
        ends.append(RangeEnd(EXTENSION, "none", math.nan, single.verdict, single.total_difference))
        if single.verdict != base.verdict:
            flips.append(EXTENSION)
    holds = not flips
    joint = holds and any(c.verdict != base.verdict for c in corners)
    return Robustness(holds, tuple(flips), tuple(ends), corners[0], corners[1], joint)


@dataclass(frozen=True)
class BreakEven:
    """For which plan lengths (the plan's pace held) Trainium costs less: kind "from" (every plan of
    `first_for_good` runs or more), "between" (only plans of `first` to `last` runs) or "never"."""

    kind: str
    first: float | None  # the shortest plan that costs less on Trainium
    last: float | None  # "between": the longest such plan
    first_for_good: float | None  # "from": every plan this long or longer costs less


def _trend(x: Inputs, o: Outcome, side: str) -> tuple[float, float]:
    """A side's cost per run in the long run, and how far its plan total can stray from that line."""
    sd: Side = getattr(o, side)
    term = getattr(x, side + "_term_hours")
    if term is None:
        return sd.cost_per_run, 0.0
    count, price = getattr(x, side + "_count"), getattr(x, side + "_price").value
    w = plan_span(1, x, sd.wall_clock_hours)
    slope = count * price * w
    far = slope
    hourly = cheapest_hourly(x, side, getattr(x, side + "_ways"), sd.wall_clock_hours)
    held = getattr(x, side + "_held_hours")
    if hourly is not None:
        slope = min(slope, sd.hours_per_run * hourly[0])
        far = max(far, sd.hours_per_run * hourly[0])
    return slope, count * term * price + far * held / w


def _plan_lengths(x: Inputs, o: Outcome, limit: int) -> tuple[int | None, int | None, int | None]:
    """`break_even.plan_lengths` over the totals `plan_totals` compares: the shortest plan of 1..limit
    that costs less on Trainium, the longest, and the longest that does not."""
    k = x.runs_per_architecture
    sides = (("gpu", o.gpu.hours_per_run, o.gpu.wall_clock_hours),
             ("trainium", o.trainium.hours_per_run, o.trainium.wall_clock_hours))

    def totals(n: int) -> solver.Totals:
        """GPU total, Trainium total (as plan_totals adds them), the compute difference (ports left
        out), and each side's piece: the terms it needs beyond held hours and whether it buys them by the hour."""
        costs, keys = [], []
        for side, hours, wall in sides:
            cost, bought = compute_cost(n, x, side, hours, wall)
            term = getattr(x, side + "_term_hours")
            need = None if term is None else math.ceil(
                max(0.0, plan_span(n, x, wall) - getattr(x, side + "_held_hours")) / term)
            costs.append(cost)
            keys.append(None if need is None else (need, bought < need))
        gpu, trn = costs
        return gpu, ports_needed(n, k) * o.port_cost + trn, gpu - trn, keys[0], keys[1]

    terms = tuple((getattr(x, side + "_held_hours"), getattr(x, side + "_term_hours"), plan_span(1, x, wall))
                  for side, _, wall in sides)
    return solver.plan_lengths(totals, terms, k, limit)  # type: ignore[arg-type]


def break_even(x: Inputs, o: Outcome) -> BreakEven:
    """Solved, not searched to a limit. Without a commitment the totals are lines (saw-toothed by
    recurring ports) and the answer is closed-form. With one, each total stays within a bounded
    distance of its long-run line, so past the run where the lines' gap exceeds those distances the
    sign can no longer change; the plan lengths before it are solved piece by piece (`_plan_lengths`)."""
    if not (o.trainium.feasible and o.gpu.feasible):
        return BreakEven("never", None, None, None)
    x = planned(x)
    if x.gpu_term_hours is None and x.trainium_term_hours is None:
        s, k = o.saving_per_run, x.runs_per_architecture
        if o.break_even_runs is None:
            return BreakEven("never", None, None, None)
        first = float(math.floor(o.port_cost / s) + 1)
        return BreakEven("from", first, None, first if k is None else o.break_even_runs)
    gpu_slope, gpu_far = _trend(x, o, "gpu")
    trn_slope, trn_far = _trend(x, o, "trainium")
    k = x.runs_per_architecture
    sigma = gpu_slope - trn_slope - (0.0 if k is None else o.port_cost / k)
    bound = gpu_far + trn_far + 2 * o.port_cost
    # With parallel long-run lines (sigma 0) the sign never settles for good: every plan length the
    # schema allows is solved.
    reach = math.inf if sigma == 0 else bound / abs(sigma)
    limit = MAX_PLAN_RUNS if reach >= MAX_PLAN_RUNS else min(MAX_PLAN_RUNS, math.floor(reach) + 2)
    first, last, behind = _plan_lengths(x, o, limit)
    if first is None:
        return BreakEven("never", None, None, None)
    if last == limit:
        return BreakEven("from", float(first), None, float(1 if behind is None else behind + 1))
    return BreakEven("between", float(first), float(last), None)


def crossing(x: Inputs, o: Outcome, b: BreakEven | None = None) -> float | None:
    """The first plan length at which Trainium's plan costs less than the GPU's (under recurring
    ports, from which every longer plan does); None when none does. `b`: break_even(x, o), if known."""
    y = planned(x)
    if y.gpu_term_hours is None and y.trainium_term_hours is None:
        return o.break_even_runs
    return (b or break_even(x, o)).first


@dataclass(frozen=True)
class Thresholds:
    """Values of one input, others held, at which both sides cost the same over the plan; `runs` is
    the true crossing of the cumulative cost lines."""

    relative_throughput: float | None
    runs: float | None
    port_weeks: float | None
    trainium_price: float | None
    break_even: BreakEven | None = None  # for which plan lengths Trainium costs less; None: cost does not decide


def cost_parity(x: Inputs, o: Outcome | None = None) -> Thresholds:
    """Where both plans cost the same, one input moved and the others held, whether or not cost is
    what decides the verdict; `thresholds` keeps only those that turn the verdict."""
    o = o or evaluate(x)
    if not (o.trainium.feasible and o.gpu.feasible):
        return Thresholds(None, None, None, None)
    given, x = x, planned(x)
    trn_factor = 1 + o.trainium.spot_overhead
    gpu_total = o.gpu.total
    fixed = o.ports * o.port_cost
    headroom = gpu_total - fixed
    if x.trainium_term_hours is None:
        trn_hours_at_parity = x.runs * x.gpu_hours * trn_factor
        rel = x.trainium_price.value * trn_hours_at_parity / headroom if headroom > 0 else None
        price = headroom * x.relative_throughput.value / trn_hours_at_parity if headroom > 0 else None
        b = x.block_limits
        if x.trainium_option == "capacity-block" and b is not None and headroom > 0:
            # A run on blocks pays for the days booked, which move with throughput in steps: Trainium
            # costs less from the throughput at which a run fits the longest booking that keeps its
            # plan under the GPU's; at a given throughput its total is the price times those hours.
            booked = booked_hours_below(headroom / (x.runs * x.trainium_count * x.trainium_price.value), b)
            rel = None if booked is None else x.gpu_hours / (x.trainium_count * booked)
            price = headroom / (x.runs * (o.trainium.cost_per_run / x.trainium_price.value))
    else:
        rel = _committed_throughput(given, o, gpu_total - fixed)
        reserved = x.trainium_count * o.trainium.committed_terms * x.trainium_term_hours
        # Hours a mixed plan buys by the hour past its terms cost the same at any term rate: only what
        # the headroom leaves after them pays for the reserved hours.
        left = headroom - (o.trainium.compute_total - reserved * x.trainium_price.value)
        price = left / reserved if left > 0 and reserved > 0 else None
    per_port = (gpu_total - o.trainium.compute_total) / o.ports - x.port_extra_usd
    weeks = per_port / x.engineer_week_usd if per_port > 0 else None
    b = break_even(given, o)
    return Thresholds(rel, crossing(given, o, b), weeks, price, b)


def _committed_throughput(x: Inputs, o: Outcome, headroom: float) -> float | None:
    """The least relative throughput at which Trainium's committed compute costs less than `headroom`
    (the GPU's total less the ports). A committed total moves with throughput only in steps, when the
    plan needs a term more or less, so no value may make both cost exactly the same: the boundary is
    found by halving an interval around the case's own value, as the total never rises with throughput.
    None when no throughput from a millionth to a million times the case's own reaches it."""
    def cheaper(r: float) -> bool:
        # Bought, at each throughput, the way its plan then costs least (`planned`), as evaluate does.
        at_r = changed(x, relative_throughput=changed(x.relative_throughput, value=r))
        return _side(at_r, planned(at_r), "trainium", x.gpu_hours / r, 0.0).compute_total < headroom

    r = x.relative_throughput.value
    lo, hi = r, r
    if cheaper(r):
        for _ in range(COMMITTED_BRACKET_STEPS):
            lo = lo / 2
            if not cheaper(lo):
                break
            hi = lo
        else:
            return None
    else:
        for _ in range(COMMITTED_BRACKET_STEPS):
            hi = hi * 2
            if cheaper(hi):
                break
            lo = hi
        else:
            return None
    for _ in range(COMMITTED_HALVINGS):
        mid = (lo + hi) / 2
        if cheaper(mid):
            hi = mid
        else:
            lo = mid
    return hi


def thresholds(x: Inputs, o: Outcome | None = None) -> Thresholds:
    """The values of single inputs at which the verdict turns: each is shown only if the verdict just
    below it differs from the verdict just above it."""
    o = o or evaluate(x)
    p = cost_parity(x, o)
    # Feasibility and start dates do not move with the plan's length: only a cost verdict can turn on it.
    runs = p.runs if o.decided_by in COST_RULES else None
    plan_lengths = p.break_even if o.decided_by in COST_RULES else None
    return Thresholds(_flipping(x, "relative_throughput", p.relative_throughput), runs,
                      _flipping(x, "port_weeks", p.port_weeks), _flipping(x, "trainium_price", p.trainium_price),
                      plan_lengths)


def _flipping(x: Inputs, name: str, value: float | None) -> float | None:
    """The threshold, if the verdict just below it differs from the verdict just above it; else None
    (another step decides, or the input moves something else too)."""
    if value is None:
        return None
    span: Span = getattr(x, name)
    below = evaluate(changed(x, **{name: Span(value * (1 - THRESHOLD_PROBE), span.low, span.high)}))
    above = evaluate(changed(x, **{name: Span(value * (1 + THRESHOLD_PROBE), span.low, span.high)}))
    return value if below.verdict != above.verdict else None


@dataclass(frozen=True)
class CurvePoint:
    runs: int
    gpu: float
    trainium: float


@dataclass(frozen=True)
class CostCurve:
    rows: tuple[CurvePoint, ...]
    crossing: float | None


def cost_curve(x: Inputs, o: Outcome, b: BreakEven | None = None) -> CostCurve:
    """Cumulative cost of each side against the number of runs, as the charts and the calculator
    draw it: from zero to past the crossing (when there is one and cost decides) and always to the
    plan's runs. `b`: break_even(x, o), if known (the thresholds carry it)."""
    cross = crossing(x, o, b) if o.decided_by in COST_RULES else None
    horizon = max(x.runs, 2)
    if cross is not None:
        horizon = max(horizon, int(cross * 1.5) + 1)
    horizon = max(min(horizon, CURVE_MAX_HORIZON), x.runs)
    step = max(1, horizon // 100)
    ns = list(range(0, horizon + 1, step))
    if ns[-1] != horizon:
        ns.append(horizon)
    if x.runs not in ns:
        ns.append(x.runs)
        ns.sort()
    rows = []
    y = planned(x)
    for n in ns:
        gpu, trn = _plan_totals(y, n, o)
        rows.append(CurvePoint(n, gpu, trn))
    return CostCurve(tuple(rows), cross)
