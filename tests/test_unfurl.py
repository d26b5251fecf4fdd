"""Links that unfurl: every built page carries Open Graph and Twitter card tags whose image is a file
of the site at the size they state, every embed page links an oEmbed file that hands over its
iframe, contributed titles stay escaped in all of them, and the site URL in mkdocs.yml decides every
absolute URL. Built from the frozen project's first two scenarios plus one frozen scenario whose
title carries quotes, a script tag and an emoji (tests/fixtures/unfurl/)."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_support import REPO, BuiltSite, build_copy, copy_project

from generator.model import formatting as fmt
from generator.rendering.embeds import unfurl
from generator.rendering.charts.images import png_size
from generator.model.wording import VERDICT_LABELS

FIXTURE = REPO / "tests" / "fixtures" / "unfurl" / "zz-quoted-title.yaml"
HOSTILE_ID = "zz-quoted-title"
HOSTILE_TITLE = "Team \"Q\" said <script>alert(1)</script> & it's shipped \U0001F680"
SITE_URL = "https://trainium-or-gpu.github.io/guide/"
OTHER_URL = "https://unfurl.example.net/guide/"
REQUIRED = ("og:title", "og:description", "og:url", "og:type", "og:site_name", "og:image", "og:image:width",
            "og:image:height", "og:image:alt", "twitter:card")


class _Head(HTMLParser):
    """The <meta> tags (property or name -> every content given) and <link> tags of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, list[str]] = {}
        self.links: list[dict[str, str]] = []

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta.setdefault(a.get("property") or a["name"], []).append(a.get("content", ""))
        elif tag == "link":
            self.links.append(a)


def head(page: Path) -> _Head:
    parser = _Head()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def tags(page: Path) -> dict[str, str]:
    """Each required tag's one value; fails where one is missing or given twice."""
    meta = head(page).meta
    for name in REQUIRED:
        assert len(meta.get(name, [])) == 1, f"{page}: {name} given {len(meta.get(name, []))} times"
    return {name: values[0] for name, values in meta.items()}


def pages(site: Path) -> list[Path]:
    """Every page of the site: MkDocs' pages and the embed pages (not the 404 page, which no link names)."""
    found = sorted(p for p in site.rglob("index.html"))
    assert len(found) > 20
    return found


def page_url(site: Path, page: Path, site_url: str) -> str:
    rel = page.parent.relative_to(site).as_posix()
    return site_url if rel == "." else f"{site_url}{rel}/"


def in_site(site: Path, url: str, site_url: str) -> Path:
    assert url.startswith(site_url), url
    return site / url[len(site_url):]


@dataclass(frozen=True)
class Sites:
    first: BuiltSite
    other: BuiltSite  # the same project built with OTHER_URL as its site_url


@pytest.fixture(scope="session")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Sites:
    root = copy_project(tmp_path_factory.mktemp("unfurl") / "project")
    for extra in sorted((root / "scenarios").glob("*.yaml"))[2:]:
        extra.unlink()
    shutil.copy(FIXTURE, root / "scenarios" / FIXTURE.name)
    first = build_copy(root)
    (root / "mkdocs.other.yml").write_text(f"INHERIT: mkdocs.yml\nsite_url: {OTHER_URL}\n", encoding="utf-8")
    moved = root.parent / "project-built"
    shutil.move(root / "site-out", moved)
    other = build_copy(root, "mkdocs.other.yml")
    return Sites(BuiltSite(root, moved, first.output, first.before, first.after), other)


def test_every_page_carries_the_tags_with_absolute_urls(sites: Sites):
    site = sites.first.site
    for page in pages(site):
        t = tags(page)
        assert t["twitter:card"] == "summary_large_image"
        assert t["og:site_name"] == "Trainium or GPU?"
        assert t["og:url"] == page_url(site, page, SITE_URL)
        assert t["og:type"] == ("website" if page.parent == site else "article")
        assert t["og:image"].startswith(SITE_URL) and t["og:image"].endswith(".png")
        assert t["og:title"].strip() and t["og:description"].strip() and t["og:image:alt"].strip()


def test_every_card_is_a_file_of_the_site_at_the_size_stated(sites: Sites):
    site = sites.first.site
    cards = set()
    for page in pages(site):
        t = tags(page)
        card = in_site(site, t["og:image"], SITE_URL)
        assert card.is_file(), f"{page}: {t['og:image']} is not in the site"
        assert png_size(card.read_bytes()) == (int(t["og:image:width"]), int(t["og:image:height"])) == (1200, 630)
        cards.add(card)
    # The site card for hand-written pages, and one card a chart.
    assert site / "assets" / "site-card.png" in cards
    assert len(cards) > 5


def test_hand_written_pages_show_the_site_card_and_their_own_description(sites: Sites):
    site = sites.first.site
    t = tags(site / "faq" / "index.html")
    assert t["og:image"] == SITE_URL + "assets/site-card.png"
    assert t["og:description"].startswith("Questions CTOs and FinOps leads ask")
    assert t["og:title"] == "FAQ"
    assert tags(site / "index.html")["og:title"] == "Trainium or GPU?"


def test_a_scenario_page_shows_its_verdict_chart_and_sentence(sites: Sites, project_of_sites):
    site = sites.first.site
    for r in project_of_sites.results:
        t = tags(site / "scenarios" / r.id / "index.html")
        chart = f"{r.id}-1-cumulative"
        assert t["og:image"] == f"{SITE_URL}embed/{chart}/{chart}-card.png"
        assert t["og:title"] == r.scenario.title
        d = t["og:description"]
        assert d.startswith(f"Verdict: {VERDICT_LABELS[r.verdict]}")
        assert fmt.money(abs(r.saving_per_run)) + " " in d and "a run" in d
        assert fmt.money(abs(r.total_difference)) in d and "over the plan" in d
        assert d.endswith(f"at prices as of {max(w.prices_as_of for w in r.workloads).isoformat()}.")
        assert ". " not in d  # one sentence
        # The card leads with the answer it draws above the chart (unfurl.card_heading), then the chart.
        assert t["og:image:alt"].startswith(f"Verdict: {VERDICT_LABELS[r.verdict]}. ")
        assert f"{r.scenario.title}. Cumulative cost" in t["og:image:alt"]


@pytest.fixture(scope="session")
def project_of_sites(sites: Sites):
    from generator.inputs.loader import load_project

    return load_project(sites.first.root)


def test_every_embed_page_links_an_oembed_file_that_hands_over_its_iframe(sites: Sites):
    site = sites.first.site
    embed_pages = sorted((site / "embed").glob("*/index.html"))
    assert len(embed_pages) >= 8
    for page in embed_pages:
        url = page_url(site, page, SITE_URL)
        t = tags(page)
        chart = page.parent.name
        assert t["og:url"] == url
        assert t["og:image"] == f"{url}{chart}-card.png"  # its own chart
        found = [link for link in head(page).links if link.get("rel") == "alternate" and link.get("type") == "application/json+oembed"]
        assert len(found) == 1, page
        assert found[0]["href"] == url + "oembed.json"
        o = json.loads(in_site(site, found[0]["href"], SITE_URL).read_text(encoding="utf-8"))
        assert o["version"] == "1.0" and o["type"] == "rich"
        assert o["title"] == t["og:title"] == found[0]["title"]
        assert o["provider_name"] == "Trainium or GPU?" and o["provider_url"] == SITE_URL
        iframe = _Iframe.of(o["html"])
        assert iframe["src"] == url
        assert (int(iframe["width"]), int(iframe["height"])) == (o["width"], o["height"])
        thumbnail = in_site(site, o["thumbnail_url"], SITE_URL)
        assert png_size(thumbnail.read_bytes()) == (o["thumbnail_width"], o["thumbnail_height"])


class _Iframe(HTMLParser):
    @classmethod
    def of(cls, text: str) -> dict[str, str]:
        p = cls()
        p.feed(text)
        assert len(p.found) == 1 and p.rest == [], text
        return p.found[0]

    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str]] = []
        self.rest: list[str] = []

    def handle_starttag(self, tag, attrs):
        (self.found if tag == "iframe" else self.rest).append(dict(attrs) if tag == "iframe" else tag)


def test_the_embed_gallery_documents_oembed_beside_the_iframe_snippet(sites: Sites):
    text = (sites.first.site / "embed" / "index.html").read_text(encoding="utf-8")
    for section in re.findall(r'<section class="guide-gallery".*?</section>', text, re.S):
        chart = re.search(r'data-embed="([^"]+)"', section)[1]
        snippet = section.index("As a live chart, in an iframe")
        oembed = section.index(f'<p class="guide-meta" data-oembed="{chart}">')
        assert snippet < oembed
        assert f"<code>{SITE_URL}embed/{chart}/</code>" in section
        assert f'href="../embed/{chart}/oembed.json"' in section
    assert "oembed.json" in text.split('<section class="guide-gallery"')[0]  # and in the page's introduction


def test_a_hostile_title_stays_escaped_in_the_tags_and_the_oembed_file(sites: Sites):
    site = sites.first.site
    page = site / "scenarios" / HOSTILE_ID / "index.html"
    embed = site / "embed" / f"{HOSTILE_ID}-1-cumulative" / "index.html"
    assert tags(page)["og:title"] == HOSTILE_TITLE  # read back whole: quotes, tag and emoji
    for path in (page, embed):
        text = path.read_text(encoding="utf-8")
        assert "<script>alert(1)" not in text
        metas = re.findall(r"<meta property=\"og:[^>]*>", text)
        assert metas
        for tag in metas:
            # One attribute value each: no quote ends one early, no tag opens inside.
            assert re.fullmatch(r'<meta property="[a-z:_]+" content="[^"<>]*">', tag), tag
    own = [t for t in re.findall(r"<meta property=\"og:title\"[^>]*>", page.read_text(encoding="utf-8"))]
    assert own == ['<meta property="og:title" content="Team &#34;Q&#34; said &lt;script&gt;alert(1)&lt;/script&gt; '
                   '&amp; it&#39;s shipped \U0001F680">']
    # The embed page's title is its chart's, which carries the hostile workload name or scenario title.
    chart = json.loads((embed.parent / f"{embed.parent.name}.vl.json").read_text(encoding="utf-8"))["title"]["text"]
    chart = " ".join(chart) if isinstance(chart, list) else chart  # a long title is wrapped into lines
    assert "<script>alert(" in chart and '"Q"' in chart and "\U0001F680" in chart
    assert tags(embed)["og:title"] == chart
    o = json.loads((embed.parent / "oembed.json").read_text(encoding="utf-8"))
    assert o["title"] == chart
    assert "<script>" not in o["html"]
    assert _Iframe.of(o["html"])["title"] == o["title"]


def _texts(site: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(site.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            out[p.relative_to(site).as_posix()] = gzip.decompress(data) if p.suffix == ".gz" else data
    return out


def test_another_site_url_changes_every_absolute_url_and_nothing_else(sites: Sites):
    first, other = _texts(sites.first.site), _texts(sites.other.site)
    assert first.keys() == other.keys()
    old, new = SITE_URL.encode(), OTHER_URL.encode()
    images = 0
    for path, data in first.items():
        if path.endswith(".png"):
            images += data != other[path]  # the charts print their page's address; the PNG differs with it
            continue
        assert data.replace(old, new) == other[path], path
        assert b"trainium-or-gpu.github.io" not in other[path], path
    assert images > 0
    # And the tags follow: every page's card is on the other site.
    for page in pages(sites.other.site):
        t = tags(page)
        assert t["og:url"].startswith(OTHER_URL) and t["og:image"].startswith(OTHER_URL)


@pytest.mark.parametrize(("scenario", "sentence"), [
    ("mainstream-pretraining", "Verdict: Trainium, with Trainium saving $185,661 a run and $727,645 over the plan, "
                               "porting included, at prices as of 2026-01-21."),
    ("case-series-a-startup", "Verdict: Hybrid, with the workloads that go to Trainium saving $10,613 a run and $115,352 "
                              "over the plan, porting included, at prices as of 2026-01-21."),
    ("one-off-run", "Verdict: GPU, with Trainium saving $5,784 a run but costing $12,216 more over the plan, porting "
                    "included, at prices as of 2026-01-21."),
    ("spot-job-on-64-instances", "Verdict: GPU, with Trainium costing $51,935 more a run and $537,347 more over the plan, "
                                 "porting included, at prices as of 2025-11-30."),
    # Where the cost points the other way, the sentence names the rule that decided (as the page labels it).
    ("data-residency-london", "Verdict: GPU on {rule}, although Trainium would save $31,819 a run and $745,648 "
                              "over the plan, porting included, at prices as of 2026-01-21."),
])
def test_the_verdict_in_one_sentence(frozen_project, scenario: str, sentence: str):
    from generator.model.wording import rule_label
    from generator.rendering.embeds.unfurl import verdict_sentence

    r = next(r for r in frozen_project.results if r.id == scenario)
    decided = [s.rule for s in r.workloads[0].outcome.trace if s.verdict is not None]
    assert verdict_sentence(r) == sentence.format(rule=rule_label(decided[0]).lower())


@pytest.fixture(scope="module")
def frozen_project():
    from core_support import FROZEN

    from generator.inputs.loader import load_project

    return load_project(FROZEN)


def test_a_scenario_card_is_made_when_its_page_asks_for_it_and_once():
    made: list[str] = []

    def card(title: str):
        return lambda: made.append(title) or unfurl.Unfurl(title, "d", "p/", "i.png", "alt")

    cards = unfurl.Cards()
    cards.add("scenarios/a.md", card("A"))
    cards.add("scenarios/b.md", card("B"))
    assert made == [] and sorted(cards) == ["scenarios/a.md", "scenarios/b.md"] and len(cards) == 2
    assert cards["scenarios/b.md"].title == cards["scenarios/b.md"].title == "B"
    assert made == ["B"] and cards.get("scenarios/c.md") is None
    cards.add("scenarios/b.md", card("B2"))  # made again for what the page now is
    assert cards["scenarios/b.md"].title == "B2"
