"""The hand-written pages that opt into build-time figures (front matter `figures: true`): rendered as
templates, with the reference workload's charts they place as `{{ charts.NAME }}`."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import jinja2
from markupsafe import Markup

from generator.model import wording
from generator.model.catalog import OPTION_LABELS
from generator.rendering.charts import specs as ch


def reference_charts(renderer: Any) -> dict[str, tuple[str, ch.Chart]]:
    """The charts of the reference workload (data/reference.yaml) that hand-written pages place, by
    name, with the page each lives on."""
    h = renderer.headline()
    x = renderer.reference.inputs
    maps = renderer.reference.maps
    as_of = max(h["trn"].as_of, h["gpu"].as_of)
    # The instances, ways of buying and architecture are the reference workload's (data/reference.yaml).
    title, port_title = wording.reference_map_titles(h["trn"], h["gpu"], OPTION_LABELS, x.gpu_hours)
    trn_src = renderer.catalog.sources[h["trn"].source]
    architecture = renderer.reference.result.workloads[0].workload.architecture
    source = wording.reference_source(trn_src.name, h["trn"].as_of, architecture, x.port_weeks.value, x.engineer_week_usd)
    ref = renderer.reference.result
    charts = {
        "decision_map": ("index.md", ch.decision_map(maps["relative_throughput"], x, "decision-map", title, source, as_of)),
        "port_map": ("axes/porting.md", ch.decision_map(maps["port_weeks"], x, "decision-map-porting", port_title, source, as_of)),
        "breakdown": ("methodology.md", replace(ch.run_breakdown(ref, 0, renderer.source_names), id="reference-breakdown")),
    }
    sensitivity = ch.sensitivity(ref, 0, renderer.source_names)
    if sensitivity is not None:
        charts["sensitivity"] = ("methodology.md", replace(sensitivity, id="reference-sensitivity"))
    return charts


# The hand-written pages that show a chart (home_charts, and the prices page), by their titles in
# mkdocs.yml's nav: how the embed gallery's link back to each reads (tests/test_last_mile.py holds
# them to the built pages' own titles).
HOST_PAGES = {"index.md": "Home", "prices.md": "Prices and hardware", "methodology.md": "Methodology",
              "axes/porting.md": "Porting effort"}


class _Slots:
    """`{{ charts.NAME }}` on a hand-written page: a chart block, rendered only when used."""

    def __init__(self, renderer: Any):
        self._renderer = renderer

    def __getattr__(self, name: str) -> Markup:
        try:
            return self._renderer.chart_block(self._renderer.home[name])
        except KeyError:
            raise AttributeError(name) from None


def render_markdown_page(renderer: Any, markdown: str, charts: Any = None) -> str:
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
