"""The recorded price moves (data/history.yaml) as readers see them: each move with the scenarios
whose verdict or saving per run it moved, for the "What changed" page and its Atom feed.

A move's effect on a workload is the engine run twice on the workload's inputs as they are now,
once with the moved price at the figure before the move and once at the figure after it: what that
move alone did, everything else held as data/ holds it today. A workload buys at a price when a
side names it, or may buy that way (a way the side accepts, in a region the workload may use).
"""

from __future__ import annotations

import datetime as dt
import html
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace

from generator.model import formatting as fmt
from generator.model.catalog import OPTION_LABELS, Catalog, PriceMove, RegionsMove, Was
from generator.model.engine import Inputs, Outcome, Span, Way, accepts, evaluate
from generator.model.results import ScenarioResult, WorkloadResult
from generator.model.wording import SITE_WORDS, site_say
from generator.rendering.published.diff import DEFAULT_THRESHOLD, relative_change

ATOM = "http://www.w3.org/2005/Atom"
FEED_PATH = "changes/atom.xml"
PAGE_PATH = "changes/"
# A feed carries the latest moves, as feeds do; the page lists every one.
FEED_ENTRIES = 100
CHANGE_WORDS = {change: SITE_WORDS[change] for change in ("changed", "added", "vanished", "returned")}


@dataclass(frozen=True)
class Effect:
    scenario: ScenarioResult
    workload: str
    verdict_before: str | None  # None: the price did not exist before the move
    verdict_after: str | None  # None: it no longer exists after it
    saving_before: float | None
    saving_after: float | None

    @property
    def verdict_moved(self) -> bool:
        return self.verdict_before != self.verdict_after


@dataclass(frozen=True)
class Shown:
    move: PriceMove
    effects: tuple[Effect, ...]

    @property
    def anchor(self) -> str:
        m = self.move
        return f"{m.date}-{m.instance}-{m.region}-{m.option}-{m.change}".replace(".", "-")

    @property
    def title(self) -> str:
        m = self.move
        return site_say("move_title", instance=m.instance, region=m.region, option=OPTION_LABELS[m.option], move=move_text(m))


def move_text(m: PriceMove) -> str:
    """What a move did to the figure, in words: a withdrawn figure reads as withdrawn, not as a move to none."""
    said = {"before": was_text(m.before), "after": was_text(m.after)}
    return site_say("moved_" + m.change if m.change in ("vanished", "added", "returned") else "moved", **said)


def was_text(w: Was | None) -> str:
    if w is None:
        return SITE_WORDS["none"]
    if not w.offered or w.usd_per_hour is None:
        return SITE_WORDS["not_offered"]
    # A move can be smaller than a cent: the rates as the source gives them.
    text = fmt.hourly_exact(w.usd_per_hour)
    if w.low is not None and w.high is not None:
        text = site_say("span", value=text, low=fmt.hourly_exact(w.low), high=fmt.hourly_exact(w.high))
    return text


def _span(w: Was | None) -> Span | None:
    if w is None or not w.offered or w.usd_per_hour is None:
        return None
    lo = w.usd_per_hour if w.low is None else w.low
    hi = w.usd_per_hour if w.high is None else w.high
    return Span(w.usd_per_hour, lo, hi)


Buyers = dict[tuple[str, str, str], list[tuple[ScenarioResult, WorkloadResult, str]]]


def buyers(results: list[ScenarioResult]) -> Buyers:
    """Each price key with the workloads (and the side) that buy at it or may, found once for every move."""
    out: Buyers = {}
    for r in results:
        for w in r.workloads:
            for side, bought in w.prices.items():
                x = w.inputs
                ok = accepts(x, side)
                keys = {(bought.instance, bought.region, bought.option)}
                keys |= {(bought.instance, way.region, way.option) for way in getattr(x, side + "_ways") + getattr(x, side + "_ways_elsewhere")
                         if way.option in ok}
                for key in sorted(keys):
                    out.setdefault(key, []).append((r, w, side))
    return out


def _priced(w: WorkloadResult, side: str, region: str, option: str, span: Span) -> Inputs:
    """The workload's inputs with one of a side's ways at a price: its named price too if it is that way."""
    x = w.inputs

    def moved(ways: tuple[Way, ...]) -> tuple[Way, ...]:
        return tuple(replace(v, usd_per_hour=span.value) if (v.region, v.option) == (region, option) else v for v in ways)

    changes: dict = {f"{side}_ways": moved(getattr(x, side + "_ways")), f"{side}_ways_elsewhere": moved(getattr(x, side + "_ways_elsewhere"))}
    bought = w.prices[side]
    if (bought.region, bought.option) == (region, option):
        changes[f"{side}_price"] = span
    return replace(x, **changes)


class _Runs:
    """The engine's outcome for one workload with one side's price set to a span, each computed once:
    consecutive moves of a price share a figure (one's after is the next one's before)."""

    def __init__(self) -> None:
        self._done: dict[tuple[int, str, str, str, Span], Outcome] = {}

    def __call__(self, w: WorkloadResult, side: str, region: str, option: str, span: Span | None) -> Outcome | None:
        if span is None:
            return None
        key = (id(w), side, region, option, span)
        if key not in self._done:
            self._done[key] = evaluate(_priced(w, side, region, option, span))
        return self._done[key]


def effects(move: PriceMove, bought_by: Buyers, threshold: float = DEFAULT_THRESHOLD,
            runs: _Runs | None = None) -> tuple[Effect, ...]:
    """The workloads that buy the moved price and whose verdict, or saving per run by more than
    threshold percent, the move changed."""
    if move.change == "vanished":
        return ()  # data/ keeps the last figure seen: no number a scenario uses moved
    runs = runs or _Runs()
    before, after = _span(move.before), _span(move.after)
    out = []
    for r, w, side in bought_by.get((move.instance, move.region, move.option), ()):
        o_before, o_after = runs(w, side, move.region, move.option, before), runs(w, side, move.region, move.option, after)
        e = Effect(r, w.workload.name, o_before and o_before.verdict, o_after and o_after.verdict,
                   o_before and o_before.saving_per_run, o_after and o_after.saving_per_run)
        change = relative_change(e.saving_before, e.saving_after)
        if e.verdict_moved or (change is not None and abs(change) > threshold):
            out.append(e)
    return tuple(out)


def shown_moves(catalog: Catalog, results: list[ScenarioResult]) -> list[Shown]:
    """Every recorded price move, newest day first (the file's order within a day)."""
    moves = list(enumerate(catalog.history.prices))
    moves.sort(key=lambda im: (-im[1].date.toordinal(), im[0]))
    bought_by, runs = buyers(results), _Runs()
    return [Shown(m, effects(m, bought_by, runs=runs)) for _, m in moves]


def regions_moves(catalog: Catalog) -> list[RegionsMove]:
    return sorted(catalog.history.regions, key=lambda m: m.date, reverse=True)


def effect_text(e: Effect) -> str:
    """One line of plain text (escaped where it is placed)."""
    none = SITE_WORDS["none"]
    parts = []
    if e.verdict_moved:
        parts.append(site_say("verdict_moved", before=e.verdict_before or none, after=e.verdict_after or none))
    parts.append(site_say("saving_moved", before=fmt.money(e.saving_before) if e.saving_before is not None else none,
                          after=fmt.money(e.saving_after) if e.saving_after is not None else none))
    return site_say("effect", title=e.scenario.scenario.title, workload=e.workload, parts=SITE_WORDS["effects_between"].join(parts))


def _stamp(day: dt.date) -> str:
    return f"{day.isoformat()}T00:00:00Z"


def atom(shown: list[Shown], catalog: Catalog, site_url: str) -> str:
    """An Atom 1.0 feed (RFC 4287) of the latest price moves, newest first; text escaped by ElementTree."""
    ET.register_namespace("", ATOM)
    page = f"{site_url}{PAGE_PATH}"
    feed = ET.Element(f"{{{ATOM}}}feed")

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        el = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            el.text = text
        return el

    sub(feed, "id", page)
    sub(feed, "title", SITE_WORDS["feed_title"])
    sub(feed, "subtitle", SITE_WORDS["feed_subtitle"])
    # A feed's date is that of its newest entry; with none, the newest price date, so a build is reproducible.
    newest = shown[0].move.date if shown else catalog.latest_as_of()
    sub(feed, "updated", _stamp(newest))
    author = sub(feed, "author")
    sub(author, "name", SITE_WORDS["feed_author"])
    sub(feed, "link", href=f"{site_url}{FEED_PATH}", rel="self", type="application/atom+xml")
    sub(feed, "link", href=page, rel="alternate", type="text/html")
    for s in shown[:FEED_ENTRIES]:
        m = s.move
        entry = sub(feed, "entry")
        host = site_url.split("//", 1)[-1].split("/", 1)[0] or "localhost"
        sub(entry, "id", f"tag:{host},{m.date.isoformat()}:price-move/{s.anchor}")
        sub(entry, "title", s.title)
        sub(entry, "updated", _stamp(m.date))
        sub(entry, "link", href=f"{page}#{s.anchor}", rel="alternate", type="text/html")
        source = catalog.sources.get(m.source)
        said = site_say("feed_entry", instance=html.escape(m.instance), region=html.escape(m.region),
                        option=html.escape(OPTION_LABELS[m.option]), move=html.escape(move_text(m)), date=m.date.isoformat(),
                        source=html.escape(source.title if source else m.source))
        lines = [f"<p>{said}</p>"]
        if s.effects:
            lines.append("<ul>" + "".join(f"<li>{html.escape(effect_text(e))}</li>" for e in s.effects) + "</ul>")
        else:
            lines.append(f"<p>{SITE_WORDS['feed_no_effect']}</p>")
        sub(entry, "content", "".join(lines), type="html")
    ET.indent(feed)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"
