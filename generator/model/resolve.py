"""From a validated scenario and the catalog to the engine's flat inputs, and the checks that make
that possible: every instance, region and purchase option a scenario names must exist in data/.

Checks that names point into `data/` (with `suggest.did_you_mean`) and flattens a workload and the
catalog into the engine's `Inputs` (the ways each side accepts, each spot way with its own pool's
rate, the Capacity Block limits), with the record of every price each side may be bought at (named,
and each way in each region it may use) and its spot pools' ratings (the Spot Instance Advisor's
bucket for the instance and region, turned into a rate an instance-hour, or the shared default), and
the Neuron release its Trainium side is pinned to, if any (`NeuronPin`). Constraints and the port
count as they apply on the Trainium side's generation. The one place a workload's prices and spot
rates are looked up."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from dataclasses import dataclass

from generator.model.catalog import TERM_HOURS, Catalog
from generator.model.engine import HOURS_PER_MONTH, HOURS_PER_YEAR, BlockLimits, Inputs, Span, Way
from generator.model.schema import Workload
from generator.model.suggest import did_you_mean

Loc = tuple[str | int, ...]


def check_references(workloads: tuple[Workload, ...], catalog: Catalog) -> Iterator[tuple[Loc, str]]:
    """Problems with names that point into data/, located by field path."""
    instances = sorted(catalog.instances)
    regions = catalog.regions()
    for i, w in enumerate(workloads):
        # A constraint the schema knows but data/ does not describe (data of an older guide, as `guide
        # diff` reads a base): said at the scenario that names it, not as a fault of data/.
        for j, name in enumerate(getattr(w, "constraints", None) or ()):
            if name not in catalog.assumptions.constraints:
                yield ("workloads", i, "constraints", j), (
                    f"data/assumptions.yaml describes no such constraint{did_you_mean(name, list(catalog.assumptions.constraints))} "
                    f"(got '{name}')")
        for side in ("trainium", "gpu"):
            c = getattr(w, side)
            loc: Loc = ("workloads", i, side)
            inst = catalog.instances.get(c.instance)
            if inst is None:
                yield loc + ("instance",), f"unknown instance{did_you_mean(c.instance, instances)} (got '{c.instance}')"
                continue
            if inst.side != side:
                yield loc + ("instance",), f"{c.instance} is a {inst.side} instance, not {side} (got '{c.instance}')"
                continue
            if c.region not in regions:
                yield loc + ("region",), f"unknown region{did_you_mean(c.region, regions)} (got '{c.region}')"
                continue
            price = catalog.price(c.instance, c.region, c.option)
            if price is None:
                known = [p.option for p in catalog.prices if p.instance == c.instance and p.region == c.region and p.offered]
                where = [p.region for p in catalog.prices if p.instance == c.instance and p.option == c.option and p.offered]
                hint = ""
                if known:
                    hint = f"; priced there: {', '.join(known)}"
                elif where:
                    hint = f"; {c.option} is priced in: {', '.join(sorted(where))}"
                unpublished = [u for u in catalog.unpublished_for(c.instance) if u.option == c.option and u.region in (None, c.region)]
                what = "no published" if unpublished else "no"
                yield loc + ("option",), f"{what} {c.option} price for {c.instance} in {c.region} in data/prices.yaml{hint} (got '{c.option}')"
            elif not price.offered:
                yield loc + ("option",), f"{c.instance} is not sold {c.option} in {c.region}: {price.note or 'not offered'} (got '{c.option}')"
        allowed = getattr(w, "regions", None)
        if allowed:
            yield from _check_regions(w, i, allowed, catalog)


def _check_regions(w: Workload, i: int, allowed: list[str], catalog: Catalog) -> Iterator[tuple[Loc, str]]:
    known = sorted(set(catalog.regions()) | {r for inst in catalog.instances.values() for r in inst.regions.value})
    for j, r in enumerate(allowed):
        if r not in known:
            yield ("workloads", i, "regions", j), f"unknown region{did_you_mean(r, known)} (got '{r}')"
    out = [side for side in ("trainium", "gpu") if getattr(w, side).instance in catalog.instances and not offered(w, side, catalog)]
    if len(out) == 2:
        yield ("workloads", i, "regions"), f"neither instance is offered in {', '.join(allowed)}: there is nothing to compare (got {', '.join(allowed)})"
    for side in ("trainium", "gpu"):
        c = getattr(w, side)
        if side not in out and c.instance in catalog.instances and c.region not in allowed:
            yield ("workloads", i, side, "region"), f"the workload may only use {', '.join(allowed)}; price {c.instance} there (got '{c.region}')"


def offered(w: Workload, side: str, catalog: Catalog) -> bool:
    """Whether a side's instance is offered in a region the workload may use (any, if it names none)."""
    if not w.regions:
        return True
    return bool(set(w.regions) & set(catalog.offered_in(getattr(w, side).instance)))


def gpu_instance_hours(w: Workload, catalog: Catalog) -> float:
    rs = w.run_size
    if rs.gpu_instance_hours is not None:
        return rs.gpu_instance_hours
    assert rs.params_billion is not None and rs.tokens_billion is not None and rs.mfu is not None
    flops = 6 * rs.params_billion * 1e9 * rs.tokens_billion * 1e9
    chips = catalog.instances[w.gpu.instance].chips.value
    peak = catalog.peak_tflops(w.gpu.instance, rs.precision) * 1e12
    return flops / (chips * peak * rs.mfu) / 3600


def trainium_chip(w: Workload, catalog: Catalog) -> str:
    return catalog.instances[w.trainium.instance].chip


def excluded_by(w: Workload, catalog: Catalog, chip: str) -> tuple[str, ...]:
    """The stated constraints that rule Trainium out on this generation."""
    a = catalog.assumptions
    return tuple(n for n in w.constraints if a.constraints[n].effect == "excludes" and a.constraints[n].applies(chip))


def port_weeks(w: Workload, catalog: Catalog, chip: str | None = None) -> Span:
    """Engineer-weeks for one port to the Trainium generation `chip` (the workload's own when None).
    Explicit weeks are the team's own estimate of the whole port, so they already reflect its
    experience and its kernels; class defaults are adjusted for both."""
    if w.porting.weeks is not None:
        e = w.porting.weeks
        return Span(e.value, e.low, e.high)
    a = catalog.assumptions
    chip = chip or trainium_chip(w, catalog)
    m = a.neuron_experience[w.neuron_experience].value
    moved = [a.constraints[n] for n in w.constraints if a.constraints[n].effect == "re-port"]
    if moved:
        # The model already trains on Neuron: where its path ends it is ported again, that port in place
        # of the class's; where its path goes on it runs as it is.
        again = [c.weeks for c in moved if c.applies(chip) and c.weeks is not None]
        if not again:
            return Span(0.0, 0.0, 0.0)
        return Span(max(e.value for e in again) * m, max(e.low for e in again) * m, max(e.high for e in again) * m)
    classes = list(a.porting_classes)
    # Constraints are a set, and a class counts what it includes: a lighter class plus constraints
    # never costs more than a heavier class (listed later in data/) that includes them. Each end of
    # the range is the least of those readings.
    ends = []
    for end in ("low", "value", "high"):
        best = None
        for name in classes[classes.index(w.architecture):]:
            pc = a.porting_classes[name]
            total = getattr(pc.weeks, end)
            for cname in w.constraints:
                c = a.constraints[cname]
                if c.effect == "adds-weeks" and c.weeks is not None and c.applies(chip) and cname not in pc.includes:
                    total = total + getattr(c.weeks, end)
            best = total if best is None else min(best, total)
        ends.append(best)
    lo, mid, hi = ends
    return Span(mid * m, lo * m, hi * m)


@dataclass(frozen=True)
class Bought:
    """The price one side of a workload is bought at, as resolve found it in data/prices.yaml:
    everything after resolve (pages, charts, tables) reads this record, never the catalog again."""

    instance: str
    region: str
    option: str
    point: float  # USD per instance-hour
    low: float | None  # the range data/ gives, or None for a single figure
    high: float | None
    source: str
    as_of: dt.date
    reason: str | None  # why data/ uses this figure where sources disagree
    # The day AWS's APIs were found no longer to list the figure: a page that uses it says so.
    vanished: dt.date | None = None

    @property
    def span(self) -> Span:
        return Span(self.point, self.point if self.low is None else self.low, self.point if self.high is None else self.high)


def bought(catalog: Catalog, instance: str, region: str, option: str) -> Bought:
    p = catalog.price(instance, region, option)
    assert p is not None and p.offered, "check_references runs before resolve"
    return Bought(instance, region, option, p.point, p.low, p.high, p.source, p.as_of, p.reason, p.vanished)


@dataclass(frozen=True)
class SpotRisk:
    """How often an instance's spot pool in a region is interrupted, as the engine takes it, and where
    the figure comes from: the Spot Instance Advisor's bucket, or the shared default (bucket None)."""

    rate: Span  # interruptions per instance-hour
    bucket: str | None
    source: str
    as_of: dt.date


def hourly_rate(monthly_share: float) -> float:
    """Interruptions per instance-hour for a share of instances interrupted in a month of 730 hours,
    taking interruptions to arrive at a steady rate (our conversion): 1 - exp(-730 r) = share."""
    return -math.log1p(-monthly_share) / HOURS_PER_MONTH


def spot_risk(catalog: Catalog, instance: str, region: str) -> SpotRisk:
    """The Advisor's bucket for the instance in the region as a rate an instance-hour, where it rates
    one; the shared default, labelled the guide's own, where it does not."""
    a = catalog.assumptions
    inst = catalog.instances.get(instance)
    rated = inst.spot_interruption.rating(region) if inst is not None and inst.spot_interruption is not None else None
    bucket = rated.value.get(region) if rated is not None else None
    share = a.spot_interruption_buckets.get(bucket) if bucket is not None else None  # type: ignore[call-overload]
    if rated is None or share is None:
        d = a.spot_interruptions_per_instance_hour
        return SpotRisk(Span(d.value, d.low, d.high), None, d.source, d.as_of)
    return SpotRisk(Span(hourly_rate(share.value), hourly_rate(share.low), hourly_rate(share.high)), bucket,
                    rated.source, rated.as_of)


# Every price record a side may be bought at, by region and way; and its spot pools' ratings, by region.
Records = dict[tuple[str, str], Bought]
Pools = dict[str, SpotRisk]


@dataclass(frozen=True)
class PathRef:
    """A training path of data/neuron.yaml as a page names it."""

    label: str
    status: str


@dataclass(frozen=True)
class NeuronPin:
    """A Trainium side whose generation no current PyTorch path lists (data/neuron.yaml): PyTorch
    training there stays on an older Neuron release. What a page says of it, with its sources."""

    instance: str
    chip: str  # the generation's name in data/chips.yaml
    release: str  # the newest release PyTorch training has there
    released: dt.date
    paths: tuple[str, ...]  # the PyTorch paths whose last release it is
    current: str  # the current release
    current_released: dt.date
    pytorch_chips: tuple[str, ...]  # the generations the current release trains PyTorch on
    pytorch_paths: tuple[PathRef, ...]  # and through which paths
    others: tuple[PathRef, ...]  # the current release's other paths on this generation
    # What leaving the release costs, where data/assumptions.yaml has a re-port: that constraint's name
    # and its weeks, adjusted for the team's experience.
    report: str | None
    report_weeks: Span | None
    sources: tuple[str, ...]  # every source the above comes from, each once


def neuron_pin(w: Workload, catalog: Catalog) -> NeuronPin | None:
    """The pin of the workload's Trainium side, if its generation has one; the re-port's weeks
    adjusted for the team's experience, as its port's are."""
    n = catalog.neuron
    instance = w.trainium.instance
    inst = catalog.instances[instance]
    release = None if n is None else n.pin(inst.chip)
    if n is None or release is None:
        return None
    past = [p for p in n.on(inst.chip, "pytorch", current=False) if p.last == release]
    torch = [p for p in n.paths.values() if p.framework == "pytorch" and p.current]
    others = n.on(inst.chip, current=True)
    report = next((k for k, c in catalog.assumptions.constraints.items() if c.effect == "re-port" and not c.applies(inst.chip)), None)
    moved = None if report is None else catalog.assumptions.constraints[report]
    m = catalog.assumptions.neuron_experience[w.neuron_experience].value
    weeks = None if moved is None or moved.weeks is None else Span(moved.weeks.value * m, moved.weeks.low * m, moved.weeks.high * m)
    sources = [*(p.source for p in past), n.releases[release].source, n.releases[n.current].source,
               *(p.source for p in torch), *(p.source for p in others), *([] if moved is None else [moved.source])]
    return NeuronPin(instance, catalog.chips[inst.chip].name, release, n.releases[release].released,
                     tuple(p.label for p in past), n.current, n.releases[n.current].released,
                     tuple(dict.fromkeys(catalog.chips[c].name for p in torch for c in p.chips)),
                     tuple(PathRef(p.label, p.status) for p in torch), tuple(PathRef(p.label, p.status) for p in others),
                     report, weeks, tuple(dict.fromkeys(sources)))


@dataclass(frozen=True)
class Resolved:
    """A workload as the engine takes it, with the price records its two sides were resolved from:
    the named ones, and every record a plan may buy at (each way in each region it may use), so that
    an answer cites the figures its plan used without looking them up again."""

    inputs: Inputs
    trainium: Bought
    gpu: Bought
    trainium_spot_risk: SpotRisk | None = None  # None: the side is not named on spot
    gpu_spot_risk: SpotRisk | None = None
    records: dict[str, Records] | None = None  # by side
    pools: dict[str, Pools] | None = None  # by side
    neuron_pin: NeuronPin | None = None  # None: the Trainium side has a current PyTorch path


def held_hours(c) -> float:
    return 0.0 if c.held_months is None else c.held_months * HOURS_PER_MONTH


def ways(catalog: Catalog, instance: str, region: str) -> tuple[Way, ...]:
    """Every way data/ sells an instance in a region, in data/'s order, spot with its own pool's rate
    (the Advisor's band for the instance in that region, or the shared default). A figure AWS's APIs
    no longer list (`vanished`) is no way to buy: only a workload that names it is priced at it, marked."""
    out = []
    for p in catalog.prices:
        if p.instance == instance and p.region == region and p.offered and p.vanished is None:
            risk = spot_risk(catalog, instance, region) if p.option == "spot" else None
            out.append(Way(p.option, p.point, TERM_HOURS.get(p.option), p.region,
                           None if risk is None else risk.rate, risk is not None and risk.bucket is not None))
    return tuple(out)


def ways_elsewhere(catalog: Catalog, instance: str, region: str, allowed: list[str] | None) -> tuple[Way, ...]:
    """Every way data/ sells an instance in the regions a workload may use other than the one it
    names, region by region in the workload's order. A workload that lists no regions has named
    one and said nothing about moving, so no other region is compared."""
    out: list[Way] = []
    seen = {region}
    for r in allowed or ():
        if r not in seen:
            seen.add(r)
            out.extend(ways(catalog, instance, r))
    return tuple(out)


def accepted(w: Workload, side: str) -> tuple[str, ...]:
    """The ways one side accepts: its named way, then the workload's `buy:` list (on-demand when it
    gives none), each once."""
    named = getattr(w, side).option
    more = ["on-demand"] if w.buy is None else w.buy
    return (named, *(o for o in more if o != named))


def block_limits(catalog: Catalog) -> BlockLimits | None:
    b = catalog.assumptions.capacity_blocks
    if b is None:
        return None
    extend = b.extension_daily_steps_up_to_days
    return BlockLimits(b.instances_per_block.value, b.instances_across_blocks.value, b.daily_steps_up_to_days.value,
                       b.weekly_step_days.value, b.longest_days.value, None if extend is None else extend.value)


def resolve(w: Workload, catalog: Catalog) -> Resolved:
    trn = bought(catalog, w.trainium.instance, w.trainium.region, w.trainium.option)
    gpu = bought(catalog, w.gpu.instance, w.gpu.region, w.gpu.option)
    trn_risk = spot_risk(catalog, w.trainium.instance, w.trainium.region)
    gpu_risk = spot_risk(catalog, w.gpu.instance, w.gpu.region)
    a = catalog.assumptions
    ir, lost, eng = a.spot_interruptions_per_instance_hour, a.spot_hours_lost_per_interruption, a.port_engineers
    engineers = Span(eng.value, eng.low, eng.high) if w.porting.engineers is None else Span(w.porting.engineers, w.porting.engineers, w.porting.engineers)
    x = Inputs(
        gpu_hours=gpu_instance_hours(w, catalog),
        relative_throughput=Span(w.relative_throughput.value, w.relative_throughput.low, w.relative_throughput.high),
        trainium_price=trn.span,
        gpu_price=gpu.span,
        trainium_spot=w.trainium.option == "spot",
        gpu_spot=w.gpu.option == "spot",
        interruption_rate=Span(ir.value, ir.low, ir.high),
        # A side's own rate where the Advisor rates its pool; otherwise the shared default above.
        trainium_interruption_rate=None if trn_risk.bucket is None else trn_risk.rate,
        gpu_interruption_rate=None if gpu_risk.bucket is None else gpu_risk.rate,
        horizon_hours=None if a.break_even_horizon_years is None else a.break_even_horizon_years.value * HOURS_PER_YEAR,
        lost_hours=Span(lost.value, lost.low, lost.high),
        port_weeks=port_weeks(w, catalog),
        engineer_week_usd=w.porting.engineer_week_usd or a.engineer_week_usd.value,
        port_extra_usd=w.porting.extra_usd,
        runs=w.runs,
        runs_per_architecture=w.runs_per_architecture,
        trainium_count=w.trainium.count,
        gpu_count=w.gpu.count,
        trainium_availability=w.availability.trainium,
        gpu_availability=w.availability.gpu,
        needed_within_days=w.availability.needed_within_days,
        finish_within_days=w.availability.finish_within_days,
        soon_days=a.soon_days.value,
        close_call_margin=a.close_call_margin.value,
        excluded_by=excluded_by(w, catalog, trainium_chip(w, catalog)),
        port_engineers=engineers,
        trainium_lead_days=w.availability.trainium_lead_days,
        gpu_lead_days=w.availability.gpu_lead_days,
        trainium_term_hours=TERM_HOURS.get(w.trainium.option),
        gpu_term_hours=TERM_HOURS.get(w.gpu.option),
        trainium_held_hours=held_hours(w.trainium),
        gpu_held_hours=held_hours(w.gpu),
        plan_hours=None if w.plan_months is None else w.plan_months * HOURS_PER_MONTH,
        region_excluded=tuple(side for side in ("trainium", "gpu") if not offered(w, side, catalog)),
        allowed_regions=tuple(w.regions or ()),
        port_during_lead=w.availability.port_during_lead,
        trainium_option=w.trainium.option,
        gpu_option=w.gpu.option,
        trainium_ways=ways(catalog, w.trainium.instance, w.trainium.region),
        gpu_ways=ways(catalog, w.gpu.instance, w.gpu.region),
        trainium_region=w.trainium.region,
        gpu_region=w.gpu.region,
        trainium_ways_elsewhere=ways_elsewhere(catalog, w.trainium.instance, w.trainium.region, w.regions),
        gpu_ways_elsewhere=ways_elsewhere(catalog, w.gpu.instance, w.gpu.region, w.regions),
        trainium_accepts=accepted(w, "trainium"),
        gpu_accepts=accepted(w, "gpu"),
        block_limits=block_limits(catalog),
    )
    records: dict[str, Records] = {}
    pools: dict[str, Pools] = {}
    for side, named, risk in (("trainium", trn, trn_risk), ("gpu", gpu, gpu_risk)):
        c = getattr(w, side)
        records[side] = {(named.region, named.option): named}
        pools[side] = {c.region: risk}
        for way in getattr(x, side + "_ways") + getattr(x, side + "_ways_elsewhere"):
            if (way.region, way.option) not in records[side]:
                records[side][(way.region, way.option)] = bought(catalog, c.instance, way.region, way.option)
            if way.option == "spot" and way.region not in pools[side]:
                pools[side][way.region] = spot_risk(catalog, c.instance, way.region)
    return Resolved(x, trn, gpu, trn_risk if w.trainium.option == "spot" else None,
                    gpu_risk if w.gpu.option == "spot" else None, records, pools, neuron_pin(w, catalog))
