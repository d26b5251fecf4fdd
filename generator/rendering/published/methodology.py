"""The pages the guide's answers quote (`guide mcp`'s `explain`): the methodology cut into its sections,
the glossary into its terms, and a page whole, each with its figures filled in as a build fills them
and published as Markdown is (`published.page_markdown`: no HTML, every link absolute)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.model.wording import site_say
from generator.rendering.embeds.folders import page_url
from generator.rendering.published.llms import FRONT_MATTER, page_markdown
from generator.rendering.pages.renderer import Renderer
from generator.rendering.pages.hand_written import render_markdown_page


@dataclass(frozen=True)
class Quoted:
    """One piece of a page an answer quotes: its title, its address and its Markdown."""

    title: str
    url: str
    markdown: str
    anchor: str = ""


class Pages:
    """The docs pages of one project, rendered on first use with its figures (one renderer for all)."""

    def __init__(self, project: Any, docs: Path, site_url: str, today: dt.date):
        self.project, self.docs, self.site_url, self.today = project, docs, site_url, today
        self._renderer: Renderer | None = None

    def _rendered(self, page: str) -> tuple[str, dict[str, str]] | None:
        """The page's Markdown with its figures filled in and its front matter's fields, or None."""
        path = self.docs / page
        if not path.is_file():
            return None
        text = path.read_text(encoding="utf-8")
        front = FRONT_MATTER.match(text)
        meta = dict(re.findall(r"^(\w+): *(.+)$", front[0], re.M)) if front else {}
        source = FRONT_MATTER.sub("", text, count=1)
        if "{{" in source or "{%" in source:
            if self._renderer is None:
                self._renderer = Renderer(self.project, site_url=self.site_url, today=self.today)
            source = render_markdown_page(self._renderer, source, charts=_ChartNames())
        return source, meta

    def sections(self, page: str) -> list[Quoted]:
        """The page cut at its second-level headings, each as published."""
        found = self._rendered(page)
        if found is None:
            return []
        out = []
        for block in re.split(r"^(?=## )", found[0], flags=re.M)[1:]:
            heading, _, body = block.partition("\n")
            m = re.match(r"## (.*?)(?:\s*\{\s*#([\w-]+)\s*\})?\s*$", heading)
            title, anchor = m[1], m[2] or _slug(m[1])
            url = f"{self.site_url}{page_url(page)}#{anchor}"
            out.append(Quoted(title, url, page_markdown(f"## {title}\n{body}", page, self.site_url), anchor))
        return out

    def terms(self, page: str) -> list[Quoted]:
        """A glossary's terms (`**Term**` then `:   definition`), each with its definition as published."""
        found = self._rendered(page)
        if found is None:
            return []
        url = self.site_url + page_url(page)
        out = []
        for m in re.finditer(r"^\*\*(.+?)\*\*\n((?::   |    ).*(?:\n(?:    .*|))*)", found[0], re.M):
            definition = re.sub(r"^(?::   |    )", "", m[2], flags=re.M).strip()
            out.append(Quoted(m[1], url, page_markdown(definition, page, self.site_url)))
        return out

    def whole(self, page: str) -> Quoted | None:
        """The page whole, as published, under the title its front matter gives."""
        found = self._rendered(page)
        if found is None:
            return None
        text, meta = found
        title = meta.get("title") or page
        return Quoted(title, self.site_url + page_url(page), page_markdown(text, page, self.site_url))


def _slug(title: str) -> str:
    """The anchor MkDocs' table of contents gives a heading."""
    return re.sub(r"[\s-]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


class _ChartNames:
    """`{{ charts.NAME }}` where the chart is not drawn: a line saying one is on the page."""

    def __getattr__(self, name: str) -> str:
        return site_say("chart_named", name=name)
