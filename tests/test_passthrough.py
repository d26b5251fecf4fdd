"""Raw HTML blocks that skip Markdown (generator/passthrough.py) make the page Markdown would make."""

from __future__ import annotations

import datetime as dt
import html
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from conftest import PAYLOADS, UNTRUSTED_ID, BuiltSite
from mkdocs.config import load_config

from generator import embeds, passthrough
from generator.build import generate

MARKED = ("scenarios/index.md", "embed.md")


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(v for k, v in attrs if k == "id" and v is not None)


def _body(page: str) -> str:
    return page.split("\n---\n", 1)[1] if page.startswith("---\n") else page


@pytest.fixture
def pages(two_scenario_project: Path, tmp_path: Path) -> dict[str, str]:
    images = embeds.Images(tmp_path / "cache" / "embeds", render=False)
    made = generate(two_scenario_project, tmp_path / "cache", "https://example.test/guide/", dt.date(2026, 11, 21), images)
    return {page: _body(made.site.pages[page]) for page in MARKED}


@pytest.mark.parametrize("page", MARKED)
def test_a_page_with_its_blocks_held_out_converts_to_what_markdown_makes_of_the_whole(pages, two_scenario_project: Path, page):
    config = load_config(str(two_scenario_project / "mkdocs.yml"))

    def convert(text: str) -> str:
        return markdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"] or {}).convert(text)

    text = pages[page]
    held, blocks = passthrough.split(text)
    assert len(blocks) == 1 and len(held) < len(text) / 2  # the page's bulk is the block
    whole = text.replace(passthrough.START + "\n", "").replace("\n" + passthrough.END, "")
    assert passthrough.join(convert(held), blocks) == convert(whole)
    ids = _Ids()
    ids.feed("\n".join(blocks))
    assert passthrough.anchors(blocks) == ids.ids
    if page == "embed.md":
        assert len(ids.ids) >= 2  # a section per chart, each linkable


def test_a_scenario_title_that_spells_a_placeholder_stays_text(untrusted_site: BuiltSite):
    index = (untrusted_site.site / "scenarios" / "index.html").read_text(encoding="utf-8")
    assert "<!-- guide:html" not in index
    assert html.escape(PAYLOADS["placeholder"], quote=False) in index
    rows = index.split("<tbody>", 1)[1].split("</tbody>", 1)[0].count("<tr ")
    assert rows == len(list((untrusted_site.root / "scenarios").glob("*.yaml")))
    assert f'data-scenario="{UNTRUSTED_ID}"' in index
