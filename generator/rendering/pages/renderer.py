"""Page rendering: from evaluated scenarios and the catalog to Markdown pages and chart specs.

MkDocs-free on purpose: `generator.plugin` hands these pages to MkDocs as generated files,
and any other front end could take them as they are. Templates live in generator/templates/.

Markdown pages from the Jinja templates in `generator/templates/`; escapes every contributed string.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from markupsafe import Markup

from generator.inputs.freshness import Freshness
from generator.inputs.loader import Project
from generator.model import formatting as fmt
from generator.model import quoting as quoted_prices
from generator.model import trn3
from generator.model.wording import scenario_row, withdrawn
from generator.model.reference import Reference, reference
from generator.model.results import ScenarioResult, WorkloadResult, pin_sentence, present_workload
from generator.model.schema import json_schema
from generator.rendering.pages import catalog_tables, hand_written
from generator.rendering.pages.environment import environment
from generator.rendering.pages.escaping import linked_sources, script_json, source_pattern
from generator.rendering.embeds import snippets
from generator.rendering.pages import changes
from generator.rendering.published import downloads
from generator.rendering.embeds import folders as embeds
from generator.rendering.published import llms as published
from generator.rendering.embeds import unfurl
from generator.rendering.charts import specs as ch
from generator.rendering.published.diff import DEFAULT_THRESHOLD
from generator.rendering.charts.images import Images, Job
from generator.rendering.charts.js_engine import IN_PROCESS, JsEngine
from generator.rendering.pages.scenario_cache import Rendered, RenderedScenarios
from generator.store.cachefile import Cache
from generator.store.html_cache import scenario_page
from generator.store.template_cache import Compiled

CHARTS_JS = "assets/charts.js"  # the site's chart script, which embed pages load too
T = TypeVar("T")


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
        self.env = environment(compiled)
        self.unfurl_env = unfurl.environment(compiled)  # the cards' tags, of pages and embed pages alike
        # What templates read of this build: its project, its site and what it has rendered so far.
        self.env.filters.update(quoting=self.quoting)
        self.env.globals.update(
            catalog=self.catalog,
            results=project.results,
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
            reference_case=self.reference_case,
            reference_shown=self.reference_shown,
            freshness=self.freshness,
            site_url=self.site_url,
            narrow_height=lambda c: embeds.narrow_height(c, self.site_url),
            static_images=static_images,
            iframe_snippet=functools.partial(snippets.iframe_snippet, self.site_url),
            image_snippet=functools.partial(snippets.image_snippet, self.site_url),
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
        return hand_written.HOST_PAGES.get(page, page)

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
        return hand_written.reference_charts(self)


def _quoted(p: Any) -> str:
    text = fmt.hourly_exact(p.usd_per_hour)
    if p.vanished is not None:
        text += f" ({withdrawn(p.vanished)})"
    return text
