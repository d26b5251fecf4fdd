"""The guide as a MkDocs plugin: its options in mkdocs.yml decide the build, the environment
variables override them for one build, and a wrong option stops the build in one line."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from site_support import copy_project, copy_two_scenario_project, missing_targets

from generator.commands import siteconfig
from generator.inputs import options as guide_options
from generator.plugin import config

REPO = Path(__file__).resolve().parents[1]


def _with_options(root: Path, options: str) -> None:
    config = root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    start = text.index("  - guide:\n")
    end = text.index("\nmarkdown_extensions:", start)
    config.write_text(text[:start] + "  - guide:\n" + options + text[end:], encoding="utf-8")


def _build(root: Path, out: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("GUIDE_CACHE_DIR", "GUIDE_TODAY", "GUIDE_CACHE_MAX_MB", "GUIDE_IMAGES")}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=root,
                          env={**clean, "NO_MKDOCS_2_WARNING": "1", **env}, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def optioned_project(tmp_path_factory) -> Path:
    """The two scenarios the prose links to, with the cache folder and the day set in mkdocs.yml."""
    root = copy_two_scenario_project(tmp_path_factory.mktemp("plugin") / "project")
    _with_options(root, "      cache_dir: build-cache\n      today: 2026-11-21\n")
    return root


def _stale_note_day(site: Path) -> set[str]:
    pages = [p.read_text(encoding="utf-8") for p in (site / "scenarios").glob("*/index.html")]
    return {part.split('"', 1)[0] for page in pages for part in page.split('data-today="')[1:]}


@pytest.mark.slow
def test_options_in_mkdocs_yml_decide_the_cache_folder_and_the_day(optioned_project: Path, tmp_path: Path):
    proc = _build(optioned_project, tmp_path / "site")
    assert proc.returncode == 0, proc.stderr
    assert any((optioned_project / "build-cache" / "embeds").rglob("*.svg")), "the chart images go to the configured cache"
    assert _stale_note_day(tmp_path / "site") == {"2026-11-21"}


@pytest.mark.slow
def test_environment_variables_override_the_options(optioned_project: Path, tmp_path: Path):
    other = tmp_path / "other-cache"
    proc = _build(optioned_project, tmp_path / "site", GUIDE_CACHE_DIR=str(other), GUIDE_TODAY="2026-11-22")
    assert proc.returncode == 0, proc.stderr
    assert any((other / "embeds").rglob("*.svg"))
    assert _stale_note_day(tmp_path / "site") == {"2026-11-22"}


SITE_URL = "https://trainium-or-gpu.github.io/guide/"
IMAGE_FILES = ("*.svg", "*.png")


@pytest.fixture(scope="module")
def imageless(tmp_path_factory) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """The project's two scenarios the prose links to, built with `images: false`: (project, site, build)."""
    root = copy_two_scenario_project(tmp_path_factory.mktemp("imageless") / "project")
    _with_options(root, "      cache_dir: own-cache\n      today: 2026-11-21\n      images: false\n")
    site = root.parent / "site"
    return root, site, _build(root, site)


@pytest.mark.slow
def test_a_build_with_images_off_makes_none_and_names_none(imageless):
    root, site, proc = imageless
    assert proc.returncode == 0, proc.stderr
    assert "no chart images" in proc.stderr
    # No chart image and no card, in the site or in the cache (Material's favicon is the theme's own).
    made = [p.relative_to(site).as_posix() for pattern in IMAGE_FILES for p in site.rglob(pattern)]
    assert made == ["assets/images/favicon.png"]
    assert not [p for pattern in IMAGE_FILES for p in (root / "own-cache").rglob(pattern)]
    # Charts are still there to draw live, with their text files to embed and download.
    charts = list((site / "embed").glob("*/index.html"))
    assert len(charts) >= 4
    for page in charts:
        names = {p.name for p in page.parent.iterdir()}
        assert names == {"index.html", "oembed.json", *(f"{page.parent.name}{suffix}" for suffix in (".vl.json", ".vg.json", ".csv", ".metadata.json"))}
    scenario = (site / "scenarios" / "case-series-a-startup" / "index.html").read_text(encoding="utf-8")
    assert 'class="guide-chart__spec"' in scenario and "guide-chart__static" not in scenario
    # Nothing names what was not made: every address into the site is a file of it, no page or embed
    # page names a card, no oEmbed file a thumbnail.
    assert missing_targets(site, SITE_URL) == []
    html = [p.read_text(encoding="utf-8") for p in site.rglob("*.html")]
    assert not [t for t in html if "og:image" in t or "summary_large_image" in t]
    assert sum('<meta name="twitter:card" content="summary">' in t for t in html) > 20
    assert not [p for p in (site / "embed").rglob("oembed.json") if "thumbnail" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("address", ["scenarios/case-series-a-startup/", "embed/case-series-a-startup-1-cumulative/", "embed/"])
def test_without_images_the_charts_draw_live_unasked(address: str, imageless, browser, serve):
    # On a wide screen, where a chart with an image waits for the reader's pointer, a chart without
    # one is drawn as it comes near, so the reader never meets an empty box.
    root, site, proc = imageless
    assert proc.returncode == 0, proc.stderr
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(serve(site) + address, wait_until="load")
        chart = page.locator(".guide-chart__view, #chart").first
        chart.scroll_into_view_if_needed()
        # Lines, bars or points: the gallery opens with the site-wide charts, the price-performance one first.
        chart.locator("svg .mark-line, svg .mark-rect, svg .mark-symbol").first.wait_for(timeout=60_000)
        assert page.locator("img.guide-chart__static, #chart img").count() == 0
    finally:
        page.close()


@pytest.mark.slow
def test_the_images_option_is_overridden_for_one_build(optioned_project: Path, tmp_path: Path):
    proc = _build(optioned_project, tmp_path / "site", GUIDE_IMAGES="0", GUIDE_CACHE_DIR=str(tmp_path / "cache"))
    assert proc.returncode == 0, proc.stderr
    assert not list((tmp_path / "site" / "embed").rglob("*.svg"))
    assert missing_targets(tmp_path / "site", SITE_URL) == []
    wrong = _build(optioned_project, tmp_path / "site", GUIDE_IMAGES="maybe")
    assert wrong.returncode != 0
    assert "GUIDE_IMAGES must be 1 or 0 (got 'maybe')" in wrong.stdout + wrong.stderr
    assert "Traceback" not in wrong.stdout + wrong.stderr


@pytest.mark.parametrize(("value", "configured", "made"), [
    ("", True, True), ("", False, False), ("0", True, False), ("off", True, False), ("1", False, True), ("TRUE", False, True),
])
def test_guide_images_overrides_the_option(monkeypatch, value: str, configured: bool, made: bool):
    monkeypatch.setenv("GUIDE_IMAGES", value)
    assert guide_options.images(configured) is made


def _options(**values) -> config.GuideConfig:
    options = config.GuideConfig()
    options.load_dict(values)
    errors, _ = options.validate()
    assert errors == []
    return options


def test_the_options_read_every_guide_variable_in_place_of_its_option(tmp_path: Path, monkeypatch):
    for name in (guide_options.CACHE_DIR_ENV, guide_options.CACHE_MAX_MB_ENV, guide_options.TODAY_ENV, guide_options.IMAGES_ENV, guide_options.INCREMENTAL_ENV):
        monkeypatch.delenv(name, raising=False)
    written = _options(cache_dir="mine", cache_max_mb=64, today="2030-02-03", images=False, incremental=False)
    assert config.settings(written, tmp_path) == guide_options.Settings(tmp_path / "mine", 64, dt.date(2030, 2, 3), False, False)
    monkeypatch.setenv(guide_options.CACHE_DIR_ENV, str(tmp_path / "theirs"))
    monkeypatch.setenv(guide_options.CACHE_MAX_MB_ENV, "2.5")
    monkeypatch.setenv(guide_options.TODAY_ENV, "2031-04-05")
    monkeypatch.setenv(guide_options.IMAGES_ENV, "1")
    monkeypatch.setenv(guide_options.INCREMENTAL_ENV, "yes")
    assert config.settings(written, tmp_path) == guide_options.Settings(tmp_path / "theirs", 2.5, dt.date(2031, 4, 5), True, True)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("GUIDE_CACHE_MAX_MB", "lots", "GUIDE_CACHE_MAX_MB must be a number of megabytes, 0 or more (got 'lots')"),
    ("GUIDE_CACHE_MAX_MB", "-1", "GUIDE_CACHE_MAX_MB must be a number of megabytes, 0 or more (got '-1')"),
    ("GUIDE_TODAY", "tomorrow", "GUIDE_TODAY must be a date written YYYY-MM-DD (got 'tomorrow')"),
    ("GUIDE_IMAGES", "maybe", "GUIDE_IMAGES must be 1 or 0 (got 'maybe')"),
    ("GUIDE_INCREMENTAL", "later", "GUIDE_INCREMENTAL must be 1 or 0 (got 'later')"),
])
def test_a_wrong_guide_variable_is_refused_in_a_sentence(tmp_path: Path, monkeypatch, name: str, value: str, message: str):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError) as e:
        config.settings(_options(), tmp_path)
    assert str(e.value) == message


@pytest.mark.slow
@pytest.mark.parametrize(("options", "message"), [
    ("      cache_max_mb: lots\n", "cache_max_mb"),
    ("      today: someday\n", "today must be a date written YYYY-MM-DD (got 'someday')"),
    ("      cache_dir: data/cache\n", "must not be inside data/"),
    ("      images: sometimes\n", "images"),
    ("      colour: blue\n", "colour"),
])
def test_a_wrong_option_stops_the_build_in_a_sentence(tmp_path: Path, options: str, message: str):
    root = copy_project(tmp_path / "project")
    _with_options(root, options)
    proc = _build(root, tmp_path / "site")
    output = proc.stdout + proc.stderr  # MkDocs prints an aborted build's reason on standard output
    assert proc.returncode != 0
    assert message in output
    assert "Traceback" not in output
    assert not (root / "data" / "cache").exists()


def test_the_commands_read_the_site_url_and_the_options_without_mkdocs(tmp_path: Path):
    (tmp_path / "mkdocs.yml").write_text(
        "site_url: https://example.org/guide\n"
        "markdown_extensions:\n  - pymdownx.superfences:\n      custom_fences:\n"
        "        - name: math\n          format: !!python/name:generator.rendering.mathml.fence\n"
        "plugins:\n  - search\n  - guide:\n      cache_dir: elsewhere\n      cache_max_mb: 64\n      today: 2030-02-03\n",
        encoding="utf-8")
    assert siteconfig.read(tmp_path) == siteconfig.SiteConfig("https://example.org/guide/", "elsewhere", 64, "2030-02-03")
    (tmp_path / "mkdocs.yml").write_text("site_url: https://example.org/\nplugins:\n  - search\n", encoding="utf-8")
    assert siteconfig.read(tmp_path) == siteconfig.SiteConfig("https://example.org/")


def test_under_serve_the_generated_files_carry_the_site_url_mkdocs_yml_holds_as_it_changes(tmp_path: Path):
    from types import SimpleNamespace

    from generator.plugin.publishing import PublishedUrl

    config_file = tmp_path / "mkdocs.yml"
    config = SimpleNamespace(config_file_path=str(config_file), site_url="http://127.0.0.1:8000/guide/")  # as serve sets it
    url = PublishedUrl()
    config_file.write_text("site_name: x\nsite_url: https://example.org/guide\n", encoding="utf-8")
    assert url.of(config, config_file.read_bytes(), serving=True) == "https://example.org/guide/"
    assert url.of(config, config_file.read_bytes(), serving=True) == "https://example.org/guide/"
    config_file.write_text("site_name: x\nsite_url: https://example.org/elsewhere/\n", encoding="utf-8")
    assert url.of(config, config_file.read_bytes(), serving=True) == "https://example.org/elsewhere/"
    config_file.write_text("site_name: x\n", encoding="utf-8")
    assert url.of(config, config_file.read_bytes(), serving=True) == ""


def test_stored_pages_carry_the_urls_mkdocs_gives_a_page_of_their_own_path_and_site():
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import File
    from mkdocs.structure.pages import Page

    from generator.plugin.incremental.stored_page import StoredPage
    from generator.store.html_cache import Converted

    def config(site_url: str) -> MkDocsConfig:
        c = MkDocsConfig()
        c.load_dict({"site_name": "Guide", "site_url": site_url, "repo_url": "https://github.com/o/r",
                     "edit_uri": "edit/main/docs/", "docs_dir": str(REPO / "docs")})
        assert c.validate() == ([], [])
        return c

    def urls(page: Page) -> tuple:
        return page.canonical_url, page.abs_url, page.edit_url

    def file(c: MkDocsConfig, path: str) -> File:
        f = File(path, src_dir=None, dest_dir=c.site_dir, use_directory_urls=c.use_directory_urls)
        f.edit_uri = f"../{path.replace('.md', '.yaml')}"
        return f

    kept: dict[tuple, tuple] = {}
    stored = Converted({}, "<h1>A page</h1>", [], "A page", [])
    for site_url in ("https://example.org/guide/", "https://example.org/guide/", "https://example.com/other/"):
        c = config(site_url)
        for path in ("scenarios/a.md", "scenarios/b.md"):
            assert urls(StoredPage(file(c, path), c, "# A page\n", stored, kept)) == urls(Page(None, file(c, path), c))
    assert len(kept) == 6  # two canonical URLs a site, and the two edit URLs, asked for again


def _without_generator_tag(text: str) -> str:
    return re.sub(r'<meta name="generator" content="[^"]*">', "", text)


@pytest.mark.slow
def test_properdocs_builds_with_the_plugin_the_site_mkdocs_builds(built_site, tmp_path: Path):
    """ProperDocs, the maintained fork of MkDocs 1.x, runs the plugin and Material from the same
    mkdocs.yml: from the copy the MkDocs 1.6.1 site of the run was built from, with the same cache, it
    builds the same files, each page the same bytes but for the generator tag naming its builder."""
    out = tmp_path / "site"
    env = {**os.environ, "GUIDE_CACHE_DIR": str(REPO / ".cache")}  # the cache built_site was built with
    env.pop("NO_MKDOCS_2_WARNING", None)
    r = subprocess.run([sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", str(out)],
                       cwd=built_site.root, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "guide: " in r.stderr and "WARNING" not in r.stderr and "end of life" not in r.stderr + r.stdout
    mkdocs = {p.relative_to(built_site.site).as_posix() for p in built_site.site.rglob("*") if p.is_file()}
    assert {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} == mkdocs
    differing = []
    for name in sorted(mkdocs):
        ours, theirs = (out / name).read_bytes(), (built_site.site / name).read_bytes()
        if ours != theirs and not (name.endswith(".html") and _without_generator_tag(ours.decode()) ==
                                   _without_generator_tag(theirs.decode())):
            differing.append(name)
    assert differing == []
    assert 'content="mkdocs-ProperDocs 1.6.7' in (out / "index.html").read_text(encoding="utf-8")
