"""A page as Material's search plugin reads it. The search plugin indexes a page from its HTML in
`on_page_context`; the guide's plugin hands it, around that, only what a reader searches the page by
(`html_cache.searched`), or nothing where the page's stored file brings its stored search entries
instead, and puts the whole HTML back before the theme renders the page."""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

from generator.plugin.incremental.layer import Layer
from generator.plugin.page_record import PageRecord
from generator.store import html_cache


def before_search(context, page: Page, config: MkDocsConfig, record: PageRecord, incremental: Layer) -> None:
    """The page's HTML held aside in its record, and the part search is to read left in its place.
    context: the page's template context, with its unfurl tags (the stored file is checked against them)."""
    stored = incremental.stored_file(context, page)
    record.full = page.content or ""
    page.content = "" if stored else html_cache.searched(page.file.src_uri, page.content or "")
    if not stored:
        incremental.before_search(config, page)


def after_search(page: Page, config: MkDocsConfig, record: PageRecord, incremental: Layer) -> None:
    """The page's whole HTML put back; a stored page's search entries joined to the index, or what search
    indexed of a page to be stored kept with it."""
    full, record.full = record.full, None
    if full is not None:
        page.content = full
    incremental.after_search(config, page)
