"""How old the prices are: today's date in one place, which prices are stale, and located problems.

A price is stale when the day it was last known true is more than `stale_days` before today
(`stale_days` in data/assumptions.yaml, 180 when absent). That day is its `as_of`, or, for a figure
cited to one of AWS's APIs, the day that API last answered (`asked` in data/refresh.yaml) unless
its last answer lacked the figure or gave another one held for a person: a refresh that finds a
figure unchanged leaves its row alone. A figure no API gives (an UltraServer's, a way of buying not
offered, one AWS no longer lists: `catalog.refreshable`) is stale once its own `review_by` has passed
(as_of plus stale_days where it gives none). The build warns in one line and the pages say so;
`guide validate --strict` refuses each stale figure a refresh could fix, and no other. Only each
entry's own figure counts: `alternatives` are older figures on purpose.

Today's date in one place, and which prices are older than `stale_days` (a figure an API gave again
counting from the day it last answered, `asked` in `data/refresh.yaml`), and for such a figure the
day it was last checked (`checked`), which pages and the calculator show beside its own date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from generator.inputs.problems import Problem
from generator.inputs.yamlread import read
from generator.model.catalog import OPTION_LABELS, Catalog, Price, refreshable

DEFAULT_STALE_DAYS = 180


def stale_days(catalog: Catalog) -> int:
    """How many days old a figure may be before it reads as stale: data/assumptions.yaml's stale_days."""
    setting = catalog.assumptions.stale_days
    return int(setting.value) if setting else DEFAULT_STALE_DAYS


def today(configured: str | None = None, given: tuple[str, str] | None = None) -> dt.date:
    """The one place the guide asks for today's date: given (an environment variable's name and
    value, which the options read), else the plugin's `today` option, else the calendar's. Raises
    ValueError, naming the setting, for one that is not a date."""
    name, fixed = given if given is not None else ("", "")
    fixed = fixed.strip()
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
    # The day each API last answered, by the prefix of the source keys it is cited as, and the
    # figures its last answer lacked (instance, region, option).
    asked: tuple[tuple[str, dt.date], ...] = ()
    lacked: frozenset[tuple[str, str, str]] = frozenset()
    # The review date of each figure no API gives, by (instance, region, option).
    reviews: tuple[tuple[tuple[str, str, str], dt.date], ...] = ()

    @classmethod
    def of(cls, catalog: Catalog, on: dt.date | None = None) -> Freshness:
        state = catalog.refresh
        # A figure held for a person is one the API no longer gives as data/ holds it.
        lacked = frozenset([(m.instance, m.region, m.option) for m in state.missing]
                           + [(h.instance, h.region, h.option) for h in state.held])
        max_days = stale_days(catalog)
        reviews = tuple(((p.instance, p.region, p.option), review_date(p, max_days)) for p in catalog.prices if not refreshable(p))
        return cls(on or today(), max_days, tuple(sorted(state.asked.items())), lacked, reviews)

    def known_on(self, p: DatedPrice) -> dt.date:
        """The last day the figure was known true: its as_of, or the day the API it cites last gave it."""
        source = str(getattr(p, "source", "") or "")
        if getattr(p, "vanished", None) is not None or (p.instance, p.region, p.option) in self.lacked:
            return p.as_of
        for prefix, day in self.asked:
            if source.startswith(prefix + "-") and day > p.as_of:
                return day
        return p.as_of

    def checked(self, figure: object) -> dt.date | None:
        """The day one of AWS's APIs last gave this price again, where that is after the day its row
        shows (its as_of); None for any other figure, or a price no answer confirmed since."""
        if not all(hasattr(figure, name) for name in ("instance", "region", "option", "as_of")):
            return None
        day = self.known_on(figure)  # type: ignore[arg-type]
        return day if day > figure.as_of else None  # type: ignore[attr-defined]

    def age(self, p: DatedPrice) -> int:
        return (self.today - self.known_on(p)).days

    def is_stale(self, p: DatedPrice) -> bool:
        for key, day in self.reviews:
            if key == (p.instance, p.region, p.option):
                return self.today > day
        return self.age(p) > self.max_days

    def stale(self, prices: Iterable[DatedPrice]) -> list[DatedPrice]:
        """The stale prices among these, each once, oldest first."""
        seen: dict[int, DatedPrice] = {id(p): p for p in prices if self.is_stale(p)}
        return sorted(seen.values(), key=lambda p: (self.known_on(p), p.instance, p.region, p.option))

    def stale_dates(self, prices: Iterable[DatedPrice]) -> list[dt.date]:
        """The distinct days the stale prices among these were last known true, oldest first (for page notes)."""
        return sorted({self.known_on(p) for p in self.stale(prices)})

    def message(self, p: DatedPrice) -> str:
        return (
            f"{p.instance} {p.region} {OPTION_LABELS[p.option].lower()} price is {self.age(p)} days old on {self.today}, "
            f"older than {self.max_days} days (stale_days in data/assumptions.yaml): check it, then update it or its "
            f"as_of (got {p.as_of})"
        )


def review_date(p: Price, max_days: int) -> dt.date:
    """The day a figure no API gives should be checked again: its review_by, else as_of plus stale_days."""
    return p.review_by or p.as_of + dt.timedelta(days=max_days)


def stale_summary(catalog: Catalog, on: dt.date | None = None) -> str | None:
    """The build's one line about stale prices (None when there are none): how many of how many a
    refresh could fix, the oldest date, and the command that lists each one located; then how many
    figures no API gives are past their review date."""
    fresh = Freshness.of(catalog, on)
    stale = fresh.stale(p for p in catalog.prices if refreshable(p))
    overdue = [p for p in catalog.prices if not refreshable(p) and fresh.is_stale(p)]
    parts = []
    if stale:
        total = len(catalog.prices)
        many = f"{len(stale)} of {total} prices are" if len(stale) > 1 else f"1 of {total} prices is"
        parts.append(f"{many} older than {fresh.max_days} days on {fresh.today} (the oldest is from {fresh.known_on(stale[0])}); "
                     "`guide validate --strict` lists them")
    if overdue:
        parts.append(f"{len(overdue)} figure(s) no AWS API gives are past their review date (review_by in data/prices.yaml)")
    return "; ".join(parts) or None


def stale_problems(catalog: Catalog, data_dir: Path, shown_dir: str = "data", on: dt.date | None = None) -> list[Problem]:
    """One located problem per stale price a refresh could fix, at its as_of field in data/prices.yaml.
    A figure no API gives waits for its review date instead: `guide refresh-prices` lists those in its
    pull request."""
    fresh = Freshness.of(catalog, on)
    stale = [i for i, p in enumerate(catalog.prices) if refreshable(p) and fresh.is_stale(p)]
    if not stale:
        return []
    # The catalog keeps no positions; read the (already validated) file again for them.
    doc = read(data_dir / "prices.yaml", f"{shown_dir}/prices.yaml")
    return [doc.problem(("prices", i, "as_of"), fresh.message(catalog.prices[i])) for i in stale]
