"""The live data/ and scenarios/: structure and sourcing only, never values, so a price refresh or a
new scenario cannot break these tests unless it breaks the project. Every test of behaviour reads
the frozen copy under tests/fixtures/project/ instead (core_support.FROZEN).

The last two tests are the refresh drill the project promises contributors: one price moved by 1 %
and dated today, and one valid scenario added, each still validates and renders every page."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from contrib_support import guide
from core_support import LIVE_DATA, LIVE_SCENARIOS, REPO
from generator.model.catalog import Catalog
from generator.inputs.loader import load_catalog, load_project
from generator.rendering.pages.renderer import Renderer
from generator.rendering.pages.hand_written import render_markdown_page

# The machine's date, not a fixed one: the drill dates a price "today", and live data/ may hold any
# date up to today, so a fixed day would turn a later refresh into a refusal.
TODAY = dt.date.today()
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)


@pytest.fixture(scope="module")
def live_catalog() -> Catalog:
    return load_catalog(LIVE_DATA)


def _cited(catalog: Catalog):
    """(what, figure) for every figure in the catalog that carries a source and a date."""
    for cid, chip in catalog.chips.items():
        for name in ("bf16_tflops", "fp8_tflops", "memory_gib", "memory_bandwidth_tbps"):
            if (f := getattr(chip, name)) is not None:
                yield f"chips.{cid}.{name}", f
                for j, alt in enumerate(f.alternatives):
                    yield f"chips.{cid}.{name}.alternatives.{j}", alt
    for iid, inst in catalog.instances.items():
        for name in ("chips", "accelerator_memory", "vcpu", "ram_gib", "network_gbps"):
            f = getattr(inst, name)
            if f is None:
                continue
            yield f"instances.{iid}.{name}", f
            for j, alt in enumerate(f.alternatives):
                yield f"instances.{iid}.{name}.alternatives.{j}", alt
    for i, p in enumerate(catalog.prices):
        yield f"prices.{i}", p
        for j, alt in enumerate(p.alternatives):
            yield f"prices.{i}.alternatives.{j}", alt
    for i, u in enumerate(catalog.unpublished):
        yield f"unpublished.{i}", u


def test_the_live_project_validates():
    r = guide("validate", cwd=REPO)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    count = len(list(LIVE_SCENARIOS.glob("*.yaml")))
    ok, *notes = r.stdout.splitlines()
    assert ok == f"ok: data/ and {count} scenario(s) are valid."
    assert len(notes) <= 1 and all(n.startswith("note: ") for n in notes), notes  # stale prices, as the calendar goes


def test_only_older_figures_and_chip_specifications_may_be_undated(live_catalog: Catalog):
    # A source that shows no date (as_of null) may back figures kept for the record, and a chip's
    # specification from a vendor page that shows none; never a price or an instance's figure in use.
    undated = [what for what, f in _cited(live_catalog)
               if f.as_of is None and ".alternatives." not in what and not what.startswith("chips.")]
    assert not undated, f"only older figures (alternatives) and chip specifications may be undated: {undated}"
    for what, f in _cited(live_catalog):
        if f.as_of is None:
            assert live_catalog.sources[f.source].as_of is None, f"{what} is undated but {f.source} shows a date"


def test_every_source_a_reader_can_check_has_an_address(live_catalog: Catalog):
    # Seed documents and the guide's own assumptions have no public address; a source that claims to
    # be primary, or an aggregator of primary data, must be linkable.
    missing = [k for k, s in live_catalog.sources.items() if s.kind in ("primary", "aggregator") and not s.url]
    assert not missing
    assert all(s.url.startswith("https://") for s in live_catalog.sources.values() if s.url)


def test_every_instance_has_a_price_or_says_none_is_published(live_catalog: Catalog):
    # A gap must be explicit: an instance with neither a price nor an `unpublished` entry would show
    # on the prices page as "not sold on demand", which no source says.
    silent = [iid for iid in live_catalog.instances
              if not any(p.instance == iid for p in live_catalog.prices) and not live_catalog.unpublished_for(iid)]
    assert not silent


def test_every_spot_pool_of_a_tracked_instance_has_a_dated_price_or_says_it_is_not_priced(live_catalog: Catalog):
    # Every region an EC2 instance type is sold in: a spot price with its source and date, or an `unpublished`
    # spot entry (for the region, or for every region) saying no source gives one, also dated. Never both.
    from generator.model.catalog import INSTANCE_TYPE

    silent, both = [], []
    for iid, inst in live_catalog.instances.items():
        if not INSTANCE_TYPE.match(iid):
            continue
        for region in inst.regions.value:
            priced = live_catalog.price(iid, region, "spot") is not None
            said = any(u.option == "spot" and u.region in (None, region) for u in live_catalog.unpublished_for(iid))
            (silent if not (priced or said) else both if priced and said else []).append((iid, region))
    assert silent == [] and both == []


def test_trainium3_speeds_cover_every_trainium_chip_sold_and_keep_vendor_claims_apart(live_catalog: Catalog):
    # The Trainium3 price to beat needs a speed over each chip a priced Trainium instance has; the range is
    # the guide's own, and a vendor's claim is never mixed into it.
    speed = live_catalog.assumptions.trainium3
    assert speed is not None
    sold = {live_catalog.instances[p.instance].chip for p in live_catalog.prices
            if p.offered and live_catalog.instances[p.instance].side == "trainium"} - {"trainium3"}
    assert sold and sold <= set(speed.per_chip)
    assert {live_catalog.sources[f.source].kind for f in speed.per_chip.values()} == {"assumption"}
    assert all(live_catalog.sources[c.source].kind == "vendor-positioning" for c in speed.vendor_claims.values())
    assert set(speed.vendor_claims) <= set(speed.per_chip)


def test_every_neuron_release_and_training_path_is_sourced_and_dated_as_its_source(live_catalog: Catalog):
    # How Neuron trains on each generation comes from AWS's own pages (Hugging Face's for its own
    # library), each dated as its source shows; every Trainium generation has at least one path.
    n = live_catalog.neuron
    assert n is not None and n.current in n.releases
    for what, f in [*((f"releases.{k}", r) for k, r in n.releases.items()), *((f"paths.{k}", p) for k, p in n.paths.items())]:
        source = live_catalog.sources[f.source]
        assert source.kind == "primary" and f.as_of == source.as_of, what
    trainium = {i.chip for i in live_catalog.instances.values() if i.side == "trainium"}
    assert trainium and all(n.on(chip) for chip in trainium)


def test_a_capacity_block_rate_is_never_filed_as_on_demand(live_catalog: Catalog):
    # The same instance, region and rate under both options means one figure filed twice, as the
    # trn2.48xlarge Capacity Block rate once was; a refresh must keep them apart.
    blocks = {(p.instance, p.region, p.point) for p in live_catalog.prices if p.option == "capacity-block" and p.offered}
    twins = [p for p in live_catalog.prices if p.option == "on-demand" and p.offered and (p.instance, p.region, p.point) in blocks]
    assert not twins


def _render_everything(root: Path, today: dt.date) -> dict[str, str]:
    """Every generated page and every hand-written page with `figures: true`, rendered from root."""
    project = load_project(root)
    renderer = Renderer(project, today=today)
    pages = dict(renderer.render().pages)
    for path in sorted((REPO / "docs").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        m = FRONT_MATTER.match(text)
        if m and re.search(r"^figures:\s*true\s*$", m.group(1), re.M):
            pages[path.relative_to(REPO / "docs").as_posix()] = render_markdown_page(renderer, text[m.end():])
    return pages


def test_every_page_renders_from_the_live_data(tmp_path: Path):
    root = tmp_path / "live"
    shutil.copytree(LIVE_DATA, root / "data")
    shutil.copytree(LIVE_SCENARIOS, root / "scenarios")
    pages = _render_everything(root, TODAY)
    assert {"prices.md", "sources.md", "calculator.md", "methodology.md"} <= set(pages)
    # Every instance in the live catalog is on the prices page.
    for iid in load_catalog(root / "data").instances:
        assert f'data-instance="{iid}"' in pages["prices.md"], iid


def _first_on_demand(text: str) -> tuple[str, str]:
    """The first one-line on-demand entry of prices.yaml, and the same line moved up 1 % and dated today."""
    for line in text.splitlines():
        m = re.match(r"(\s*- \{instance: \S+, region: \S+, option: on-demand, usd_per_hour: )([0-9.]+)(, source: \S+, as_of: )(\d{4}-\d\d-\d\d)", line)
        if m:
            moved = f"{m[1]}{round(float(m[2]) * 1.01, 6)}{m[3]}{TODAY.isoformat()}"
            return line, line.replace(m[0], moved, 1)
    raise AssertionError("no one-line on-demand entry in data/prices.yaml")


@pytest.mark.slow
def test_a_one_percent_refresh_dated_today_and_a_new_scenario_leave_everything_valid(tmp_path: Path):
    root = tmp_path / "refreshed"
    shutil.copytree(LIVE_DATA, root / "data")
    shutil.copytree(LIVE_SCENARIOS, root / "scenarios")
    prices = root / "data" / "prices.yaml"
    text = prices.read_text(encoding="utf-8")
    old, new = _first_on_demand(text)
    prices.write_text(text.replace(old, new, 1), encoding="utf-8")
    # A new scenario as a contributor would add it: a valid file under a new name.
    base = sorted(LIVE_SCENARIOS.glob("*.yaml"))[0]
    added = root / "scenarios" / "zz-live-data-drill.yaml"
    scenario = YAML(typ="rt").load(base.read_text(encoding="utf-8"))
    added.write_text(base.read_text(encoding="utf-8").replace(scenario["title"], "A refresh drill", 1), encoding="utf-8")

    r = guide("validate", cwd=root, env={"GUIDE_TODAY": TODAY.isoformat()})
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert r.stdout.splitlines()[0] == f"ok: data/ and {len(list(LIVE_SCENARIOS.glob('*.yaml'))) + 1} scenario(s) are valid."
    pages = _render_everything(root, TODAY)
    assert "scenarios/zz-live-data-drill.md" in pages
    assert TODAY.isoformat() in pages["prices.md"]  # the refreshed figure is shown with its new date
