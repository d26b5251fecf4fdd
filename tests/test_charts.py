"""The decision map marks the case it describes: the marker's cell is the case's own runs and value
(the axes are ordinal, so a cell is found by value, not by nearness), and it says what that cell says."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from generator.model import results
from generator.rendering.charts.specs import decision_map
from generator.model.engine import Span, evaluate
from core_support import BASE


@pytest.mark.parametrize(("axis", "runs", "value", "shown"), [
    ("relative_throughput", 10, 1.0, "1.00×"),  # neither is a point of the 24-step grid
    ("relative_throughput", 7, 0.93, "0.93×"),
    ("port_weeks", 10, 2.2, "2.2 engineer-weeks"),
])
def test_the_marker_sits_on_the_cases_own_cell(axis: str, runs: int, value: float, shown: str):
    x = replace(BASE, runs=runs, **{axis: Span(value, value * 0.8, value * 1.2)})
    chart = decision_map(results.decision_map(x, axis), x, "map", "Map", "test", dt.date(2025, 1, 1))
    here = chart.spec["datasets"]["here"]
    assert [(h["runs"], h[axis]) for h in here] == [(runs, value)]
    assert here[0]["label"] == f"this case: {runs} runs at {shown}"
    assert f"The marked point is this case: {runs} runs at {shown}." in chart.summary
    cell = [row for row in chart.rows if (row["runs"], row[axis]) == (runs, value)]
    assert [row["verdict"] for row in cell] == ["Trainium" if evaluate(x).verdict == "trainium" else "GPU"]
    # Still a full grid: every runs value against every value of the other axis.
    assert len(chart.rows) == len({r["runs"] for r in chart.rows}) * len({r[axis] for r in chart.rows})



def test_price_performance_names_the_sources_of_the_figures_it_plots():
    from core_support import FROZEN
    from generator.rendering.charts.specs import price_performance
    from generator.inputs.datafiles import load_catalog

    catalog = load_catalog(FROZEN / "data")
    inst = catalog.instances["trn2.48xlarge"]
    chip = catalog.chips[inst.chip]
    # A chip's peak taken from a new source must show in the chart's own line of sources.
    catalog.chips[inst.chip] = chip.model_copy(update={"bf16_tflops": chip.bf16_tflops.model_copy(update={"source": "TEST-PEAK"})})
    catalog.sources["TEST-PEAK"] = catalog.sources["NRN"].model_copy(update={"title": "A peak-rate table, version 2 (a test)"})
    chart = price_performance(catalog)
    # Each source by its name, never its key: a chart copied into a post has no sources page beside it.
    assert chart.source.startswith("prices and chip figures from ")
    named = set(chart.source.removeprefix("prices and chip figures from ").split(", "))
    assert "A peak-rate table" in named and "TEST-PEAK" not in chart.source
    lines = chart.spec["title"]["subtitle"]
    assert " ".join(lines).startswith(f"Source: {chart.source}.")
    # A static image does not wrap: ten sources are set on several lines, none wider than the plot.
    assert len(lines) > 1 and max(map(len, lines)) <= 90
    plotted = {row["instance"] for row in chart.rows}
    assert "trn2.48xlarge" in plotted
    keys = {p.source for p in catalog.prices if p.instance in plotted and p.offered and p.region in ("us-east-1", "us-east-2")}
    assert {catalog.sources[k].name for k in keys} <= named and not keys & named


def test_cost_chart_labels_sit_inside_the_plot_top_left_and_bottom_right():
    import re

    import vl_convert as vlc

    from generator.rendering.charts.specs import cumulative_spec

    rows = [{"runs": r, "side": s, "cost": c * r} for r in range(11) for s, c in (("GPU", 10), ("Trainium", 8))]
    marks = [{"runs": 10, "label": "plan: 10 runs", "row": 10, "end": "right"},
             {"runs": 1, "label": "break-even: 1 run", "row": 26, "end": "left"}]
    svg = vlc.vegalite_to_svg(cumulative_spec("T", "a source", dt.date(2026, 1, 1), rows, marks))
    (height,) = [float(h) for h in re.findall(r'class="background" aria-hidden="true" d="M0\.5,0\.5h[\d.]+v([\d.]+)h', svg)]
    at = {label: float(y) for label, y in re.findall(r'label: ((?:plan|break-even)[^"]*)"[^>]*translate\([\d.]+,([\d.]+)\)', svg)}
    # Near the left edge the lines are low: the label hangs from the top. Near the right edge they are
    # at their highest: the label stands on the bottom, inside the plot as drawn, not the chart's 300 px.
    assert 0 < at["break-even: 1 run"] < height / 3
    assert height * 2 / 3 < at["plan: 10 runs"] <= height


def _luminance(colour: str) -> float:
    h = colour.lstrip("#")
    h = "".join(c * 2 for c in h) if len(h) == 3 else h
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    lo, hi = sorted((_luminance(a), _luminance(b)))
    return (hi + 0.05) / (lo + 0.05)


def _scale(chart) -> dict:
    (heat,) = [layer for layer in chart.spec["layer"] if layer["mark"]["type"] == "rect"]
    return heat["encoding"]["color"]["scale"]


def test_a_map_where_neither_side_can_run_says_neither_in_every_cell_and_every_export():
    # On the frozen catalog: TensorFlow rules Trainium out and the GPU cannot be had. Feasibility does
    # not move with the runs, the throughput or the port effort, so no cell of either map can run.
    from core_support import FROZEN

    from generator.inputs.loader import load_catalog
    from generator.model.schema import Workload
    from generator.rendering.embeds.folders import csv_text

    catalog = load_catalog(FROZEN / "data")
    w = Workload.model_validate({
        "name": "tf-shop", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 100}, "runs": 3,
        "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1", "option": "on-demand"},
        "gpu": {"instance": "p4d.24xlarge", "region": "us-east-1", "option": "on-demand"},
        "relative_throughput": {"value": 1.0, "low": 0.8, "high": 1.2}, "availability": {"gpu": "unavailable"},
        "constraints": ["tensorflow"],
    })
    x = results.evaluate_workload(w, catalog).inputs
    for axis in ("relative_throughput", "port_weeks"):
        m = results.decision_map(x, axis)
        assert {v for line in m.verdicts for v in line} == {"neither"}
        chart = decision_map(m, x, "map", "Map", "test", dt.date(2025, 1, 1))
        assert {row["verdict"] for row in chart.rows} == {"Neither"}
        assert {row["verdict"] for row in chart.spec["datasets"]["rows"]} == {"Neither"}  # the JSON export's rows
        assert {line.rsplit(",", 1)[1] for line in csv_text(chart).splitlines()[1:]} == {"Neither"}
        assert "the verdict is Trainium in 0 % of them, GPU in 0 %, and neither in 100 %, where neither side can run." in chart.summary


def test_a_corner_where_neither_side_can_run_has_its_own_colour_legend_entry_and_share():
    x = replace(BASE, runs=4, relative_throughput=Span(1.0, 1.0, 1.0))
    # Few runs at low throughput: neither; more throughput: Trainium; the rest GPU. 2 of 9 cells neither.
    m = results.DecisionMap("relative_throughput", 40, (1, 4, 40), (0.5, 1.0, 2.0), (
        ("neither", "trainium", "trainium"),
        ("neither", "gpu", "trainium"),
        ("gpu", "gpu", "trainium"),
    ))
    chart = decision_map(m, x, "map", "Map", "test", dt.date(2025, 1, 1))
    cell = {(row["runs"], row["relative_throughput"]): row["verdict"] for row in chart.rows}
    assert [cell[(1, 0.5)], cell[(4, 0.5)], cell[(40, 0.5)], cell[(1, 2.0)], cell[(4, 1.0)]] == ["Neither", "Neither", "GPU", "Trainium", "GPU"]
    scale = _scale(chart)
    assert scale["domain"] == ["Trainium", "GPU", "Neither"]
    neither = scale["range"][2]
    assert neither not in scale["range"][:2]
    # A graphic at 3:1 or more on the light background and on the dark images' background.
    from generator.rendering.charts.images import DARK_BACKGROUND
    assert _contrast(neither, "#fff") >= 3 and _contrast(neither, DARK_BACKGROUND) >= 3
    assert ("the verdict is Trainium in 44.4 % of them, GPU in 33.3 %, and neither in 22.2 %, where neither side can run."
            in chart.summary)


def test_a_map_without_neither_keeps_two_verdicts_in_its_legend_and_summary():
    x = replace(BASE, runs=10)
    chart = decision_map(results.decision_map(x, "relative_throughput"), x, "map", "Map", "test", dt.date(2025, 1, 1))
    assert {row["verdict"] for row in chart.rows} <= {"Trainium", "GPU"}
    assert _scale(chart)["domain"] == ["Trainium", "GPU"]
    assert "neither" not in chart.summary.lower()


def test_the_home_charts_name_what_data_reference_yaml_compares(frozen_inputs):
    # Another Trainium instance and architecture in data/reference.yaml: the decision maps' titles
    # and source line follow it, with no code change.
    from generator.inputs.loader import load_project
    from generator.rendering.pages.renderer import Renderer

    ref = frozen_inputs / "data" / "reference.yaml"
    text = ref.read_text(encoding="utf-8")
    for old, new in [("trainium: {instance: trn2.48xlarge, region: us-east-2}",
                      "trainium: {instance: trn1.32xlarge, region: us-east-1, option: on-demand}"),
                     ("architecture: mainstream", "architecture: moderate-custom")]:
        assert old in text
        text = text.replace(old, new)
    ref.write_text(text, encoding="utf-8")
    charts = Renderer(load_project(frozen_inputs)).home_charts()
    decision, porting = charts["decision_map"][1], charts["port_map"][1]
    assert decision.title.startswith("When does Trainium pay? trn1.32xlarge vs p5.48xlarge, on-demand against on-demand, ")
    assert porting.title.startswith("Porting effort against runs: trn1.32xlarge vs p5.48xlarge, ")
    assert "; moderate-custom port of " in decision.source
    assert "trn2" not in decision.title + porting.title
