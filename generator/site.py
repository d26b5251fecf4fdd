"""Page rendering: from evaluated scenarios and the catalog to Markdown pages and chart specs.

MkDocs-free on purpose: `generator.mkdocs_hooks` hands these pages to MkDocs as generated files,
and any other front end could take them as they are. Templates live in generator/templates/.
"""

from __future__ import annotations

import datetime as dt
import functools
import html
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from generator import charts as ch
from generator import embeds
from generator.catalog import OPTION_LABELS, OPTIONS, Figure, Price
from generator.engine import RANGE_LABELS
from generator.formatting import usd
from generator.freshness import Freshness
from generator.loader import Project
from generator.rendered import Rendered, RenderedScenarios
from generator.results import ScenarioResult, WorkloadResult
from generator.schema import Workload, json_schema

TEMPLATES = Path(__file__).parent / "templates"
CHARTS_JS = "assets/charts.js"  # the site's chart script, which embed pages load too
RULE_LABELS = {
    "hard-constraint": "Hard constraints",
    "availability": "Availability",
    "cost": "Cost over the plan",
    "deadline": "Deadline",
    "capacity": "Capacity and urgency",
}
VERDICT_LABELS = {"trainium": "Trainium", "gpu": "GPU", "hybrid": "Hybrid"}


def md(text: Any) -> Markup:
    """Make untrusted text inert in Markdown and HTML alike.

    Every ASCII character that is not a letter, digit or space becomes a numeric character
    reference, so no Markdown, math, attribute-list or HTML syntax can form from it.
    """
    s = "" if text is None else str(text)
    return Markup("".join(c if c.isalnum() or c == " " or ord(c) > 127 else f"&#{ord(c)};" for c in s.replace("\n", " ")))


def script_json(value: Any) -> Markup:
    """JSON that is safe inside <script type="application/json">: no '<', '>' or '&' survives."""
    text = value if isinstance(value, embeds.JSONText) else json.dumps(value, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def num(x: float | None, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "none"
    return f"{x:,.{digits}f}"


def pct(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "none"
    return f"{x * 100:.{digits}f} %"


def runs(x: float | None) -> str:
    if x is None:
        return "none"
    return "under 0.1" if x < 0.1 else f"{x:,.1f}"


def hours(h: float) -> str:
    if h >= 48:
        return f"{h / 24:,.1f} days"
    return f"{h:,.1f} hours"


@dataclass
class Site:
    pages: dict[str, str] = field(default_factory=dict)  # docs-relative path -> Markdown
    sources: dict[str, str] = field(default_factory=dict)  # docs-relative path -> YAML it comes from
    charts: list[ch.Chart] = field(default_factory=list)
    embeds: list[embeds.ChartFiles] = field(default_factory=list)  # the text files of embed/<id>/, per chart


class Renderer:
    def __init__(self, project: Project, site_url: str = "", today: dt.date | None = None, cache_dir: Path | None = None,
                 rendered: RenderedScenarios | None = None, images: embeds.Images | None = None):
        self.project = project
        self.rendered = rendered
        self.images = images  # handed each chart as it is registered, so its images start rendering
        self.catalog = project.catalog
        self.freshness = Freshness.of(self.catalog, today)
        self.site_url = site_url if not site_url or site_url.endswith("/") else site_url + "/"
        self.cache_dir = cache_dir
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self.env.filters.update(md=md, usd=usd, num=num, pct=pct, hours=hours, runs=runs, script_json=script_json)
        self.env.globals.update(
            catalog=self.catalog,
            results=project.results,
            OPTION_LABELS=OPTION_LABELS,
            OPTIONS=OPTIONS,
            RULE_LABELS=RULE_LABELS,
            RANGE_LABELS=RANGE_LABELS,
            VERDICT_LABELS=VERDICT_LABELS,
            price=self.catalog.price,
            price_rows=self.price_rows,
            figure_sources=self.figure_sources,
            headline=self.headline,
            counts=self.counts,
            reference_case=self.reference_case,
            freshness=self.freshness,
            site_url=self.site_url,
            root_prefix=embeds.relative_root,
            page_url=embeds.page_url,
            embed_names=embeds.file_names,
            export_width=embeds.EXPORT_WIDTH,
            png_scale=embeds.PNG_SCALE,
            iframe_snippet=self.iframe_snippet,
            image_snippet=self.image_snippet,
        )
        self.charts: list[ch.Chart] = []
        self.embeds: list[embeds.ChartFiles] = []
        self.home: dict[str, ch.Chart] = {}

    # Context helpers for templates and for the hand-written pages that opt into figures.
    def price_rows(self) -> list[dict[str, Any]]:
        rows = []
        for iid, inst in self.catalog.instances.items():
            chip = self.catalog.chips[inst.chip]
            pflops = inst.chips.value * chip.bf16_tflops.value / 1000
            prices = [p for p in self.catalog.prices if p.instance == iid]
            on_demand = sorted((p for p in prices if p.option == "on-demand"), key=lambda p: (p.region != "us-east-1", p.region))
            home = on_demand[0] if on_demand else None
            rows.append({"id": iid, "inst": inst, "chip": chip, "pflops": pflops, "prices": prices, "on_demand": home})
        return rows

    def figure_sources(self) -> dict[str, list[str]]:
        """Which figures each source backs, for the sources page."""
        backs: dict[str, list[str]] = {k: [] for k in self.catalog.sources}

        def add(key: str, what: str) -> None:
            backs.setdefault(key, []).append(what)

        for cid, chip in self.catalog.chips.items():
            for name in ("bf16_tflops", "fp8_tflops", "memory_gib", "memory_bandwidth_tbps"):
                fig: Figure | None = getattr(chip, name)
                if fig is not None:
                    add(fig.source, f"{chip.name}: {name.replace('_', ' ')}")
        for iid, inst in self.catalog.instances.items():
            for name in ("chips", "accelerator_memory", "vcpu", "ram_gib", "network_gbps"):
                fig = getattr(inst, name)
                add(fig.source, f"{iid}: {name.replace('_', ' ')}")
                for alt in fig.alternatives:
                    add(alt.source, f"{iid}: {name.replace('_', ' ')} (alternative figure)")
        for p in self.catalog.prices:
            add(p.source, f"{p.instance} {p.region} {OPTION_LABELS[p.option]} price")
            for alt in p.alternatives:
                add(alt.source, f"{p.instance} {p.region} {OPTION_LABELS[p.option]} price (alternative figure)")
        a = self.catalog.assumptions
        add(a.engineer_week_usd.source, "cost of an engineer-week")
        for name, pc in a.porting_classes.items():
            add(pc.weeks.source, f"porting effort, {pc.label.lower()} class")
        for name, c in a.constraints.items():
            add(c.source, f"constraint: {c.label.lower()}")
        for name in ("spot_interruptions_per_instance_hour", "spot_hours_lost_per_interruption", "port_engineers",
                     "close_call_margin", "soon_days"):
            add(getattr(a, name).source, name.replace("_", " "))
        return backs

    @functools.cached_property
    def calculator_json(self) -> Markup:
        """What the calculator page bakes in; built once per build, not once per page."""
        from generator.calculator import calculator_data, presets

        chart = json.loads(embeds.compile_vega(ch.calculator_template(), self.cache_dir))
        return script_json({"data": calculator_data(self.catalog), "presets": presets(self.project.results), "chart": chart})

    def counts(self) -> dict[str, int]:
        v = [r.verdict for r in self.project.results]
        return {k: v.count(k) for k in ("trainium", "gpu", "hybrid")} | {"all": len(v)}

    def headline(self) -> dict[str, Any]:
        """The reference comparison the home page and the axes pages quote."""
        trn = self.catalog.price("trn2.48xlarge", "us-east-2", "on-demand")
        gpu = self.catalog.price("p5.48xlarge", "us-east-1", "on-demand")
        assert trn is not None and gpu is not None
        return {"trn": trn, "gpu": gpu, "ratio": trn.point / gpu.point, "ratio_high": (trn.high or trn.point) / gpu.point}

    # Snippets a blogger pastes. Built as text here and escaped again where the page shows them.
    def iframe_snippet(self, c: ch.Chart) -> str:
        url = f"{self.site_url}embed/{c.id}/"
        return (f'<iframe src="{html.escape(url)}" title="{html.escape(c.title)}" width="100%" height="460" '
                f'style="border:0" loading="lazy"></iframe>')

    def image_snippet(self, c: ch.Chart) -> str:
        names = embeds.file_names(c.id)
        page = self.site_url + embeds.page_url(c.page)
        src = f"{self.site_url}embed/{c.id}/{names['svg']}"
        alt = f"{c.title}. {c.summary}"
        return (f'<a href="{html.escape(page)}"><img src="{html.escape(src)}" alt="{html.escape(alt)}" '
                f'width="{embeds.EXPORT_WIDTH}"></a>')

    # Pages.
    def register(self, c: ch.Chart, page: str) -> ch.Chart:
        c = replace(c, page=page, vega=embeds.compile_vega(embeds.site_spec(c), self.cache_dir))
        self.charts.append(c)
        self._add_embed(embeds.chart_files(c, self.env, self.site_url, self.cache_dir, CHARTS_JS))
        return c

    def _add_embed(self, files: embeds.ChartFiles) -> None:
        self.embeds.append(files)
        if self.images is not None:
            self.images.add(files.job)

    def chart_block(self, c: ch.Chart) -> Markup:
        return Markup(self.env.get_template("partials/chart.html.j2").render(c=c))

    def scenario_page(self, r: ScenarioResult) -> str:
        page = f"scenarios/{r.id}.md"
        blocks = [self.chart_block(self.register(c, page)) for c in ch.scenario_charts(r, self.catalog)]
        return self.env.get_template("scenario.md.j2").render(r=r, blocks=blocks, prices=self._workload_prices(r))

    def _workload_prices(self, r: ScenarioResult) -> list[dict[str, Price]]:
        out = []
        for w in r.workloads:
            entry = {}
            for side in ("trainium", "gpu"):
                c = getattr(w.workload, side)
                p = self.catalog.price(c.instance, c.region, c.option)
                assert p is not None
                entry[side] = p
            out.append(entry)
        return out

    def _cached_scenario_page(self, r: ScenarioResult) -> str:
        entry = self.rendered.entry(r) if self.rendered else None
        known = self.rendered.get(entry) if self.rendered and entry else None
        if known is not None:
            self.charts.extend(known.charts)
            for files in known.files:
                self._add_embed(files)
            return known.page
        first = len(self.charts)
        page = self.scenario_page(r)
        if self.rendered and entry:
            self.rendered.put(entry, Rendered(page, self.charts[first:], self.embeds[first:]))
        return page

    def render(self) -> Site:
        site = Site()
        for r in self.project.results:
            site.pages[f"scenarios/{r.id}.md"] = self._cached_scenario_page(r)
            site.sources[f"scenarios/{r.id}.md"] = r.path
        site.pages["scenarios/index.md"] = self.env.get_template("scenarios_index.md.j2").render()
        pp = self.chart_block(self.register(ch.price_performance(self.catalog), "prices.md"))
        site.pages["prices.md"] = self.env.get_template("prices.md.j2").render(pp_chart=pp, today=self.freshness.today)
        site.sources["prices.md"] = "data/prices.yaml"
        site.pages["sources.md"] = self.env.get_template("sources.md.j2").render()
        site.sources["sources.md"] = "data/sources.yaml"
        site.pages["reference/schema.md"] = self.env.get_template("schema.md.j2").render(schema=json_schema())
        # Hand-written pages place these; they are registered here so their embeds exist.
        self.home = {name: self.register(c, page) for name, (page, c) in self.home_charts().items()}
        site.pages["embed.md"] = self.env.get_template("embed_gallery.md.j2").render(charts=self.charts)
        site.charts = self.charts
        site.embeds = self.embeds
        return site

    def reference_inputs(self):
        """The reference workload behind the home page's decision map: the headline instances,
        on-demand, a mainstream port at the default assumptions."""
        h = self.headline()
        from generator.engine import Inputs, Span

        a = self.catalog.assumptions
        weeks = a.porting_classes["mainstream"].weeks
        return Inputs(
            gpu_hours=500, relative_throughput=Span(1.0, 0.8, 1.2),
            trainium_price=Span(h["trn"].point, h["trn"].low or h["trn"].point, h["trn"].high or h["trn"].point),
            gpu_price=Span(h["gpu"].point, h["gpu"].point, h["gpu"].point),
            trainium_spot=False, gpu_spot=False,
            interruption_rate=Span(a.spot_interruptions_per_instance_hour.value, a.spot_interruptions_per_instance_hour.low,
                                   a.spot_interruptions_per_instance_hour.high),
            lost_hours=Span(a.spot_hours_lost_per_interruption.value, a.spot_hours_lost_per_interruption.low,
                            a.spot_hours_lost_per_interruption.high),
            port_weeks=Span(weeks.value, weeks.low, weeks.high), engineer_week_usd=a.engineer_week_usd.value,
            port_extra_usd=0, runs=10, runs_per_architecture=None, trainium_count=1, gpu_count=1,
            trainium_availability="available", gpu_availability="available", needed_within_days=None,
            soon_days=a.soon_days.value, close_call_margin=a.close_call_margin.value,
            port_engineers=Span(a.port_engineers.value, a.port_engineers.low, a.port_engineers.high),
        )

    def reference_case(self) -> dict[str, Any]:
        """The reference workload evaluated, so hand-written pages can quote its numbers."""
        w = self.reference_result().workloads[0]
        return {"inputs": w.inputs, "outcome": w.outcome, "robustness": w.robustness, "thresholds": w.thresholds}

    @functools.cached_property
    def _reference(self) -> ScenarioResult:
        from generator.engine import evaluate, robustness, thresholds

        h = self.headline()
        x = self.reference_inputs()
        workload = Workload.model_validate({
            "name": "reference workload", "architecture": "mainstream",
            "run_size": {"gpu_instance_hours": float(x.gpu_hours)}, "runs": x.runs,
            "trainium": {"instance": h["trn"].instance, "region": h["trn"].region},
            "gpu": {"instance": h["gpu"].instance, "region": h["gpu"].region},
            "relative_throughput": {"value": x.relative_throughput.value, "low": x.relative_throughput.low,
                                    "high": x.relative_throughput.high},
        })
        o = evaluate(x)
        w = WorkloadResult(workload, x, o, robustness(x, o), thresholds(x, o))
        return ScenarioResult("reference", "", None, (w,))  # type: ignore[arg-type]

    def reference_result(self) -> ScenarioResult:
        """The reference workload as a one-workload result, for the charts that explain the model
        and the numbers the hand-written pages quote; evaluated once a build."""
        return self._reference

    def home_charts(self) -> dict[str, tuple[str, ch.Chart]]:
        """Charts that hand-written pages place with {{ charts.NAME }}, with the page each lives on."""
        h = self.headline()
        x = self.reference_inputs()
        as_of = max(h["trn"].as_of, h["gpu"].as_of)
        title = f"When does Trainium pay? trn2.48xlarge vs p5.48xlarge, on-demand, {x.gpu_hours:,.0f} GPU instance-hours a run"
        source = (f"prices from {h['trn'].source}; mainstream port of {x.port_weeks.value:g} engineer-weeks "
                  f"at {usd(x.engineer_week_usd)}")
        port_title = f"Porting effort against runs: trn2.48xlarge vs p5.48xlarge, {x.gpu_hours:,.0f} GPU instance-hours a run"
        ref = self.reference_result()
        charts = {
            "decision_map": ("index.md", ch.decision_map(None, 0, self.catalog, "relative_throughput", x=x, chart_id="decision-map",
                                                         title=title, source=source, as_of=as_of)),
            "port_map": ("axes/porting.md", ch.decision_map(None, 0, self.catalog, "port_weeks", x=x, chart_id="decision-map-porting",
                                                            title=port_title, source=source, as_of=as_of)),
            "breakdown": ("methodology.md", replace(ch.run_breakdown(ref, 0, self.catalog), id="reference-breakdown")),
        }
        sensitivity = ch.sensitivity(ref, 0, self.catalog)
        if sensitivity is not None:
            charts["sensitivity"] = ("methodology.md", replace(sensitivity, id="reference-sensitivity"))
        return charts


class _Slots:
    """`{{ charts.NAME }}` on a hand-written page: a chart block, rendered only when used."""

    def __init__(self, renderer: Renderer):
        self._renderer = renderer

    def __getattr__(self, name: str) -> Markup:
        try:
            return self._renderer.chart_block(self._renderer.home[name])
        except KeyError:
            raise AttributeError(name) from None


def render_markdown_page(renderer: Renderer, markdown: str) -> str:
    """Render a hand-written page that opted into figures (front matter `figures: true`)."""
    charts = _Slots(renderer)
    return renderer.env.from_string(markdown).render(
        charts=charts, headline=renderer.headline(), calculator_json=renderer.calculator_json
    )
