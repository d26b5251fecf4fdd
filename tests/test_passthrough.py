"""Raw HTML blocks that skip Markdown (generator/rendering/pages/passthrough.py) make the page Markdown would make.

Where a held block starts and ends (`split`): a line that is START to the first line after it that is END, each
marker a whole line. The tests marked slow render the project and convert its pages."""

from __future__ import annotations

import datetime as dt
import html
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from site_support import PAYLOADS, UNTRUSTED_ID, BuiltSite
from mkdocs.config import load_config

from generator.rendering.pages import passthrough
from generator.rendering.pages.passthrough import END, START, split
from generator.rendering.generate import generate
from generator.store.cachefile import Cache
from generator.rendering.charts.images import Images

SCENARIO_PAGE = "scenarios/case-continuous-pretraining-trn1n.md"  # the first of two_scenario_project's
MARKED = ("scenarios/index.md", "embed.md", SCENARIO_PAGE)


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(v for k, v in attrs if k == "id" and v is not None)


def _lines(html: str) -> list[str]:
    """The HTML's lines but blank ones: Markdown puts one blank line between two raw blocks or
    none, a held block keeps those the template wrote; a browser sees neither."""
    return [line for line in html.split("\n") if line.strip()]


def _body(page: str) -> str:
    return page.split("\n---\n", 1)[1] if page.startswith("---\n") else page


@pytest.fixture
def pages(two_scenario_project: Path, tmp_path: Path) -> dict[str, str]:
    cache = Cache(tmp_path / "cache")
    made = generate(two_scenario_project, cache, "https://example.test/guide/", dt.date(2026, 11, 21), Images(cache, render=False))
    return {page: _body(made.site.pages[page]) for page in MARKED}


@pytest.mark.slow
@pytest.mark.parametrize("page", MARKED)
def test_a_page_with_its_blocks_held_out_converts_to_what_markdown_makes_of_the_whole(pages, two_scenario_project: Path, page):
    config = load_config(str(two_scenario_project / "mkdocs.yml"))

    def convert(text: str) -> str:
        return markdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"] or {}).convert(text)

    text = pages[page]
    held, blocks = passthrough.split(text)
    assert blocks and len(held) < len(text) / 2  # the page's bulk is in blocks
    whole = text.replace(passthrough.START + "\n", "").replace("\n" + passthrough.END, "")
    assert _lines(passthrough.join(convert(held), blocks)) == _lines(convert(whole))
    ids = _Ids()
    ids.feed("\n".join(blocks))
    assert passthrough.anchors(blocks) == ids.ids


def test_the_ids_of_held_blocks_are_those_of_attributes_named_id():
    blocks = ['<section id="a-b" data-id="not-this">\n<h2\nid="on-a-new-line">x</h2></section>', '<p\tid="q&amp;a">y</p>id="bare"']
    assert passthrough.anchors(blocks) == {"a-b", "on-a-new-line", "q&a"}


@pytest.mark.slow
def test_the_gallery_holds_out_a_linkable_section_per_chart(pages):
    assert len(passthrough.anchors(passthrough.split(pages["embed.md"])[1])) >= 2


@pytest.mark.slow
def test_a_scenario_page_leaves_markdown_only_its_headings(pages):
    held, _ = passthrough.split(pages[SCENARIO_PAGE])
    assert "<table" not in held and "<figure" not in held
    assert {line.split(" ", 1)[0] for line in held.splitlines() if line.startswith("#")} == {"#", "##", "###"}


@pytest.mark.slow
def test_a_scenario_title_that_spells_a_placeholder_stays_text(untrusted_site: BuiltSite):
    index = (untrusted_site.site / "scenarios" / "index.html").read_text(encoding="utf-8")
    assert "<!-- guide:html" not in index
    assert html.escape(PAYLOADS["placeholder"], quote=False) in index
    rows = index.split("<tbody>", 1)[1].split("</tbody>", 1)[0].count("<tr ")
    assert rows == len(list((untrusted_site.root / "scenarios").glob("*.yaml")))
    assert f'data-scenario="{UNTRUSTED_ID}"' in index


S, E = START, END


@pytest.mark.parametrize(("markdown", "held", "blocks"), [
    (f"a\n{S}\n<p>1</p>\n{E}\nb", "a\n<!-- guide:html 0 -->\nb", ["<p>1</p>"]),
    (f"{S}\n<p>1</p>\n{E}", "<!-- guide:html 0 -->", ["<p>1</p>"]),
    (f"{S}\n\n{E}\n", "<!-- guide:html 0 -->\n", [""]),  # an empty block
    (f"{S}\n{E}", f"{S}\n{E}", []),  # END on the line START ends is not a line of its own
    (f"{S}\n\n<p>1</p>\n\n{E}", "<!-- guide:html 0 -->", ["<p>1</p>"]),  # blank lines at its edges go
    (f"{S}\n1\n{E}x\n2\n{E}", "<!-- guide:html 0 -->", [f"1\n{E}x\n2"]),  # END must end its line
    (f"x{S}\n1\n{E}", f"x{S}\n1\n{E}", []),  # START must start its line
    (f"{S}\n1\n", f"{S}\n1\n", []),  # never closed
    (f"{S}\n1\n{E}\n{S}\n2\n{E}", "<!-- guide:html 0 -->\n<!-- guide:html 1 -->", ["1", "2"]),
    (f"{S}\n1\n{S}\n2\n{E}\n{E}", f"<!-- guide:html 0 -->\n{E}", [f"1\n{S}\n2"]),  # the first END closes
    ("no markers", "no markers", []),
])
def test_a_block_runs_from_a_start_line_to_the_first_end_line(markdown, held, blocks):
    assert split(markdown) == (held, blocks)
