"""The price a Trn3 UltraServer would have to beat (generator/model/trn3.py), on the frozen project: golden
figures for every shipped workload, the engine's verdict on either side of each price, and the two
places the site shows them (each scenario page and the Trainium3 page)."""

from __future__ import annotations

import datetime as dt
import html
import json
import math
import re
from pathlib import Path

import pytest

from core_support import REPO
from generator.model.engine import evaluate
from generator.model.wording import RULE_LABELS
from generator.inputs.loader import Project
from generator.rendering.pages.renderer import Renderer
from generator.rendering.pages.hand_written import render_markdown_page
from generator.model.trn3 import _trn3_inputs, price_to_beat

GOLDEN = Path(__file__).parent / "fixtures" / "trn3" / "price_to_beat.json"
DAY = dt.date(2026, 11, 23)


def rows(project: Project) -> list[dict]:
    """Every workload's prices to beat, in the golden file's shape (prices to the micro-dollar)."""
    out = []
    for r in project.results:
        for w in r.workloads:
            for b in price_to_beat(project.catalog, w):
                for p in b.prices:
                    out.append({
                        "scenario": r.id, "workload": w.workload.name, "ultraserver": b.ultraserver, "end": p.end,
                        "per_chip": p.per_chip, "relative_throughput": round(p.relative_throughput, 9),
                        "usd_per_hour": None if p.usd_per_hour is None else round(p.usd_per_hour, 6),
                        "decides": b.decides, "verdict_at_any_price": b.verdict_at_any_price,
                    })
    return out


def test_every_shipped_workload_matches_its_golden_prices(project: Project):
    assert rows(project) == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_file_covers_every_workload_and_both_ultraservers(project: Project):
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    workloads = {(r.id, w.workload.name) for r in project.results for w in r.workloads}
    assert {(g["scenario"], g["workload"]) for g in golden} == workloads
    assert {g["ultraserver"] for g in golden} == {"trn3-gen1-ultraserver", "trn3-gen2-ultraserver"}
    # Vendor claims only where the data has one: over Trainium2, not Trainium1.
    claimed = {g["scenario"] for g in golden if g["end"] == "vendor claim"}
    assert "mainstream-pretraining" in claimed and "repeated-fine-tuning" not in claimed


def _workload(project: Project, sid: str, index: int = 0):
    return next(r for r in project.results if r.id == sid).workloads[index]


def test_the_price_is_the_cost_parity_of_the_scaled_plan(project: Project):
    # mainstream-pretraining: on demand on both sides, one port, no spot. Parity is where runs x hours
    # on Trainium x price + port equals the GPU total; the UltraServer's hours are the instance's hours
    # over the chips it replaces (144 / 16) and Trainium3's speed per chip (1.5 over Trainium2).
    w = _workload(project, "mainstream-pretraining")
    x, o = w.inputs, w.outcome
    (gen1, gen2) = price_to_beat(project.catalog, w)
    assert (gen1.chips, gen2.chips, gen2.instances_per_ultraserver) == (64, 144, 9.0)
    r = x.relative_throughput.value * 1.5 * 144 / 16
    expected = (o.gpu.total - o.ports * o.port_cost) * r / (x.runs * x.gpu_hours)
    assert gen2.stated[1].relative_throughput == pytest.approx(r)
    assert gen2.stated[1].usd_per_hour == pytest.approx(expected, rel=1e-12)
    assert gen2.stated[1].usd_per_chip_hour == pytest.approx(expected / 144, rel=1e-12)
    # Per chip the two configurations have the same price to beat: only their size differs.
    assert gen1.stated[1].usd_per_chip_hour == pytest.approx(gen2.stated[1].usd_per_chip_hour, rel=1e-12)
    assert [p.usd_per_hour for p in gen2.stated] == sorted(p.usd_per_hour for p in gen2.stated)


@pytest.mark.parametrize("sid", ["mainstream-pretraining", "repeated-fine-tuning", "spot-job-on-64-instances",
                                 "stable-architecture-growing-bill", "case-continuous-pretraining-trn1n"])
def test_below_the_price_the_ultraserver_wins_and_above_it_loses(project: Project, sid: str):
    w = _workload(project, sid)
    for b in price_to_beat(project.catalog, w):
        assert b.decides is None
        for p in b.prices:
            count = max(1, math.ceil(w.inputs.trainium_count / b.instances_per_ultraserver))
            below = evaluate(_trn3_inputs(w.inputs, p.relative_throughput, count, p.usd_per_hour * 0.99))
            above = evaluate(_trn3_inputs(w.inputs, p.relative_throughput, count, p.usd_per_hour * 1.01))
            assert (below.verdict, above.verdict) == ("trainium", "gpu"), (sid, b.ultraserver, p.end)
            assert below.total_difference > 0 > above.total_difference


def test_where_a_rule_decides_whatever_the_price_it_says_which(project: Project):
    research = _workload(project, "research-new-architectures")
    assert {(b.decides, b.verdict_at_any_price) for b in price_to_beat(project.catalog, research)} == {("feasibility", "gpu")}
    late = _workload(project, "run-needed-before-the-port-is-done")
    beats = price_to_beat(project.catalog, late)
    assert {(b.decides, b.verdict_at_any_price) for b in beats} == {("deadline", "gpu")}
    assert all(p.usd_per_hour is not None for b in beats for p in b.prices)  # cost alone would have a parity
    once = _workload(project, "one-off-run")
    assert {(b.decides, b.verdict_at_any_price) for b in price_to_beat(project.catalog, once)} == {("cost", "gpu")}
    assert all(p.usd_per_hour is None for b in price_to_beat(project.catalog, once) for p in b.prices)


def test_without_a_speed_for_the_chip_there_is_no_price(project: Project):
    speed = project.catalog.assumptions.trainium3
    no_trn1 = speed.model_copy(update={"per_chip": {k: v for k, v in speed.per_chip.items() if k != "trainium1"}})
    catalog = project.catalog.model_copy(update={"assumptions": project.catalog.assumptions.model_copy(update={"trainium3": no_trn1})})
    assert price_to_beat(catalog, _workload(project, "repeated-fine-tuning")) == ()
    assert len(price_to_beat(catalog, _workload(project, "mainstream-pretraining"))) == 2


@pytest.fixture(scope="module")
def frozen_site(project: Project):
    r = Renderer(project, today=DAY)
    return r, r.render()


def _golden_price(sid: str, ultraserver: str, end: str) -> float | None:
    """The golden price of a single-workload scenario."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    (g,) = [g for g in golden if (g["scenario"], g["ultraserver"], g["end"]) == (sid, ultraserver, end)]
    return g["usd_per_hour"]


def test_each_scenario_page_shows_its_price_to_beat(frozen_site):
    _, site = frozen_site
    page = site.pages["scenarios/mainstream-pretraining.md"]
    section = page.split("### Trainium3: the price to beat", 1)[1].split("### Cumulative cost", 1)[0]
    price = _golden_price("mainstream-pretraining", "trn3-gen2-ultraserver", "value")
    shown = float(re.search(r'data-trn3-price="([^"]+)"', section)[1])
    assert shown == pytest.approx(price, abs=1e-6)
    assert re.search(r"would cost less than this workload's GPU plan at any price below <strong[^>]*>\$\d[\d,]*</strong> an hour", section)
    assert "(vendor claim)" in section and "vendor claim</a>, measured serving a model, not training it" in section
    assert section.count("<tr data-ultraserver=") == 8  # two UltraServers, three ends and a vendor claim each
    research = site.pages["scenarios/research-new-architectures.md"].split("### Trainium3: the price to beat", 1)[1]
    lead = research.split("</p>", 1)[0]
    assert 'data-trn3-decides="feasibility"' in lead
    # The step is named as the scenario page's list of steps names it.
    step = html.escape(RULE_LABELS["feasibility"])
    assert f"its price does not decide: the step &ldquo;{step}&rdquo; decides for GPU at any price" in lead


def test_the_trainium3_page_lists_every_workload_with_its_page(frozen_site):
    renderer, _ = frozen_site
    text = (REPO / "docs" / "trainium3.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    page = render_markdown_page(renderer, text)
    table = page.split("## The price to beat, situation by situation", 1)[1].split("\n## ", 1)[0]
    # An HTML table passed through Markdown whole, kept out of the search index like the scenarios index's.
    assert "<!-- guide:html -->\n<table data-table=\"trn3-situations\" data-search-exclude>" in table
    lines = [ln for ln in table.splitlines() if ln.startswith('<tr><td data-label="Situation (workload)"><a ')]
    assert len(lines) == sum(len(r.workloads) for r in renderer.project.results)
    price = _golden_price("mainstream-pretraining", "trn3-gen2-ultraserver", "value")
    (row,) = [ln for ln in lines if 'href="../scenarios/mainstream-pretraining/"' in ln]
    assert f'<td data-label="Value"><strong>${price:,.0f}</strong></td>' in row and row.endswith('<td data-label="What decides">price</td></tr>')
    (row,) = [ln for ln in lines if 'href="../scenarios/research-new-architectures/"' in ln]
    assert f"&ldquo;{html.escape(RULE_LABELS['feasibility'])}&rdquo;, GPU at any price" in row
    assert "vendor claim" in page and "AWS-TRN3-LAUNCH" in page

