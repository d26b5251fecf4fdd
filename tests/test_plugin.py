"""The guide as a MkDocs plugin: its options in mkdocs.yml decide the build, the environment
variables override them for one build, and a wrong option stops the build in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from site_support import copy_project

from generator.commands import siteconfig


def _with_options(root: Path, options: str) -> None:
    config = root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    start = text.index("  - guide:\n")
    end = text.index("\nmarkdown_extensions:", start)
    config.write_text(text[:start] + "  - guide:\n" + options + text[end:], encoding="utf-8")


def _build(root: Path, out: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("GUIDE_CACHE_DIR", "GUIDE_TODAY", "GUIDE_CACHE_MAX_MB")}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=root,
                          env={**clean, "NO_MKDOCS_2_WARNING": "1", **env}, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = copy_project(tmp_path_factory.mktemp("plugin") / "project")
    for extra in (root / "scenarios").glob("*.yaml"):
        if extra.name not in {"case-continuous-pretraining-trn1n.yaml", "case-series-a-startup.yaml"}:  # the prose links to both
            extra.unlink()
    _with_options(root, "      cache_dir: build-cache\n      today: 2026-11-21\n")
    return root


def _stale_note_day(site: Path) -> set[str]:
    pages = [p.read_text(encoding="utf-8") for p in (site / "scenarios").glob("*/index.html")]
    return {part.split('"', 1)[0] for page in pages for part in page.split('data-today="')[1:]}


@pytest.mark.slow
def test_options_in_mkdocs_yml_decide_the_cache_folder_and_the_day(project: Path, tmp_path: Path):
    proc = _build(project, tmp_path / "site")
    assert proc.returncode == 0, proc.stderr
    assert any((project / "build-cache" / "embeds").rglob("*.svg")), "the chart images go to the configured cache"
    assert _stale_note_day(tmp_path / "site") == {"2026-11-21"}


@pytest.mark.slow
def test_environment_variables_override_the_options(project: Path, tmp_path: Path):
    other = tmp_path / "other-cache"
    proc = _build(project, tmp_path / "site", GUIDE_CACHE_DIR=str(other), GUIDE_TODAY="2026-11-22")
    assert proc.returncode == 0, proc.stderr
    assert any((other / "embeds").rglob("*.svg"))
    assert _stale_note_day(tmp_path / "site") == {"2026-11-22"}


@pytest.mark.slow
@pytest.mark.parametrize(("options", "message"), [
    ("      cache_max_mb: lots\n", "cache_max_mb"),
    ("      today: someday\n", "today must be a date written YYYY-MM-DD (got 'someday')"),
    ("      cache_dir: data/cache\n", "must not be inside data/"),
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
