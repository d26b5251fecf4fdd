"""Scenario pages remembered from an earlier build come back exactly as rendering them again would
give, and anything they are made from, changed, renders them afresh."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from generator.loader import load_project
from generator.rendered import RenderedScenarios
from generator.site import Renderer

REPO = Path(__file__).resolve().parents[1]
FROZEN = REPO / "tests" / "fixtures" / "project"  # behaviour tests read the frozen data/ and scenarios/
DAY = dt.date(2026, 11, 21)
URL = "https://example.org/guide/"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for part in ("scenarios", "data"):
        shutil.copytree(FROZEN / part, tmp_path / part)
    return tmp_path


def render(root: Path, cache: Path, url: str = URL, day: dt.date = DAY):
    project = load_project(root)
    rendered = RenderedScenarios(cache, root, root / "data", url, day)
    return Renderer(project, site_url=url, today=day, rendered=rendered).render()


def test_a_second_render_from_the_cache_gives_the_same_pages_charts_and_embed_files(root: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    first = render(root, cache)
    entries = sorted(cache.glob("*.json"))
    assert len(entries) == len(list((root / "scenarios").glob("*.yaml")))
    second = render(root, cache)
    assert second.pages == first.pages
    assert second.charts == first.charts
    assert second.embeds == first.embeds
    # It really read the cache: an entry altered by hand shows through.
    entries[0].write_text(entries[0].read_text(encoding="utf-8").replace("## Workload 1", "## (cached) Workload 1", 1), encoding="utf-8")
    third = render(root, cache)
    assert sum("## (cached) Workload 1" in page for page in third.pages.values()) == 1


@pytest.mark.parametrize("change", ["scenario", "data", "day", "site_url"])
def test_a_change_to_what_a_page_is_made_from_renders_it_again(root: Path, tmp_path: Path, change: str):
    cache = tmp_path / "cache"
    first = render(root, cache)
    url, day = URL, DAY
    scenario = sorted((root / "scenarios").glob("*.yaml"))[0]
    page = f"scenarios/{scenario.stem}.md"
    if change == "scenario":
        text = scenario.read_text(encoding="utf-8")
        scenario.write_text(text.replace("title: \"", "title: \"Changed: ", 1), encoding="utf-8")
    elif change == "data":
        with (root / "data" / "assumptions.yaml").open("a", encoding="utf-8") as f:
            f.write("\n# a comment changes no number, but the file is part of every key\n")
    elif change == "day":
        day = DAY + dt.timedelta(days=400)  # every price is stale by then
    else:
        url = "https://example.com/elsewhere/"
    fresh = render(root, tmp_path / "empty", url, day)
    again = render(root, cache, url, day)
    assert again.pages == fresh.pages
    assert again.embeds == fresh.embeds
    if change != "data":
        assert again.pages[page] != first.pages[page]


def test_a_broken_entry_only_costs_time(root: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    first = render(root, cache)
    for i, entry in enumerate(sorted(cache.glob("*.json"))):
        entry.write_text(["", "{", '{"page": 1}', "[]"][i % 4], encoding="utf-8")
    assert render(root, cache).pages == first.pages
