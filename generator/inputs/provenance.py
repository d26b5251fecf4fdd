"""Figures whose provenance cannot be right: a date later than today, or a price whose value
changed while its `source` and `as_of` stayed as they were (the new figure then claims a source
and a date that never showed it).

`guide validate` reports both as located problems; `guide diff` flags the second in its report.
The committed side of the comparison is git HEAD, read with `git show` (never the work tree).
"""

from __future__ import annotations

import datetime as dt
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from generator.inputs.datafiles import DATA_FILES, OPTIONAL_FILES
from generator.inputs.problems import InputError, Loc, Problem
from generator.inputs.validation import validate_doc
from generator.inputs.yamlread import read
from generator.model import formatting as fmt
from generator.model.catalog import Catalog, Price

PRICES = "prices.yaml"


def _dates(data: Any, loc: Loc) -> Iterable[tuple[Loc, dt.date]]:
    if isinstance(data, dict):
        for k, v in data.items():
            if k == "as_of" and isinstance(v, dt.date):
                yield loc + (k,), v
            else:
                yield from _dates(v, loc + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _dates(v, loc + (i,))


def future_problems(data_dir: Path, on: dt.date, shown_dir: str = "data") -> list[Problem]:
    """Every `as_of` in data/ later than `on`: a source cannot show a date that has not come, and
    such a figure would never count as stale."""
    out = []
    for name in [*DATA_FILES, *(n for n in OPTIONAL_FILES if (data_dir / n).exists())]:
        doc = read(data_dir / name, f"{shown_dir}/{name}")
        for loc, day in _dates(doc.data, ()):
            if day > on:
                out.append(doc.problem(loc, f"as_of is later than today ({on}); give the date the source shows (got {day})"))
    return out


def changed_without_provenance(before: Price, after: Price) -> bool:
    """The figure moved but still cites the same source and date as before."""
    moved = (before.offered, before.usd_per_hour) != (after.offered, after.usd_per_hour)
    return moved and (before.source, before.as_of) == (after.source, after.as_of)


def _key(p: Price) -> tuple[str, str, str]:
    return (p.instance, p.region, p.option)


def committed_prices(root: Path, shown_dir: str = "data") -> list[Price] | None:
    """data/prices.yaml as committed at git HEAD, or None when there is no such commit or file, or
    it does not validate on its own (then there is nothing trustworthy to compare against)."""
    r = subprocess.run(["git", "show", f"HEAD:./{shown_dir}/{PRICES}"], cwd=root, capture_output=True, check=False)
    if r.returncode != 0:
        return None
    with tempfile.TemporaryDirectory(prefix="guide-head-") as tmp:
        path = Path(tmp) / PRICES
        path.write_bytes(r.stdout)
        try:
            return validate_doc(read(path, f"HEAD:{shown_dir}/{PRICES}"), DATA_FILES[PRICES]).prices
        except InputError:
            return None


def unsourced_change_problems(catalog: Catalog, committed: list[Price], data_dir: Path,
                              shown_dir: str = "data") -> list[Problem]:
    """One located problem per price whose value differs from the committed one under the same
    source and as_of, at its usd_per_hour (or offered) field."""
    before = {_key(p): p for p in committed}
    flagged = [(i, before[_key(p)], p) for i, p in enumerate(catalog.prices)
               if _key(p) in before and changed_without_provenance(before[_key(p)], p)]
    if not flagged:
        return []
    doc = read(data_dir / PRICES, f"{shown_dir}/{PRICES}")
    out = []
    for i, old, new in flagged:
        fld = "usd_per_hour" if new.offered else "offered"
        was = fmt.as_written(old.usd_per_hour) if old.offered else "not offered"
        now = fmt.as_written(new.usd_per_hour) if new.offered else "not offered"
        out.append(doc.problem(("prices", i, fld), (
            f"{new.instance} {new.region} {new.option} changed from {was} (committed) but still cites "
            f"{new.source} as of {fmt.date(new.as_of)}; cite the source of the new figure and the date it shows (got {now})")))
    return out
