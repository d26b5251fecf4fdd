"""What the plugin keeps of one page (by its path in docs/) from one MkDocs event to the next.

`PageRecord`: what the plugin's events hand each other about one page (its published Markdown, its
title, its held raw HTML, its HTML while search reads a part of it)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PageRecord:
    # Kept from one build to the next: `mkdocs serve --dirty` converts only what changed.
    markdown: str | None = None  # its Markdown as published beside it (not a scenario's: published.scenario_texts)
    written: str | None = None  # of that, what was last written into the site folder
    # The Markdown MkDocs converted and the page's path, while `markdown` is not made of them yet
    # (`publishing.published_markdown`: under serve, once the page is served).
    unpublished: tuple[str, str] | None = None
    title: str | None = None  # its title, as the last build that read the page found it
    # One build's.
    held: list[str] = field(default_factory=list)  # raw HTML blocks Markdown skips (passthrough)
    full: str | None = None  # its HTML, while search reads a part of it or none

    def new_build(self) -> PageRecord:
        return PageRecord(self.markdown, self.written, self.unpublished, self.title)
