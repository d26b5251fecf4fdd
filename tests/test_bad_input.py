"""Input a contributor may well write, golden-tested end to end: the build either fails with a
located message (see tests/malformed/ for impossible dates, bidi overrides and limits) or the page
renders correctly; never something in between."""

from __future__ import annotations

import html
import multiprocessing
import re
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
import vl_convert as vlc
import yaml
from site_support import copy_project, run_mkdocs_build

from generator.rendering.charts import images
from generator.model.schema import MODELINE

REPO = Path(__file__).resolve().parents[1]
TITLE = "Podcast 🎙 team, 𝟏𝟎 runs"
SUMMARY = "A summary 🎙 with an image ![x](javascript:window.__pwned=1) that must stay text."
WORKLOAD = "训练 تدريب 🎙 é"


@pytest.fixture(scope="module")
def beyond_bmp_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_project(tmp_path_factory.mktemp("beyond-bmp") / "project")
    for extra in (root / "scenarios").glob("*.yaml"):
        # one-off-run carries the text; the hand-written pages link to the other two.
        if extra.name not in ("one-off-run.yaml", "case-series-a-startup.yaml", "case-continuous-pretraining-trn1n.yaml"):
            extra.unlink()
    scenario = yaml.safe_load((root / "scenarios" / "one-off-run.yaml").read_text(encoding="utf-8"))
    scenario.update(title=TITLE, summary=SUMMARY)
    scenario["workloads"][0]["name"] = WORKLOAD
    text = MODELINE + "\n" + yaml.safe_dump(scenario, sort_keys=False, allow_unicode=True, width=1000)
    (root / "scenarios" / "one-off-run.yaml").write_text(text, encoding="utf-8")
    proc = run_mkdocs_build(root, root / "site-out", cache=root / ".cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root / "site-out"


@pytest.mark.slow
def test_a_title_and_summary_beyond_the_basic_plane_render_as_written(beyond_bmp_site: Path):
    page = (beyond_bmp_site / "scenarios" / "one-off-run" / "index.html").read_text(encoding="utf-8")
    title = re.search(r"<title>(.*?)</title>", page, re.S)[1]
    assert html.unescape(title).startswith(TITLE)
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S)[1]
    assert html.unescape(re.sub(r"<a class=\"headerlink\".*?</a>|<[^>]+>", "", h1)).strip() == TITLE
    description = re.search(r'<meta name="description" content="([^"]*)"', page)[1]
    assert html.unescape(description) == SUMMARY
    # The front matter was read as front matter: none of it reaches the page as text.
    assert '"description":"A summary' not in html.unescape(page).replace('": "', '":"')
    # And the escaping held: the summary's Markdown image is text, not an element.
    assert "javascript:" not in "".join(re.findall(r'<img[^>]*>', page))
    assert "![x](javascript:window.__pwned=1)" in html.unescape(page)


def _drawable_in_worker(svg: str) -> str:
    return images.drawable_svg(svg)


def test_pngs_write_what_the_bundled_font_cannot_draw_as_an_ellipsis():
    """Image workers see only Liberation Sans (generator/rendering/charts/fonts.conf): Chinese, Arabic and emoji
    would be boxes in a PNG. Latin, Greek and Cyrillic stay; each run of the others is one '…'."""
    svg = f"<svg><text>Cumulative cost: {WORKLOAD} Ж α → ok</text></svg>"
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                             initializer=images._only_bundled_fonts) as pool:
        drawn = pool.submit(_drawable_in_worker, svg).result()
    assert drawn == "<svg><text>Cumulative cost: … … … é Ж α → ok</text></svg>"


def _png(svg: str) -> bytes:
    return vlc.svg_to_png(svg, scale=images.PNG_SCALE)


@pytest.mark.slow
def test_the_chart_png_of_such_a_scenario_is_drawn_without_boxes(beyond_bmp_site: Path):
    """The chart's title names the scenario, so the SVG keeps the scenario's title as written (on as
    many lines as it needs); the PNG is what the same SVG gives with the title's undrawable runs (the
    emoji, the mathematical digits) written as '…' by hand here, not the boxes the raw SVG would give."""
    folder = beyond_bmp_site / "embed" / "one-off-run-1-cumulative"
    svg = (folder / "one-off-run-1-cumulative.svg").read_text(encoding="utf-8")
    title_lines = re.findall(r'<text[^>]*font-size="13px" font-weight="bold"[^>]*>([^<]*)</text>', svg)
    assert html.unescape(" ".join(title_lines)) == f"Cumulative cost: {TITLE}"
    by_hand = svg.replace("🎙", "…").replace("𝟏𝟎", "…")
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                             initializer=images._only_bundled_fonts) as pool:
        expected, with_boxes = pool.map(_png, [by_hand, svg])
    built = (folder / "one-off-run-1-cumulative.png").read_bytes()
    assert built == expected != with_boxes


def test_output_cut_short_by_the_reader_ends_quietly():
    """`guide evaluate --format json | head -1`: the reader closes the pipe before the command writes."""
    proc = subprocess.Popen([sys.executable, "-m", "generator", "--root", str(REPO), "evaluate", "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert err == "" and proc.returncode == 0
