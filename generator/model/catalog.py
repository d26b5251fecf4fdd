"""Typed models of the sourced figures in data/: sources, chips, instances, prices, assumptions.

Every number a reader sees traces back to one of these models, so each carries its `source` and
`as_of`; the models refuse a figure without them.

`data/` as typed models: sources, chips, instances (spot ratings with the other dated sources kept
beside the one used), prices (with conflicts and ranges; `refreshable`: a figure AWS's APIs give,
else one with its own `review_by`), unpublished ways of buying, assumptions (constraints that may
apply on some Trainium generations only), the Neuron SDK's releases and training paths per
generation (`data/neuron.yaml`, and the release PyTorch training stays on where no current PyTorch
path runs), the throughput evidence (`data/throughput.yaml`: measurements, utilisation and claims,
chip by chip). Every figure carries `source` and `as_of`.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Side = Literal["trainium", "gpu"]
Option = Literal["on-demand", "spot", "commit-1y", "commit-3y", "capacity-block"]
OPTIONS: tuple[str, ...] = ("on-demand", "spot", "commit-1y", "commit-3y", "capacity-block")
OPTION_LABELS = {
    "on-demand": "On-demand",
    "spot": "Spot",
    "commit-1y": "1-year commitment",
    "commit-3y": "3-year commitment",
    "capacity-block": "Capacity Block",
}
# Hours in a commitment's term: a reservation or Savings Plan is paid for every one of them.
TERM_HOURS: dict[str, float] = {"commit-1y": 8760.0, "commit-3y": 26280.0}
SourceKind = Literal["primary", "aggregator", "secondary", "vendor-positioning", "assumption"]

Positive = Field(gt=0, allow_inf_nan=False)


class Strict(BaseModel):
    # strict: YAML 1.2 gives us real types; never coerce "12" to 12 or "no" to False.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Source(Strict):
    title: str = Field(min_length=1)
    url: str | None = None
    kind: SourceKind
    # The date the source itself shows; null when it shows none and none could be established
    # (the title then says so). Never the day someone read it.
    as_of: dt.date | None

    @property
    def name(self) -> str:
        """What a chart, an embed or a caption calls the source: its title up to the first clause
        (titles go on to say which file, version or date), so a stranger reads it without the key."""
        return re.split(r", |; |: | \(|\. ", self.title, maxsplit=1)[0].strip() or self.title


class Cited(Strict):
    """A figure's provenance."""

    source: str = Field(min_length=1)
    as_of: dt.date
    note: str | None = None


class AltFigure(Cited):
    value: float = Positive


class Figure(Cited):
    value: float = Positive
    alternatives: list[AltFigure] = []


class RangeFigure(Cited):
    """A representative figure with the range it is believed to lie in."""

    value: float = Positive
    low: float = Positive
    high: float = Positive

    @model_validator(mode="after")
    def _ordered(self) -> RangeFigure:
        if not self.low <= self.value <= self.high:
            raise ValueError(f"needs low <= value <= high (got {self.low}, {self.value}, {self.high})")
        return self


class AltSpecFigure(AltFigure):
    as_of: dt.date | None  # type: ignore[assignment]


class SpecFigure(Figure):
    """A chip's published specification. A vendor's product page often shows no date, and a part's
    peak rate does not age the way a price does, so such a figure may be undated (null) when, and
    only when, its source shows no date either (checked in generator/inputs/datafiles.py)."""

    as_of: dt.date | None  # type: ignore[assignment]
    alternatives: list[AltSpecFigure] = []  # type: ignore[assignment]


class Chip(Strict):
    name: str
    vendor: str
    bf16_tflops: SpecFigure
    fp8_tflops: SpecFigure | None = None
    memory_gib: SpecFigure
    memory_bandwidth_tbps: SpecFigure


class Regions(Cited):
    """Regions an instance is offered in: those the guide has a source for, not AWS's whole list.
    Empty when no source the guide has names one (a generation announced before it is priced)."""

    value: list[str]


# The buckets of AWS's Spot Instance Advisor: the share of a spot pool's instances interrupted over the
# trailing month.
SpotBucket = Literal["<5%", "5-10%", "10-15%", "15-20%", ">20%"]
SPOT_BUCKETS: tuple[str, ...] = ("<5%", "5-10%", "10-15%", "15-20%", ">20%")


class SpotRating(Cited):
    """The Spot Instance Advisor's bucket for an instance in each region one source rates, by region."""

    value: dict[str, SpotBucket]


class SpotInterruption(SpotRating):
    """An instance's spot ratings: `value` is the one the engine uses; `alternatives` are other dated
    sources, each kept beside it, and the first one rating a region `value` leaves out rates it there."""

    alternatives: list[SpotRating] = []

    def rating(self, region: str) -> SpotRating | None:
        """The rating a spot pool in the region is priced by: the main one where it rates the region,
        else the first alternative that does; None where no source rates it."""
        for r in (self, *self.alternatives):
            if region in r.value:
                return r
        return None

    def rated_regions(self) -> list[str]:
        """Every region some rating names, the main one's first."""
        return list(dict.fromkeys(region for r in (self, *self.alternatives) for region in r.value))


class MonthlyShare(Cited):
    """A share of a spot pool's instances interrupted in a month, with the range it lies in."""

    value: float = Field(ge=0, lt=1, allow_inf_nan=False)
    low: float = Field(ge=0, lt=1, allow_inf_nan=False)
    high: float = Field(ge=0, lt=1, allow_inf_nan=False)

    @model_validator(mode="after")
    def _ordered(self) -> MonthlyShare:
        if not self.low <= self.value <= self.high:
            raise ValueError(f"needs low <= value <= high (got {self.low}, {self.value}, {self.high})")
        return self


class Instance(Strict):
    side: Side
    regions: Regions
    chip: str
    chips: Figure
    accelerator_memory: Figure
    accelerator_memory_unit: Literal["GiB", "GB"]
    # A size AWS sells before any source the guide has describes its host (trn2.3xlarge): left out
    # rather than guessed. No decision reads them.
    vcpu: Figure | None = None
    ram_gib: Figure | None = None
    network_gbps: Figure
    # Where the Spot Instance Advisor rates the instance's spot pools; elsewhere the shared default applies.
    spot_interruption: SpotInterruption | None = None


class AltPrice(Cited):
    usd_per_hour: float = Positive
    # An older figure may come from a source that shows no date (null, and the note says so).
    as_of: dt.date | None  # type: ignore[assignment]


class Price(Cited):
    instance: str
    region: str
    option: Option
    offered: bool = True
    usd_per_hour: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    low: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    high: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    alternatives: list[AltPrice] = []
    reason: str | None = None
    # A commitment's kind: a convertible reservation costs more than a standard one for the same term,
    # so a convertible rate is never set beside standard ones as if it were one.
    reservation: Literal["standard", "convertible"] | None = None
    # The day a refresh from AWS's APIs (generator/commands/refresh.py) last found no such figure: the entry is
    # kept as the last one seen, and pages say since when AWS no longer lists it.
    vanished: dt.date | None = None
    # For a figure no AWS API gives (`refreshable` is false): the day a person should check it again.
    review_by: dt.date | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Price:
        if self.offered and self.usd_per_hour is None:
            raise ValueError("an offered price needs usd_per_hour (use offered: false when it is not sold)")
        if not self.offered and self.usd_per_hour is not None:
            raise ValueError("a price that is not offered must not give usd_per_hour")
        if (self.low is None) != (self.high is None):
            raise ValueError("give both low and high, or neither")
        if self.low is not None and self.usd_per_hour is not None:
            if not self.low <= self.usd_per_hour <= self.high:  # type: ignore[operator]
                raise ValueError("needs low <= usd_per_hour <= high")
        if self.reservation is not None and self.option not in ("commit-1y", "commit-3y"):
            raise ValueError("reservation (standard or convertible) is only for commit-1y or commit-3y")
        return self

    @property
    def point(self) -> float:
        assert self.usd_per_hour is not None
        return self.usd_per_hour

    @property
    def range(self) -> tuple[float, float]:
        if self.low is None or self.high is None:
            return (self.point, self.point)
        return (self.low, self.high)


# An EC2 instance type name, which AWS's APIs price; UltraServer and unreleased names in data/ (no dot) are not.
INSTANCE_TYPE = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9]+$")


def refreshable(p: Price) -> bool:
    """True for a figure `guide refresh-prices` can confirm: a price of an EC2 instance type AWS still
    lists. Not an UltraServer's, an unreleased instance's, a way of buying recorded as not offered
    (no API says what is not sold) nor one AWS no longer lists (`vanished`)."""
    return bool(INSTANCE_TYPE.match(p.instance)) and p.offered and p.vanished is None


class Unpublished(Cited):
    """A way of buying an instance that exists, or may, but whose price no source found gives.
    Recorded so that pages say "not published" instead of leaving a silent gap; never a price."""

    instance: str
    region: str | None = None  # None: no region has a published price
    option: Option


class Was(Strict):
    """A price as it stood on one side of a recorded move."""

    offered: bool = True
    usd_per_hour: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    low: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    high: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    source: str = Field(min_length=1)
    as_of: dt.date | None
    note: str | None = None


class PriceMove(Strict):
    """One move of one price (data/history.yaml): a figure that changed, appeared, vanished from
    AWS's listings or came back, on the day it was found. `before` is the figure data/ held until
    then, `after` the one it holds from then (none when the figure vanished)."""

    date: dt.date
    instance: str
    region: str
    option: Option
    change: Literal["changed", "added", "vanished", "returned"]
    source: str = Field(min_length=1)  # where the move was seen
    before: Was | None = None
    after: Was | None = None

    @model_validator(mode="after")
    def _sides(self) -> PriceMove:
        need = {"changed": (True, True), "added": (False, True), "vanished": (True, False), "returned": (True, True)}
        b, a = need[self.change]
        if (self.before is not None) != b or (self.after is not None) != a:
            raise ValueError(f"a move of kind {self.change} needs {'before' if b else 'no before'} and {'after' if a else 'no after'}")
        return self


class RegionsMove(Strict):
    """One change to an instance's regions list, from the offerings AWS reports."""

    date: dt.date
    instance: str
    source: str = Field(min_length=1)
    before: list[str]
    after: list[str]


class HistoryFile(Strict):
    prices: list[PriceMove] = []
    regions: list[RegionsMove] = []


class RefreshBounds(Cited):
    """How far `guide refresh-prices` believes an API's figure without a person (ours, not AWS's):
    a figure that moved by more than its way of buying's percentage, or a new figure outside
    `low_ratio` to `high_ratio` times the instance's on-demand rate, is held for a person to accept."""

    # data/ names each way of buying as the rest of data/ does (`on-demand`); the build cache stores the
    # catalog by field name and reads it back that way.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)

    on_demand: float = Field(alias="on-demand", gt=0, allow_inf_nan=False)
    spot: float = Field(gt=0, allow_inf_nan=False)
    commit_1y: float = Field(alias="commit-1y", gt=0, allow_inf_nan=False)
    commit_3y: float = Field(alias="commit-3y", gt=0, allow_inf_nan=False)
    capacity_block: float = Field(alias="capacity-block", gt=0, allow_inf_nan=False)
    low_ratio: float = Positive
    high_ratio: float = Positive

    def move_percent(self, option: str) -> float:
        return float(getattr(self, option.replace("-", "_")))

    @model_validator(mode="after")
    def _ordered(self) -> RefreshBounds:
        if not self.low_ratio < self.high_ratio:
            raise ValueError(f"needs low_ratio < high_ratio (got {self.low_ratio}, {self.high_ratio})")
        return self


class Missing(Strict):
    """A figure (or, with option `region`, an instance's region) an answer of AWS's APIs lacked, and
    the day one first did: it is marked vanished only when a refresh a week or more later lacks it too."""

    instance: str
    region: str
    option: Option | Literal["region"]
    since: dt.date


class Held(Strict):
    """A figure an API gave that moved beyond the bounds in data/assumptions.yaml: not written into
    prices.yaml until a person accepts it (`guide refresh-prices --accept INSTANCE/REGION/OPTION=FIGURE`).
    `raised`: the last refresh that asked a person about it; `refused`: the day a person refused it
    (`--refuse`), after which it is not raised again while AWS gives that figure."""

    instance: str
    region: str
    option: Option
    before: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    after: float = Field(allow_inf_nan=False)
    seen: dt.date
    why: str
    raised: dt.date | None = None
    refused: dt.date | None = None


class Reread(Strict):
    """Scenario prose a refresh asks a person to reread before its pull request is merged: the notes of a
    scenario whose verdict it moved, or a field that quotes a figure that moved. `prose` is the digest of
    that text when the refresh asked (generator/inputs/reread.py): edited text no longer matches it."""

    scenario: str
    field: str | None = None  # None: all of the scenario's prose
    why: str
    prose: str = Field(pattern=r"^[0-9a-f]{16}$")
    since: dt.date


class RefreshState(Strict):
    """data/refresh.yaml: what `guide refresh-prices` publishes with its pull request. `asked` is the one
    place that says when each API (by its source key prefix) last answered: a figure it cites and gave
    again unchanged counts as confirmed that day (generator/inputs/freshness.py), without its row re-dated.
    `missing` and `held` are the last refresh's view of what AWS lacked and what waits for a person (the
    refresh's own memory of them is kept apart, generator/commands/refresh_memory.py); `reread`, the prose
    a person must reread before merging (`guide reread`)."""

    asked: dict[str, dt.date] = {}
    missing: list[Missing] = []
    held: list[Held] = []
    reread: list[Reread] = []


class PortingClass(Strict):
    label: str
    examples: str
    weeks: RangeFigure
    # Constraints whose work the class's weeks already count, so they add nothing more to it.
    includes: list[str] = []


class Constraint(Cited):
    """A hard constraint a scenario may state. `excludes` rules Trainium out; `adds-weeks` adds its
    weeks to the class's; `re-port` is a model that already trains on Neuron on a path that ends: on
    the generations `chips` lists its port is these weeks, in place of the class's and the other
    constraints', and elsewhere it runs as it is. `chips`: the Trainium generations (data/chips.yaml
    keys) it applies to; every one when left out."""

    label: str
    effect: Literal["excludes", "adds-weeks", "re-port"]
    weeks: RangeFigure | None = None
    chips: list[str] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _weeks_when_adding(self) -> Constraint:
        if (self.effect != "excludes") != (self.weeks is not None):
            raise ValueError("effects adds-weeks and re-port need weeks; effect excludes must not give them")
        if self.effect == "re-port" and self.chips is None:
            raise ValueError("effect re-port needs chips: the generations on which the model has to be ported again")
        return self

    def applies(self, chip: str) -> bool:
        return self.chips is None or chip in self.chips


class NeuronRelease(Cited):
    """One release of the Neuron SDK and the day AWS released it."""

    released: dt.date


class TrainingPath(Cited):
    """One way to train on Trainium through the Neuron SDK: a framework integration or library, the
    Trainium generations (data/chips.yaml keys) it lists, and whether the current release has it
    (`supported`, `beta`) or its newest release is an older one (`ended` by AWS, or `pinned` by its
    makers to `last`)."""

    label: str
    framework: Literal["pytorch", "jax"]
    status: Literal["supported", "beta", "ended", "pinned"]
    chips: list[str] = Field(min_length=1)
    since: str | None = None
    last: str | None = None

    @model_validator(mode="after")
    def _last_when_past(self) -> TrainingPath:
        if (self.status in ("ended", "pinned")) != (self.last is not None):
            raise ValueError(f"status {self.status} {'needs' if self.last is None else 'must not give'} last, the newest release it trains on")
        return self

    @property
    def current(self) -> bool:
        return self.last is None


class Neuron(Strict):
    """data/neuron.yaml: the Neuron SDK's releases and its training paths on each Trainium generation
    (keys of `releases` are versions; `current`, `since` and `last` name them)."""

    current: str
    releases: dict[str, NeuronRelease]
    paths: dict[str, TrainingPath]

    def on(self, chip: str, framework: str | None = None, current: bool | None = None) -> list[TrainingPath]:
        """The paths that list a generation, of one framework and of the current release or not, if asked."""
        return [p for p in self.paths.values() if chip in p.chips and framework in (None, p.framework)
                and current in (None, p.current)]

    def pin(self, chip: str) -> str | None:
        """The newest release PyTorch training has on a generation that no current PyTorch path lists;
        None where one does, or where no PyTorch path lists it at all."""
        past = self.on(chip, "pytorch", current=False)
        if self.on(chip, "pytorch", current=True) or not past:
            return None
        return max((p.last for p in past if p.last is not None), key=lambda v: self.releases[v].released)


class Trainium3Speed(Strict):
    """What a Trn3 UltraServer might deliver, for the price it would have to beat (generator/model/trn3.py):
    Trainium3's training throughput per chip over each earlier Trainium chip, by chip key. No
    measurement exists, so each is a range; AWS's own claims are kept apart as vendor claims."""

    per_chip: dict[str, RangeFigure]
    vendor_claims: dict[str, Figure] = {}


class RuleFigure(Figure):
    """A selling rule as AWS's own pages state it. Those pages often show no date, so such a figure may
    be undated (null) when, and only when, its source shows no date either (checked in
    generator/inputs/datafiles.py)."""

    as_of: dt.date | None  # type: ignore[assignment]


class CapacityBlockTerms(Strict):
    """How AWS sells Capacity Blocks for ML: how many instances a block and all of an organisation's
    blocks hold, the lengths a block is sold in (whole days, daily up to one length, then in weekly
    steps up to the longest, extensions included) and how far one extension may reach in daily
    steps. Checked in generator/inputs/datafiles.py."""

    instances_per_block: RuleFigure
    instances_across_blocks: RuleFigure
    daily_steps_up_to_days: RuleFigure
    weekly_step_days: RuleFigure
    longest_days: RuleFigure
    booked_ahead_weeks: RuleFigure
    # None: no extension is counted on, and each run is booked as one block of a length AWS sells.
    extension_daily_steps_up_to_days: RuleFigure | None = None


class Assumptions(Strict):
    engineer_week_usd: Figure
    porting_classes: dict[str, PortingClass]
    neuron_experience: dict[Literal["none", "some", "experienced"], Figure]
    constraints: dict[str, Constraint]
    port_engineers: RangeFigure
    spot_interruptions_per_instance_hour: RangeFigure
    # Each Advisor bucket as a monthly share (generator/model/resolve.py turns it into a rate an instance-hour).
    spot_interruption_buckets: dict[SpotBucket, MonthlyShare] = {}
    spot_hours_lost_per_interruption: RangeFigure
    close_call_margin: Figure
    soon_days: Figure
    # Past this many years at a plan's pace a break-even is said as "not within" them, not as runs.
    break_even_horizon_years: Figure | None = None
    # Prices whose as_of is older than this many days are flagged (generator/inputs/freshness.py).
    stale_days: Figure | None = None
    refresh_bounds: RefreshBounds | None = None
    trainium3: Trainium3Speed | None = None
    # None: no Capacity Block limits are known, and a block is priced by the hour used.
    capacity_blocks: CapacityBlockTerms | None = None


class Measured(Cited):
    """A training throughput a source measured on its own run, per chip (or GPU): evidence for the
    relative throughput a scenario states, never a ratio of its own."""

    chip: str
    system: str  # what it ran on, as the source names it
    model: str
    architecture: str  # the porting class of the model measured
    precision: Literal["bf16", "fp8"]
    accelerators: int = Field(ge=1)
    sequence_length: int | None = Field(default=None, ge=1)
    tokens_per_second: float = Positive
    derived: bool = False  # worked out from the source's sequences per second
    software: str


class Utilisation(Cited):
    """The share of its peak FLOPS a source reports training jobs used on one chip, lowest to highest."""

    chip: str
    what: str
    low: float = Field(gt=0, le=1, allow_inf_nan=False)
    high: float = Field(gt=0, le=1, allow_inf_nan=False)


class Claim(Cited):
    """What a vendor or an adviser says about Trainium against GPUs on chosen workloads: where to start
    looking, not a measurement. gpu: the chip it compares with, None for GPUs in general."""

    trainium: str
    gpu: str | None = None
    says: str
    # The relative throughput per instance, Trainium over GPU, the claim comes to, where it comes to one.
    low: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    high: float | None = Field(default=None, gt=0, allow_inf_nan=False)


class ThroughputFile(Strict):
    """data/throughput.yaml: what is known about training throughput, chip by chip."""

    measured: list[Measured] = []
    utilisation: list[Utilisation] = []
    claims: list[Claim] = []


class SourcesFile(Strict):
    sources: dict[str, Source]


class ChipsFile(Strict):
    chips: dict[str, Chip]


class InstancesFile(Strict):
    instances: dict[str, Instance]


class PricesFile(Strict):
    prices: list[Price]
    unpublished: list[Unpublished] = []


class Catalog(BaseModel):
    """Everything in data/, cross-checked. Built by the loader; read by the engine and the site."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    sources: dict[str, Source]
    chips: dict[str, Chip]
    instances: dict[str, Instance]
    prices: list[Price]
    assumptions: Assumptions
    unpublished: list[Unpublished] = []
    history: HistoryFile = HistoryFile()
    refresh: RefreshState = RefreshState()
    # None: data/ says nothing of the Neuron SDK's paths, and no workload is marked as pinned to a release.
    neuron: Neuron | None = None
    throughput: ThroughputFile = ThroughputFile()

    def unpublished_for(self, instance: str) -> list[Unpublished]:
        return [u for u in self.unpublished if u.instance == instance]

    def price(self, instance: str, region: str, option: str) -> Price | None:
        for p in self.prices:
            if p.instance == instance and p.region == region and p.option == option:
                return p
        return None

    def regions(self) -> list[str]:
        return sorted({p.region for p in self.prices})

    def regions_for(self, instance: str) -> list[str]:
        return sorted({p.region for p in self.prices if p.instance == instance})

    def offered_in(self, instance: str) -> list[str]:
        return list(self.instances[instance].regions.value)

    def peak_tflops(self, instance: str, precision: str) -> float:
        chip = self.chips[self.instances[instance].chip]
        fig = chip.fp8_tflops if precision == "fp8" else chip.bf16_tflops
        if fig is None:
            # A chip without FP8 (A100) trains at its BF16 rate.
            fig = chip.bf16_tflops
        return fig.value

    def latest_as_of(self) -> dt.date:
        dates = [p.as_of for p in self.prices]
        return max(dates)
