"""Raw HTML blocks of a generated page, kept out of Markdown's way.

The scenarios index is a table with a row per scenario, the embed gallery a section per chart, and
every part of a scenario page but its headings (tables, lists, a chart figure with its compiled
spec): all written as raw HTML. Python-Markdown passes raw HTML through unchanged, but it parses
every tag of it to find where the block ends: at a thousand scenarios that was most of the time a
saved scenario waited for under `mkdocs serve`, and most of a cold build's Markdown time. A
template marks such a block with a START line before it and an END line after it; `split` swaps
each block for a numbered HTML comment before Markdown runs (Markdown passes a comment through as
well), and `join` puts the blocks back into the HTML.

Only the generator's own templates write the markers; contributed text reaches a page escaped, so
it cannot open a marker or a placeholder.
"""

from __future__ import annotations

import html
import re

START = "<!-- guide:html -->"
END = "<!-- /guide:html -->"
_HELD = re.compile(r"<!-- guide:html (\d+) -->")


def split(markdown: str) -> tuple[str, list[str]]:
    """The Markdown with each marked block replaced by a placeholder, and the blocks in order. A block
    runs from a line that is START to the first line after it that is END. Found with str.find, not a
    regular expression: a lazy match tries END at every character of the block, and the gallery's one
    block grows with every chart."""
    opener, closer = START + "\n", "\n" + END
    blocks: list[str] = []
    parts: list[str] = []
    done = 0  # what is copied to parts
    at = markdown.find(opener)
    while at != -1:
        body = at + len(opener)
        end = markdown.find(closer, body) if at == 0 or markdown[at - 1] == "\n" else -1
        while end != -1 and not _line_ends(markdown, end + len(closer)):
            end = markdown.find(closer, end + 1)
        if end == -1:
            at = markdown.find(opener, at + 1)
            continue
        blocks.append(markdown[body:end].strip("\n"))  # as Markdown would: a blank line ends a block
        parts += (markdown[done:at], f"<!-- guide:html {len(blocks) - 1} -->")
        done = end + len(closer)
        at = markdown.find(opener, done)
    if not blocks:
        return markdown, blocks
    parts.append(markdown[done:])
    return "".join(parts), blocks


def _line_ends(text: str, i: int) -> bool:
    return i == len(text) or text[i] == "\n"


def join(html: str, blocks: list[str]) -> str:
    """The converted page with each placeholder replaced by its block."""
    if not blocks:
        return html
    return _HELD.sub(lambda m: blocks[int(m[1])], html)


# Found by its literal start, which the regular expression engine searches for quickly, and then
# checked for the white space before it: the gallery's one block grows with every chart.
_ID = re.compile(r'id="([^"]*)"')


def anchors(blocks: list[str]) -> set[str]:
    """The ids the blocks give their elements, for MkDocs' check of links to anchors (which reads them
    from the Markdown it converts, where the blocks no longer are). The templates write every id in
    double quotes."""
    return {html.unescape(m[1]) for block in blocks for m in _ID.finditer(block) if block[m.start() - 1:m.start()].isspace()}
