"""What the plugin adds to the pages MkDocs makes: each page's unfurl tags, and, once the pages are
made, each page's Markdown beside its HTML with `llms.txt` and `llms-full.txt`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

from generator.plugin.incremental.build import PageRecord
from generator.rendering import published, unfurl

if TYPE_CHECKING:
    from generator.rendering.build import Generated


def unfurl_tags(page: Page, config: MkDocsConfig, made: Generated, site_url: str, images: bool) -> str:
    """The page's Open Graph and Twitter card tags: the generator's card for a page it made one
    for (a scenario's), the site card with the page's title and description for any other."""
    card = made.site.unfurls.get(page.file.src_uri)
    if card is None:
        # As Material titles and describes the page.
        title = page.meta.get("title") or (config.site_name if page.is_homepage else page.title) or config.site_name
        description = page.meta.get("description") or config.site_description or ""
        card = unfurl.page(str(title), str(description), page.url, homepage=page.is_homepage)
    return unfurl.tags(made.renderer.unfurl_env, card, site_url, config.site_name, image=images)


def write_markdown(site: Path, config: MkDocsConfig, made: Generated, site_url: str, nav, pages: Mapping[str, PageRecord],
                   *, dirty: bool) -> None:
    """Each page's Markdown beside its HTML, and llms.txt and llms-full.txt listing every page in the
    order of the navigation, then the scenarios (whose own files `embeds.build` linked). Published
    Markdown the cache could not store (a read-only cache) is written here too: handed to MkDocs, a
    `.md` file would be built as a page. Raises OSError."""
    listed = [replace(p, markdown=(pages[p.path].markdown if p.path in pages else None) or "") for p in nav_pages(nav)]
    for path, text in made.texts.items():
        if path.endswith(".md"):
            (site / path).parent.mkdir(parents=True, exist_ok=True)
            (site / path).write_text(text, encoding="utf-8")
    for path, record in pages.items():
        markdown = record.markdown
        if markdown is None or (dirty and record.written is markdown):
            continue  # `mkdocs serve --dirty` did not convert the page again: its file is as written
        dest = site / published.markdown_path(path)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(markdown, encoding="utf-8")
        record.written = markdown
    summary = config.site_description or ""
    scenarios = made.site.published
    (site / published.LLMS).write_text(published.llms_txt(
        config.site_name, summary, site_url, listed, scenarios, made.renderer.project.catalog.latest_as_of()), encoding="utf-8")
    (site / published.LLMS_FULL).write_text(
        published.llms_full(config.site_name, summary, site_url, listed, scenarios), encoding="utf-8")


def nav_pages(nav, section: str = "Guide") -> list[published.PageInfo]:
    """The navigation's pages in its order, each with the title of the section it sits in."""
    out: list[published.PageInfo] = []
    for item in getattr(nav, "items", nav) or ():
        if getattr(item, "is_section", False):
            out += nav_pages(item.children, item.title or section)
        elif getattr(item, "is_page", False):
            meta = item.meta or {}
            out.append(published.PageInfo(item.file.src_uri, item.title or meta.get("title") or item.file.src_uri,
                                          str(meta.get("description") or ""), section))
    return out
