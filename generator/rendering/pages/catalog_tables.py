"""The catalog as the tables the prices and sources pages show: rows of instances with their prices,
and the figures each source backs."""

from __future__ import annotations

from typing import Any

from generator.model.catalog import OPTION_LABELS, Catalog, Figure


def price_rows(catalog: Catalog) -> list[dict[str, Any]]:
    """Each instance with its chip, its peak PFLOPS, its prices and its home on-demand price."""
    rows = []
    for iid, inst in catalog.instances.items():
        chip = catalog.chips[inst.chip]
        pflops = inst.chips.value * chip.bf16_tflops.value / 1000
        prices = [p for p in catalog.prices if p.instance == iid]
        on_demand = sorted((p for p in prices if p.option == "on-demand"), key=lambda p: (p.region != "us-east-1", p.region))
        home = on_demand[0] if on_demand else None
        rows.append({"id": iid, "inst": inst, "chip": chip, "pflops": pflops, "prices": prices, "on_demand": home})
    return rows

def figure_sources(catalog: Catalog) -> dict[str, list[str]]:
    """Which figures each source backs, for the sources page."""
    backs: dict[str, list[str]] = {k: [] for k in catalog.sources}

    def add(key: str, what: str) -> None:
        backs.setdefault(key, []).append(what)

    for cid, chip in catalog.chips.items():
        for name in ("bf16_tflops", "fp8_tflops", "memory_gib", "memory_bandwidth_tbps"):
            fig: Figure | None = getattr(chip, name)
            if fig is not None:
                add(fig.source, f"{chip.name}: {name.replace('_', ' ')}")
                for alt in fig.alternatives:
                    add(alt.source, f"{chip.name}: {name.replace('_', ' ')} (alternative figure)")
    for iid, inst in catalog.instances.items():
        for name in ("chips", "accelerator_memory", "vcpu", "ram_gib", "network_gbps"):
            fig = getattr(inst, name)
            if fig is None:
                continue
            add(fig.source, f"{iid}: {name.replace('_', ' ')}")
            for alt in fig.alternatives:
                add(alt.source, f"{iid}: {name.replace('_', ' ')} (alternative figure)")
    for p in catalog.prices:
        add(p.source, f"{p.instance} {p.region} {OPTION_LABELS[p.option]} price")
        for alt in p.alternatives:
            add(alt.source, f"{p.instance} {p.region} {OPTION_LABELS[p.option]} price (alternative figure)")
    a = catalog.assumptions
    add(a.engineer_week_usd.source, "cost of an engineer-week")
    for name, pc in a.porting_classes.items():
        add(pc.weeks.source, f"porting effort, {pc.label.lower()} class")
    for name, c in a.constraints.items():
        add(c.source, f"constraint: {c.label.lower()}")
    for name in ("spot_interruptions_per_instance_hour", "spot_hours_lost_per_interruption", "port_engineers",
                 "close_call_margin", "soon_days"):
        add(getattr(a, name).source, name.replace("_", " "))
    return backs
