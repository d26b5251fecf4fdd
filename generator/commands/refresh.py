"""`guide refresh-prices`: data/ brought up to what AWS's APIs say today, with the moves recorded.

`generator/commands/aws_prices.py` asks the APIs; this module turns what they said into new texts of
data/prices.yaml, data/instances.yaml, data/sources.yaml and data/history.yaml, checks them as the
site would load them, and writes all of them or none.

- A figure the APIs give is cited to the API and the day of the call (one source key per API and day).
- A figure that changed, appeared, vanished or came back gets a move in data/history.yaml with the
  figure before and after. The previous figure is kept there, not in the entry's `alternatives`,
  which hold what other sources say.
- A figure the APIs no longer give stays, as the last one seen, marked `vanished: DATE`.
- Entries of instances or regions the refresh does not track, `offered: false` entries the APIs
  still do not price, and every hand-written field an update does not touch stay as they were.
- An instance's `regions` become the tracked regions AWS says it is sold in.

Editing goes through ruamel's round-trip mode, so comments and layout stay.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from generator.commands import history as hist
from generator.commands.aws_prices import INSTANCE_TYPE, ClientFactory, Observed, Seen, fetch
from generator.commands.import_prices import (
    checked,
    flow_map,
    keep_previous,
    round_trip,
    write_all,
    yaml_number,
    yaml_text,
)
from generator.inputs.loader import load_catalog
from generator.model.catalog import Catalog

# Each API is a source of its own: (key prefix, title, the API reference it is read by).
APIS = {
    "pricing": ("AWS-PRICE-LIST-API", "AWS Price List Query API (GetProducts, AmazonEC2: Linux, shared tenancy, on-demand and Reserved Instance terms), called",
                "https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html"),
    "savingsplans": ("AWS-SAVINGS-PLANS-API", "AWS Savings Plans API (DescribeSavingsPlansOfferingRates: EC2 Instance Savings Plans, no upfront, Linux), called",
                     "https://docs.aws.amazon.com/savingsplans/latest/APIReference/API_DescribeSavingsPlansOfferingRates.html"),
    "spot": ("AWS-SPOT-HISTORY-API", "Amazon EC2 API (DescribeSpotPriceHistory, Linux/UNIX, the 30 days before the call), called",
             "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeSpotPriceHistory.html"),
    "capacity-block": ("AWS-CAPACITY-BLOCK-API", "Amazon EC2 API (DescribeCapacityBlockOfferings, one instance for 24 hours), called",
                       "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityBlockOfferings.html"),
    "offerings": ("AWS-EC2-OFFERINGS-API", "Amazon EC2 API (DescribeInstanceTypeOfferings in each region the guide tracks), called",
                  "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html"),
}
# Which API answers for each purchase option, to cite when a figure vanishes from it.
OPTION_API = {"on-demand": "pricing", "commit-1y": "pricing", "commit-3y": "pricing", "spot": "spot", "capacity-block": "capacity-block"}


def source_key(api: str, day: dt.date) -> str:
    return f"{APIS[api][0]}-{day.isoformat()}"


@dataclass(frozen=True)
class Move:
    instance: str
    region: str
    option: str
    change: str  # changed, added, vanished, returned
    before: float | None
    after: float | None

    def line(self) -> str:
        b = "none" if self.before is None else yaml_number(self.before)
        a = "none" if self.after is None else yaml_number(self.after)
        return f"{self.instance} {self.region} {self.option}: {self.change}, {b} -> {a}"


@dataclass
class Outcome:
    day: dt.date
    moves: list[Move] = field(default_factory=list)
    regions: list[str] = field(default_factory=list)  # "instance: [old] -> [new]"
    confirmed: int = 0  # figures the APIs gave again unchanged (re-dated)
    texts: dict[str, str] = field(default_factory=dict)


def tracked(catalog: Catalog) -> tuple[list[str], list[str]]:
    """The instances (EC2 instance types in data/instances.yaml) and regions (every region data/ names)."""
    instances = sorted(i for i in catalog.instances if INSTANCE_TYPE.match(i))
    regions = set(catalog.regions())
    for inst in catalog.instances.values():
        regions.update(inst.regions.value)
    return instances, sorted(regions)


def _was(entry: Any) -> CommentedMap:
    pairs: list[tuple[str, Any]] = []
    if entry.get("offered", True) is False:
        pairs.append(("offered", False))
    for k in ("usd_per_hour", "low", "high", "source", "as_of", "note"):
        if k in entry:
            pairs.append((k, entry[k]))
    return flow_map(*pairs)


def _seen_map(s: Seen, source: str, day: dt.date) -> CommentedMap:
    pairs: list[tuple[str, Any]] = [("usd_per_hour", s.usd_per_hour)]
    if s.low is not None:
        pairs += [("low", s.low), ("high", s.high)]
    pairs += [("source", source), ("as_of", day)]
    if s.note:
        pairs.append(("note", s.note))
    return flow_map(*pairs)


def _same(entry: Any, s: Seen) -> bool:
    return (entry.get("offered", True) is not False and entry.get("usd_per_hour") == s.usd_per_hour
            and entry.get("low") == s.low and entry.get("high") == s.high)


def _from_api(source: str) -> bool:
    return any(source.startswith(prefix + "-") for prefix, _, _ in APIS.values())


def _keep_cited(entry: CommentedMap) -> None:
    """A figure cited to another source, which an API now confirms or replaces, goes first among the
    entry's alternatives, as `guide import-prices` keeps it. An API's own earlier figures are not
    kept there: their moves are in data/history.yaml."""
    if entry.get("usd_per_hour") is None or _from_api(str(entry.get("source", ""))):
        return
    pairs = [("usd_per_hour", entry["usd_per_hour"]), ("source", entry["source"]), ("as_of", entry["as_of"])]
    if entry.get("note"):
        pairs.append(("note", entry["note"]))
    previous = flow_map(*pairs)
    keep_previous(entry, previous)


def _set_figure(entry: CommentedMap, s: Seen, source: str, day: dt.date) -> None:
    if "offered" in entry:
        del entry["offered"]
    # Keys in a readable order: the figure, its range, its citation, then the rest as they were.
    rest = [(k, v) for k, v in entry.items() if k not in ("instance", "region", "option", "usd_per_hour", "low", "high",
                                                          "source", "as_of", "note", "vanished", "reservation")]
    hand_range = s.low is None and "low" in entry and "reason" in entry  # a range data/ gives for disagreeing sources
    low, high = (min(entry["low"], s.usd_per_hour), max(entry["high"], s.usd_per_hour)) if hand_range else (s.low, s.high)
    head = [("instance", entry["instance"]), ("region", entry["region"]), ("option", entry["option"]),
            ("usd_per_hour", s.usd_per_hour)]
    if low is not None:
        head += [("low", low), ("high", high)]
    if s.reservation:
        head.append(("reservation", s.reservation))
    head += [("source", source), ("as_of", day)]
    if s.note:
        head.append(("note", s.note))
    flow = entry.fa.flow_style()
    entry.clear()
    for k, v in head + rest:
        entry[k] = v
    if flow:
        entry.fa.set_flow_style()


def plan(catalog: Catalog, seen: Observed, texts: dict[str, str], day: dt.date) -> Outcome:
    """The new texts of the data files, from their present texts and what the APIs said."""
    out = Outcome(day)
    y = round_trip()
    prices = y.load(texts["prices.yaml"])
    instances = y.load(texts["instances.yaml"])
    sources = y.load(texts["sources.yaml"])
    history = hist.load(y, texts.get(hist.NAME))
    used: set[str] = set()

    def cite(api: str) -> str:
        used.add(api)
        return source_key(api, day)

    def record(key: tuple[str, str, str], change: str, source: str, before: Any, after: Any) -> None:
        history["prices"].append(hist.price_move(day, key, change, source, before, after))
        bv = None if before is None else before.get("usd_per_hour")
        av = None if after is None else after.get("usd_per_hour")
        out.moves.append(Move(*key, change, bv, av))

    # Regions first: a price is only kept in a region its instance's list names.
    for name in seen.instances:
        entry = instances["instances"].get(name)
        if entry is None:
            continue
        new = seen.offered.get(name, [])
        old = list(entry["regions"]["value"])
        src = cite("offerings")
        if set(new) == set(old):
            new = old  # the same regions, in the order data/ lists them
        else:
            history["regions"].append(flow_map(("date", day), ("instance", name), ("source", src),
                                            ("before", _flow_list(old)), ("after", _flow_list(new))))
            out.regions.append(f"{name}: [{', '.join(old)}] -> [{', '.join(new)}]")
        regions = flow_map(("value", _flow_list(new)), ("source", src), ("as_of", day))
        entry["regions"] = regions

    entries = prices["prices"]
    index = {(e["instance"], e["region"], e["option"]): e for e in entries}
    covered = set(seen.instances)
    for key, entry in index.items():
        instance, region, option = key
        if instance not in covered or region not in seen.regions:
            continue
        s = seen.figures.get(key)
        if s is None:
            if entry.get("offered", True) is False or "vanished" in entry:
                continue
            src = cite(OPTION_API[option])
            record(key, "vanished", src, _was(entry), None)
            entry["vanished"] = day
            continue
        src = cite(s.api)
        if "vanished" in entry:
            before = _was(entry)
            _keep_cited(entry)
            _set_figure(entry, s, src, day)
            record(key, "returned", src, before, _seen_map(s, src, day))
        elif _same(entry, s):
            _keep_cited(entry)
            _set_figure(entry, s, src, day)
            out.confirmed += 1
        else:
            before = _was(entry)
            _keep_cited(entry)
            _set_figure(entry, s, src, day)
            record(key, "changed", src, before, _seen_map(s, src, day))

    unpublished = prices.get("unpublished") or []
    for key in sorted(set(seen.figures) - set(index)):
        s = seen.figures[key]
        src = cite(s.api)
        entry = CommentedMap([("instance", key[0]), ("region", key[1]), ("option", key[2])])
        _set_figure(entry, s, src, day)
        entry.fa.set_flow_style()
        entries.append(entry)
        for i in reversed(range(len(unpublished))):
            u = unpublished[i]
            if (u["instance"], u.get("region"), u["option"]) in (key, (key[0], None, key[2])):
                del unpublished[i]
        record(key, "added", src, None, _seen_map(s, src, day))

    for api in sorted(used):
        k = source_key(api, day)
        if k not in sources["sources"]:
            prefix, title, url = APIS[api]
            sources["sources"][k] = CommentedMap([("title", f"{title} {day.isoformat()}"), ("url", url),
                                                  ("kind", "primary"), ("as_of", day)])

    out.texts = {"prices.yaml": yaml_text(y, prices), "instances.yaml": yaml_text(y, instances),
                 "sources.yaml": yaml_text(y, sources), "history.yaml": yaml_text(y, history)}
    out.texts = {k: v for k, v in out.texts.items() if v != texts.get(k)}
    return out


def _flow_list(items: list[str]) -> CommentedSeq:
    s = CommentedSeq(items)
    s.fa.set_flow_style()
    return s


def run(data_dir: Path, client: ClientFactory, now: dt.datetime, pricing_region: str = "us-east-1",
        dry_run: bool = False) -> Outcome:
    """Ask the APIs, plan, check, and (unless dry_run) write. Raises AwsError before anything is
    written when a call fails, InputError when data/ (or the edit) does not validate, OSError when a
    file cannot be written (then none is)."""
    catalog = load_catalog(data_dir)
    instances, regions = tracked(catalog)
    seen = fetch(instances, regions, client, now, pricing_region)
    names = ("prices.yaml", "instances.yaml", "sources.yaml", "history.yaml")
    texts = {n: (data_dir / n).read_text(encoding="utf-8") for n in names if (data_dir / n).exists()}
    out = plan(catalog, seen, texts, now.date())
    if out.texts:
        checked(data_dir, out.texts)
        if not dry_run:
            write_all(data_dir, out.texts)
    return out


def report_lines(out: Outcome, shown_dir: str, dry_run: bool) -> list[str]:
    verb = "would write" if dry_run else "wrote"
    if not out.texts:
        return [f"{shown_dir}/: nothing changed; every figure is as AWS's APIs gave it on {out.day}"]
    lines = [f"{shown_dir}/: {verb} {', '.join(sorted(out.texts))}: {len(out.moves)} price move(s), "
             f"{len(out.regions)} regions list(s) changed, {out.confirmed} figure(s) confirmed and re-dated {out.day}"]
    lines += [f"  {m.line()}" for m in out.moves]
    lines += [f"  regions {r}" for r in out.regions]
    return lines
