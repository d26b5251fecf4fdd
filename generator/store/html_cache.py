"""What an earlier build converted each scenario page's Markdown to (HTML, table of contents, title, anchors),
and which part of it the search index reads, so a later build hands MkDocs the page without running Markdown on
it again.

At a thousand scenarios, Python-Markdown on the generated pages (large raw-HTML blocks through md_in_html) is
the largest part of a warm build without this store. What a page converts to depends on its Markdown, where it
sits in the site, mkdocs.yml (its Markdown extensions and their settings, and `use_directory_urls`), the
generator's code (the math fences live in it) and the versions of the libraries (`Cache.keys`); an entry is
found by a hash of all of these, each named (`ConvertedPages.parts`). It also depends on the build's plugins, so
the plugin uses this store only where search and the guide are its only plugins
(`plugin/incremental/reuse.pages_only_ours`), named in mkdocs.yml, their versions MkDocs', Material's and this
code's; another plugin's page hooks would be skipped on a stored page. Scenario pages hold no Markdown links to
other pages, so what else is in the site does not change them. The cache only saves time: a damaged entry reads
as missing and the page is converted afresh.

MkDocs-free: the plugin (`generator.plugin`) stores what MkDocs made of a page and gives it back to MkDocs.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import orjson

from generator.store.cachefile import Cache

# Blocks of a scenario page the search index leaves out: tables of figures and the chart figures
# (their data tables, embed snippets and compiled specs). What a reader searches a scenario by
# (title, verdict, summary, notes, workload names, the rules' reasons) is outside them. Each pattern
# here finds where a left-out block starts; its first group names the element whose first closing
# tag ends the block, or is None where the match is the whole block (_cut).
_UNSEARCHED = re.compile(r"<(figure|table)\b")
# What the search plugin skips anyway (data-search-exclude blocks: the embed snippets, one a chart,
# the gallery's sections of scenario charts, the Trainium3 page's table of every situation, the
# calculator's baked-in data, JSON that grows with every scenario; none
# holds a heading with an id, which would start a search section of its own): taken out before it
# reads the page, they leave the index as it was. Headings' permalinks (the search plugin drops
# them from titles) go too.
_EXCLUDED = re.compile(r"<(details|section|table|template)\b[^>]*\bdata-search-exclude\b[^>]*>"
                       r"|<a class=\"headerlink\"[^>]*>[^<]*</a>")
SCENARIOS_INDEX = "scenarios/index.md"


def scenario_page(path: str) -> bool:
    """The pages whose HTML is stored: the scenario pages, which grow with the number of scenarios and
    hold no Markdown link (whose HTML would depend on which other pages exist). The embed gallery
    grows too, but its sections are one held block Markdown never parses (rendering.pages.passthrough):
    converting it again takes less than storing and reading it."""
    return path.startswith("scenarios/") and path != SCENARIOS_INDEX


def searched(path: str, content: str) -> str:
    """The part of a page's HTML the search index is built from. The scenarios index is
    searched without its table: each row's scenario is found on its own page, and the table made
    one entry of every title and verdict in the guide (120 KB of text at a thousand scenarios)."""
    if scenario_page(path) or path == SCENARIOS_INDEX:
        content = _cut(content, _UNSEARCHED)
    return _cut(content, _EXCLUDED)


def _cut(content: str, start: re.Pattern[str]) -> str:
    """content without the blocks `start` finds, each from where it matches to the first closing tag
    of the element its first group names (a block never closed stays). The closing tag is found with
    str.find: a lazy regular expression (`.*?</section>`) tries it at every character, and the
    gallery's sections of charts grow with every scenario."""
    parts: list[str] = []
    done = at = 0
    while (m := start.search(content, at)) is not None:
        end = m.end()
        if m[1] is not None:
            close = content.find(f"</{m[1]}>", end)
            if close == -1:
                at = m.start() + 1
                continue
            end = close + len(m[1]) + 3
        parts.append(content[done:m.start()])
        done = at = end
    if not parts:
        return content
    parts.append(content[done:])
    return "".join(parts)


@dataclass(frozen=True)
class Converted:
    meta: dict
    content: str  # HTML, as MkDocs' Markdown made it
    toc: list[dict]  # Python-Markdown's toc tokens: level, id, name, children
    title: str | None  # the first h1, as MkDocs found it while converting
    anchors: list[str]  # ids on the page, for MkDocs' anchor checks


def _parse(body: bytes) -> Converted | None:
    try:
        d = orjson.loads(body)
        return Converted(d["meta"], d["content"], d["toc"], d["title"], d["anchors"])
    except (ValueError, KeyError, TypeError):
        return None


class ConvertedPages:
    def __init__(self, cache: Cache, config_bytes: bytes):
        self.cache = cache
        self.config_bytes = config_bytes
        self.names = cache.names("converted", {"mkdocs.yml": hashlib.sha256(config_bytes).hexdigest()})
        self.directory = self.names.directory
        # The hash of each page's Markdown, by its text: the last build's, and this one's as it goes.
        # A save under `mkdocs serve` hands over thousands of the same pages again.
        self._hashed = cache.memo("markdown")
        self._last = dict(self._hashed)
        self._hashed.clear()

    def parts(self, path: str, markdown: str) -> dict[str, str]:
        """What a page's HTML is made from beside what every page's is (`names.common`), by name."""
        return {"page": path, "markdown": self.digest(markdown)}

    def digest(self, markdown: str) -> str:
        """The sha256 of a page's Markdown (as UTF-8), hashed once while the last build or this one
        knows that text."""
        digest = self._last.get(markdown) or hashlib.sha256(markdown.encode("utf-8", "surrogatepass")).hexdigest()
        self._hashed[markdown] = digest
        return digest

    def entry(self, path: str, markdown: str) -> Path:
        return self.entry_at(self.parts(path, markdown))

    def entry_at(self, parts: dict[str, str]) -> Path:
        return self.names.path(parts)

    def get(self, entry: Path) -> Converted | None:
        return self.cache.read_remembered(entry, _parse)

    def put(self, entry: Path, page: Converted) -> None:
        # Front matter that does not travel as JSON is not stored: the page is converted every time.
        self.cache.store_json(entry, {"meta": page.meta, "content": page.content, "toc": page.toc, "title": page.title,
                           "anchors": sorted(page.anchors)}, _parse)
