"""Charts as Vega-Lite specs built with Altair, each with its data rows and a text alternative.

Specs carry only the data they draw (inline values, no URLs), a title, and a subtitle naming the
source and the as-of date, so a chart copied anywhere still says where its numbers come from.
"""

from __future__ import annotations

import datetime as dt
import math
import functools
import json
import textwrap
from dataclasses import dataclass, field, replace
from typing import Any

import altair as alt

from generator.model import formatting as fmt
from generator.model import wording
from generator.model.catalog import OPTION_LABELS, Catalog
from generator.model.engine import Inputs, ranged_inputs
from generator.model.wording import CHART_WORDS, VERDICT_LABELS, price_refs, range_label, range_value, source_line
from generator.model.results import DecisionMap, ScenarioResult, WorkloadResult, present_workload

TRN = VERDICT_LABELS["trainium"]
GPU = VERDICT_LABELS["gpu"]
# Text drawn on the plot (break-even and plan labels): 5.7:1 on the light background. The dark
# images and the live dark charts draw it lighter (images.DARK_CSS, charts.js).
NOTE_TEXT = "#666"
SIDE_COLORS = alt.Scale(domain=[TRN, GPU], range=["#ff9900", "#76b900"])
VERDICT_COLORS = alt.Scale(domain=[TRN, GPU], range=["#ff9900", "#76b900"])
# A decision-map cell where neither side can run. A mid grey: no hue to mistake for either side's
# (under any colour-vision deficiency too), and 3:1 or more against both the light background and
# the dark images' (images.DARK_BACKGROUND), as WCAG asks of a graphic.
NEITHER = VERDICT_LABELS["neither"]
NEITHER_COLOR = "#8a8a8a"
MAP_VERDICTS = {"trainium": TRN, "gpu": GPU, "neither": NEITHER}
WIDTH = 560
# The regions whose prices the price-performance chart compares.
PRICE_PERFORMANCE_REGIONS = ("us-east-1", "us-east-2")
# Characters in a line of a chart's subtitle: about the width of the plot at 12 px; of its title, at 13 px bold.
SUBTITLE_CHARS = 90
TITLE_CHARS = 75


@dataclass(frozen=True)
class Chart:
    id: str  # stable: scenario id + workload index + kind, or a fixed site-wide name
    kind: str
    title: str
    spec: dict[str, Any]
    rows: list[dict[str, Any]]
    summary: str
    source: str
    as_of: dt.date
    page: str = ""  # docs-relative page the chart lives on
    columns: list[str] = field(default_factory=list)
    preset: str = ""  # "<scenario id>/<workload number>": the calculator recreates the chart's inputs
    vega: str | None = None  # compiled at build time (JSON text), so readers need no Vega-Lite compiler


@dataclass(frozen=True)
class ChartLabel:
    """What names a chart away from it: a scenario page's card shows its first chart by these alone,
    so a page read from the cache keeps them, not the chart's spec and rows."""

    id: str
    title: str
    summary: str

    @classmethod
    def of(cls, c: Chart) -> ChartLabel:
        return cls(c.id, c.title, c.summary)


# How each data column reads in a chart's table of numbers: the kind of number it holds.
COLUMN_FORMATS = {
    "runs": fmt.runs, "cost": fmt.money, "usd": fmt.money, "difference": fmt.money, "usd_per_hour": fmt.hourly,
    "relative_throughput": fmt.ratio, "port_weeks": fmt.weeks, "usd_per_pflop_hour": lambda v: fmt.usd(v, 2),
}



def column_text(column: str, value: object) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    return COLUMN_FORMATS.get(column, lambda v: fmt.num(v, 2))(value)


def _data(name: str) -> alt.Data:
    return alt.Data(name=name)


def _titled(chart: alt.TopLevelMixin, title: str, source: str, as_of: dt.date, **datasets: list[dict[str, Any]]) -> dict[str, Any]:
    """The finished spec. Rows go in as named datasets after Altair is done: Altair would wrap and
    validate every inline row, which cost seconds per page."""
    spec = chart.properties(
        title=alt.TitleParams(text=_title_lines(title), subtitle=_subtitle(source, as_of), anchor="start"),
    ).to_dict(validate=False)
    spec.pop("$schema", None)
    spec["$schema"] = "https://vega.github.io/schema/vega-lite/v6.json"
    spec["autosize"] = {"type": "fit", "contains": "padding"}
    spec["background"] = None
    spec["datasets"] = datasets
    return spec


def _title_lines(title: str) -> list[str]:
    """A title naming a scenario can be long; a static image does not wrap it, so it goes on lines here."""
    return textwrap.wrap(title, TITLE_CHARS, break_on_hyphens=False, break_long_words=False) or [title]


def _subtitle(source: str, as_of: dt.date) -> list[str]:
    """The source line, on several lines when long: a static image does not wrap its text, and a
    chart citing many sources would be cut off at its right edge."""
    return textwrap.wrap(wording.chart_subtitle(source, as_of), SUBTITLE_CHARS, break_on_hyphens=False)


def _price_sources(w: WorkloadResult, names: dict[str, str] | None = None) -> str:
    return source_line(price_refs(w, names))


def chart_title(kind: str, r: ScenarioResult, i: int) -> str:
    """A chart's title names its scenario, and the workload where the scenario has several: a chart
    met alone (in the embed gallery, in a post) says whose case it draws."""
    return wording.chart_title(kind, r.scenario.title, r.workloads[i].workload.name if len(r.workloads) > 1 else None)


def cumulative_cost(r: ScenarioResult, i: int, presented: dict | None = None) -> Chart:
    """The engine's cost curve with the plan and the break-even marked, labelled by the present layer
    exactly as the calculator labels its own chart. `presented` is what `present_workload` made of
    the workload, where the caller has it already."""
    w = r.workloads[i]
    shown = (presented if presented is not None else present_workload(w))["chart"]
    title = chart_title("cumulative", r, i)
    as_of = w.prices_as_of
    spec = cumulative_spec(title, shown["source"], as_of, shown["rows"], shown["marks"], shown["interp"])
    return Chart(f"{r.id}-{i + 1}-cumulative", "cumulative", title, spec, shown["rows"], shown["summary"], shown["source"], as_of,
                 columns=["runs", "side", "cost"])



def run_breakdown(r: ScenarioResult, i: int, source_names: dict[str, str] | None = None) -> Chart:
    w = r.workloads[i]
    x, o = w.inputs, w.outcome
    port_share = o.ports * o.port_cost / x.runs
    compute, porting = CHART_WORDS["compute"], CHART_WORDS["porting_spread"]
    rows = [
        {"side": GPU, "part": compute, "usd": o.gpu.cost_per_run},
        {"side": TRN, "part": compute, "usd": o.trainium.cost_per_run},
        {"side": TRN, "part": porting, "usd": port_share},
    ]
    title = wording.chart_title("breakdown", w.workload.name)
    source = _price_sources(w, source_names)
    as_of = w.prices_as_of
    chart = alt.Chart(_data("rows")).mark_bar().encode(
        y=alt.Y("side:N", title=None, sort=[TRN, GPU]),
        x=alt.X("sum(usd):Q", title=CHART_WORDS["usd_per_run"], axis=alt.Axis(format="$,.0f")),
        color=alt.Color("part:N", title=None, scale=alt.Scale(domain=[compute, porting], range=["#4e79a7", "#e15759"])),
        tooltip=[alt.Tooltip("side:N"), alt.Tooltip("part:N"), alt.Tooltip("usd:Q", format="$,.0f")],
    ).properties(width=WIDTH, height=120)
    spec = _titled(chart, title, source, as_of, rows=rows)
    summary = wording.breakdown_summary(o.gpu.cost_per_run, o.trainium.cost_per_run, port_share, o.ports, x.runs)
    return Chart(f"{r.id}-{i + 1}-breakdown", "breakdown", title, spec, rows, summary, source, as_of, columns=["side", "part", "usd"])


def _round_labels(domain: tuple[float, ...], most: int = 10) -> list[float]:
    """The values of an ordinal axis worth a label: those on the smallest round step (1, 2, 2.5 or 5
    times a power of ten) that leaves at most `most` of them, evenly spaced (a map's first value need
    not be on its grid's step); the axis's ends where no step does."""
    span = max(domain) - min(domain)
    if span <= 0:
        return list(domain)
    power = 10 ** math.floor(math.log10(span / most))
    for step in (m * power * scale for scale in (1, 10, 100) for m in (1, 2, 2.5, 5)):
        picked = [v for v in domain if abs(v / step - round(v / step)) < 1e-6]
        gaps = {round(b - a, 6) for a, b in zip(picked, picked[1:])}
        if 2 <= len(picked) <= most and len(gaps) == 1:
            return picked
    return [domain[0], domain[-1]]


def decision_map(m: DecisionMap, x: Inputs, chart_id: str, title: str, source: str, as_of: dt.date) -> Chart:
    """Draws a map the results stage computed for the case `x`; no verdict is worked out here."""
    axis, runs_max = m.axis, m.runs_max
    rows = [{"runs": runs, axis: v, "verdict": MAP_VERDICTS[verdict]}
            for runs, line in zip(m.runs, m.verdicts, strict=True) for v, verdict in zip(m.values, line, strict=True)]
    shares = {label: sum(1 for row in rows if row["verdict"] == label) / len(rows) for label in MAP_VERDICTS.values()}
    # "Neither" has a colour and a legend entry only on a map where some cell says it.
    colors = (VERDICT_COLORS if not shares[NEITHER] else
              alt.Scale(domain=[TRN, GPU, NEITHER], range=[*VERDICT_COLORS.range, NEITHER_COLOR]))
    here_value = x.relative_throughput.value if axis == "relative_throughput" else x.port_weeks.value
    # The axes are ordinal: the marker finds its cell by value, and the grid holds the case's values.
    here = [{"runs": x.runs, axis: round(here_value, 4), "label": wording.this_case(x.runs, axis, here_value)}]
    # Labels on round values alone (10, 20, 30; 0.4, 0.6, 0.8), not every other cell's value.
    run_labels, value_labels = _round_labels(m.runs), _round_labels(m.values)
    decimals = max(len(f"{v:g}".partition(".")[2]) for v in value_labels)
    enc_x = alt.X("runs:O", title=CHART_WORDS["runs_planned_axis"], axis=alt.Axis(values=run_labels, labelAngle=0))
    enc_y = alt.Y(f"{axis}:O", title=wording.map_axis(axis), sort="descending", axis=alt.Axis(values=value_labels, format=f".{decimals}f"))
    # No ARIA label on each of the hundreds of cells: the chart is one image with its own text
    # alternative (role="img"), so assistive technology never reads them, and they would be most of
    # the bytes of the static SVG. The tooltip still names each cell.
    heat = alt.Chart(_data("rows")).mark_rect(aria=False).encode(
        x=enc_x, y=enc_y,
        color=alt.Color("verdict:N", scale=colors, title=CHART_WORDS["map_legend"]),
        tooltip=[alt.Tooltip("runs:O"), alt.Tooltip(f"{axis}:Q", format=".2f"), alt.Tooltip("verdict:N")],
    )
    point = alt.Chart(_data("here")).mark_point(shape="diamond", size=180, filled=True, color="#111", stroke="#fff", strokeWidth=2).encode(
        x=enc_x, y=enc_y, tooltip=[alt.Tooltip("label:N")],
    )
    spec = _titled(alt.layer(heat, point).properties(width=WIDTH, height=300), title, source, as_of, rows=rows, here=here)
    kind = "map-throughput" if axis == "relative_throughput" else "map-port"
    summary = wording.map_summary(len(rows), runs_max, axis, {v: shares[label] for v, label in MAP_VERDICTS.items()}, x.runs, here_value)
    return Chart(chart_id, kind, title, spec, rows, summary, source, as_of, columns=["runs", axis, "verdict"])


def sensitivity(r: ScenarioResult, i: int, source_names: dict[str, str] | None = None) -> Chart | None:
    w = r.workloads[i]
    x = w.inputs
    names = ranged_inputs(x)
    if not names:
        return None
    rob = w.robustness
    rows = []
    # The ranges' ends alone: a reading such as no Capacity Block extension is no end of a range.
    for e in (e for e in rob.ends if e.end in ("low", "high")):
        # The value with its unit (0.80×, $35.76/h, 3 engineer-weeks): the inputs differ in kind.
        rows.append({"input": range_label(e.input), "end": e.end, "value": range_value(e.input, e.value), "difference": e.total_difference})
    base = w.outcome.total_difference
    title = wording.chart_title("sensitivity", w.workload.name)
    source = _price_sources(w, source_names)
    as_of = w.prices_as_of
    bars = alt.Chart(_data("rows")).mark_bar().encode(
        y=alt.Y("input:N", title=None),
        x=alt.X("difference:Q", title=CHART_WORDS["difference_axis"], axis=alt.Axis(format="$,.0f")),
        color=alt.Color("end:N", title=CHART_WORDS["end_legend"], scale=alt.Scale(domain=["low", "high"], range=["#59a14f", "#af7aa1"])),
        yOffset="end:N",
        tooltip=[alt.Tooltip("input:N"), alt.Tooltip("end:N"), alt.Tooltip("value:N"), alt.Tooltip("difference:Q", format="$,.0f")],
    )
    zero = alt.Chart(_data("zero")).mark_rule(color="#888").encode(x="x:Q")
    baseline = alt.Chart(_data("base")).mark_rule(color="#888", strokeDash=[4, 4]).encode(x="x:Q")
    spec = _titled(alt.layer(bars, zero, baseline).properties(width=WIDTH, height=max(120, 60 * len(names))), title, source, as_of, rows=rows, zero=[{"x": 0}], base=[{"x": base}])
    summary = wording.sensitivity_summary(base, rob.flips_on)
    return Chart(f"{r.id}-{i + 1}-sensitivity", "sensitivity", title, spec, rows, summary, source, as_of, columns=["input", "end", "value", "difference"])


def scenario_charts(r: ScenarioResult, presented: list[dict]) -> list[Chart]:
    """One chart a workload, the cumulative cost with its break-even. The other views of a workload
    (decision maps, breakdown, sensitivity) are drawn for the reference case on the guide's own
    pages and for any case in the calculator: every chart carries four rendered images, and a
    thousand scenarios with five charts a workload would take the build many minutes."""
    return [replace(cumulative_cost(r, i, presented[i]), preset=f"{r.id}/{i + 1}") for i in range(len(r.workloads))]


def price_performance(catalog: Catalog) -> Chart:
    rows = []
    sources: set[str] = set()
    for p in catalog.prices:
        if not p.offered or p.region not in PRICE_PERFORMANCE_REGIONS:
            continue
        inst = catalog.instances[p.instance]
        peak = catalog.chips[inst.chip].bf16_tflops
        sources |= {p.source, inst.chips.source, peak.source}
        pflops = inst.chips.value * peak.value / 1000
        rows.append({
            "instance": p.instance,
            "side": TRN if inst.side == "trainium" else GPU,
            "option": OPTION_LABELS[p.option],
            "usd_per_pflop_hour": p.point / pflops,
            "usd_per_hour": p.point,
        })
    as_of = catalog.latest_as_of()
    title = CHART_WORDS["price_performance"]
    chart = alt.Chart(_data("rows")).mark_point(filled=True, size=90).encode(
        y=alt.Y("instance:N", title=None, sort=alt.EncodingSortField("usd_per_pflop_hour", op="min")),
        x=alt.X("usd_per_pflop_hour:Q", title=CHART_WORDS["pflop_axis"], axis=alt.Axis(format="$,.2f")),
        color=alt.Color("option:N", title=CHART_WORDS["option_legend"], scale=alt.Scale(domain=list(OPTION_LABELS.values()))),
        shape=alt.Shape("side:N", title=None),
        tooltip=[alt.Tooltip("instance:N"), alt.Tooltip("option:N"), alt.Tooltip("usd_per_hour:Q", format="$,.3f"), alt.Tooltip("usd_per_pflop_hour:Q", format="$,.2f")],
    ).properties(width=WIDTH, height=320)
    source = wording.chip_sources(sorted({catalog.sources[k].name for k in sources}))
    spec = _titled(chart, title, source, as_of, rows=rows)
    best = min(rows, key=lambda r: r["usd_per_pflop_hour"])
    summary = wording.price_performance_summary(len(rows), list(PRICE_PERFORMANCE_REGIONS), best["instance"], best["option"],
                                                best["usd_per_pflop_hour"])
    return Chart("price-performance", "price-performance", title, spec, rows, summary, source, as_of, columns=["instance", "side", "option", "usd_per_pflop_hour", "usd_per_hour"])


@functools.cache
def _cumulative_template() -> str:
    """The cumulative-cost chart without its rows, title or line shape, as JSON. Altair builds it
    once; every scenario's chart and the calculator's live chart are this one spec, filled."""
    interp = alt.param(name="interp", value="linear")
    lines = alt.Chart(_data("rows")).mark_line(interpolate=alt.ExprRef("interp")).encode(
        # Few ticks: every label costs a text measurement when the static images are drawn.
        x=alt.X("runs:Q", title=CHART_WORDS["runs_axis"], axis=alt.Axis(tickCount=5)),
        y=alt.Y("cost:Q", title=CHART_WORDS["cost_axis"], axis=alt.Axis(format="$,.0f", tickCount=4)),
        color=alt.Color("side:N", scale=SIDE_COLORS, title=None),
        tooltip=[alt.Tooltip("side:N"), alt.Tooltip("runs:Q"), alt.Tooltip("cost:Q", format="$,.0f")],
    ).add_params(interp)
    rules = alt.Chart(_data("marks")).mark_rule(strokeDash=[4, 4], color="#888").encode(x="runs:Q")
    # Labels near the left edge hang from the top, where the lines have not yet climbed; those turned
    # left near the right edge stand on the bottom, below where the totals end. `height` is the plot's
    # height as drawn, after the title and axes have taken their share of the chart's.
    labels = [
        alt.Chart(_data("marks")).transform_filter(f"datum.end == '{end}'").transform_calculate(
            at="datum.row" if end == "left" else "height - datum.row"
        ).mark_text(
            align=end, dx=4 if end == "left" else -4, dy=-4, baseline="bottom", color=NOTE_TEXT
        ).encode(x="runs:Q", y=alt.Y("at:Q", scale=None), text="label:N")
        for end in ("left", "right")
    ]
    chart = alt.layer(lines, rules, *labels).properties(width=WIDTH, height=300)
    return json.dumps(_titled(chart, "", "", dt.date(2000, 1, 1)))


def cumulative_spec(title: str, source: str, as_of: dt.date, rows: list[dict[str, Any]], marks: list[dict[str, Any]],
                    interp: str = "linear") -> dict[str, Any]:
    spec = json.loads(_cumulative_template())
    spec["title"]["text"] = _title_lines(title)
    spec["title"]["subtitle"] = _subtitle(source, as_of)
    spec["params"][0]["value"] = interp
    spec["datasets"] = {"rows": rows, "marks": marks}
    return spec


def calculator_template() -> dict[str, Any]:
    """The calculator's live chart with empty datasets: compiled to Vega at build time, then filled
    in the browser (datasets `rows` and `marks`, signal `interp`), so the page needs Vega alone."""
    spec = cumulative_spec(wording.chart_title("cumulative", CHART_WORDS["your_case"]), CHART_WORDS["calculator_source"],
                           dt.date(2000, 1, 1), [], [])
    spec["width"] = "container"
    return spec
