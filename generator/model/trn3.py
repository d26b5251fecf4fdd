"""The price a Trn3 UltraServer would have to beat: for one evaluated workload, the hourly price at
which an UltraServer in place of the workload's Trainium instances costs the same as its GPU plan.

Trainium3 has no published price, so the guide turns the question around. The workload stays as it
is (its GPU side, runs, port, constraints and deadlines); only the Trainium side changes, to Trn3
UltraServers bought by the hour. How fast one is, relative to the GPU instance, is the workload's
own relative throughput scaled by the chips an UltraServer holds and by Trainium3's speed per chip
over the workload's Trainium chip (`trainium3.per_chip` in data/assumptions.yaml). The price is the
engine's own cost parity for those inputs (`engine.cost_parity`), never arithmetic of this module's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from generator.model.catalog import Catalog
from generator.model.engine import Inputs, Span, cost_parity, evaluate
from generator.model.resolve import excluded_by, port_weeks
from generator.model.results import WorkloadResult

ULTRASERVERS = ("trn3-gen1-ultraserver", "trn3-gen2-ultraserver")
# Multiples of the parity price at which the engine is asked whether cost decides: far enough from
# parity that the close-call margin cannot blur the answer.
BELOW, ABOVE = 0.5, 2.0


@dataclass(frozen=True)
class PriceAt:
    """The price to beat at one assumed speed."""

    end: str  # "low", "value" or "high" of the stated range, or "vendor claim"
    per_chip: float  # Trainium3's throughput per chip over the workload's Trainium chip
    relative_throughput: float  # one UltraServer over one GPU instance
    usd_per_hour: float | None  # an UltraServer-hour at cost parity; None when no price gets there
    usd_per_chip_hour: float | None  # the same per Trainium3 chip, to set beside Trainium2's rates
    source: str  # of the per-chip speed: GUIDE for the range, the vendor's source for a claim


@dataclass(frozen=True)
class PriceToBeat:
    ultraserver: str
    chips: int  # Trainium3 chips in one UltraServer
    baseline: str  # the workload's Trainium instance
    baseline_chip: str
    instances_per_ultraserver: float  # the workload's Trainium instances one UltraServer replaces, by chips
    prices: tuple[PriceAt, ...]
    decides: str | None  # None when price decides; else the rule that decides at any price
    verdict_at_any_price: str | None  # that rule's verdict, when price does not decide

    @property
    def stated(self) -> tuple[PriceAt, ...]:
        return tuple(p for p in self.prices if p.end != "vendor claim")

    @property
    def vendor(self) -> PriceAt | None:
        return next((p for p in self.prices if p.end == "vendor claim"), None)


def _on_chip(catalog: Catalog, w: WorkloadResult, chip: str) -> Inputs:
    """The workload's inputs with its port and constraints as they are on another Trainium generation:
    a constraint or a re-port that names generations applies by that one's, not by the workload's own."""
    return replace(w.inputs, port_weeks=port_weeks(w.workload, catalog, chip), excluded_by=excluded_by(w.workload, catalog, chip))


def _trn3_inputs(x: Inputs, relative_throughput: float, count: int, price: float) -> Inputs:
    """The workload with its Trainium side replaced by Trn3 UltraServers bought by the hour, and in
    no other way: the side's other ways are its old instance's. No source gives Trn3 a region, so the
    region rule is not applied to that side."""
    return replace(
        x,
        relative_throughput=Span(relative_throughput, relative_throughput, relative_throughput),
        trainium_price=Span(price, price, price),
        trainium_option="on-demand",
        trainium_accepts=("on-demand",),
        trainium_ways=(),
        trainium_ways_elsewhere=(),
        trainium_spot=False,
        trainium_term_hours=None,
        trainium_held_hours=0.0,
        trainium_count=count,
        region_excluded=tuple(s for s in x.region_excluded if s != "trainium"),
    )


def _deciding_rule(x: Inputs) -> tuple[str, str]:
    o = evaluate(x)
    return o.decided_by, o.verdict


def price_to_beat(catalog: Catalog, w: WorkloadResult) -> tuple[PriceToBeat, ...]:
    """For each Trn3 UltraServer configuration, the price to beat in this workload; empty when the
    data gives no per-chip speed for the workload's Trainium chip (or no Trn3 configuration)."""
    speed = catalog.assumptions.trainium3
    inst = catalog.instances[w.trainium_price.instance]
    if speed is None or inst.chip not in speed.per_chip:
        return ()
    factor = speed.per_chip[inst.chip]
    claim = speed.vendor_claims.get(inst.chip)
    rt = w.inputs.relative_throughput
    out = []
    for us in ULTRASERVERS:
        trn3 = catalog.instances.get(us)
        if trn3 is None:
            continue
        x = _on_chip(catalog, w, trn3.chip)
        scale = trn3.chips.value / inst.chips.value
        count = max(1, math.ceil(x.trainium_count / scale))
        ends = [("low", rt.low * factor.low, factor.low, factor.source),
                ("value", rt.value * factor.value, factor.value, factor.source),
                ("high", rt.high * factor.high, factor.high, factor.source)]
        if claim is not None:
            ends.append(("vendor claim", rt.value * claim.value, claim.value, claim.source))
        prices = []
        for end, per_instance, per_chip, source in ends:
            r = per_instance * scale
            p = cost_parity(_trn3_inputs(x, r, count, 1.0)).trainium_price
            prices.append(PriceAt(end, per_chip, r, p, None if p is None else p / trn3.chips.value, source))
        middle = prices[1]
        decides, regardless = None, None
        if middle.usd_per_hour is None:
            # No price reaches parity (a port that alone outweighs the GPU plan, or a rule other than
            # cost): say what decides at a price near nothing.
            decides, regardless = _deciding_rule(_trn3_inputs(x, middle.relative_throughput, count, 1e-6))
        else:
            below = _deciding_rule(_trn3_inputs(x, middle.relative_throughput, count, middle.usd_per_hour * BELOW))
            above = _deciding_rule(_trn3_inputs(x, middle.relative_throughput, count, middle.usd_per_hour * ABOVE))
            if (below[1], above[1]) != ("trainium", "gpu"):
                decides = below[0] if below[1] == above[1] else f"{below[0]}/{above[0]}"
                regardless = below[1] if below[1] == above[1] else None
        out.append(PriceToBeat(us, int(trn3.chips.value), w.trainium_price.instance, inst.chip, scale, tuple(prices), decides, regardless))
    return tuple(out)
