"""Readers see the history: the "What changed" page lists each recorded price move with its date
and the scenarios it moved, the Atom feed says the same and is valid Atom (RFC 4287), and the
downloads of every instance and price figure parse and carry a source and an as-of on every row.

The history comes from two refreshes on AWS's answers served offline (tests/refresh_support.py):
the recorded answers, then a week later the same with p5.48xlarge's on-demand rate in us-east-1
cut to $30.00 (a cut beyond refresh_bounds, accepted as a person would) and trn2.48xlarge's on-demand
figure, lacked by both answers, gone. What the cut did is checked against the engine's own results
before and after it.
"""

from __future__ import annotations

import html

import csv
import datetime as dt
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import BuiltSite, build_copy, copy_project
from core_support import copy_inputs
from generator.rendering.pages import changes
from generator.rendering.published import downloads
from generator.commands import refresh
from generator.rendering.published.diff import DEFAULT_THRESHOLD, relative_change
from generator.inputs.loader import load_project
from generator.rendering.pages.renderer import Renderer
from refresh_support import CALLED_AT, Stubbed, calls, edit
from refresh_support import set_on_demand

A = "{http://www.w3.org/2005/Atom}"
WEEK = CALLED_AT + dt.timedelta(days=7)
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
SITE_URL = "https://example.org/guide/"


def _first_refresh(root: Path) -> None:
    refresh.run(root / "data", Stubbed(calls()), CALLED_AT)


def _week_later(root: Path, p5: float = 30.0) -> None:
    accept = {("p5.48xlarge", "us-east-1", "on-demand"): p5}
    later = calls()
    edit(later, "get_products", "us-east-1", set_on_demand("p5.48xlarge", "us-east-1", p5), nth=3)
    for c in later:  # the Spot window moves with the call
        if c["operation"] == "describe_spot_price_history":
            c["params"]["StartTime"] = (WEEK - dt.timedelta(days=30)).isoformat()
            c["params"]["EndTime"] = WEEK.isoformat()
    refresh.run(root / "data", Stubbed(later), WEEK, accept=accept)


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory: pytest.TempPathFactory):
    """(project before the p5 move, project after it, the rendered site)."""
    root = copy_inputs(tmp_path_factory.mktemp("changes") / "project")
    _first_refresh(root)
    before = load_project(root, check_expect=False)
    _week_later(root)
    after = load_project(root, check_expect=False)
    site = Renderer(after, site_url=SITE_URL, today=WEEK.date()).render()
    return before, after, site


def _moved_workloads(before, after) -> set[tuple[str, str]]:
    """(scenario, workload) whose verdict changed or saving per run moved beyond the threshold."""
    out = set()
    old = {(r.id, w.workload.name): w for r in before.results for w in r.workloads}
    for r in after.results:
        for w in r.workloads:
            a = old[(r.id, w.workload.name)]
            pct = relative_change(a.outcome.saving_per_run, w.outcome.saving_per_run)
            if a.outcome.verdict != w.outcome.verdict or (pct is not None and abs(pct) > DEFAULT_THRESHOLD):
                out.add((r.id, w.workload.name))
    return out


def _row(page: str, anchor: str) -> str:
    m = re.search(rf'<div class="guide-move" id="{re.escape(anchor)}".*?</div>', page, re.S)
    assert m, anchor
    return m.group(0)


def test_the_page_lists_the_move_with_its_date_and_exactly_the_scenarios_it_moved(refreshed):
    before, after, site = refreshed
    page = site.pages["changes.md"]
    anchor = f"{WEEK.date()}-p5-48xlarge-us-east-1-on-demand-changed"
    row = _row(page, anchor)
    assert "$55.04/h" in row and "$30.00/h" in row
    assert page.rindex(f"## {WEEK.date()}", 0, page.index(anchor)) > page.rfind("## 2026-11-25", 0, page.index(anchor))
    # The source is linked, and read by its name rather than its key.
    key = f"AWS-PRICE-LIST-API-{WEEK.date()}"
    name = after.catalog.sources[key].name
    assert f'href="../sources/#{key.lower()}"' in row and f">{html.escape(name, quote=False)}</a>" in row and f">{key}<" not in row
    listed = set(re.findall(r'<li><a href="\.\./scenarios/([a-z0-9-]+)/">[^<]*</a> \(([^)]*)\)', row))
    expected = _moved_workloads(before, after)
    assert expected and listed == expected
    flipped = {r.id for r, s in zip(before.results, after.results) if r.verdict != s.verdict}
    # large-run-gpus-constrained names p5 Capacity Blocks but accepts on demand: at $30 its 6,000 hours
    # cost $180,000 on demand, less than Trainium's $265,179, so the move turns it to the GPU as well.
    assert flipped == {"mainstream-pretraining", "large-run-gpus-constrained"}
    for sid in flipped:
        assert re.search(rf'scenarios/{sid}/.*?verdict <strong>\w+ → \w+</strong>', row)
    # Newest first: the week-later move comes before the first refresh's.
    assert page.index(anchor) < page.index(f"{CALLED_AT.date()}-trn1-32xlarge-us-west-2-on-demand-added")


def test_the_page_lists_vanished_and_added_prices_and_region_moves(refreshed):
    _, _, site = refreshed
    page = site.pages["changes.md"]
    gone = _row(page, f"{WEEK.date()}-trn2-48xlarge-us-east-2-on-demand-vanished")
    assert "no longer listed, $35.76/h" in gone and "→ none." in gone
    added = _row(page, f"{CALLED_AT.date()}-trn1-32xlarge-us-west-2-on-demand-added")
    assert "newly listed, none → $21.50/h" in added
    assert re.search(r"<tr><td>2026-11-25</td><td>trn1\.32xlarge</td><td>us-east-1</td><td>us-east-1, us-east-2, us-west-2</td>", page)


def test_the_feed_is_valid_atom_with_one_entry_per_move(refreshed):
    _, after, site = refreshed
    feed = ET.fromstring(site.files[changes.FEED_PATH].encode("utf-8"))
    assert feed.tag == f"{A}feed"
    # RFC 4287 4.1.1: a feed has exactly one id, title and updated, an author (or every entry has one),
    # and should have a link rel="self".
    for tag in ("id", "title", "updated"):
        assert len(feed.findall(f"{A}{tag}")) == 1, tag
    assert RFC3339.match(feed.findtext(f"{A}updated"))
    assert feed.find(f"{A}author/{A}name").text
    links = {ln.get("rel"): ln.get("href") for ln in feed.findall(f"{A}link")}
    assert links["self"] == f"{SITE_URL}changes/atom.xml" and links["alternate"] == f"{SITE_URL}changes/"
    entries = feed.findall(f"{A}entry")
    assert len(entries) == len(after.catalog.history.prices)
    ids = [e.findtext(f"{A}id") for e in entries]
    assert len(set(ids)) == len(ids) and all(i.startswith("tag:example.org,") for i in ids)
    for e in entries:  # 4.1.2: each entry has exactly one id, title and updated; content of type html
        for tag in ("id", "title", "updated"):
            assert len(e.findall(f"{A}{tag}")) == 1, tag
        assert RFC3339.match(e.findtext(f"{A}updated"))
        assert e.find(f"{A}content").get("type") == "html" and e.find(f"{A}link").get("rel") == "alternate"
    # Newest first: the week's two moves (the p5 cut, trn2's figure gone) lead.
    assert {e.findtext(f"{A}updated") for e in entries[:2]} == {f"{WEEK.date()}T00:00:00Z"} == {feed.findtext(f"{A}updated")}
    (first,) = [e for e in entries[:2] if e.findtext(f"{A}title").startswith("p5.48xlarge")]
    assert first.findtext(f"{A}title") == "p5.48xlarge, us-east-1, On-demand: $55.04/h → $30.00/h"
    content = first.findtext(f"{A}content")  # the entry's HTML, unescaped once by the XML parser
    assert "<li>Ongoing pretraining of a mainstream transformer, cost-sensitive (quarterly pretraining): verdict trainium → gpu" in content
    # A withdrawn figure reads as withdrawn, at its last figure, and a new one as newly listed: neither as a move to or from "none".
    (gone,) = [e for e in entries[:2] if e.findtext(f"{A}title").startswith("trn2.48xlarge")]
    assert gone.findtext(f"{A}title") == "trn2.48xlarge, us-east-2, On-demand: no longer listed, last at $35.76/h ($35.76/h to $85.964/h)"
    assert f"no longer listed, last at $35.76/h ($35.76/h to $85.964/h) on {WEEK.date()}." in gone.findtext(f"{A}content")
    (added,) = [e for e in entries if e.findtext(f"{A}title").startswith("trn1.32xlarge, us-west-2, On-demand")]
    assert added.findtext(f"{A}title") == "trn1.32xlarge, us-west-2, On-demand: newly listed at $21.50/h"
    assert not any("none" in e.findtext(f"{A}title") for e in entries)


def test_the_feed_escapes_what_it_quotes(refreshed):
    _, after, _ = refreshed
    hostile = [changes.Shown(changes.shown_moves(after.catalog, after.results)[0].move, ())]
    text = changes.atom(hostile, after.catalog, 'https://example.org/<x>&"/')
    ET.fromstring(text.encode("utf-8"))  # still well-formed XML


def test_the_downloads_parse_and_every_row_has_a_source_and_an_as_of(refreshed):
    _, after, site = refreshed
    catalog = after.catalog
    assert set(site.files) >= downloads.PATHS
    for stem, count in (("prices", len(catalog.prices) + len(catalog.unpublished)),
                        ("instances", 6 * len(catalog.instances))):
        rows = list(csv.DictReader(io.StringIO(site.files[f"downloads/{stem}.csv"])))
        doc = json.loads(site.files[f"downloads/{stem}.json"])
        assert len(rows) == len(doc["rows"]) == count
        for row, obj in zip(rows, doc["rows"]):
            assert row["source"] in catalog.sources and row["source"] == obj["source"]
            assert dt.date.fromisoformat(row["as_of"]) and row["as_of"] == obj["as_of"]
            assert row["source_title"] == catalog.sources[row["source"]].title
    p5 = next(r for r in json.loads(site.files["downloads/prices.json"])["rows"]
              if (r["instance"], r["region"], r["option"]) == ("p5.48xlarge", "us-east-1", "on-demand"))
    assert (p5["usd_per_hour"], p5["source"], p5["as_of"]) == (30.0, f"AWS-PRICE-LIST-API-{WEEK.date()}", str(WEEK.date()))
    trn2 = next(r for r in csv.DictReader(io.StringIO(site.files["downloads/prices.csv"]))
                if (r["instance"], r["region"], r["option"]) == ("trn2.48xlarge", "us-east-2", "on-demand"))
    assert (trn2["usd_per_hour"], trn2["vanished"]) == ("35.76", str(WEEK.date()))


@pytest.fixture(scope="module")
def history_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    root = copy_project(tmp_path_factory.mktemp("history-site") / "project")
    _first_refresh(root)
    _week_later(root, p5=50.0)  # a cut that flips no verdict: the build checks every scenario's expect
    return build_copy(root)


def test_the_built_site_has_the_page_the_feed_and_the_downloads_linked_from_the_prices_page(history_site: BuiltSite):
    site = history_site.site
    page = (site / "changes" / "index.html").read_text(encoding="utf-8")
    assert "p5.48xlarge, us-east-1, On-demand" in page and 'href="atom.xml"' in page
    ET.fromstring((site / "changes" / "atom.xml").read_bytes())
    prices = (site / "prices" / "index.html").read_text(encoding="utf-8")
    for path in sorted(downloads.PATHS) + ["changes/atom.xml"]:
        assert f'href="../{path}"' in prices, path
        assert (site / path).is_file()
    assert "No longer listed by AWS since 2026-12-02" in prices and "(no longer listed by AWS since 2026-12-02)" in prices
    nav = (site / "index.html").read_text(encoding="utf-8")
    assert re.search(r'href="changes/"[^>]*>\s*(<span[^>]*>\s*)?What changed', nav)


def test_the_feed_carries_the_latest_moves_and_the_page_every_one(refreshed):
    _, after, _ = refreshed
    first = after.catalog.history.prices[0]
    many = [first.model_copy(update={"date": first.date + dt.timedelta(days=i)}) for i in range(changes.FEED_ENTRIES + 20)]
    catalog = after.catalog.model_copy(update={"history": after.catalog.history.model_copy(update={"prices": many})})
    shown = changes.shown_moves(catalog, after.results)
    assert len(shown) == len(many) and shown[0].move.date == many[-1].date
    entries = ET.fromstring(changes.atom(shown, catalog, SITE_URL).encode("utf-8")).findall(f"{A}entry")
    assert len(entries) == changes.FEED_ENTRIES
    assert entries[0].findtext(f"{A}updated") == f"{many[-1].date}T00:00:00Z"
    assert entries[-1].findtext(f"{A}updated") == f"{many[20].date}T00:00:00Z"
