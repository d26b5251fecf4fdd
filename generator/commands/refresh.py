"""`guide refresh-prices`: data/ brought up to what AWS's APIs say today, with the moves recorded.

`generator/commands/aws_prices.py` asks the APIs; this module turns what they said into new texts of
data/prices.yaml, data/instances.yaml, data/sources.yaml, data/history.yaml and data/refresh.yaml,
checks them as the site would load them, and writes all of them or none, with the refresh's memory
(generator/commands/refresh_memory.py: what was lacked since when, what is held, what a person said
of it), which is kept apart from data/ so that it outlives a pull request nobody merged.

- A figure the APIs give unchanged is left as it is: its row is not re-dated. The day each API last
  answered is kept in one place, `asked` in data/refresh.yaml, and a figure it cites counts as
  confirmed that day (generator/inputs/freshness.py). Those days are written with a change, or
  when the one written is older than half of `stale_days`: a quiet week writes nothing. A figure
  cited to another source that an API now gives as well is re-cited to the API, and the report
  counts those rows apart from the moves.
- A figure that changed, appeared, vanished or came back gets a move in data/history.yaml with the
  figure before and after, cited to the API and the day of the call (one source key per API and day).
- A move beyond `refresh_bounds` in data/assumptions.yaml (ours) is not written: it is held, raised
  in every refresh's report until a person accepts or refuses the figure they checked
  (`--accept/--refuse INSTANCE/REGION/OPTION=FIGURE`), and written only while AWS still gives that
  figure.
- A figure an answer lacks is marked `vanished` only when a refresh at least a week later lacks it
  too, whether or not the pull request between them was merged. An instance's regions grow with the
  offerings at once and shrink the same way as figures vanish. A region the account may not use is
  skipped, its figures kept. A spot pool (instance and region) the Spot price history gives no price
  for, and data/ neither prices nor records as unpublished, is recorded as not priced.
- The Spot Instance Advisor's buckets are believed only when its ranges are exactly the buckets
  data/assumptions.yaml knows. An instance already rated gets the Advisor's bucket in each region
  its list names, cited to the data's own date; a bucket is never dropped: a region (or an instance)
  the data stops rating keeps the bucket it had, and the note says from which source; a rating from
  another source that the Advisor's replaces is kept among the alternatives. An instance no one has
  rated yet is left for a person to rate first.
- Entries of instances or regions the refresh does not track, `offered: false` entries the APIs
  still do not price, and every hand-written field an update does not touch stay as they were.

Editing goes through ruamel's round-trip mode, so comments and layout stay.

`guide refresh-prices`: the APIs' answers as new texts of `data/` (moves cited to the API and the
day and appended to the history; unchanged rows left alone, a hand-cited row the API confirms
re-cited and counted apart from moves; moves beyond `refresh_bounds` held and raised every run until
a person accepts or refuses the figure they checked, written only while AWS still gives it; a figure
or region marked gone only when answers a week apart lack it; spot pools with no price recorded as
not priced; rated instances' `spot_interruption` buckets from the Advisor's data, cited to its
LastModified, never dropped), with what it publishes in `data/refresh.yaml` (when each API last
answered, what was lacked, what is held, the prose to reread), checked as the site loads them, then
every file and the memory written or none; its report and the pull request body.
"""

from __future__ import annotations

import datetime as dt
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from generator.commands import history as hist
from generator.commands import refresh_memory
from generator.commands.aws_prices import ADVISOR_BUCKET, ADVISOR_KEY, Advisor, ClientFactory, Observed, Seen, fetch
from generator.commands.refresh_memory import ACCEPT_TOLERANCE, Decision, Memory, block_list, within
from generator.commands.refresh_scenarios import Followed, follow
from generator.commands.import_prices import (
    checked,
    flow_map,
    keep_previous,
    round_trip,
    write_all,
    yaml_number,
    yaml_text,
)
from generator.inputs.freshness import review_date, stale_days
from generator.inputs.loader import load_catalog
from generator.model.catalog import INSTANCE_TYPE, SPOT_BUCKETS, Catalog, RefreshBounds, refreshable

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
# The Spot Instance Advisor's data is a source of its own per day it shows: ADVISOR_PREFIX-YYYY-MM-DD.
ADVISOR_PREFIX = "SPOT-ADV"
ADVISOR_TITLE = ("AWS's Spot Instance Advisor data (the public object s3://{bucket}/{key}, Linux), last modified {day}: for each "
                 "instance type and region, the bucket of the share of spot instances interrupted over the trailing month")
ADVISOR_URL = f"https://{ADVISOR_BUCKET}.s3.amazonaws.com/{ADVISOR_KEY}"
# A source key the refresh writes for the Advisor's data (a rating cited to any other is kept among the alternatives).
ADVISOR_OWN = re.compile(rf"^{ADVISOR_PREFIX}-\d{{4}}-\d{{2}}-\d{{2}}$")
# Begins the note the refresh writes on a rating that keeps a region the data no longer rates.
KEPT = "Kept, as the refresh never drops a bucket:"
KEPT_CLAUSE = re.compile(r"(\S+) as (\S+) \((\d{4}-\d{2}-\d{2})\) rated it")
# The note of a spot pool the Spot price history gave no price for.
NOT_PRICED = ("AWS's Spot price history had no Linux/UNIX price for it in the 30 days before the call: "
              "not priced on spot here until a refresh finds one.")
# Which API answers for each purchase option, to cite when a figure vanishes from it.
OPTION_API = {"on-demand": "pricing", "commit-1y": "pricing", "commit-3y": "pricing", "spot": "spot", "capacity-block": "capacity-block"}
STATE = "refresh.yaml"
STATE_HEADER = """\
# What `guide refresh-prices` publishes with its pull request; written by it, read by the site's freshness
# check. (What the refresh remembers between runs is kept apart, generator/commands/refresh_memory.py.)
# asked: the day each API (by the prefix of the source keys it is cited as) last answered; a figure it
#   cites and gave again unchanged counts as confirmed that day.
# missing: figures (and, as option `region`, regions of an instance) the last answers lacked, since the
#   day one first did; marked vanished only when a refresh a week or more later lacks them too.
# held: figures an API gave that moved beyond refresh_bounds in data/assumptions.yaml; prices.yaml keeps
#   the figure before until a person runs `guide refresh-prices --accept INSTANCE/REGION/OPTION=FIGURE`
#   (raised: the last refresh that asked), or refuses it (`--refuse`, refused: the day).
# reread: scenario prose a person must reread before the pull request is merged (`guide reread`).
asked: {}
missing: []
held: []
reread: []
"""
# A figure vanishes, and a region leaves an instance's list, only after two answers this far apart lack it.
CONFIRM_DAYS = 7
FILES = ("prices.yaml", "instances.yaml", "sources.yaml", "history.yaml", STATE)


class RefreshError(Exception):
    """The refresh cannot go on for a reason in data/ or on the command line; one sentence."""


def source_key(api: str, day: dt.date) -> str:
    return f"{APIS[api][0]}-{day.isoformat()}"


def key_text(key: tuple[str, str, str]) -> str:
    """How a figure is named on the command line and in reports: INSTANCE/REGION/OPTION."""
    return "/".join(key)


def parse_decision(text: str, flag: str = "--accept") -> tuple[tuple[str, str, str], float]:
    """INSTANCE/REGION/OPTION=FIGURE as given to --accept or --refuse: the held move and the figure checked."""
    name, _, figure = text.strip().partition("=")
    parts = name.split("/")
    try:
        value = float(figure)
    except ValueError:
        value = 0.0
    if len(parts) != 3 or not all(parts) or not (value > 0 and value < float("inf")):
        raise RefreshError(f"{flag} takes INSTANCE/REGION/OPTION=FIGURE, the held move as the report names it and the figure "
                           f"you checked against AWS's own page (got {text!r})")
    return (parts[0], parts[1], parts[2]), value


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


@dataclass(frozen=True)
class HeldMove:
    key: tuple[str, str, str]
    before: float | None
    after: float
    why: str
    seen: dt.date | None = None  # the day it was first held
    refused: dt.date | None = None  # the day a person refused this figure

    def line(self) -> str:
        b = "none" if self.before is None else yaml_number(self.before)
        return (f"{key_text(self.key)}: {b} -> {yaml_number(self.after)} held since {self.seen} ({self.why}); "
                f"check it against AWS's own page, then `guide refresh-prices --accept {self.decision()}` "
                f"or `--refuse {self.decision()}`")

    def decision(self) -> str:
        return f"{key_text(self.key)}={yaml_number(self.after)}"


@dataclass(frozen=True)
class Recited:
    key: tuple[str, str, str]
    was: str  # the source the row cited before


@dataclass(frozen=True)
class Unasked:
    """A figure no AWS API gives, and the day a person should check it again."""

    key: tuple[str, str, str]
    text: str  # the figure, or "not offered"
    source: str
    review: dt.date
    explicit: bool  # its own review_by, not as_of plus stale_days


@dataclass
class Outcome:
    day: dt.date
    moves: list[Move] = field(default_factory=list)
    regions: list[str] = field(default_factory=list)  # "instance: [old] -> [new]"
    confirmed: int = 0  # figures the APIs gave again unchanged (left as they were)
    recited: list[Recited] = field(default_factory=list)  # of those, rows cited to another source until now
    held: list[HeldMove] = field(default_factory=list)
    refused: list[HeldMove] = field(default_factory=list)  # moves a person refused, AWS still giving them
    lacked: list[str] = field(default_factory=list)  # lacked by this answer, not yet confirmed gone
    skipped: dict[str, str] = field(default_factory=dict)  # region data/ names -> why it was not asked
    closed: list[str] = field(default_factory=list)  # regions the account has not opted into
    accepted: list[str] = field(default_factory=list)
    moved_on: list[str] = field(default_factory=list)  # decisions AWS's figure has moved away from
    unpriced: list[tuple[str, str, str]] = field(default_factory=list)  # spot pools recorded as not priced
    spot: list[str] = field(default_factory=list)  # "instance region: before -> after" of the Advisor's buckets
    unasked: list[Unasked] = field(default_factory=list)  # figures no API gives, with their review dates
    texts: dict[str, str] = field(default_factory=dict)  # file name under data/ -> new text
    scenarios: Followed = field(default_factory=Followed)  # expects the new data moves, notes quoting moved figures
    memory: Memory = field(default_factory=Memory)  # what the refresh remembers after this run
    memory_text: str | None = None  # the memory file's new text, when it changed


def tracked(catalog: Catalog) -> tuple[list[str], list[str]]:
    """The instances (EC2 instance types in data/instances.yaml) and the regions data/ names (the refresh
    asks every region the account may use; these it reports where the account may not)."""
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
    if entry.get("offered", True) is False or entry.get("usd_per_hour") != s.usd_per_hour:
        return False
    if s.low is None and "low" in entry and "reason" in entry:
        return True  # a range data/ gives for disagreeing sources stays, around the same figure
    return entry.get("low") == s.low and entry.get("high") == s.high


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


class Bounds:
    """refresh_bounds of data/assumptions.yaml applied to one refresh's figures."""

    def __init__(self, bounds: RefreshBounds, catalog: Catalog, seen: Observed):
        self.b = bounds
        self.on_demand: dict[str, dict[str, float]] = {}
        for p in catalog.prices:
            if p.option == "on-demand" and p.offered and p.usd_per_hour is not None:
                self.on_demand.setdefault(p.instance, {})[p.region] = p.usd_per_hour
        for (instance, region, option), s in seen.figures.items():
            if option == "on-demand":
                self.on_demand.setdefault(instance, {})[region] = s.usd_per_hour

    def moved_too_far(self, option: str, before: float, after: float) -> str | None:
        limit = self.b.move_percent(option)
        moved = abs(after - before) / before * 100
        if moved > limit:
            return f"moved {moved:.1f} %, more than the {yaml_number(limit)} % refresh_bounds allows for {option}"
        return None

    def new_out_of_range(self, key: tuple[str, str, str], after: float) -> str | None:
        instance, region, option = key
        rates = self.on_demand.get(instance, {})
        others = [v for r, v in rates.items() if (r, option) != (region, "on-demand")]
        reference = rates.get(region) if option != "on-demand" and region in rates else (statistics.median(others) if others else None)
        if reference is None:
            return "a new figure with no on-demand rate of the instance to compare it with"
        ratio = after / reference
        if not self.b.low_ratio <= ratio <= self.b.high_ratio:
            return (f"a new figure {ratio:.3g} times the instance's on-demand rate, outside the {yaml_number(self.b.low_ratio)} "
                    f"to {yaml_number(self.b.high_ratio)} refresh_bounds allows")
        return None


def _published(state: Any) -> dict[tuple[str, str, str], dt.date]:
    return {(m["instance"], m["region"], m["option"]): m["since"] for m in state.get("missing") or []}


def plan(catalog: Catalog, seen: Observed, texts: dict[str, str], day: dt.date, memory: Memory | None = None) -> Outcome:
    """The new texts of the data files, from their present texts, what the APIs said and what the
    refresh remembers (memory; none: what data/refresh.yaml published). The memory after this run is
    out.memory."""
    out = Outcome(day, skipped=dict(seen.skipped), closed=list(seen.closed))
    if catalog.assumptions.refresh_bounds is None:
        raise RefreshError("data/assumptions.yaml has no refresh_bounds, so no figure from AWS's APIs can be checked; "
                           "add them (CONTRIBUTING.md, \"From AWS's APIs\") and run the refresh again")
    bounds = Bounds(catalog.assumptions.refresh_bounds, catalog, seen)
    y = round_trip()
    prices = y.load(texts["prices.yaml"])
    instances = y.load(texts["instances.yaml"])
    sources = y.load(texts["sources.yaml"])
    history = hist.load(y, texts.get(hist.NAME))
    state = y.load(texts.get(STATE) or STATE_HEADER)
    if memory is None:
        memory = refresh_memory.from_published(catalog.refresh)
    was_missing = dict(memory.lacked)
    decided = dict(memory.decided)
    missing: dict[tuple[str, str, str], dt.date] = {}
    used: set[str] = set()
    answered = set(seen.regions)
    # What this refresh did not ask about stays lacked since the day it was.
    missing.update({k: since for k, since in was_missing.items() if k[1] not in answered or k[0] not in seen.instances})

    def cite(api: str) -> str:
        used.add(api)
        return source_key(api, day)

    def record(key: tuple[str, str, str], change: str, source: str, before: Any, after: Any) -> None:
        history["prices"].append(hist.price_move(day, key, change, source, before, after))
        bv = None if before is None else before.get("usd_per_hour")
        av = None if after is None else after.get("usd_per_hour")
        out.moves.append(Move(*key, change, bv, av))

    # Absences confirmed by this run: remembered until data/ shows them (its pull request merged), so that
    # a run from a main without them confirms them again instead of lacking them anew.
    confirmed: dict[tuple[str, str, str], dt.date] = {}

    def gone(key: tuple[str, str, str]) -> bool:
        """True when the figure was lacked a week or more ago as well; else it is kept as lacked."""
        since = was_missing.get(key, day)
        if (day - since).days >= CONFIRM_DAYS:
            confirmed[key] = since
            return True
        missing[key] = since
        out.lacked.append(f"{key_text(key)} (lacked since {since})")
        return False

    def believed(key: tuple[str, str, str], before: float | None, after: float) -> bool:
        why = bounds.new_out_of_range(key, after) if before is None else bounds.moved_too_far(key[2], before, after)
        said = decided.get(key)
        if why is None:
            decided.pop(key, None)  # within the bounds: nothing is left for a person to say
            return True
        if said is not None and within(said.figure, after):
            b = "none" if before is None else yaml_number(before)
            if said.said == "accepted":
                out.accepted.append(f"{key_text(key)}: {b} -> {yaml_number(after)} ({why}; accepted as "
                                    f"{yaml_number(said.figure)} on {said.on})")
                return True
            out.refused.append(HeldMove(key, before, after, why, memory.held.get((key, after), day), said.on))
            return False
        if said is not None:
            decided.pop(key)
            out.moved_on.append(f"{key_text(key)}: AWS gives {yaml_number(after)} now, not the {yaml_number(said.figure)} "
                                f"{said.said} on {said.on}; held again for a person")
        out.held.append(HeldMove(key, before, after, why, memory.held.get((key, after), day)))
        return False

    # Regions first: a price is only kept in a region its instance's list names.
    for name in seen.instances:
        entry = instances["instances"].get(name)
        if entry is None:
            continue
        offered = set(seen.offered.get(name, []))
        old = list(entry["regions"]["value"])
        # A region leaves only when offerings a week apart lack it and no API priced the instance there.
        priced = {k[1] for k in seen.figures if k[0] == name}
        leaving = [r for r in old if r in answered and r not in offered and gone((name, r, "region")) and r not in priced]
        new = [r for r in old if r not in leaving] + sorted(offered - set(old))
        if new == old:
            continue
        src = cite("offerings")
        history["regions"].append(flow_map(("date", day), ("instance", name), ("source", src),
                                        ("before", _flow_list(old)), ("after", _flow_list(new))))
        out.regions.append(f"{name}: [{', '.join(old)}] -> [{', '.join(new)}]")
        regions = entry["regions"]
        regions["value"] = _flow_list(new)
        regions["source"] = src
        regions["as_of"] = day  # a hand-written note stays

    if seen.advisor is not None:
        _rate_spot(instances, sources, seen.advisor, catalog, out)

    entries = prices["prices"]
    index = {(e["instance"], e["region"], e["option"]): e for e in entries}
    covered = set(seen.instances)
    for key, entry in index.items():
        instance, region, option = key
        if instance not in covered or region not in answered:
            continue
        s = seen.figures.get(key)
        if s is None:
            if entry.get("offered", True) is False or "vanished" in entry or not gone(key):
                continue
            src = cite(OPTION_API[option])
            record(key, "vanished", src, _was(entry), None)
            entry["vanished"] = day
            continue
        if entry.get("offered", True) is False:
            before_value = None
        else:
            before_value = entry.get("usd_per_hour")
        if _same(entry, s) and "vanished" not in entry:
            out.confirmed += 1
            decided.pop(key, None)
            if not _from_api(str(entry.get("source", ""))):
                # Another source's figure the API now gives too: cited to the API, the other kept.
                out.recited.append(Recited(key, str(entry.get("source", ""))))
                _keep_cited(entry)
                _set_figure(entry, s, cite(s.api), day)
            continue
        if not believed(key, before_value, s.usd_per_hour):
            continue
        src = cite(s.api)
        returned = "vanished" in entry
        before = _was(entry)
        _keep_cited(entry)
        _set_figure(entry, s, src, day)
        record(key, "returned" if returned else "changed", src, before, _seen_map(s, src, day))

    unpublished = prices.get("unpublished")
    if unpublished is None:
        unpublished = CommentedSeq()
    for key in sorted(set(seen.figures) - set(index)):
        s = seen.figures[key]
        if not believed(key, None, s.usd_per_hour):
            continue
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
    _not_priced_on_spot(seen, instances, entries, unpublished, answered, {h.key for h in out.held + out.refused}, cite, out)
    if unpublished and "unpublished" not in prices:
        prices["unpublished"] = unpublished

    for api in sorted(used):
        k = source_key(api, day)
        if k not in sources["sources"]:
            prefix, title, url = APIS[api]
            sources["sources"][k] = CommentedMap([("title", f"{title} {day.isoformat()}"), ("url", url),
                                                  ("kind", "primary"), ("as_of", day)])

    new_texts = {"prices.yaml": yaml_text(y, prices), "instances.yaml": yaml_text(y, instances),
                 "sources.yaml": yaml_text(y, sources), "history.yaml": yaml_text(y, history)}
    changed = {k: v for k, v in new_texts.items() if v != texts.get(k)}
    _update_state(state, catalog, day, missing, out, bool(changed))
    state_text = yaml_text(y, state)
    if state_text != (texts.get(STATE) or STATE_HEADER) or (STATE not in texts and changed):
        changed[STATE] = state_text
    out.texts = changed
    out.memory = Memory(lacked={**confirmed, **missing}, held={(h.key, h.after): h.seen or day for h in out.held + out.refused},
                        decided=decided, origin=memory.origin)
    return out


def _not_priced_on_spot(seen: Observed, instances: Any, entries: Any, unpublished: Any, answered: set[str],
                        held: set[tuple[str, str, str]], cite: Any, out: Outcome) -> None:
    """Each spot pool of an instance asked about, in a region its list names, that the Spot price history
    gave no price for and data/ neither prices nor records as unpublished: recorded as not priced."""
    priced = {(e["instance"], e["region"], e["option"]) for e in entries}
    recorded = {(u["instance"], u.get("region"), u["option"]) for u in unpublished}
    for name in seen.instances:
        entry = instances["instances"].get(name)
        if entry is None:
            continue
        for region in entry["regions"]["value"]:
            key = (name, region, "spot")
            if (region not in answered or key in priced or key in seen.figures or key in held
                    or key in recorded or (name, None, "spot") in recorded):
                continue
            unpublished.append(flow_map(("instance", name), ("region", region), ("option", "spot"),
                                        ("source", cite("spot")), ("as_of", out.day), ("note", NOT_PRICED)))
            out.unpriced.append(key)


def _rate_spot(instances: Any, sources: Any, advisor: Advisor, catalog: Catalog, out: Outcome) -> None:
    """Each rated instance's buckets as the Advisor's data gives them, in the regions its list names."""
    known = tuple(catalog.assumptions.spot_interruption_buckets) or SPOT_BUCKETS
    if sorted(advisor.labels) != sorted(known):
        raise RefreshError(f"the Spot Instance Advisor's data of {advisor.as_of} names the ranges {', '.join(advisor.labels) or 'none'}, "
                           f"not the buckets data/assumptions.yaml knows ({', '.join(known)}); see what AWS changed and update "
                           "spot_interruption_buckets before the refresh reads the data again")
    src = f"{ADVISOR_PREFIX}-{advisor.as_of.isoformat()}"
    for name in _rated(instances, advisor):
        entry = instances["instances"][name]
        old = entry["spot_interruption"]
        was = {str(r): str(b) for r, b in old["value"].items()}
        rated = advisor.buckets[name]
        given = {r: rated[r] for r in entry["regions"]["value"] if r in rated}
        kept = {r: b for r, b in was.items() if r not in given}
        new = dict(sorted({**given, **kept}.items()))
        if new == was:
            continue
        out.spot += [f"{name} {r}: {was.get(r, 'none')} -> {b}" for r, b in new.items() if was.get(r) != b]
        note = str(old.get("note") or "")
        ours = note.startswith(KEPT)
        # A region kept before keeps the source that last rated it, not the answers that lacked it since.
        rated_by = {r: (k, d) for r, k, d in KEPT_CLAUSE.findall(note)} if ours else {}
        notes = [note] if note and not ours else []
        if kept:
            clauses = [f"{r} as {k} ({d}) rated it" for r in kept for k, d in [rated_by.get(r, (old["source"], old["as_of"]))]]
            notes.append(f"{KEPT} {'; '.join(clauses)}. The data of {advisor.as_of} does not rate the instance there.")
        value = CommentedMap((r, DoubleQuotedScalarString(b)) for r, b in new.items())
        value.fa.set_flow_style()
        pairs: list[tuple[str, Any]] = [("value", value), ("source", src), ("as_of", advisor.as_of)]
        if notes:
            pairs.append(("note", " ".join(notes)))
        # Another source's rating the Advisor's data now replaces stays first among the alternatives.
        alternatives = list(old.get("alternatives") or [])
        if not ADVISOR_OWN.match(str(old["source"])):
            alternatives.insert(0, flow_map(*((k, old[k]) for k in ("value", "source", "as_of", "note") if k in old)))
        if alternatives:
            pairs.append(("alternatives", _flow_list(alternatives)))
        entry["spot_interruption"] = flow_map(*pairs)
        if src not in sources["sources"]:
            sources["sources"][src] = CommentedMap([
                ("title", ADVISOR_TITLE.format(bucket=ADVISOR_BUCKET, key=ADVISOR_KEY, day=advisor.as_of.isoformat())),
                ("url", ADVISOR_URL), ("kind", "primary"), ("as_of", advisor.as_of)])


def _rated(instances: Any, advisor: Advisor) -> list[str]:
    """The instances data/ already rates that the data rates too; the rest keep what they have."""
    return [n for n in sorted(advisor.buckets) if (e := instances["instances"].get(n)) is not None and e.get("spot_interruption")]


def _update_state(state: Any, catalog: Catalog, day: dt.date, missing: dict, out: Outcome, writing: bool) -> None:
    """What data/refresh.yaml publishes: the asked days (renewed with any change, or when older than half
    of stale_days), what is lacked since when, and what is held (raised again today, until a person
    accepts or refuses it)."""
    renew = stale_days(catalog) // 2
    asked = state["asked"] if isinstance(state.get("asked"), dict) else CommentedMap()
    prefixes = [APIS[api][0] for api in APIS]
    if writing or missing != _published(state) or any(p not in asked or (day - asked[p]).days >= renew for p in prefixes):
        for p in prefixes:
            asked[p] = day
    flow = CommentedMap(asked.items())
    flow.fa.set_flow_style()
    state["asked"] = flow
    rows = [flow_map(("instance", k[0]), ("region", k[1]), ("option", k[2]), ("since", since))
            for k, since in sorted(missing.items())]
    state["missing"] = block_list(rows)
    held = sorted(out.held + out.refused, key=lambda h: h.key)
    state["held"] = block_list([flow_map(("instance", h.key[0]), ("region", h.key[1]), ("option", h.key[2]),
                                         *((("before", h.before),) if h.before is not None else ()),
                                         ("after", h.after), ("seen", h.seen or day), ("why", h.why),
                                         ("refused", h.refused) if h.refused is not None else ("raised", day))
                                for h in held])


def _flow_list(items: list[str]) -> CommentedSeq:
    s = CommentedSeq(items)
    s.fa.set_flow_style()
    return s


Decisions = dict[tuple[str, str, str], float]


def run(data_dir: Path, client: ClientFactory, now: dt.datetime, pricing_region: str = "us-east-1",
        dry_run: bool = False, accept: Decisions | None = None, refuse: Decisions | None = None,
        memory_path: Path | None = None) -> Outcome:
    """Ask the APIs, plan, check, and (unless dry_run) write data/, the scenarios whose verdict moved and
    the memory (memory_path; by default .refresh/memory.yaml beside data/), all or nothing. accept and
    refuse: what a person says of held moves, each with the figure they checked. Raises AwsError before
    anything is written when a call fails, RefreshError when data/ lacks what the refresh needs or AWS no
    longer gives a figure a person checked, InputError when data/, the memory or the edit does not
    validate, OSError when a file cannot be written (then none is)."""
    catalog = load_catalog(data_dir)
    root = data_dir.parent
    path = memory_path if memory_path is not None else root / refresh_memory.DEFAULT_PATH
    memory = refresh_memory.read(path, _shown(path, root), catalog.refresh)
    instances, regions = tracked(catalog)
    known = {i: list(catalog.instances[i].regions.value) for i in instances}
    seen = fetch(instances, regions, client, now, pricing_region, known)
    day = now.date()
    for said, given in (("accepted", accept or {}), ("refused", refuse or {})):
        for key, figure in given.items():
            memory.decided[key] = _checked_decision(seen, key, figure, said, day)
    texts = {n: (data_dir / n).read_text(encoding="utf-8") for n in FILES if (data_dir / n).exists()}
    out = plan(catalog, seen, texts, day, memory)
    after = checked(data_dir, out.texts) if out.texts else catalog
    if out.texts:
        moved = {m.before for m in out.moves if m.before is not None}
        out.scenarios = follow(root, data_dir, catalog, after, moved)
    # Entries made from the model (Reread), so valid as written: data/refresh.yaml is not checked again.
    reread = _reread(root, data_dir, after, out)
    if reread is not None:
        out.texts[STATE] = reread
    out.unasked = unasked(after)
    memory_text = refresh_memory.text(out.memory)
    if memory_text != (path.read_text(encoding="utf-8") if path.exists() else None):
        out.memory_text = memory_text
    if not dry_run and (out.texts or out.memory_text is not None):
        here = data_dir.name
        if out.memory_text is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        write_all(root, {**{f"{here}/{n}": t for n, t in out.texts.items()},
                         **{f"scenarios/{n}": t for n, t in out.scenarios.texts.items()},
                         **({str(path.resolve()): out.memory_text} if out.memory_text is not None else {})})
    return out


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _checked_decision(seen: Observed, key: tuple[str, str, str], figure: float, said: str, day: dt.date) -> Decision:
    """What a person said of a held move, taken only while AWS gives the figure they checked."""
    verb = "accept" if said == "accepted" else "refuse"
    s = seen.figures.get(key)
    if s is None:
        raise RefreshError(f"AWS's APIs gave no figure for {key_text(key)} today, so there is nothing to {verb}; "
                           f"run the refresh without --{verb} {key_text(key)}")
    if not within(figure, s.usd_per_hour):
        now = f"{key_text(key)}={yaml_number(s.usd_per_hour)}"
        raise RefreshError(f"AWS gives {yaml_number(s.usd_per_hour)} for {key_text(key)} today, not the {yaml_number(figure)} "
                           f"you checked (more than {yaml_number(ACCEPT_TOLERANCE * 100)} % apart), so nothing was {said}: "
                           f"check {yaml_number(s.usd_per_hour)} against AWS's own page and run again with --{verb} {now}")
    return Decision(said, figure, day)


def _reread(root: Path, data_dir: Path, after: Catalog, out: Outcome) -> str | None:
    """data/refresh.yaml's new text with the prose to reread: this refresh's flips and quotes, and the
    entries of earlier refreshes still waiting; None when that list is as it was."""
    from generator.inputs import reread as rr
    from generator.model.catalog import Reread

    new = [Reread(scenario=f.path, why=f"its verdict moved from {f.before} to {f.after}", prose=f.prose, since=out.day)
           for f in out.scenarios.flips]
    new += [Reread(scenario=q.path, field=q.field, why=f"it quotes {q.figure}, a figure that moved", prose=q.prose, since=out.day)
            for q in out.scenarios.quotes if q.prose]
    fresh = {(e.scenario, e.field) for e in new}
    earlier = after.refresh.reread
    kept = [earlier[i] for i in rr.waiting(root, earlier) if (earlier[i].scenario, earlier[i].field) not in fresh]
    entries = kept + new
    if entries == earlier:
        return None
    y = round_trip()
    state = y.load(out.texts.get(STATE) or (data_dir / STATE).read_text(encoding="utf-8"))
    state["reread"] = block_list([flow_map(("scenario", e.scenario), *((("field", e.field),) if e.field else ()),
                                           ("why", e.why), ("prose", e.prose), ("since", e.since)) for e in entries])
    return yaml_text(y, state)


def unasked(catalog: Catalog) -> list[Unasked]:
    """Every figure no AWS API gives (catalog.refreshable), with the day a person should review it."""
    days = stale_days(catalog)
    return [Unasked((p.instance, p.region, p.option), "not offered" if p.usd_per_hour is None else yaml_number(p.usd_per_hour),
                    p.source, review_date(p, days), p.review_by is not None)
            for p in catalog.prices if not refreshable(p) and p.vanished is None]


def report_lines(out: Outcome, shown_dir: str, dry_run: bool) -> list[str]:
    verb = "would write" if dry_run else "wrote"
    lines = []
    if not out.texts:
        lines.append(f"{shown_dir}/: nothing changed; every figure is as AWS's APIs gave it on {out.day}")
    else:
        lines.append(f"{shown_dir}/: {verb} {', '.join(sorted(out.texts))}: {len(out.moves)} price move(s), "
                     f"{len(out.recited)} row(s) re-cited to the APIs with the same figure, "
                     f"{len(out.regions)} regions list(s) changed, {len(out.held)} move(s) held, "
                     f"{out.confirmed} figure(s) confirmed unchanged {out.day}")
    lines += [f"  {m.line()}" for m in out.moves]
    by_source = Counter(r.was for r in out.recited)
    lines += [f"  re-cited to the API that gave the same figure: {n} row(s) cited to {src} until now" for src, n in sorted(by_source.items())]
    lines += [f"  regions {r}" for r in out.regions]
    lines += [f"  spot interruption {r}" for r in out.spot]
    unpriced: dict[str, list[str]] = {}
    for instance, region, _ in out.unpriced:
        unpriced.setdefault(instance, []).append(region)
    lines += [f"  spot not priced (no price in the Spot price history), recorded as unpublished: {name} in {', '.join(regions)}"
              for name, regions in unpriced.items()]
    lines += [f"  held for a person: {h.line()}" for h in out.held]
    lines += [f"  refused on {h.refused}, not raised while AWS gives it: {key_text(h.key)}={yaml_number(h.after)}" for h in out.refused]
    lines += [f"  accepted beyond the bounds: {a}" for a in out.accepted]
    lines += [f"  no longer decided: {m}" for m in out.moved_on]
    lines += [f"  lacked by this answer, kept until a refresh a week later lacks it too: {m}" for m in out.lacked]
    lines += [f"  skipped {r}: {_skip_reason(code)}; its figures are kept" for r, code in sorted(out.skipped.items())]
    if out.closed:
        lines.append(f"  not asked, as the account has not opted into them: {', '.join(out.closed)}")
    lines += [f"  {f.path}: expect {f.before} -> {f.after} (the verdict on the new prices)" for f in out.scenarios.flips]
    lines += [f"  reread {q.path} {q.field}: it quotes {q.figure}, a figure that moved" for q in out.scenarios.quotes]
    if out.memory_text is not None:
        lines.append(f"  memory: {verb} what the refresh remembers (read from {out.memory.origin})")
    return lines


def _skip_reason(code: str) -> str:
    if code == "not opted in":
        return "the account has not opted into it"
    return f"it answered {code} (the account may not use it)"


def report_markdown(out: Outcome) -> str:
    """The refresh's part of the pull request body: what a person must look at before merging."""
    parts = [f"## Price refresh of {out.day}", ""]
    if out.held:
        parts += ["### Held for a person", "",
                  "These figures moved beyond `refresh_bounds` in data/assumptions.yaml and were **not** written. Each is "
                  "raised again in every refresh until a person decides. Check the figure against AWS's own page, then "
                  "accept it or refuse it with the command beside it (or run the workflow with the `accept` or `refuse` "
                  f"input): that refresh writes an accepted figure only while AWS still gives it, within "
                  f"{yaml_number(ACCEPT_TOLERANCE * 100)} %, and a refused one is not raised again while AWS gives it.", ""]
        parts += [f"- `{key_text(h.key)}`: {'none' if h.before is None else yaml_number(h.before)} -> {yaml_number(h.after)}, "
                  f"{h.why}; held since {h.seen}. Accept: `guide refresh-prices --accept {h.decision()}`; "
                  f"refuse: `guide refresh-prices --refuse {h.decision()}`" for h in out.held]
        parts.append("")
    if out.scenarios.flips or out.scenarios.quotes:
        parts += ["### Notes to reread before merging", "",
                  "The check `guide reread` fails on this pull request until each text below is edited, or its entry under "
                  "`reread` in data/refresh.yaml is deleted to say it still holds. A price a note quotes through "
                  "`{price:INSTANCE/REGION/OPTION}` is current by itself and is not listed.", ""]
        parts += [f"- [ ] `{f.path}`: its verdict moved from {f.before} to {f.after} (its `expect` now says so); reread its "
                  "summary, notes and rationale" for f in out.scenarios.flips]
        parts += [f"- [ ] `{q.path}` ({q.field}) quotes {q.figure}, a figure that moved: \"{q.excerpt}\"" for q in out.scenarios.quotes]
        parts.append("")
    withdrawn = [m for m in out.moves if m.change == "vanished"]
    if withdrawn:
        parts += ["### Withdrawn figures", "",
                  "AWS's answers a week or more apart both lacked these. Each stays in data/prices.yaml at its last figure, "
                  "marked `vanished`; a workload that names it is still priced at it, and its pages say since when AWS no "
                  "longer lists it.", ""]
        parts += [f"- `{key_text((m.instance, m.region, m.option))}`: last listed at {yaml_number(m.before)}"
                  if m.before is not None else f"- `{key_text((m.instance, m.region, m.option))}`" for m in withdrawn]
        parts.append("")
    if out.recited:
        by_source = Counter(r.was for r in out.recited)
        parts += ["### Rows re-cited to AWS's APIs", "",
                  f"{len(out.recited)} row(s) held a figure from another source that AWS's APIs gave as well, to the same "
                  "number. Each now cites the API and the day of the call, and keeps its earlier citation (with its note) "
                  "first among its `alternatives`. No figure changed; the diff of these rows is that citation alone.", ""]
        parts += [f"- {n} cited to `{src}` until now" for src, n in sorted(by_source.items())]
        parts += ["", "<details><summary>The rows</summary>", "", *[f"- `{key_text(r.key)}` (was `{r.was}`)" for r in out.recited],
                  "", "</details>", ""]
    if out.unasked:
        overdue = [u for u in out.unasked if u.review <= out.day]
        parts += ["### Figures no API gives", "",
                  "No AWS API confirms these (an UltraServer's rate, a way of buying recorded as not offered), so the refresh "
                  "leaves them as they are and `guide validate --strict` does not count their age. Each carries its own review "
                  "date (`review_by`, else its `as_of` plus `stale_days`): by then a person checks it against its source and "
                  "updates it and its date." + (f" **Due now: {len(overdue)}.**" if overdue else ""), ""]
        parts += [f"- `{key_text(u.key)}`: {u.text} ({u.source}), review by {u.review}"
                  f"{'' if u.explicit else ' (from its as_of)'}{' **due**' if u.review <= out.day else ''}" for u in out.unasked]
        parts.append("")
    parts += ["### What the APIs said", "", "```", *report_lines(out, "data", False), "```", ""]
    return "\n".join(parts)
