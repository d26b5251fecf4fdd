"""All of data/'s instances and prices as files to download, CSV and JSON, at fixed addresses: one row
per figure, each row with its source (key, title, address) and the date that source shows.

Every instance and price figure as CSV and JSON at fixed addresses (`downloads/`), one row per
figure with its source and as-of."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from generator.model.catalog import Catalog
from generator.model.wording import SITE_WORDS, site_say

PRICES = "downloads/prices"
INSTANCES = "downloads/instances"
PATHS = {f"{stem}.{ext}" for stem in (PRICES, INSTANCES) for ext in ("csv", "json")}
PRICE_COLUMNS = ("instance", "region", "option", "status", "usd_per_hour", "low", "high", "reservation", "vanished",
                 "source", "as_of", "source_title", "source_url", "note")
INSTANCE_COLUMNS = ("instance", "side", "chip", "figure", "value", "unit", "source", "as_of", "source_title", "source_url",
                    "note")
UNITS = {"chips": "count", "accelerator_memory": None, "vcpu": "count", "ram_gib": "GiB", "network_gbps": "Gbps",
         "regions": "region codes"}


def _cited(catalog: Catalog, source: str, as_of: Any) -> dict[str, Any]:
    s = catalog.sources.get(source)
    return {"source": source, "as_of": None if as_of is None else as_of.isoformat(),
            "source_title": s.title if s else None, "source_url": s.url if s else None}


def price_rows(catalog: Catalog) -> list[dict[str, Any]]:
    rows = []
    for p in catalog.prices:
        rows.append({"instance": p.instance, "region": p.region, "option": p.option,
                     "status": "priced" if p.offered else "not offered", "usd_per_hour": p.usd_per_hour, "low": p.low,
                     "high": p.high, "reservation": p.reservation,
                     "vanished": None if p.vanished is None else p.vanished.isoformat(),
                     **_cited(catalog, p.source, p.as_of), "note": p.note})
    for u in catalog.unpublished:
        rows.append({"instance": u.instance, "region": u.region, "option": u.option, "status": "not published",
                     "usd_per_hour": None, "low": None, "high": None, "reservation": None, "vanished": None,
                     **_cited(catalog, u.source, u.as_of), "note": u.note})
    return [{k: row[k] for k in PRICE_COLUMNS} for row in rows]


def instance_rows(catalog: Catalog) -> list[dict[str, Any]]:
    rows = []
    for name, inst in catalog.instances.items():
        for figure in ("chips", "accelerator_memory", "vcpu", "ram_gib", "network_gbps", "regions"):
            f = getattr(inst, figure)
            if f is None:  # a figure no source gives (trn2.3xlarge's vCPUs): no row rather than a guess
                continue
            unit = inst.accelerator_memory_unit if figure == "accelerator_memory" else UNITS[figure]
            value = " ".join(f.value) if figure == "regions" else f.value
            rows.append({"instance": name, "side": inst.side, "chip": inst.chip, "figure": figure, "value": value, "unit": unit,
                         **_cited(catalog, f.source, f.as_of), "note": f.note})
    return [{k: row[k] for k in INSTANCE_COLUMNS} for row in rows]


def _csv(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: "" if v is None else v for k, v in row.items()})
    return out.getvalue()


def _json(rows: list[dict[str, Any]], what: str, catalog: Catalog) -> str:
    doc = {"about": site_say("download_about", what=what),
           "latest_price_as_of": catalog.latest_as_of().isoformat(), "rows": rows}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def files(catalog: Catalog) -> dict[str, str]:
    """Site path -> text of every download."""
    prices, instances = price_rows(catalog), instance_rows(catalog)
    return {
        f"{PRICES}.csv": _csv(prices, PRICE_COLUMNS),
        f"{PRICES}.json": _json(prices, SITE_WORDS["prices_download"], catalog),
        f"{INSTANCES}.csv": _csv(instances, INSTANCE_COLUMNS),
        f"{INSTANCES}.json": _json(instances, SITE_WORDS["instances_download"], catalog),
    }
