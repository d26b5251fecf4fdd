"""Ways of buying that exist but have no published price (`unpublished:` in data/prices.yaml), and
sources that show no date: the loader checks them, the pages say "not published" and "undated",
and the calculator offers no instance it cannot price. On a frozen copy of data/, edited here."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from core_support import FROZEN, copy_inputs
from generator.rendering.calculator.data import calculator_data
from generator.inputs.loader import InputError, load_catalog, load_project
from generator.rendering.pages.renderer import Renderer

DAY = dt.date(2026, 11, 23)
INSTANCE = """  zz-new.48xlarge:
    side: trainium
    regions: {value: [us-east-1], source: VAN-2026-01, as_of: 2026-01-21}
    chip: trainium2
    chips: {value: 16, source: NRN, as_of: 2025-12-01}
    accelerator_memory: {value: 1536, source: NRN, as_of: 2025-12-01}
    accelerator_memory_unit: GiB
    vcpu: {value: 192, source: NRN, as_of: 2025-12-01}
    ram_gib: {value: 2048, source: NRN, as_of: 2025-12-01}
    network_gbps: {value: 3200, source: NRN, as_of: 2025-12-01}
"""


def _with(tmp_path: Path, unpublished: str, *, instance: bool = True) -> Path:
    root = copy_inputs(tmp_path / "project")
    data = root / "data"
    if instance:
        with open(data / "instances.yaml", "a", encoding="utf-8") as f:
            f.write(INSTANCE)
    prices = data / "prices.yaml"
    assert prices.read_text(encoding="utf-8").rstrip().splitlines()[-1].startswith("  - {instance: ")
    with open(prices, "a", encoding="utf-8") as f:  # the file ends with its `unpublished:` list
        f.write(unpublished)
    return root


def test_an_instance_without_a_published_price_is_shown_as_such_and_not_offered(tmp_path: Path):
    root = _with(tmp_path, "  - {instance: zz-new.48xlarge, option: on-demand, source: NRN, as_of: 2025-12-01, "
                           "note: \"Hardware only; no price anywhere.\"}\n")
    project = load_project(root)
    listed = [(u.instance, u.region, u.option) for u in project.catalog.unpublished]
    assert listed[-1] == ("zz-new.48xlarge", None, "on-demand")
    assert ("trn2.48xlarge", "us-east-2", "spot") in listed  # in the frozen data
    page = Renderer(project, today=DAY).render().pages["prices.md"]
    row = page.split('data-instance="zz-new.48xlarge"', 1)[1].split("</tr>", 1)[0]
    assert "price not published" in row and "not sold on demand" not in row
    assert ('<tr data-instance="trn2.48xlarge" data-region="us-east-2" data-option="spot">\n'
            "<td>Spot</td><td>us-east-2</td><td>not published</td>") in page
    assert "The dump gives an on-demand figure for trn2.48xlarge but no spot price" in page
    baked = calculator_data(project.catalog)
    assert "zz-new.48xlarge" not in baked["instances"] and "trn2.48xlarge" in baked["instances"]


def test_unpublished_entries_are_checked_where_they_are(tmp_path: Path):
    root = _with(tmp_path, "  - {instance: zz-typo.48xlarge, option: spot, source: NRN, as_of: 2025-12-01}\n"
                           "  - {instance: trn2.48xlarge, region: us-east-2, option: on-demand, source: VAN, as_of: 2025-11-30}\n",
                 instance=False)
    first = len(load_catalog(FROZEN / "data").unpublished)  # the two entries come after the frozen ones
    with pytest.raises(InputError) as e:
        load_catalog(root / "data")
    messages = [(p.field, p.message) for p in e.value.problems]
    assert any(f == f"unpublished.{first}.instance" and m.startswith("unknown instance") and m.endswith("(got 'zz-typo.48xlarge')")
               for f, m in messages)
    assert any(f == f"unpublished.{first + 1}" and "has a price in prices; an option is either priced or recorded as not published" in m
               for f, m in messages)
    lines = (root / "data" / "prices.yaml").read_text(encoding="utf-8").splitlines()
    for p in e.value.problems:
        assert p.path == "data/prices.yaml" and "unpublished" in p.field
        assert "zz-typo" in lines[p.line - 1] or "trn2.48xlarge, region: us-east-2, option: on-demand, source: VAN" in lines[p.line - 1]


def test_a_source_without_a_date_is_shown_undated():
    project = load_project(FROZEN)
    assert project.catalog.sources["SKY"].as_of is None
    site = Renderer(project, today=DAY).render()
    assert "$98.32/h (SKY, undated, before the mid-2025 P4/P5 price cut; superseded)" in site.pages["prices.md"]
    sky = site.pages["sources.md"].split("SkyPilot AWS catalog", 1)[1].split("</p>", 1)[0]
    assert "The source shows no date." in sky and "As of" not in sky


def _chip_cites(tmp_path: Path, source: str) -> Path:
    """The frozen data with H100's BF16 figure given no date and citing `source`."""
    root = copy_inputs(tmp_path / "project")
    chips = root / "data" / "chips.yaml"
    text = chips.read_text(encoding="utf-8")
    old = "    bf16_tflops: {value: 989, source: NVDA, as_of: 2025-06-01}\n"
    assert text.count(old) == 1
    chips.write_text(text.replace(old, f"    bf16_tflops: {{value: 989, source: {source}, as_of: null}}\n"), encoding="utf-8")
    return root


def test_a_chip_figure_from_a_source_without_a_date_may_be_undated_and_is_shown_so(tmp_path: Path):
    project = load_project(_chip_cites(tmp_path, "SKY"))
    assert project.catalog.chips["h100"].bf16_tflops.as_of is None
    page = Renderer(project, today=DAY).render().pages["prices.md"]
    row = page.split("<tr><td>Nvidia H100 SXM</td>", 1)[1].split("</tr>", 1)[0]
    assert ">SKY, undated</a>" in row and "None" not in row


def test_a_chip_figure_may_not_drop_the_date_its_source_shows(tmp_path: Path):
    root = _chip_cites(tmp_path, "NVDA")
    with pytest.raises(InputError) as e:
        load_catalog(root / "data")
    (p,) = e.value.problems
    assert (p.path, p.field) == ("data/chips.yaml", "chips.h100.bf16_tflops.as_of")
    assert p.message == "as_of is null but source NVDA shows a date; give that date (got null, the source shows 2025-06-01)"
    assert "bf16_tflops: {value: 989, source: NVDA, as_of: null}" in (root / "data" / "chips.yaml").read_text().splitlines()[p.line - 1]


def test_the_sources_page_counts_a_chip_figure_kept_as_an_alternative(tmp_path: Path):
    root = copy_inputs(tmp_path / "project")
    chips = root / "data" / "chips.yaml"
    text = chips.read_text(encoding="utf-8")
    head, h100 = text.split("  h100:\n", 1)
    old = "    memory_gib: {value: 80, source: NVDA, as_of: 2025-06-01}\n"
    assert h100.count(old) == 1
    h100 = h100.replace(old, "    memory_gib: {value: 80, source: NVDA, as_of: 2025-06-01, "
                             "alternatives: [{value: 81, source: SKY, as_of: null}]}\n", 1)
    chips.write_text(f"{head}  h100:\n{h100}", encoding="utf-8")
    page = Renderer(load_project(root), today=DAY).render().pages["sources.md"]
    sky = page.split("## SKY { #sky }", 1)[1].split("\n## ", 1)[0]
    assert "Nvidia H100 SXM: memory gib (alternative figure)" in sky
