"""What a link to the site unfurls to: the Open Graph and Twitter card tags of every page and embed
page (title, one-sentence description, absolute URL, and a card image with its size and alt text),
and the oEmbed file of each embed page, which turns a pasted embed address into the live chart.

Every absolute URL is the site URL joined with a site-relative path, so the site URL in mkdocs.yml
decides them all. MkDocs-free: the plugin hands its pages' titles and descriptions in.

What a link unfurls to: each page's Open Graph and Twitter card tags (a scenario page its verdict
chart's 1200x630 card, which draws the scenario's verdict, whether it holds with what Trainium costs
against the GPU over the plan, and the site's name with its title above the chart, and its verdict
in one sentence, made when its page is written; a scenario page also names its chart's oEmbed file;
an embed page its own chart; other pages the site card) and each embed page's oEmbed file. Every
absolute URL is the site URL joined with a site-relative path.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import jinja2

from generator import TEMPLATES
from generator.model import formatting as fmt
from generator.model.wording import SITE_WORDS, VERDICT_LABELS, rule_label, site_say
from generator.rendering.charts.images import CARD_HEIGHT, CARD_WIDTH

SITE_CARD = "assets/site-card.png"  # the card of every page that has no chart of its own to show
OEMBED = "oembed.json"  # in each embed/<id>/ folder
# The iframe every embed snippet gives, and the size the oEmbed file states for it.
IFRAME_WIDTH = 640
# Around the chart the embed page puts its margins (8 px padding each side, 6 px above the caption, and
# the image draws some 5 px past the spec's height), and under it the caption: the frame is the chart's
# own height and those, so a frame at its natural width leaves no empty band. The caption is 13 px text
# at 1.4 lines; at the natural width a line holds some 88 characters of it (fewer than the 96 an
# average line takes, so a long word's break never adds one).
IFRAME_MARGINS = 28
CAPTION_LINE_PX = 19
CAPTION_LINE_CHARS = 88
# The links the embed page writes after the summary ("See it in the guide · Try your own numbers").
CAPTION_LINKS_CHARS = 44


def iframe_height(chart: Any) -> int:
    """The frame's height for a chart: its static image's height at the export width, and its caption
    in as many lines as its summary and links take at that width."""
    lines = -(-(len(chart.summary) + 1 + CAPTION_LINKS_CHARS) // CAPTION_LINE_CHARS)
    return int(chart.spec["height"]) + IFRAME_MARGINS + lines * CAPTION_LINE_PX


def environment(bytecode_cache: jinja2.BytecodeCache | None = None) -> jinja2.Environment:
    """Where `tags` finds its template. Made by whoever renders (the site's Renderer, which the plugin
    keeps for the build), not at module level: a build's templates and their compiled code belong to
    its cache (`compiled.Compiled`)."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, bytecode_cache=bytecode_cache)


@dataclass(frozen=True)
class Unfurl:
    """One page's card, its texts plain (escaped where they are written) and its paths site-relative."""

    title: str
    description: str
    path: str  # the page's URL, relative to the site's root
    image: str  # a CARD_WIDTH x CARD_HEIGHT PNG, relative to the site's root
    image_alt: str
    type: str = "article"
    oembed: str = ""  # the oEmbed file a pasted link to the page finds its chart by, relative to the site's root


class Cards(Mapping[str, Unfurl]):
    """Page path -> its card, each made when first asked for: a save under `mkdocs serve --dirty`
    writes one scenario's page again, not three thousand, and only a page written needs its card."""

    def __init__(self) -> None:
        self._make: dict[str, Callable[[], Unfurl]] = {}
        self._made: dict[str, Unfurl] = {}

    def add(self, path: str, make: Callable[[], Unfurl]) -> None:
        self._make[path] = make
        self._made.pop(path, None)

    def __getitem__(self, path: str) -> Unfurl:
        card = self._made.get(path)
        if card is None:
            card = self._made[path] = self._make[path]()
        return card

    def __iter__(self) -> Iterator[str]:
        return iter(self._make)

    def __len__(self) -> int:
        return len(self._make)


def tags(env: jinja2.Environment, u: Unfurl, site_url: str, site_name: str, *, image: bool = True) -> str:
    """The page's <meta> tags, for its <head> (env: from `environment`). No site URL, no absolute
    URL: no tags. image=False, for a build without static images: no card is named, and the
    Twitter card is a plain summary."""
    if not site_url:
        return ""
    return env.get_template("partials/unfurl.html.j2").render(
        u=u, url=urljoin(site_url, u.path), image=urljoin(site_url, u.image) if image else None, site_name=site_name,
        width=CARD_WIDTH, height=CARD_HEIGHT, oembed=urljoin(site_url, u.oembed) if u.oembed else None)


def page(title: str, description: str, path: str, *, homepage: bool) -> Unfurl:
    """A hand-written page's card: the site card. MkDocs' page titles and Material's descriptions are
    HTML as the theme prints them (entities and all), so they are read back to text first."""
    return Unfurl(html.unescape(title), html.unescape(description), path, SITE_CARD, site_card_alt(),
                  "website" if homepage else "article")


QUESTION = SITE_WORDS["question"]
# The home page's short answer (docs/index.md), as the site's card carries it.
ANSWER = SITE_WORDS["answer"]


def site_card_heading(site_name: str) -> tuple[str, ...]:
    return (site_name, QUESTION, ANSWER) if site_name else (QUESTION, ANSWER)


def site_card_alt() -> str:
    return site_say("site_card_alt", question=QUESTION, answer=ANSWER)


def card_heading(r: Any, holds: str = "", site_name: str = "") -> tuple[str, ...]:
    """What a scenario's card says above its chart, short enough to read at a feed's 500 px: the
    verdict with whether it holds (`holds`, the words its page's badge gives), what Trainium costs
    against the GPU over the plan, and the scenario's title after the site's name, so a card seen
    away from the site still says where it is from and how far to trust it."""
    td = r.total_difference
    cost = site_say("card_cost_hybrid" if r.verdict == "hybrid" else "card_cost", than=_than(td))
    title = f"{site_name} · {r.scenario.title}" if site_name else r.scenario.title
    said = site_say("card_holds", holds=holds[:1].upper() + holds[1:], cost=cost) if holds else cost
    return (site_say("card_verdict", label=VERDICT_LABELS[r.verdict]), said, title)


def chart_alt(chart: Any) -> str:
    return site_say("chart_alt", title=chart.title, summary=chart.summary)


def _money(x: float, what: str) -> str:
    """An amount a run or over the plan (`what`): what Trainium saves, or costs more where it is negative."""
    return site_say(what + "_more" if x < 0 else what, amount=fmt.money(abs(x)))


def _amounts(per_run: float, plan: float, save: str, cost: str) -> str:
    """What Trainium saves (or costs more) a run and over the plan, with the verbs given."""
    first, second = (SITE_WORDS[save if x >= 0 else cost] for x in (per_run, plan))
    joint = SITE_WORDS["and"] if first == second else site_say("but", verb=second)
    return site_say("amounts", first=first, per_run=_money(per_run, "a_run"), joint=joint, plan=_money(plan, "over_the_plan"))


def plan_saving(r: Any) -> str:
    """What Trainium costs against the GPU over the plan and a run, port included, in one sentence:
    the number a scenario's verdict box and its card lead with (for a hybrid, the workloads that go
    to Trainium)."""
    spr, td = r.saving_per_run, r.total_difference
    return site_say("plan_saving_hybrid" if r.verdict == "hybrid" else "plan_saving", total=_than(td), per_run=_than(spr))


def _than(saving: float) -> str:
    return site_say("less" if saving >= 0 else "more", amount=fmt.money(abs(saving)))


def verdict_sentence(r: Any) -> str:
    """The scenario's verdict in one sentence, with what Trainium saves a run and over the plan (for a
    hybrid, the workloads that go there), the rule that decided where it is not the cost, and the date
    of the newer price used."""
    as_of = fmt.date(max(w.prices_as_of for w in r.workloads))
    label = VERDICT_LABELS[r.verdict]
    spr, td = r.saving_per_run, r.total_difference
    if r.verdict == "hybrid":
        return site_say("verdict_sentence_hybrid", label=label, amounts=_amounts(spr, td, "saving", "costing"), as_of=as_of)
    if (r.verdict == "gpu") == (td > 0):
        # The cost points the other way: another rule decided.
        rules = [s.rule for w in r.workloads for s in w.outcome.trace if s.verdict == r.verdict]
        rule = site_say("on_rule", rule=rule_label(rules[0]).lower()) if rules else ""
        return site_say("verdict_sentence_other_rule", label=label, rule=rule, amounts=_amounts(spr, td, "save", "cost"), as_of=as_of)
    return site_say("verdict_sentence", label=label, amounts=_amounts(spr, td, "saving", "costing"), as_of=as_of)


def scenario(r: Any, page_path: str, chart: Any | None, chart_card: str | None, heading: tuple[str, ...] = ()) -> Unfurl:
    """A scenario page's card: its first chart, the verdict in a sentence; a link to the page pasted
    where oEmbed is read embeds that chart."""
    if chart is None:
        return Unfurl(r.scenario.title, verdict_sentence(r), page_path, SITE_CARD, site_card_alt())
    oembed = f"embed/{chart.id}/{OEMBED}"
    if chart_card is None:
        return Unfurl(r.scenario.title, verdict_sentence(r), page_path, SITE_CARD, site_card_alt(), oembed=oembed)
    alt = ". ".join(heading or card_heading(r)) + ". " + chart_alt(chart)
    return Unfurl(r.scenario.title, verdict_sentence(r), page_path, chart_card, alt, oembed=oembed)


def embed(chart: Any, folder: str, card: str) -> Unfurl:
    """An embed page's card: its own chart."""
    return Unfurl(chart.title, chart.summary, folder, folder + card, chart_alt(chart))


def iframe(src: str, title: str, width: str | int, height: int) -> str:
    """The iframe a blogger pastes, as text. A width in pixels is a most: the frame takes the column's
    width where that is narrower, so a blog read on a phone never scrolls sideways for it."""
    fit = "width:100%" if isinstance(width, str) else f"width:100%;max-width:{width}px"
    return (f'<iframe src="{html.escape(src)}" title="{html.escape(title)}" width="{width}" height="{height}" '
            f'style="border:0;{fit}" loading="lazy"></iframe>')


def oembed(chart: Any, folder: str, card: str, site_url: str, site_name: str, *, image: bool = True) -> str:
    """The embed page's oEmbed answer (a rich type: the iframe), as JSON text; with the card as its
    thumbnail unless image=False (a build without static images)."""
    answer = {
        "version": "1.0",
        "type": "rich",
        "title": chart.title,
        "provider_name": site_name,
        "provider_url": site_url,
        "html": iframe(urljoin(site_url, folder), chart.title, IFRAME_WIDTH, iframe_height(chart)),
        "width": IFRAME_WIDTH,
        "height": iframe_height(chart),
    }
    if image:
        answer |= {"thumbnail_url": urljoin(site_url, folder + card), "thumbnail_width": CARD_WIDTH, "thumbnail_height": CARD_HEIGHT}
    return json.dumps(answer, ensure_ascii=False, indent=1) + "\n"
