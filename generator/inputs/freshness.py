"""How old the prices are: today's date in one place, which prices are stale, and located problems.

A price is stale when its `as_of` is more than `stale_days` before today (`stale_days` in
data/assumptions.yaml, 180 when absent). The build warns in one line and the pages say so;
`guide validate --strict` refuses each one. Only each entry's own figure counts: `alternatives` are older figures on
purpose.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from generator.inputs.problems import Problem
from generator.inputs.yamlread import read
from generator.model.catalog import OPTION_LABELS, Catalog

DEFAULT_STALE_DAYS = 180
# Set to YYYY-MM-DD to fix "today" for a test or a reproducible build.
TODAY_ENV = "GUIDE_TODAY"


def today(configured: str | None = None) -> dt.date:
    """The one place the guide asks for today's date: GUIDE_TODAY, else the plugin's `today` option,
    else the calendar's."""
    fixed, name = os.environ.get(TODAY_ENV, "").strip(), TODAY_ENV
    if not fixed and configured:
        fixed, name = str(configured).strip(), "today"
    if not fixed:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(fixed)
    except ValueError:
        raise ValueError(f"{name} must be a date written YYYY-MM-DD (got {fixed!r})") from None


class DatedPrice(Protocol):
    """A dated price: an entry of data/prices.yaml, or the record of one a workload was resolved at."""

    @property
    def instance(self) -> str: ...
    @property
    def region(self) -> str: ...
    @property
    def option(self) -> str: ...
    @property
    def as_of(self) -> dt.date: ...


@dataclass(frozen=True)
class Freshness:
    today: dt.date
    max_days: int

    @classmethod
    def of(cls, catalog: Catalog, on: dt.date | None = None) -> Freshness:
        setting = catalog.assumptions.stale_days
        return cls(on or today(), int(setting.value) if setting else DEFAULT_STALE_DAYS)

    def age(self, p: DatedPrice) -> int:
        return (self.today - p.as_of).days

    def is_stale(self, p: DatedPrice) -> bool:
        return self.age(p) > self.max_days

    def stale(self, prices: Iterable[DatedPrice]) -> list[DatedPrice]:
        """The stale prices among these, each once, oldest first."""
        seen: dict[int, DatedPrice] = {id(p): p for p in prices if self.is_stale(p)}
        return sorted(seen.values(), key=lambda p: (p.as_of, p.instance, p.region, p.option))

    def stale_dates(self, prices: Iterable[DatedPrice]) -> list[dt.date]:
        """The distinct as_of dates of the stale prices among these, oldest first (for page notes)."""
        return sorted({p.as_of for p in self.stale(prices)})

    def message(self, p: DatedPrice) -> str:
        return (
            f"{p.instance} {p.region} {OPTION_LABELS[p.option].lower()} price is {self.age(p)} days old on {self.today}, "
            f"older than {self.max_days} days (stale_days in data/assumptions.yaml): check it, then update it or its "
            f"as_of (got {p.as_of})"
        )


def stale_summary(catalog: Catalog, on: dt.date | None = None) -> str | None:
    """The build's one line about stale prices (None when there are none): how many of how many,
    the oldest date, and the command that lists each one located."""
    fresh = Freshness.of(catalog, on)
    stale = fresh.stale(catalog.prices)
    if not stale:
        return None
    total = len(catalog.prices)
    many = f"{len(stale)} of {total} prices are" if len(stale) > 1 else f"1 of {total} prices is"
    return (
        f"{many} older than {fresh.max_days} days on {fresh.today} (the oldest is from {stale[0].as_of}); "
        "`guide validate --strict` lists them"
    )


def stale_problems(catalog: Catalog, data_dir: Path, shown_dir: str = "data", on: dt.date | None = None) -> list[Problem]:
    """One located problem per stale price, at its as_of field in data/prices.yaml."""
    fresh = Freshness.of(catalog, on)
    stale = [i for i, p in enumerate(catalog.prices) if fresh.is_stale(p)]
    if not stale:
        return []
    # The catalog keeps no positions; read the (already validated) file again for them.
    doc = read(data_dir / "prices.yaml", f"{shown_dir}/prices.yaml")
    return [doc.problem(("prices", i, "as_of"), fresh.message(catalog.prices[i])) for i in stale]
