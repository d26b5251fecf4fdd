"""Prices a scenario's notes quote from data/ by name, so that a quoted figure follows a price
refresh: `{price:INSTANCE/REGION/OPTION}` in `notes` reads on the page as that price today.
A figure typed as digits stays as written; `guide refresh-prices` lists it for a person to reread
when the price it quotes moves."""

from __future__ import annotations

import re
from collections.abc import Iterator

from generator.model.catalog import Catalog, Price
from generator.model.suggest import did_you_mean

PLACEHOLDER = re.compile(r"\{price:([^{}]*)\}")


def _price(key: str, catalog: Catalog) -> Price | None:
    parts = key.strip().split("/")
    if len(parts) != 3:
        return None
    p = catalog.price(*parts)
    return p if p is not None and p.offered else None


def problems(text: str | None, catalog: Catalog) -> Iterator[str]:
    """One message per placeholder that names no offered price of data/prices.yaml."""
    known = [f"{p.instance}/{p.region}/{p.option}" for p in catalog.prices if p.offered]
    for m in PLACEHOLDER.finditer(text or ""):
        if _price(m.group(1), catalog) is None:
            yield (f"{{price:...}} names no offered price in data/prices.yaml; write {{price:INSTANCE/REGION/OPTION}}"
                   f"{did_you_mean(m.group(1).strip(), known)} (got '{m.group(0)}')")


def parts(text: str, catalog: Catalog) -> Iterator[str | Price]:
    """The text as its literal stretches and the prices its placeholders name, in order."""
    at = 0
    for m in PLACEHOLDER.finditer(text):
        p = _price(m.group(1), catalog)
        if p is None:  # the loader refuses it; never reached on a validated scenario
            continue
        if m.start() > at:
            yield text[at:m.start()]
        yield p
        at = m.end()
    if at < len(text):
        yield text[at:]
