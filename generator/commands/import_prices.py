"""`guide import-prices FILE`: on-demand prices from an AWS Price List file into data/prices.yaml.

Reads a file the user downloaded (it never fetches anything): the EC2 offer file of the Price List
API (`products` by SKU and `terms.OnDemand`), or the output of `aws pricing get-products` (a
`PriceList` of JSON strings, one product with its terms each). Only Linux, shared-tenancy,
no-preinstalled-software, used-capacity on-demand prices are read, and only entries already in
data/prices.yaml are updated: new instances and regions are a contributor's decision.

An updated entry cites the new source and date and keeps its previous figure first among its
`alternatives`. The files are edited with ruamel's round-trip mode, so every other line, comment
and flow mapping stays as it was.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from generator.commands import history
from generator.inputs.freshness import today
from generator.inputs.datafiles import load_catalog, read_catalog, read_data
from generator.model.catalog import Catalog

SOURCE_PREFIX = "AWS-PRICE-LIST"
SOURCE_URL = "https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/price-changes.html"
# The one product per instance and region whose price the guide calls "on-demand, Linux". Files
# that predate an attribute lack it: the defaults say what such a product is.
WANTED = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used",
          "marketoption": "OnDemand"}
DEFAULTS = {"capacitystatus": "Used", "marketoption": "OnDemand"}
# Older offer files name regions only by `location`.
LOCATIONS = {
    "US East (N. Virginia)": "us-east-1", "US East (Ohio)": "us-east-2",
    "US West (N. California)": "us-west-1", "US West (Oregon)": "us-west-2",
    "Canada (Central)": "ca-central-1", "South America (Sao Paulo)": "sa-east-1",
    "EU (Ireland)": "eu-west-1", "EU (London)": "eu-west-2", "EU (Paris)": "eu-west-3",
    "EU (Frankfurt)": "eu-central-1", "EU (Stockholm)": "eu-north-1", "EU (Milan)": "eu-south-1",
    "Asia Pacific (Tokyo)": "ap-northeast-1", "Asia Pacific (Seoul)": "ap-northeast-2",
    "Asia Pacific (Osaka)": "ap-northeast-3", "Asia Pacific (Singapore)": "ap-southeast-1",
    "Asia Pacific (Sydney)": "ap-southeast-2", "Asia Pacific (Mumbai)": "ap-south-1",
}


class OfferError(Exception):
    """The file is not a usable Price List file; the message says why."""


@dataclass(frozen=True)
class Offer:
    published: dt.date | None
    prices: dict[tuple[str, str], float]  # (instance, region) -> USD per hour


@dataclass(frozen=True)
class Change:
    index: int  # position in data/prices.yaml's list
    instance: str
    region: str
    old: float
    new: float
    old_source: str
    old_as_of: dt.date
    widened: bool = False  # the entry's low/high had to grow to hold the new price

    def line(self, as_of: dt.date) -> str:
        old, new = yaml_number(self.old), yaml_number(self.new)
        if self.new == self.old:
            what = f"{old} -> {new} (unchanged; as_of {self.old_as_of} -> {as_of})"
        else:
            what = f"{old} -> {new} ({(self.new - self.old) / self.old * 100:+.1f} %)"
        review = "; low/high widened to hold it: review them and the entry's reason" if self.widened else ""
        return f"{self.instance} {self.region}: {what}{review}"


def yaml_number(x: float) -> str:
    return f"{x:.6f}".rstrip("0").rstrip(".")


@dataclass
class Plan:
    source: str
    as_of: dt.date
    changes: list[Change] = field(default_factory=list)
    newer: list[str] = field(default_factory=list)  # entries already dated after the offer
    missing: list[str] = field(default_factory=list)  # tracked on-demand entries the file has no price for
    review: list[str] = field(default_factory=list)  # entries to look at by hand


# --- reading the offer ---------------------------------------------------------------------------


def _date(text: Any) -> dt.date | None:
    if not isinstance(text, str) or len(text) < 10:
        return None
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


def _products(data: Any) -> Iterator[tuple[dict, dict, Any]]:
    """(product, its OnDemand terms, publicationDate) for each product, in either format."""
    if isinstance(data, dict) and isinstance(data.get("PriceList"), list):
        for i, item in enumerate(data["PriceList"]):
            try:
                item = json.loads(item) if isinstance(item, str) else item
            except json.JSONDecodeError as e:
                raise OfferError(f"PriceList[{i}] is not JSON: {e}") from None
            if not isinstance(item, dict):
                raise OfferError(f"PriceList[{i}] should be a product with its terms (got {type(item).__name__})")
            terms = item.get("terms") or {}
            yield item.get("product") or {}, terms.get("OnDemand") or {}, item.get("publicationDate")
    elif isinstance(data, dict) and isinstance(data.get("products"), dict) and isinstance(data.get("terms"), dict):
        on_demand = data["terms"].get("OnDemand") or {}
        for sku, product in data["products"].items():
            yield product, on_demand.get(sku) or {}, data.get("publicationDate")
    else:
        raise OfferError(
            "expected an AWS Price List offer file (with products and terms) or the output of "
            "`aws pricing get-products` (with PriceList)"
        )


def hourly_terms(terms: dict) -> Iterator[tuple[dict, float]]:
    """(the term's attributes, its hourly USD rate) for each term of a Price List product that has one."""
    for term in terms.values():
        for dim in (term.get("priceDimensions") or {}).values():
            if str(dim.get("unit", "")).lower() not in ("hrs", "hours"):
                continue
            try:
                usd = float(dim["pricePerUnit"]["USD"])
            except (KeyError, TypeError, ValueError):
                continue
            if usd > 0:  # AWS lists $0 dimensions for what is not sold that way
                yield term.get("termAttributes") or {}, usd


def parse_offer(text: str) -> Offer:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise OfferError(f"not JSON: {e}") from None
    found: dict[tuple[str, str], set[float]] = {}
    dates = []
    for product, terms, published in _products(data):
        if (d := _date(published)) is not None:
            dates.append(d)
        a = {**DEFAULTS, **(product.get("attributes") or {})}
        if any(a.get(k) != v for k, v in WANTED.items()):
            continue
        instance = a.get("instanceType")
        region = a.get("regionCode") or LOCATIONS.get(a.get("location", ""))
        usd = {usd for _, usd in hourly_terms(terms)}
        if instance and region and usd:
            found.setdefault((instance, region), set()).update(usd)
    conflicts = sorted(f"{i} {r} ({', '.join(yaml_number(x) for x in sorted(v))})" for (i, r), v in found.items() if len(v) > 1)
    if conflicts:
        raise OfferError("more than one on-demand Linux price for " + "; ".join(conflicts))
    return Offer(max(dates) if dates else None, {k: v.pop() for k, v in found.items()})


# --- deciding what changes -----------------------------------------------------------------------


def source_key(as_of: dt.date) -> str:
    """One key per month, like the Capacity Block sources (CB-2026-07)."""
    return f"{SOURCE_PREFIX}-{as_of:%Y-%m}"


def plan(catalog: Catalog, offer: Offer, as_of: dt.date, source: str) -> Plan:
    out = Plan(source, as_of)
    for i, p in enumerate(catalog.prices):
        if p.option != "on-demand":
            continue
        name = f"{p.instance} {p.region}"
        new = offer.prices.get((p.instance, p.region))
        if new is None:
            out.missing.append(name)
        elif not p.offered:
            out.review.append(f"{name}: recorded as not offered, but the file has {yaml_number(new)}; edit the entry by hand")
        elif p.as_of > as_of:
            out.newer.append(f"{name} (as of {p.as_of})")
        elif not (p.source == source and p.as_of == as_of and p.point == new):
            widened = p.low is not None and not (p.low <= new <= p.high)  # type: ignore[operator]
            out.changes.append(Change(i, p.instance, p.region, p.point, new, p.source, p.as_of, widened))
    return out


# --- editing the files ---------------------------------------------------------------------------


def round_trip() -> YAML:
    y = YAML(typ="rt")
    y.width = 4096  # never re-wrap the long flow-mapping lines
    y.preserve_quotes = True
    y.indent(mapping=2, sequence=4, offset=2)
    # One date object lands in many entries; write it out each time (the loader refuses aliases).
    y.representer.ignore_aliases = lambda data: True
    return y


def yaml_text(y: YAML, data: Any) -> str:
    out = io.StringIO()
    y.dump(data, out)
    return out.getvalue()


def flow_map(*pairs: tuple[str, Any]) -> CommentedMap:
    m = CommentedMap(pairs)
    m.fa.set_flow_style()
    return m


def edit_prices(text: str, p: Plan) -> str:
    y = round_trip()
    data = y.load(text)
    for c in p.changes:
        entry = data["prices"][c.index]
        previous = flow_map(("usd_per_hour", entry["usd_per_hour"]), ("source", entry["source"]), ("as_of", entry["as_of"]))
        entry["usd_per_hour"] = c.new
        entry["source"] = p.source
        entry["as_of"] = p.as_of
        if c.widened:
            entry["low"] = min(entry["low"], c.new)
            entry["high"] = max(entry["high"], c.new)
        keep_previous(entry, previous)
    return yaml_text(y, data)


def record_moves(text: str | None, p: Plan) -> str:
    """data/history.yaml with a move for each price whose figure changed, dated by the file."""
    y = round_trip()
    data = history.load(y, text)
    for c in p.changes:
        if c.new == c.old:
            continue
        before = flow_map(("usd_per_hour", c.old), ("source", c.old_source), ("as_of", c.old_as_of))
        after = flow_map(("usd_per_hour", c.new), ("source", p.source), ("as_of", p.as_of))
        data["prices"].append(history.price_move(p.as_of, (c.instance, c.region, "on-demand"), "changed", p.source, before, after))
    return yaml_text(y, data)


def edit_sources(text: str, p: Plan) -> str:
    y = round_trip()
    data = y.load(text)
    sources = data["sources"]
    if p.source not in sources:
        sources[p.source] = CommentedMap([
            ("title", f"AWS Price List API, EC2 offer (on-demand, Linux, shared tenancy), published {p.as_of}"),
            ("url", SOURCE_URL),
            ("kind", "primary"),
            ("as_of", p.as_of),
        ])
    elif sources[p.source]["as_of"] < p.as_of:
        sources[p.source]["as_of"] = p.as_of
    else:
        return text
    return yaml_text(y, data)


def checked(data_dir: Path, new_texts: dict[str, str]) -> Catalog:
    """The catalog of data/ with the edited files in place of their present bytes, loaded as the site
    would load it (nothing is written); InputError if they do not validate."""
    raws = read_data(data_dir) | {name: text.encode("utf-8") for name, text in new_texts.items()}
    return read_catalog(data_dir, "data", raws)[0]


def write_all(data_dir: Path, texts: dict[str, str]) -> None:
    """Replace (or make) every named file in data_dir (a name may be a path below it), or none of them.

    Each new text goes to a temporary file beside its target first, so a full disk or a missing
    permission fails before anything is replaced; the renames come last, and if one of them fails
    the files already replaced get their old bytes back. Raises OSError.
    """
    temps: dict[str, Path] = {}
    try:
        for name, text in texts.items():
            target = data_dir / name
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            temps[name] = tmp
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
        old = {name: (data_dir / name).read_bytes() if (data_dir / name).exists() else None for name in texts}
        replaced: list[str] = []
        try:
            for name, tmp in temps.items():
                os.replace(tmp, data_dir / name)
                replaced.append(name)
        except OSError:
            for name in replaced:
                if old[name] is None:  # a file this write made
                    (data_dir / name).unlink(missing_ok=True)
                else:
                    (data_dir / name).write_bytes(old[name])
            raise
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)


def run(data_dir: Path, offer_text: str, as_of: dt.date | None = None, source: str | None = None,
        dry_run: bool = False, on: dt.date | None = None) -> tuple[Plan, dict[str, str]]:
    """Plan the import and, unless dry_run, write it. Returns the plan and the texts written.
    `on` is today (the calendar's when not given): prices dated after it are refused."""
    offer = parse_offer(offer_text)
    when = as_of or offer.published
    if when is None:
        raise OfferError("the file has no publicationDate; give the date it was published with --as-of YYYY-MM-DD")
    if when > (on := on or today()):
        raise OfferError(f"the prices would be dated {when}, later than today ({on}); give the date the file was published")
    catalog = load_catalog(data_dir)
    p = plan(catalog, offer, when, source or source_key(when))
    if not p.changes:
        return p, {}
    texts = {}
    prices_text = (data_dir / "prices.yaml").read_text(encoding="utf-8")
    texts["prices.yaml"] = edit_prices(prices_text, p)
    sources_text = (data_dir / "sources.yaml").read_text(encoding="utf-8")
    if (new_sources := edit_sources(sources_text, p)) != sources_text:
        texts["sources.yaml"] = new_sources
    if any(c.new != c.old for c in p.changes):
        path = data_dir / history.NAME
        texts[history.NAME] = record_moves(path.read_text(encoding="utf-8") if path.exists() else None, p)
    checked(data_dir, texts)
    if not dry_run:
        write_all(data_dir, texts)
    return p, texts


def report_lines(p: Plan, written: Iterable[str], shown_dir: str, dry_run: bool) -> list[str]:
    verb = "would update" if dry_run else "updated"
    if p.changes:
        lines = [f"{shown_dir}/prices.yaml: {verb} {len(p.changes)} on-demand price(s), now cited as {p.source}, as of {p.as_of}:"]
    else:
        lines = [f"{shown_dir}/prices.yaml: nothing to update from a file dated {p.as_of}"]
    lines += [f"  {c.line(p.as_of)}" for c in p.changes]
    if "sources.yaml" in written:
        lines.append(f"{shown_dir}/sources.yaml: {'would add or re-date' if dry_run else 'added or re-dated'} {p.source}")
    if history.NAME in written:
        moved = sum(1 for c in p.changes if c.new != c.old)
        lines.append(f"{shown_dir}/{history.NAME}: {'would record' if dry_run else 'recorded'} {moved} price move(s)")
    if p.newer:
        lines.append(f"kept, dated after the file: {', '.join(p.newer)}")
    if p.missing:
        lines.append(f"not in the file: {', '.join(p.missing)}")
    lines += [f"review: {r}" for r in p.review]
    return lines


def keep_previous(entry, previous) -> None:
    """Put the figure a price replaced first among its alternatives, in the entry's own YAML style."""
    if "alternatives" in entry:
        entry["alternatives"].insert(0, previous)
    else:
        alts = CommentedSeq([previous])
        if entry.fa.flow_style():
            alts.fa.set_flow_style()
        entry["alternatives"] = alts
