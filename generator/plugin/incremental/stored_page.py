"""`StoredPage`: a scenario page whose HTML an earlier build converted from the same Markdown, which MkDocs
builds without running Markdown."""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.toc import AnchorLink, get_toc

from generator.plugin.mkdocs_internals import PageWithKeptUrls, set_title_from_render
from generator.store.html_cache import Converted


class StoredPage(PageWithKeptUrls):
    """A generated page whose HTML an earlier build converted from the same Markdown: MkDocs builds it
    like any page, except that Markdown does not run."""

    def __init__(self, file: File, config: MkDocsConfig, markdown: str, stored: Converted, urls: dict[tuple, tuple]):
        """urls: what MkDocs made of each stored page's URLs, by what it made them from. Under
        `mkdocs serve` each save makes a page object for each of thousands of pages, whose URLs are
        those of the last save but for a changed site URL (benchmarks/README.md, `live_edit.py`)."""
        self.source = markdown
        self.stored = stored
        super().__init__(file, config, urls)

    def read_source(self, config: MkDocsConfig) -> None:
        # The front matter is one line of JSON between two '---' lines (site.front_matter); what
        # MkDocs read from it is stored with the HTML.
        source = self.source
        end = source.find("\n---\n", 4) if source.startswith("---\n") else -1
        self.markdown = source[end + 5:] if end >= 0 else source
        self.meta = dict(self.stored.meta)

    def render(self, config: MkDocsConfig, files: Files) -> None:
        s = self.stored
        self.content = s.content
        self.toc = get_toc(s.toc)
        set_title_from_render(self, s.title)
        self.present_anchor_ids = set(s.anchors)


def toc_tokens(items: list[AnchorLink]) -> list[dict]:
    return [{"level": a.level, "id": a.id, "name": a.title, "children": toc_tokens(a.children)} for a in items]
