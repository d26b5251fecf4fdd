"""What a lone build (`mkdocs build`, `guide generate`) lets go of as it goes, so that a cold build at
3,000 scenarios stays under 1 GiB beside its image workers (benchmarks/README.md), and what
`mkdocs serve`, whose next build reuses them, keeps."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import vl_convert as vlc

from generator.rendering.generate import generate
from generator.rendering.embeds.folders import StoredText
from generator.store.cachefile import Cache

URL = "https://example.test/guide/"
DAY = dt.date(2026, 11, 21)


def _engine_refused(monkeypatch) -> None:
    """vl-convert's JavaScript engine made unusable in this process only: a spawned worker imports its own."""
    def refused(*args, **kwargs):
        raise AssertionError("vl-convert's JavaScript engine ran in the build's own process")

    monkeypatch.setattr(vlc, "vegalite_to_vega", refused)
    monkeypatch.setattr(vlc, "javascript_bundle", refused)


def test_a_lone_build_compiles_its_charts_and_bundles_the_runtime_in_a_process_of_its_own(
        two_scenario_project: Path, tmp_path: Path, monkeypatch):
    _engine_refused(monkeypatch)
    made = generate(two_scenario_project, Cache(tmp_path / "cache", between_builds=False), URL, DAY, None)
    assert made.site.embeds and all(f.job is not None and '"$schema":"https://vega.github.io/schema/vega/' in f.job.spec
                                    for f in made.site.embeds)
    assert made.renderer.calculator_chart.startswith("{") and "window.vega" in "".join(made.assets.values())


def test_under_serve_the_engine_runs_in_the_serving_process(two_scenario_project: Path, tmp_path: Path, monkeypatch):
    _engine_refused(monkeypatch)
    with pytest.raises(AssertionError, match="build's own process"):
        generate(two_scenario_project, Cache(tmp_path / "cache", between_builds=True), URL, DAY, None)


def test_a_lone_build_holds_each_text_file_as_where_it_stored_it(two_scenario_project: Path, tmp_path: Path):
    lone_cache = Cache(tmp_path / "lone", between_builds=False)
    lone = generate(two_scenario_project, lone_cache, URL, DAY, None)
    served = generate(two_scenario_project, Cache(tmp_path / "served", between_builds=True), URL, DAY, None)
    lone_files = [*lone.site.embeds, *(p.files for p in lone.site.published)]
    served_files = {f.chart_id: f for f in [*served.site.embeds, *(p.files for p in served.site.published)]}
    assert len(lone_files) == len(served_files) > 2
    for f in lone_files:
        made = served_files[f.chart_id].texts
        assert all(isinstance(text, str) for text in made.values()), "serve keeps its texts for the next build"
        assert set(f.texts) == set(made)
        for path, text in f.texts.items():
            assert isinstance(text, StoredText), path
            # What the cache holds, and what the site links, is the text made.
            assert text.file(lone_cache).read_text(encoding="utf-8") == made[path], path
            assert lone.linked[path].read_text(encoding="utf-8") == made[path], path


@pytest.mark.parametrize("command", ["build", "serve"])
def test_each_page_lets_go_of_its_html_once_written_and_a_lone_build_of_its_markdown_once_read(
        command: str, two_scenario_project: Path, tmp_path: Path, monkeypatch):
    # MkDocs' build, in this process, with its files caught as MkDocs lists them.
    from mkdocs.commands import build as mkdocs_build
    from mkdocs.config import load_config

    from generator.plugin.files import GeneratedFile

    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GUIDE_IMAGES", "0")
    monkeypatch.chdir(two_scenario_project)
    listed = []
    get_files = mkdocs_build.get_files
    monkeypatch.setattr(mkdocs_build, "get_files", lambda config: listed.append(get_files(config)) or listed[-1])
    site = tmp_path / "site"
    config = load_config("mkdocs.yml", site_dir=str(site))
    config.plugins.on_startup(command=command, dirty=False)
    try:
        mkdocs_build.build(config)
    finally:
        config.plugins.on_shutdown()
    pages = [f for f in listed[0].documentation_pages() if f.page is not None]
    generated = [f for f in pages if isinstance(f, GeneratedFile)]
    scenario = next(f for f in generated if f.src_uri.startswith("scenarios/") and f.src_uri != "scenarios/index.md")
    assert "<h1" in (site / scenario.dest_uri).read_text(encoding="utf-8")
    assert len(generated) > 2 and len(pages) > len(generated)
    for f in pages:
        assert f.page.content is None and f.page.markdown == "", f.src_uri
        assert f.page.title, f.src_uri  # what later pages' navigation names it by
    if command == "build":
        assert all(f.content_string == "" for f in generated)
    else:  # the next save compares each page's Markdown with this build's
        assert all(f.content_string.strip() for f in generated)
