"""Page rendering: from evaluated scenarios and the catalog to Markdown pages and chart specs.

MkDocs-free on purpose: `generator.plugin` hands these pages to MkDocs as generated files,
and any other front end could take them as they are. Templates live in generator/templates/.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import html
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import jinja2
from markupsafe import Markup

from generator import TEMPLATES
from generator.inputs.freshness import Freshness
from generator.inputs.loader import Project
from generator.model import formatting as fmt
from generator.model import quoting as quoted_prices
from generator.model import wording
from generator.model import trn3
from generator.model.catalog import OPTION_LABELS, OPTIONS
from generator.model.wording import RANGE_LABELS
from generator.model.wording import ANSWER_LABELS, EXPERIENCE_LABELS, RULE_LABELS, VERDICT_LABELS, scenario_row, withdrawn
from generator.model.reference import Reference, reference
from generator.model.results import ScenarioResult, WorkloadResult, pin_sentence, present_workload
from generator.model.schema import json_schema
from generator.rendering.pages import catalog_tables
from generator.rendering.pages import changes
from generator.rendering.published import downloads
from generator.rendering.embeds import folders as embeds
from generator.rendering.published import llms as published
from generator.rendering.embeds import unfurl
from generator.rendering.charts import specs as ch
from generator.rendering.published.diff import DEFAULT_THRESHOLD
from generator.rendering.charts.images import CARD_HEIGHT, CARD_WIDTH, NARROW_WIDTH, PNG_SCALE, Images, Job
from generator.rendering.charts.js_engine import IN_PROCESS, JsEngine
from generator.rendering.pages.scenario_cache import Rendered, RenderedScenarios
from generator.store.cachefile import Cache
from generator.store.html_cache import scenario_page
from generator.store.template_cache import Compiled

CHARTS_JS = "assets/charts.js"  # the site's chart script, which embed pages load too
T = TypeVar("T")


def md(text: Any) -> Markup:
    """Make untrusted text inert in Markdown and HTML alike.

    Every ASCII character that is not a letter, digit or space becomes a numeric character
    reference, so no Markdown, math, attribute-list or HTML syntax can form from it.
    """
    s = "" if text is None else str(text)
    return Markup("".join(c if c.isalnum() or c == " " or ord(c) > 127 else f"&#{ord(c)};" for c in s.replace("\n", " ")))


def script_json(value: Any) -> Markup:
    """JSON that is safe inside <script type="application/json">: no '<', '>' or '&' survives."""
    text = value if isinstance(value, embeds.JSONText) else embeds.compact_json(value)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def source_pattern(keys: Iterable[str]) -> re.Pattern[str] | None:
    """Mentions of source keys in free text, as a contributor writes them: SEED-002, seed 002. Only
    keys with a number match in any case: a bare word such as VAN must match as written."""
    parts = []
    for k in sorted(keys, key=len, reverse=True):
        part = r"[-\s]?".join(re.escape(p) for p in re.split(r"[-\s]+", k))
        parts.append(f"(?i:{part})" if any(c.isdigit() for c in k) else part)
    return re.compile(r"(?<![\w-])(" + "|".join(parts) + r")(?![\w-])") if parts else None


_SURROGATE_PAIR = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


def front_matter(value: dict[str, str]) -> Markup:
    """A page's front matter as one line of JSON that MkDocs' YAML reader takes back whole. JSON
    writes a character beyond U+FFFF (an emoji) as two surrogate escapes, which YAML reads as two
    lone surrogates and refuses, and the page then shows the raw line as its heading; YAML's own
    eight-digit escape says the same character in ASCII."""

    def one(m: re.Match[str]) -> str:
        high, low = int(m[1], 16), int(m[2], 16)
        return f"\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08X}"

    return Markup(_SURROGATE_PAIR.sub(one, script_json(value)))


def linked_sources(text: str, pattern: re.Pattern[str] | None, keys: dict[str, str], root: str,
                   names: dict[str, str] | None = None) -> Markup:
    """Untrusted text made inert (md), with each mention of a source linked to its entry on the
    sources page; with `names` (by key), the link reads as the source's name and date instead of
    the key a contributor wrote ("seed 001"), which a stranger cannot decode."""
    out, last = [], 0
    for m in pattern.finditer(text) if pattern else ():
        key = keys[re.sub(r"[-\s]+", "", m[0]).lower()]
        shown = md(names[key]) if names and key in names else md(m[0])
        out += [md(text[last:m.start()]), Markup('<a href="{}sources/#{}">').format(root, key.lower()), shown, Markup("</a>")]
        last = m.end()
    out.append(md(text[last:]))
    return Markup("").join(out)


def sentence(text: str) -> str:
    """Free text closed as a sentence, so the next one does not run into it."""
    text = text.strip()
    return text if not text or text[-1] in ".!?:;" else text + "."


@dataclass
class Site:
    pages: dict[str, str] = field(default_factory=dict)  # docs-relative path -> Markdown
    sources: dict[str, str] = field(default_factory=dict)  # docs-relative path -> YAML it comes from
    embeds: list[embeds.ChartFiles] = field(default_factory=list)  # the text files of embed/<id>/, per chart
    unfurls: unfurl.Cards = field(default_factory=unfurl.Cards)  # docs-relative path -> its card, for pages with their own
    site_card: Job | None = None  # the image of every other page's card (unfurl.SITE_CARD)
    files: dict[str, str] = field(default_factory=dict)  # site path -> text: the data downloads and the Atom feed
    published: list[published.ScenarioTexts] = field(default_factory=list)  # what each scenario publishes, in order


class Renderer:
    def __init__(self, project: Project, site_url: str = "", today: dt.date | None = None, cache: Cache | None = None,
                 rendered: RenderedScenarios | None = None, images: Images | None = None, site_name: str = "",
                 static_images: bool = True, engine: JsEngine = IN_PROCESS):
        self.project = project
        self.engine = engine
        # Whether the build makes the charts' static images: without them, pages and embed files link
        # to none (the plugin's `images` option). Not `images is None`: a test renders without images
        # to render and still gets the pages a published build makes.
        self.static_images = static_images
        self.site_name = site_name
        self.rendered = rendered
        self.images = images  # handed each chart as it is registered, so its images start rendering
        self.catalog = project.catalog
        self.freshness = Freshness.of(self.catalog, today)
        self.site_url = site_url if not site_url or site_url.endswith("/") else site_url + "/"
        self.cache = cache
        self._vega: dict[str, str] = cache.memo("vega") if cache is not None else {}  # charts compiled, by shape
        self._source_keys = {re.sub(r"[-\s]+", "", k).lower(): k for k in self.catalog.sources}
        self._source_pattern = source_pattern(self.catalog.sources)
        # What a page, chart or embed calls each source: its name, never its key.
        self.source_names = {k: s.name for k, s in self.catalog.sources.items()}
        self._source_dated = {k: f"{s.name} ({fmt.date(s.as_of) if s.as_of else 'undated'})" for k, s in self.catalog.sources.items()}
        compiled = Compiled(cache) if cache is not None else None
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            bytecode_cache=compiled,
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self.unfurl_env = unfurl.environment(compiled)  # the cards' tags, of pages and embed pages alike
        self.env.filters.update(
            md=md, script_json=script_json, front_matter=front_matter, money=fmt.money, hourly=fmt.hourly, hourly_exact=fmt.hourly_exact, break_even=fmt.break_even,
            runs=fmt.runs, ratio=fmt.ratio, pct=fmt.pct, weeks=fmt.weeks, count=fmt.count, num=fmt.num, hours=fmt.hours,
            days=fmt.days, date=fmt.date, threshold=fmt.threshold, pixels=fmt.pixels, sentence=sentence,
            quoting=self.quoting, withdrawn=withdrawn,
        )
        self.env.globals.update(
            catalog=self.catalog,
            results=project.results,
            OPTION_LABELS=OPTION_LABELS,
            OPTIONS=OPTIONS,
            RULE_LABELS=RULE_LABELS,
            RANGE_LABELS=RANGE_LABELS,
            VERDICT_LABELS=VERDICT_LABELS,
            ANSWER_LABELS=ANSWER_LABELS,
            EXPERIENCE_LABELS=EXPERIENCE_LABELS,
            scenario_page=scenario_page,
            price_rows=functools.partial(catalog_tables.price_rows, self.catalog),
            figure_sources=functools.partial(catalog_tables.figure_sources, self.catalog),
            price_to_beat=self.price_to_beat,
            flips_on=self.flips_on,
            source_links=self.source_links,
            source_name=lambda key: self.source_names.get(key, key),
            headline=self.headline,
            counts=self.counts,
            scenario_row=self.scenario_row,
            index_row=self.index_row,
            column_text=ch.column_text,
            reference_case=self.reference_case,
            reference_shown=self.reference_shown,
            freshness=self.freshness,
            site_url=self.site_url,
            root_prefix=embeds.relative_root,
            page_url=embeds.page_url,
            embed_names=embeds.file_names,
            export_width=embeds.EXPORT_WIDTH,
            image_height=embeds.image_height,
            narrow_width=NARROW_WIDTH,
            narrow_media=embeds.NARROW_MEDIA,
            narrow_break=embeds.NARROW_BELOW,
            narrow_height=lambda c: embeds.narrow_height(c, self.site_url),
            png_scale=PNG_SCALE,
            iframe_width=unfurl.IFRAME_WIDTH,
            card_width=CARD_WIDTH,
            card_height=CARD_HEIGHT,
            static_images=static_images,
            iframe_snippet=self.iframe_snippet,
            image_snippet=self.image_snippet,
            plan_saving=unfurl.plan_saving,
            page_title=self.page_title,
        )
        # What names each chart this build drew: the charts themselves (their specs and rows) are let
        # go once their page and embed files are made; kept for every scenario, they were most of a
        # cold build's memory.
        self.charts: list[ch.ChartLabel] = []
        self._titles: dict[str, str] | None = None  # scenario page -> its title, for page_title
        self.embeds: list[embeds.ChartFiles] = []
        self.home: dict[str, ch.Chart] = {}
        self._rows: dict[str, dict[str, Any]] = {}  # scenario id -> what the scenarios index says of it, made with its page
        self._row_html: dict[str, str] = {}  # scenario id -> its row in the scenarios index, made with its page
        self._presets: dict[str, list[str]] = {}  # scenario id -> its calculator presets as JSON texts, made with its page
        self.published: list[published.ScenarioTexts] = []  # what each scenario publishes, made with its page
        # id of a WorkloadResult of this build -> its Trn3 price to beat, solved once or read with its page.
        self._beats: dict[int, tuple[trn3.PriceToBeat, ...]] = {}
        # id of a WorkloadResult of this build -> the inputs whose range flips its verdict, from its
        # robustness or read with its page (whose stored result never works its robustness out).
        self._flips: dict[int, tuple[str, ...]] = {}

    # Context helpers for templates and for the hand-written pages that opt into figures.
    def quoting(self, text: str) -> Markup:
        """A scenario's notes with every {price:INSTANCE/REGION/OPTION} the price data/ gives today,
        the rest escaped."""
        # join escapes each plain string it is handed
        return Markup("").join(part if isinstance(part, str) else Markup.escape(_quoted(part))
                               for part in quoted_prices.parts(text, self.catalog))

    def source_links(self, text: str, root: str) -> Markup:
        return linked_sources(text, self._source_pattern, self._source_keys, root, self._source_dated)

    @functools.cached_property
    def reference(self) -> Reference:
        """The reference workload evaluated; a save of a scenario under `mkdocs serve` finds it
        evaluated while data/ is the same."""
        return self._remembered("reference", self.project.data_key, lambda: reference(self.project.reference))

    def _remembered(self, name: str, key: Any, make: Callable[[], T]) -> T:
        """make(), or what the last build of this process made under the same key (`Cache.carry`).
        key: everything the value is made from but the code; a falsy key remembers nothing."""
        if self.cache is None or not key:
            return make()
        known = self.cache.memo(name).get(key)
        made = known if known is not None else make()
        self.cache.carry(name, {key: made})
        return made

    def headline(self) -> dict[str, Any]:
        return self.reference.headline

    def reference_case(self) -> dict[str, Any]:
        return self.reference.case()

    @functools.cached_property
    def _reference_shown(self) -> dict[str, Any]:
        return present_workload(self.reference.result.workloads[0], self.source_names, self.freshness)

    def reference_shown(self) -> dict[str, Any]:
        """What the present layer says of the reference workload: the home page's price marks and flip."""
        return self._reference_shown

    @functools.cached_property
    def calculator_chart(self) -> str:
        """The calculator's cost curve compiled to Vega: compiled as the site is rendered, while the
        engine runs (the calculator page reads it once MkDocs renders that page)."""
        return embeds.compile_vega(ch.calculator_template(), self.cache, self._vega, self.engine)

    @functools.cached_property
    def calculator_json(self) -> Markup:
        """What the calculator page bakes in; built once per build, not once per page."""
        from generator.rendering.calculator.data import calculator_data, data_json, workload_json
        from generator.rendering.calculator.fields import as_json as fields_json

        parts = {"data": calculator_data(self.catalog, self.freshness), "fields": fields_json(),
                 "reference": workload_json(self.project.reference.workload), "chart": json.loads(self.calculator_chart)}
        return script_json(embeds.JSONText(data_json(parts, [p for r in self.project.results for p in self.presets(r)])))

    def presets(self, r: ScenarioResult) -> list[str]:
        """The scenario's calculator presets (calculator.presets), made with its page."""
        from generator.rendering.calculator.data import presets

        made = self._presets.get(r.id)
        return made if made is not None else presets(r)

    @functools.cached_property
    def calculator_form(self) -> Markup:
        """The calculator's form, drawn from its field table."""
        from generator.rendering.calculator.fields import form_html

        return form_html(self.env)

    def counts(self) -> dict[str, int]:
        v = [r.verdict for r in self.project.results]
        return {k: v.count(k) for k in ("trainium", "gpu", "hybrid")} | {"all": len(v)}

    def scenario_row(self, r: ScenarioResult) -> dict[str, Any]:
        """What the scenarios index says about one scenario, in the words its page uses."""
        row = self._rows.get(r.id)
        return row if row is not None else scenario_row(r, [present_workload(w, self.source_names, self.freshness) for w in r.workloads])

    def index_row(self, r: ScenarioResult) -> Markup:
        """The scenario's row in the scenarios index, as HTML."""
        row = self._row_html.get(r.id)
        return Markup(row if row is not None else self._index_row(r, self.scenario_row(r)))

    def _index_row(self, r: ScenarioResult, row: dict[str, Any]) -> str:
        return self.env.get_template("partials/index_row.html.j2").render(r=r, row=row)

    def page_title(self, page: str) -> str:
        """The title of the page a chart lives on, as a link to it reads."""
        if scenario_page(page):
            titles = self._titles
            if titles is None:
                titles = self._titles = {f"scenarios/{r.id}.md": r.scenario.title for r in self.project.results}
            return titles.get(page, page)
        return HOST_PAGES.get(page, page)

    # Snippets a blogger pastes. Built as text here and escaped again where the page shows them.
    def iframe_snippet(self, c: ch.Chart) -> str:
        return unfurl.iframe(f"{self.site_url}embed/{c.id}/", c.title, "100%", unfurl.iframe_height(c))

    def image_snippet(self, c: ch.Chart) -> str:
        names = embeds.file_names(c.id)
        page = self.site_url + embeds.page_url(c.page)
        src = f"{self.site_url}embed/{c.id}/{names['svg']}"
        alt = f"{c.title}. {c.summary}"
        # Its natural width at most, and the column's where that is narrower: a blog read on a phone
        # never scrolls sideways for it. Where the chart has a narrow image, a phone's screen gets
        # that one, as the chart's own page gives it, so its text is not shrunk to a few pixels.
        img = (f'<img src="{html.escape(src)}" alt="{html.escape(alt)}" width="{embeds.EXPORT_WIDTH}" '
               f'height="{embeds.image_height(c)}" style="max-width:100%;height:auto">')
        narrow = embeds.narrow_height(c, self.site_url)
        if narrow:
            src = f"{self.site_url}embed/{c.id}/{names['svg-narrow']}"
            img = (f'<picture><source media="{embeds.NARROW_MEDIA}" srcset="{html.escape(src)}" width="{NARROW_WIDTH}" '
                   f'height="{narrow}">{img}</picture>')
        return f'<a href="{html.escape(page)}">{img}</a>'

    # Pages.
    def register(self, c: ch.Chart, page: str, card_heading: tuple[str, ...] = ()) -> ch.Chart:
        c = replace(c, page=page, vega=embeds.compile_vega(embeds.site_spec(c), self.cache, self._vega, self.engine))
        self.charts.append(ch.ChartLabel.of(c))
        self._add_embed(embeds.chart_files(c, self.env, self.site_url, self.cache, CHARTS_JS, self._vega,
                                           site_name=self.site_name, unfurl_env=self.unfurl_env, images=self.static_images,
                                           card_heading=card_heading, engine=self.engine))
        return c

    def _add_embed(self, files: embeds.ChartFiles) -> None:
        if self.cache is not None:
            embeds.store_at_once(self.cache, files)
        self.embeds.append(files)
        # Rendering starts now, while the pages are made; embeds.embed_files finds where the images are.
        if self.images is not None and embeds.carried(self.cache, files, images=True) is None:
            self.images.add(files.job)

    def chart_block(self, c: ch.Chart) -> Markup:
        return Markup(self.env.get_template("partials/chart.html.j2").render(c=c))

    def scenario_page(self, r: ScenarioResult) -> str:
        page = f"scenarios/{r.id}.md"
        shown = [present_workload(w, self.source_names, self.freshness) for w in r.workloads]
        # Each chart's card, what a link to the page or to the chart unfurls to, leads with the answer.
        row = self._rows[r.id] = scenario_row(r, shown)
        answer = unfurl.card_heading(r, row["words"], self.site_name)
        blocks = [self.chart_block(self.register(c, page, answer)) for c in ch.scenario_charts(r, shown)]
        self._row_html[r.id] = self._index_row(r, row)
        self._presets[r.id] = self.presets(r)
        return self.env.get_template("scenario.md.j2").render(r=r, blocks=blocks, named=[w.named_prices for w in r.workloads],
                                                              used=[p for w in r.workloads for _, p in w.used_prices],
                                                              shown=shown, row=row, pins=[pin_sentence(w) for w in r.workloads])

    def price_to_beat(self, w: WorkloadResult) -> tuple[trn3.PriceToBeat, ...]:
        beats = self._beats.get(id(w))
        if beats is None:
            beats = self._beats[id(w)] = trn3.price_to_beat(self.catalog, w)
        return beats

    def flips_on(self, w: WorkloadResult) -> tuple[str, ...]:
        flips = self._flips.get(id(w))
        return flips if flips is not None else w.robustness.flips_on

    def _cached_scenario_page(self, r: ScenarioResult) -> tuple[str, ch.ChartLabel | None]:
        """The scenario's page, and the label of its first chart (which its card shows)."""
        entry = self.rendered.entry(r) if self.rendered else None
        known = self.rendered.get(entry) if self.rendered and entry else None
        if known is not None:
            for files in known.files:
                self._add_embed(files)
            self._rows[r.id] = known.row
            self._row_html[r.id] = known.row_html
            self._presets[r.id] = known.presets
            self._beats.update({id(w): beats for w, beats in zip(r.workloads, known.beats, strict=True)})
            self._flips.update({id(w): flips for w, flips in zip(r.workloads, known.flips, strict=True)})
            self.published.append(known.published)
            return known.page, known.charts[0] if known.charts else None
        first, first_embed = len(self.charts), len(self.embeds)
        page = self.scenario_page(r)
        labels = self.charts[first:]
        files = published.scenario_texts(r, page, self.site_url, labels, self.freshness)
        if self.cache is not None:
            embeds.store_at_once(self.cache, files.files)
        self.published.append(files)
        if self.rendered and entry:
            self.rendered.put(entry, Rendered(page, labels, self.embeds[first_embed:], self._rows[r.id], self._row_html[r.id], self._presets[r.id],
                                              [self.price_to_beat(w) for w in r.workloads],
                                              [w.robustness.flips_on for w in r.workloads], files))
        return page, labels[0] if labels else None

    def render(self) -> Site:
        site = Site()
        for r in self.project.results:
            path = f"scenarios/{r.id}.md"
            site.pages[path], shown = self._cached_scenario_page(r)
            site.sources[path] = r.path
            card = f"embed/{shown.id}/{embeds.file_names(shown.id)['card']}" if shown else None
            heading = unfurl.card_heading(r, self.scenario_row(r)["words"], self.site_name)
            site.unfurls.add(path, functools.partial(unfurl.scenario, r, embeds.page_url(path), shown, card, heading))
        site.pages["scenarios/index.md"] = self.env.get_template("scenarios_index.md.j2").render()
        self.calculator_chart  # noqa: B018 (compiled now, see calculator_chart)
        pp_chart = self.register(ch.price_performance(self.catalog), "prices.md")
        pp = self.chart_block(pp_chart)
        site.pages["prices.md"] = self.env.get_template("prices.md.j2").render(pp_chart=pp, today=self.freshness.today)
        site.sources["prices.md"] = "data/prices.yaml"
        moves = changes.shown_moves(self.catalog, self.project.results)
        site.pages["changes.md"] = self.env.get_template("changes.md.j2").render(
            moves=moves, regions=changes.regions_moves(self.catalog), threshold=DEFAULT_THRESHOLD,
            feed_path=changes.FEED_PATH, CHANGE_WORDS=changes.CHANGE_WORDS, was_text=changes.was_text)
        site.files[changes.FEED_PATH] = changes.atom(moves, self.catalog, self.site_url)
        site.files.update(downloads.files(self.catalog))
        site.pages["sources.md"] = self.env.get_template("sources.md.j2").render()
        site.sources["sources.md"] = "data/sources.yaml"
        site.pages["reference/schema.md"] = self.schema_page()
        # Hand-written pages place these; they are registered here so their embeds exist.
        self.home = {name: self.register(c, page) for name, (page, c) in self.home_charts().items()}
        site_wide = {pp_chart.id, *(c.id for c in self.home.values())}
        site.pages["embed.md"] = self.env.get_template("embed_gallery.md.j2").render(
            site_wide=[f for f in self.embeds if f.chart_id in site_wide], scenarios=[f for f in self.embeds if f.chart_id not in site_wide])
        # The site's card draws the home page's decision map again, under the site's name and question.
        decision_map = self.home["decision_map"]
        if self.static_images:
            site.site_card = Job(embeds.compile_vega(embeds.export_spec(decision_map, self.site_url), self.cache, self._vega, self.engine),
                                 heading=unfurl.site_card_heading(self.site_name))
        # Their texts are the Site's to hand on: the renderer, which the hand-written pages use all
        # build long, no longer needs them once the gallery is made.
        site.embeds, self.embeds = self.embeds, []
        site.published, self.published = self.published, []
        return site

    def schema_page(self) -> str:
        """The schema's reference page, made from the code alone: once in a `mkdocs serve` process."""
        return self._remembered("schema page", "the code", lambda: self.env.get_template("schema.md.j2").render(schema=json_schema()))

    def home_charts(self) -> dict[str, tuple[str, ch.Chart]]:
        """Charts that hand-written pages place with {{ charts.NAME }}, with the page each lives on.
        They are drawn from data/ alone: a save of a scenario under `mkdocs serve` finds them drawn."""
        key = (self.project.data_key, self.freshness.today) if self.project.data_key else None
        return self._remembered("home charts", key, self._home_charts)

    def _home_charts(self) -> dict[str, tuple[str, ch.Chart]]:
        h = self.headline()
        x = self.reference.inputs
        maps = self.reference.maps
        as_of = max(h["trn"].as_of, h["gpu"].as_of)
        # The instances, ways of buying and architecture are the reference workload's (data/reference.yaml).
        title, port_title = wording.reference_map_titles(h["trn"], h["gpu"], OPTION_LABELS, x.gpu_hours)
        trn_src = self.catalog.sources[h["trn"].source]
        architecture = self.reference.result.workloads[0].workload.architecture
        source = wording.reference_source(trn_src.name, h["trn"].as_of, architecture, x.port_weeks.value, x.engineer_week_usd)
        ref = self.reference.result
        charts = {
            "decision_map": ("index.md", ch.decision_map(maps["relative_throughput"], x, "decision-map", title, source, as_of)),
            "port_map": ("axes/porting.md", ch.decision_map(maps["port_weeks"], x, "decision-map-porting", port_title, source, as_of)),
            "breakdown": ("methodology.md", replace(ch.run_breakdown(ref, 0, self.source_names), id="reference-breakdown")),
        }
        sensitivity = ch.sensitivity(ref, 0, self.source_names)
        if sensitivity is not None:
            charts["sensitivity"] = ("methodology.md", replace(sensitivity, id="reference-sensitivity"))
        return charts


def _quoted(p: Any) -> str:
    text = fmt.hourly_exact(p.usd_per_hour)
    if p.vanished is not None:
        text += f" ({withdrawn(p.vanished)})"
    return text


# The hand-written pages that show a chart (home_charts, and the prices page), by their titles in
# mkdocs.yml's nav: how the embed gallery's link back to each reads (tests/test_last_mile.py holds
# them to the built pages' own titles).
HOST_PAGES = {"index.md": "Home", "prices.md": "Prices and hardware", "methodology.md": "Methodology",
              "axes/porting.md": "Porting effort"}


class _Slots:
    """`{{ charts.NAME }}` on a hand-written page: a chart block, rendered only when used."""

    def __init__(self, renderer: Renderer):
        self._renderer = renderer

    def __getattr__(self, name: str) -> Markup:
        try:
            return self._renderer.chart_block(self._renderer.home[name])
        except KeyError:
            raise AttributeError(name) from None


def render_markdown_page(renderer: Renderer, markdown: str, charts: Any = None) -> str:
    """Render a hand-written page that opted into figures (front matter `figures: true`). charts:
    what `{{ charts.NAME }}` reads, the chart blocks by default. The calculator's data and form are
    made only for a page that places them."""
    baked = {name: getattr(renderer, name) for name in ("calculator_json", "calculator_form") if name in markdown}
    return _page_template(renderer.env, markdown).render(
        charts=charts if charts is not None else _Slots(renderer), headline=renderer.headline(), **baked,
    )


def _page_template(env: jinja2.Environment, markdown: str) -> jinja2.Template:
    """A hand-written page as a template, compiled through the environment's bytecode cache, as the
    templates in files are: `from_string` would compile the same pages again in every build (a twentieth
    of a warm build at a thousand scenarios). Named by its text, so an edited page is compiled afresh."""
    name = "page-" + hashlib.sha256(markdown.encode("utf-8")).hexdigest()[:32]
    return jinja2.DictLoader({name: markdown}).load(env, name, env.make_globals(None))
