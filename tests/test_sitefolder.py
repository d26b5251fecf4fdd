"""A build into the folder of an earlier build keeps that build's folders, and the embed files still
linked to the right cache file, and leaves exactly what a build into an empty folder leaves."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from site_support import build_into, run_mkdocs_build, site_hashes
from mkdocs.utils import clean_directory

from generator.rendering.embeds import folders as embeds
from generator.plugin.incremental import sitefolder


def _tree(site: Path) -> dict[str, str | None]:
    """Every file's text and every folder (None) under site, by path."""
    out: dict[str, str | None] = {}
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        out[rel] = None if path.is_dir() and not path.is_symlink() else path.read_text(encoding="utf-8")
    return out


def _write(site: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text, encoding="utf-8")


def test_the_last_builds_folders_are_kept_emptied_and_what_this_build_leaves_empty_goes(tmp_path: Path):
    cache = tmp_path / "cache"
    cache.mkdir()
    chart, changed = cache / "a.svg", cache / "b.svg"
    chart.write_text("chart a", encoding="utf-8")
    changed.write_text("chart b, rendered again", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the site's", encoding="utf-8")

    site = tmp_path / "site"
    _write(site, {
        "index.html": "old home",
        "scenarios/x/index.html": "old x",
        "scenarios/gone/index.html": "a scenario since removed",
        "embed/index.html": "old gallery",
        "embed/a/b.svg": "chart b as it was",
        "embed/stale/a.svg": "a chart since removed",
        ".git/HEAD": "the deploy branch's own",
    })
    (site / ".git" / "refs").mkdir()
    os.link(chart, site / "embed" / "a" / "a.svg")
    (site / "scenarios" / "x" / "elsewhere").symlink_to(outside, target_is_directory=True)
    folder = (site / "scenarios" / "x").stat().st_ino
    linked_before = (site / "embed" / "a" / "a.svg").stat().st_ino

    sitefolder.put_aside(site)
    clean_directory(str(site))  # what MkDocs does next
    linked = {"embed/a/a.svg": chart, "embed/a/b.svg": changed, "embed/c/a.svg": chart}
    missing = sitefolder.put_back(site, linked)
    assert missing == {"embed/a/b.svg": changed, "embed/c/a.svg": chart}
    # This build's pages and links.
    _write(site, {"index.html": "new home", "scenarios/x/index.html": "new x", "embed/index.html": "new gallery"})
    embeds.link_into(site, missing)
    sitefolder.drop_empty(site)

    assert _tree(site) == {
        ".git": None,
        ".git/HEAD": "the deploy branch's own",
        ".git/refs": None,  # hidden, so not the build's: left as it is, empty or not
        "embed": None,
        "embed/a": None,
        "embed/a/a.svg": "chart a",
        "embed/a/b.svg": "chart b, rendered again",
        "embed/c": None,
        "embed/c/a.svg": "chart a",
        "embed/index.html": "new gallery",
        "index.html": "new home",
        "scenarios": None,
        "scenarios/x": None,
        "scenarios/x/index.html": "new x",
    }
    assert (site / "scenarios" / "x").stat().st_ino == folder  # kept, not made again
    assert (site / "embed" / "a" / "a.svg").stat().st_ino == linked_before == chart.stat().st_ino
    assert (site / "embed" / "a" / "b.svg").samefile(changed)
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "not the site's"  # a link is removed, never followed
    assert chart.read_text(encoding="utf-8") == "chart a"


@pytest.mark.slow
def test_a_build_into_an_earlier_builds_folder_makes_the_site_a_build_into_an_empty_one_makes(two_scenario_project: Path, tmp_path: Path, seed_cache):
    root, cache, site = two_scenario_project, seed_cache(tmp_path / "cache"), tmp_path / "site"
    first = sorted((root / "scenarios").glob("*.yaml"))[0]
    removed = root / "scenarios" / "case-removed-before-the-next-build.yaml"
    removed.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    build_into(root, site, cache)
    assert (site / "scenarios" / removed.stem / "index.html").is_file()
    # What the next build must not keep: a file in a page's folder, a folder of its own, an embed
    # file that is a copy rather than the cache's file, a stray one beside it, and a removed scenario.
    page = next((site / "scenarios").glob("*/index.html"))
    (page.parent / "notes.txt").write_text("left by hand", encoding="utf-8")
    (site / "scenarios" / "old-slug" / "deeper").mkdir(parents=True)
    svg = next((site / "embed").rglob("*-dark.svg"))
    copy = svg.read_bytes()
    svg.unlink()
    svg.write_bytes(copy.replace(b"</svg>", b"<!-- copied --></svg>"))
    (svg.parent / "stray.png").write_bytes(b"not a chart")
    removed.unlink()

    again = build_into(root, site, cache)
    fresh = build_into(root, tmp_path / "fresh", cache)
    assert site_hashes(site) == site_hashes(tmp_path / "fresh")
    folders = lambda s: sorted(p.relative_to(s).as_posix() for p in s.rglob("*") if p.is_dir())  # noqa: E731
    assert folders(site) == folders(tmp_path / "fresh")
    assert not (site / sitefolder.KEPT).exists()
    assert f"scenarios/{removed.stem}" not in folders(site)
    assert again.returncode == fresh.returncode == 0


@pytest.mark.slow
def test_a_build_that_fails_leaves_no_hidden_folder_in_the_site(two_scenario_project: Path, tmp_path: Path, seed_cache):
    root, cache, site = two_scenario_project, seed_cache(tmp_path / "cache"), tmp_path / "site"
    build_into(root, site, cache)
    scenario = sorted((root / "scenarios").glob("*.yaml"))[0]
    scenario.write_text(scenario.read_text(encoding="utf-8").replace("title:", "title: [unclosed", 1), encoding="utf-8")
    failed: subprocess.CompletedProcess[str] = run_mkdocs_build(root, site, cache=cache)
    assert failed.returncode != 0
    assert "Invalid scenario or data files" in failed.stdout, failed.stdout
    assert not (site / sitefolder.KEPT).exists()
