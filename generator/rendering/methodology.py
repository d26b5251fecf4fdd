"""The methodology page as the guide's answers quote it: its figures filled in as a build fills them,
cut into sections."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from generator.rendering.published import FRONT_MATTER
from generator.rendering.site import Renderer, render_markdown_page


def methodology_sections(project: Any, path: Path, site_url: str, today: dt.date) -> list[tuple[str, str, str]]:
    """The methodology page, its figures filled in as a build fills them, cut at its second-level
    headings: (title, anchor, Markdown) each. Its charts are named, not drawn."""
    source = FRONT_MATTER.sub("", path.read_text(encoding="utf-8"), count=1)
    text = render_markdown_page(Renderer(project, site_url=site_url, today=today), source, charts=_ChartNames())
    sections = []
    for block in re.split(r"^(?=## )", text, flags=re.M)[1:]:
        heading, _, body = block.partition("\n")
        m = re.match(r"## (.*?)(?:\s*\{\s*#([\w-]+)\s*\})?\s*$", heading)
        title, anchor = m[1], m[2] or _slug(m[1])
        sections.append((title, anchor, f"## {title}\n{body}".strip() + "\n"))
    return sections


def _slug(title: str) -> str:
    """The anchor MkDocs' table of contents gives a heading."""
    return re.sub(r"[\s-]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


class _ChartNames:
    """`{{ charts.NAME }}` where the chart is not drawn: a line saying one is on the page."""

    def __getattr__(self, name: str) -> str:
        return f"(A chart, {name}, is on the page.)"
