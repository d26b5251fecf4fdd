"""What the plugin adds to the site MkDocs makes: the site URL the generated files carry (mkdocs.yml's,
under serve too), each page's raw HTML blocks kept out of Markdown's way, its unfurl tags (and
`generator.THEME`'s `main.html`, added to the theme's templates, which puts them in its `<head>`),
and once the pages are written the chart images and embed files linked from the cache, each
non-scenario page's Markdown (as its figures filled it in, stored in the cache by what it is made
from), `llms.txt` and `llms-full.txt` (under serve, by `after_reload.py`)."""

from __future__ import annotations

import functools
import hashlib
import logging
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort
from mkdocs.structure.pages import Page

from generator import THEME
from generator.plugin.failures import failed, link_failed
from generator.plugin.incremental.layer import Layer
from generator.plugin.page_record import PageRecord
from generator.rendering.pages import passthrough
from generator.rendering.published import llms as published
from generator.rendering.embeds import unfurl
from generator.rendering.charts.images import Images
from generator.store import html_cache
from generator.store.cachefile import Cache

if TYPE_CHECKING:
    from generator.plugin.one_build import OneBuild
    from generator.rendering.generate import Generated

log = logging.getLogger("mkdocs.plugins.guide")

class PublishedUrl:
    """The site URL the generated pages, embed files and images carry. `mkdocs serve` puts the dev
    server's address in site_url; the generator keeps the one mkdocs.yml names, so a preview reuses
    what `mkdocs build` cached (the images print the URL) and its embed snippets show where the site
    is published."""

    def __init__(self) -> None:
        self._read: tuple[bytes, str] | None = None  # mkdocs.yml as last read, and its site URL

    def of(self, config: MkDocsConfig, text: bytes, *, serving: bool) -> str:
        """text: mkdocs.yml as this build read it."""
        if not serving:
            return config.site_url or ""
        from mkdocs.utils.yaml import yaml_load

        # Parsed again only when mkdocs.yml changed.
        if self._read is None or self._read[0] != text:
            with open(config.config_file_path, "rb") as f:
                url = yaml_load(f).get("site_url") or ""
            self._read = (text, url if not url or url.endswith("/") else url + "/")
        return self._read[1]


def fold_edit_url(page: Page) -> None:
    """MkDocs joins edit_uri and a generated file's `../source` as text; fold the "docs/../" it leaves."""
    if page.edit_url and "/../" in page.edit_url:
        parts = urlsplit(page.edit_url)
        page.edit_url = urlunsplit(parts._replace(path=posixpath.normpath(parts.path)))


def hold_back(page: Page, markdown: str, record: PageRecord) -> str:
    """A page's Markdown as Markdown is to convert it: what its published Markdown is made from noted
    (a scenario's is published with its page), the raw HTML blocks Markdown would mangle held back
    (passthrough)."""
    if not html_cache.scenario_page(page.file.src_uri):
        record.unpublished = (markdown, page.file.src_uri)
    markdown, record.held = passthrough.split(markdown)
    return markdown


def published_markdown(record: PageRecord, site_url: str, cache: Cache) -> str | None:
    """A page's Markdown as published beside it, made when first asked for: a build writes it once
    its pages are written, `mkdocs serve` once they are served (the embed gallery's is 12 MB at three
    thousand scenarios). cache: where it is kept by what it is made from; saying a page's HTML in
    Markdown is most of a warm build's own work at a thousand scenarios."""
    if record.unpublished is not None:
        markdown, page = record.unpublished
        record.markdown, record.unpublished = _stored_markdown(markdown, page, site_url, cache), None
    return record.markdown


def _stored_markdown(markdown: str, page: str, site_url: str, cache: Cache) -> str:
    own = {"page": page, "site_url": site_url, "markdown": hashlib.sha256(markdown.encode("utf-8")).hexdigest()}
    path = cache.names("published", suffix=".md").path(own)
    body = cache.read_checked(path)
    if body is not None:
        return body.decode("utf-8")
    text = published.page_markdown(markdown, page, site_url)
    cache.store(path, text)
    return text


def put_back(page: Page, html: str, record: PageRecord) -> str:
    """The page's HTML with the blocks `hold_back` held back, whose anchors it then has."""
    blocks, record.held = record.held, []
    if blocks:
        html = passthrough.join(html, blocks)
        page.present_anchor_ids = (page.present_anchor_ids or set()) | passthrough.anchors(blocks)
    return html


def add_templates(config: MkDocsConfig) -> None:
    """THEME's templates, after a custom_dir, whose templates override the theme's and these alike."""
    if str(THEME) not in config.theme.dirs:
        config.theme.dirs.insert(1 if config.theme.custom_dir else 0, str(THEME))


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


def join_site(site: Path, config: MkDocsConfig, build: OneBuild, images: Images | None, cache: Cache,
              incremental: Layer, pages: Mapping[str, PageRecord], *, dirty: bool,
              later: Callable[[Callable[[], None]], None] | None = None) -> None:
    """Once MkDocs has written the pages: the chart images, which render in worker processes while
    the pages are built, and the embed files stored beside them, linked into the site; each page's
    Markdown and llms.txt written, by later where it is given (`after_reload`). images: the build's,
    which it no longer holds (a failure here does not cancel them)."""
    made = build.made
    assert made is not None, "the generator runs before the site is joined"
    if images is not None:
        try:
            images.wait()
        except Exception as e:  # a renderer crash: say which build step failed, not a worker traceback
            incremental.stop_linking(quietly=True)
            raise Abort(f"Rendering the chart images failed: {e}") from None
    incremental.stop_linking()
    try:
        incremental.link(site, build.linked, cache)
    except OSError as e:
        raise link_failed(e) from None
    incremental.drop_empty(site)
    write = functools.partial(_write_published, site, config, made, build.published, build.nav, pages, dirty, cache)
    if later is None:
        write()
    else:
        later(write)
    if images is not None:
        images.record_rendered()
        images.close()
        log.info("guide: embed images: %d charts rendered, %d from the cache", images.rendered, images.cached)
    else:
        log.info("guide: no chart images (the plugin's images option is off)")


def _write_published(site: Path, config: MkDocsConfig, made: Generated, site_url: str, nav, pages: Mapping[str, PageRecord],
                     dirty: bool, cache: Cache) -> None:
    try:
        write_markdown(site, config, made, site_url, nav, pages, dirty=dirty, cache=cache)
    except OSError as e:
        raise failed("Writing the pages' Markdown and llms.txt into the site folder", e) from None


def write_markdown(site: Path, config: MkDocsConfig, made: Generated, site_url: str, nav, pages: Mapping[str, PageRecord],
                   *, dirty: bool, cache: Cache) -> None:
    """Each page's Markdown beside its HTML, and llms.txt and llms-full.txt listing every page in the
    order of the navigation, then the scenarios (whose own files `embeds.embed_files` linked). Published
    Markdown the cache could not store (a read-only cache) is written here too: handed to MkDocs, a
    `.md` file would be built as a page. Raises OSError."""
    listed = [replace(p, markdown=(published_markdown(pages[p.path], site_url, cache) if p.path in pages else None) or "") for p in nav_pages(nav)]
    for path, text in made.texts.items():
        if path.endswith(".md"):
            (site / path).parent.mkdir(parents=True, exist_ok=True)
            (site / path).write_text(text, encoding="utf-8")
    for path, record in pages.items():
        markdown = published_markdown(record, site_url, cache)
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
