"""The files and pages the plugin hands MkDocs: generated files that know whether they changed, and
scenario pages whose HTML an earlier build converted."""

from __future__ import annotations

import functools
from collections.abc import Callable

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc

from generator.store.html_cache import Converted


class GeneratedFile(File):
    """A file the generator made. Under `mkdocs serve --dirty` MkDocs builds again only what
    `is_modified` says; MkDocs' own answer for generated content is always yes. Here it is yes when
    the content differs from what this process's last finished build wrote into the site folder,
    which the dev server alone writes: the file is taken to be there, as `Cache.settle` takes the
    links beside it, without a look at the disk (twice a page, some 6,000 stats a save at three
    thousand scenarios). A file removed from that folder by hand comes back with its next change."""

    changed = True

    def is_modified(self) -> bool:
        return self.changed


def always_modified(f: File) -> bool:
    """Bound onto a file as its is_modified when a change reaches every page."""
    return True


class StoredPage(Page):
    """A generated page whose HTML an earlier build converted from the same Markdown: MkDocs builds it
    like any page, except that Markdown does not run."""

    def __init__(self, file: File, config: MkDocsConfig, markdown: str, stored: Converted, urls: dict[tuple, tuple]):
        """urls: what MkDocs made of each stored page's URLs, by what it made them from. Under
        `mkdocs serve` each save makes a page object for each of thousands of pages, whose URLs are
        those of the last save but for a changed site URL (benchmarks/README.md, session 9)."""
        self._urls = urls
        super().__init__(None, file, config)
        self._source = markdown
        self._stored = stored

    def _set_canonical_url(self, base: str | None) -> None:
        self._kept(("canonical", base, self.url), ("canonical_url", "abs_url"),
                   functools.partial(Page._set_canonical_url, self, base))

    def _set_edit_url(self, repo_url: str | None, edit_uri: str | None = None, edit_uri_template: str | None = None) -> None:
        work = functools.partial(Page._set_edit_url, self, repo_url, edit_uri, edit_uri_template)
        if not repo_url:  # MkDocs may warn of the edit URI then, which each build should
            work()
            return
        self._kept(("edit", repo_url, edit_uri, edit_uri_template, self.file.edit_uri), ("edit_url",), work)

    def _kept(self, key: tuple, attributes: tuple[str, ...], work: Callable[[], None]) -> None:
        """The attributes as MkDocs set them for a page made from the same key, or as work() sets them
        now, kept for the pages after it."""
        known = self._urls.get(key)
        if known is None:
            work()
            self._urls[key] = tuple(getattr(self, a) for a in attributes)
            return
        for attribute, value in zip(attributes, known, strict=True):
            setattr(self, attribute, value)

    def read_source(self, config: MkDocsConfig) -> None:
        # The front matter is one line of JSON between two '---' lines (site.front_matter); what
        # MkDocs read from it is stored with the HTML.
        source = self._source
        end = source.find("\n---\n", 4) if source.startswith("---\n") else -1
        self.markdown = source[end + 5:] if end >= 0 else source
        self.meta = dict(self._stored.meta)

    def render(self, config: MkDocsConfig, files: Files) -> None:
        s = self._stored
        self.content = s.content
        self.toc = get_toc(s.toc)
        self._title_from_render = s.title
        self.present_anchor_ids = set(s.anchors)


def toc_tokens(items: list[AnchorLink]) -> list[dict]:
    return [{"level": a.level, "id": a.id, "name": a.title, "children": toc_tokens(a.children)} for a in items]
