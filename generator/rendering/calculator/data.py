"""What the calculator page bakes in at build time: the catalog in the shape the JavaScript
engine reads (docs/assets/calculator/engine.mjs) and engine.py's constants, wording.py's tables and
templates for wording.mjs, and every shipped scenario's workloads as presets.

What the calculator page bakes in: the catalog in the JavaScript engine's shape (each price with the
day an API last checked it, `freshness.checked`) and engine.py's constants (`engine`,
`engine.constants()`), wording.py's tables and templates (`words`), the calculator page's own
messages (`messages`), and every scenario's workloads as presets, each written with its page and
joined here."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from generator.inputs.freshness import Freshness
from generator.model import engine, wording
from generator.model.catalog import OPTION_LABELS, TERM_HOURS, Catalog
from generator.model.resolve import block_limits, spot_risk
from generator.model.results import Judge, ScenarioResult
from generator.model.schema import DAYS_PER_MONTH
from generator.rendering.calculator import messages as calculator_messages
from generator.rendering.embeds.folders import compact_json


def calculator_data(catalog: Catalog, fresh: Judge | None = None) -> dict[str, Any]:
    """fresh: the build day's judge of which prices are stale, which an answer then says of the prices
    it used (none are, without one)."""
    a = catalog.assumptions
    # The day an API last confirmed each price does not depend on today: known without a judge too.
    confirmed = fresh if isinstance(fresh, Freshness) else Freshness.of(catalog)
    limits = block_limits(catalog)
    # An instance with no published price anywhere (Trn3 today) cannot be costed: not offered here.
    priced = {p.instance for p in catalog.prices if p.offered}
    return {
        "instances": {
            iid: {"side": i.side, "chip": i.chip, "chips": i.chips.value, "regions": list(i.regions.value)}
            for iid, i in catalog.instances.items() if iid in priced
        },
        "chips": {
            cid: {"name": c.name, "bf16_tflops": c.bf16_tflops.value, "fp8_tflops": c.fp8_tflops.value if c.fp8_tflops else None}
            for cid, c in catalog.chips.items()
        },
        "prices": [
            {
                "instance": p.instance, "region": p.region, "option": p.option, "offered": p.offered,
                "usd_per_hour": p.usd_per_hour, "low": p.low, "high": p.high,
                "source": p.source, "as_of": p.as_of.isoformat(), "note": p.note,
                "vanished": p.vanished.isoformat() if p.vanished else None,
                "stale": False if fresh is None or not p.offered else fresh.is_stale(p),
                "age_days": None if fresh is None or not p.offered else fresh.age(p),
                "checked": checked.isoformat() if (checked := confirmed.checked(p)) else None,
            }
            for p in catalog.prices
        ],
        # How the calculator names a price's source: by title and date, never by its key.
        "sources": {key: {"name": src.name, "url": src.url, "as_of": src.as_of.isoformat() if src.as_of else None}
                    for key, src in catalog.sources.items()},
        # Spot interruptions per instance-hour where the Spot Instance Advisor rates a pool, as resolve
        # converts its bucket; a pool missing here takes the shared default in the assumptions.
        "spot_rates": {
            iid: {region: {"value": r.rate.value, "low": r.rate.low, "high": r.rate.high}
                  for region in i.spot_interruption.rated_regions() if (r := spot_risk(catalog, iid, region)).bucket is not None}
            for iid, i in catalog.instances.items() if iid in priced and i.spot_interruption is not None
        },
        "options": OPTION_LABELS,
        # Every word the calculator says of a workload, as wording.py says it (wording.mjs `learn`s them).
        "words": wording.tables(),
        # What the calculator page says of its own form, links and buttons (wording.mjs `learn`s them too).
        "messages": calculator_messages.tables(),
        # The numbers the engine computes with, as engine.py has them (engine.mjs `learn`s them).
        "engine": engine.constants(),
        "term_hours": TERM_HOURS,
        # A month in days, as the scenario schema turns plan_months into a span to check a finish date against.
        "days_per_month": DAYS_PER_MONTH,
        "assumptions": {
            "engineer_week_usd": a.engineer_week_usd.value,
            "porting_classes": {
                name: {"label": pc.label, "weeks": {"value": pc.weeks.value, "low": pc.weeks.low, "high": pc.weeks.high},
                       "includes": list(pc.includes)}
                for name, pc in a.porting_classes.items()
            },
            "neuron_experience": {name: f.value for name, f in a.neuron_experience.items()},
            "constraints": {
                name: {
                    "label": c.label, "effect": c.effect,
                    "weeks": {"value": c.weeks.value, "low": c.weeks.low, "high": c.weeks.high} if c.weeks else None,
                    # The Trainium generations it applies to (every one when None), and their names as a phrase.
                    "chips": c.chips,
                    "on": None if c.chips is None else wording.listed([catalog.chips[k].name for k in c.chips]),
                }
                for name, c in a.constraints.items()
            },
            "port_engineers": {"value": a.port_engineers.value, "low": a.port_engineers.low, "high": a.port_engineers.high},
            "spot_interruptions_per_instance_hour": {
                "value": a.spot_interruptions_per_instance_hour.value,
                "low": a.spot_interruptions_per_instance_hour.low,
                "high": a.spot_interruptions_per_instance_hour.high,
            },
            "spot_hours_lost_per_interruption": {
                "value": a.spot_hours_lost_per_interruption.value,
                "low": a.spot_hours_lost_per_interruption.low,
                "high": a.spot_hours_lost_per_interruption.high,
            },
            "close_call_margin": a.close_call_margin.value,
            "soon_days": a.soon_days.value,
            "break_even_horizon_years": a.break_even_horizon_years.value if a.break_even_horizon_years else None,
            # In the engine's own shape (engine.BlockLimits), so both engines book blocks alike.
            "capacity_blocks": None if limits is None else dataclasses.asdict(limits),
        },
    }


def workload_json(workload: Any) -> dict[str, Any]:
    return workload.model_dump(mode="json", exclude_none=True)


def presets(r: ScenarioResult) -> list[str]:
    """The scenario's workloads as the calculator's presets, each as JSON text (compact, keys
    sorted): made with the scenario's page and stored with it, so the calculator's data is joined
    from texts rather than written out again for every scenario on each build."""
    out = []
    for i, w in enumerate(r.workloads):
        label = r.scenario.title if len(r.workloads) == 1 else f"{r.scenario.title} ({w.workload.name})"
        out.append(compact_json({"id": f"{r.id}/{i + 1}", "label": label, "workload": workload_json(w.workload)}))
    return out


def data_json(parts: dict[str, Any], presets: list[str]) -> str:
    """The calculator's data as `compact_json` writes it, with `presets` the list of the texts given."""
    texts = {key: compact_json(value) for key, value in parts.items()} | {"presets": "[" + ",".join(presets) + "]"}
    return "{" + ",".join(f"{json.dumps(key)}:{texts[key]}" for key in sorted(texts)) + "}"
