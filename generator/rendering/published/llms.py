"""The site for language models and scripts (llmstxt.org): each page's Markdown beside its HTML at
the page's address with `index.html.md` appended, each scenario's full result as JSON at an address
of its own, and `llms.txt` and `llms-full.txt` at the site's root listing them.

A scenario's two files are made with its page and stored with it (`scenario_cache`), linked into the
site from the cache as its embed files are; the rest is made once a build has every page's Markdown.

The site for language models and scripts (llmstxt.org): each page's Markdown at its address plus
`index.html.md` (a scenario's made with its page and stored with it; the others as the plugin
converts them), Markdown alone (its HTML said by `html_markdown`, titles as text, every link
absolute), each scenario's `result.json` (`results.to_dict`), `llms.txt` and `llms-full.txt` (every
page but the scenarios' and those with a part for each, which it names).
"""

from __future__ import annotations

import datetime as dt
import html
import json
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from generator.model import formatting as fmt
from generator.model.results import Judge, ScenarioResult, to_dict
from generator.model.wording import SITE_WORDS, VERDICT_LABELS, site_say
from generator.rendering.published import downloads
from generator.rendering.published import html_markdown
from generator.rendering.pages import passthrough
from generator.rendering.charts.specs import ChartLabel
from generator.rendering.embeds.folders import ChartFiles, file_names, page_url

LLMS = "llms.txt"
LLMS_FULL = "llms-full.txt"
MARKDOWN_SUFFIX = "index.html.md"


def markdown_path(page: str) -> str:
    """Where a docs page's Markdown is published: its address with `index.html.md` appended, as
    llmstxt.org asks of an address that names no file ('scenarios/x.md' -> 'scenarios/x/index.html.md')."""
    return page_url(page) + MARKDOWN_SUFFIX


def result_path(scenario_id: str) -> str:
    return f"scenarios/{scenario_id}/result.json"


def result_json(r: ScenarioResult, fresh: Judge | None = None) -> str:
    """The scenario's entry of `guide evaluate --format json`, written the same way; each price in it
    carries its source and as_of, and with `fresh` whether it is stale on the build's day."""
    return json.dumps(to_dict(r, fresh), indent=2, default=str) + "\n"


FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
# JSON a page's script reads (a chart's compiled spec, the calculator's data): no reader of the text
# needs it (a chart's numbers are in the table after it and in its CSV). script_json leaves no '<' inside.
_SPEC = re.compile(r"<template\b[^>]*>[^<]*</template>\n?")
# A marker is a line of its own, found after the line end before it: `^` under re.M is tried at every
# character, 60 ms a save on the gallery's Markdown at 3,000 scenarios against 7.
_MARKERS = re.compile(r"\n<!-- /?guide:[a-z-]+ -->(?=\n)")
_HELD = re.compile(r"<!-- guide:html (\d+) -->")


# A relative Markdown link, as MkDocs reads it: to another docs page (a .md file) or to a file of the
# site, from the folder of the page's source file, maybe with an anchor; or to an anchor of the page.
_PAGE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|/)([^()\s#]*)(#[^()\s]*)?\)")
_FENCE = re.compile(r"^(`{3,}|~{3,})")
# A line that opens an HTML block, as CommonMark reads one (a tag of its own at the line's start).
_HTML_BLOCK = re.compile(r"^</?([a-zA-Z][a-zA-Z0-9-]*)(?=[\s/>]|$)")
_MARKDOWN_ATTRIBUTE = re.compile(r"\smarkdown(?:=[\"']?(?:1|block|span)[\"']?)?(?=[\s>])")
# HTML inside a line of Markdown: an element from its opening tag to its closing one (not nested in
# itself), or a tag that stands alone.
_INLINE_HTML = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*>(?:(?!<\1\b).)*?</\1>|<(?:br|img|wbr)\b[^<>]*>", re.S)
_CODE_SPAN = re.compile(r"(`+)(?:.+?)(?<!`)\1(?!`)")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


# What each page's last blocks this long (the embed gallery's, one section a chart) said, section by
# section, by page and place: a `mkdocs serve` process says again only the sections a save changed,
# and no block's memo pushes out another's.
_BIG = 1 << 16
_BIG_BLOCKS: dict[tuple[str, int], dict[tuple[str, str], list[str]]] = {}


def page_markdown(markdown: str, page: str, site_url: str) -> str:
    """A page's Markdown as published beside it, for a reader that is a program: the figures already
    filled in, without front matter, the charts' compiled specs or the build's markers; its HTML said
    in Markdown (tables as Markdown tables, `html_markdown`), titles as text rather than character
    references, and every link absolute, so it reads the same from beside the page and from
    llms-full.txt. page: its docs path (`sources.md#x` is turned into the address MkDocs gives it)."""
    base = site_url + page_url(page)
    text, blocks = passthrough.split(_SPEC.sub("", FRONT_MATTER.sub("", markdown, count=1)))
    text = _markdown_text(_MARKERS.sub("", "\n" + text)[1:], page, site_url, base)
    if blocks:
        said = [html_markdown.to_markdown(block, base, _BIG_BLOCKS.setdefault((page, i), {}) if len(block) > _BIG else None)
                for i, block in enumerate(blocks)]
        text = _HELD.sub(lambda m: "\n\n" + said[int(m[1])] + "\n\n", text)
    return re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", text).strip("\n") + "\n"


def _markdown_text(text: str, page: str, site_url: str, base: str) -> str:
    """The Markdown between the held-back blocks: its raw HTML blocks and inline HTML said in Markdown,
    its links made absolute; fenced code left as written."""
    out: list[str] = []
    lines = text.split("\n")
    fence = ""
    in_html_markdown = 0  # `<div markdown>` (md_in_html) blocks open: their tags go, their Markdown stays
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        i += 1
        if fence:
            out.append(line)
            if stripped.startswith(fence):
                fence = ""
            continue
        if m := _FENCE.match(stripped):
            fence = m[1]
            out.append(line)
            continue
        if _HELD.fullmatch(stripped):
            out.append(line)
            continue
        if _HTML_BLOCK.match(stripped):
            if _MARKDOWN_ATTRIBUTE.search(stripped.split(">", 1)[0] + ">"):
                in_html_markdown += 1
                continue
            if in_html_markdown and re.fullmatch(r"</div>\s*", stripped):
                in_html_markdown -= 1
                continue
            block = [line]
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            indent = line[: len(line) - len(stripped)]
            said = html_markdown.to_markdown("\n".join(block), base)
            out += ["", *(indent + row if row else "" for row in said.split("\n")), ""]
            continue
        out.append(_markdown_line(line, page, site_url, base))
    return "\n".join(out)


def _markdown_line(line: str, page: str, site_url: str, base: str) -> str:
    """One line of Markdown with its links absolute, its inline HTML said in Markdown and its
    character references as the characters (escaped where they could start markup); code spans kept."""
    parts = []
    at = 0
    for m in _CODE_SPAN.finditer(line):
        parts += [_markdown_words(line[at:m.start()], page, site_url, base), m[0]]
        at = m.end()
    parts.append(_markdown_words(line[at:], page, site_url, base))
    return "".join(parts)


def _markdown_words(text: str, page: str, site_url: str, base: str) -> str:
    if "<" in text:
        text = _INLINE_HTML.sub(lambda m: html_markdown.inline_markdown(m[0], base), text)
    if "&" in text:
        text = _ENTITY.sub(lambda m: html_markdown.escape(html.unescape(m[0])), text)
    if "](" in text:
        text = _PAGE_LINK.sub(lambda m: f"]({_address(m[1], m[2] or '', page, site_url, base)})", text)
    return text


def _address(target: str, anchor: str, page: str, site_url: str, base: str) -> str:
    """The absolute address of a Markdown link's target, as MkDocs resolves it from the page's source."""
    if not target:
        return base + anchor
    path = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
    return site_url + (page_url(path) if path.endswith(".md") else path) + anchor


@dataclass(frozen=True)
class ScenarioTexts:
    """What a scenario publishes, made with its page and stored with it: its files, as one bundle the
    embed files' machinery stores and links, and its lines of llms.txt and llms-full.txt (written for
    every scenario on each build, they would cost a warm build of thousands of scenarios a second)."""
    files: ChartFiles
    listed: str
    full: str


def scenario_texts(r: ScenarioResult, markdown: str, site_url: str, charts: Iterable[ChartLabel] = (),
                   fresh: Judge | None = None) -> ScenarioTexts:
    """charts: the scenario's charts, whose metadata files llms.txt lists with it."""
    page = f"scenarios/{r.id}.md"
    texts = {result_path(r.id): result_json(r, fresh), markdown_path(page): page_markdown(markdown, page, site_url)}
    return ScenarioTexts(ChartFiles(f"scenario:{r.id}", texts, None, ""), _listed(r, site_url, charts), _full(r, site_url))


def md_text(text: Any) -> str:
    """Markdown for llms.txt: contributed text (titles, summaries) on one line, with every character
    that could start Markdown or HTML escaped by a backslash, as CommonMark allows for any ASCII
    punctuation."""
    return html_markdown.escape(" ".join(str(text).split()))


@dataclass(frozen=True)
class PageInfo:
    """A hand-written or generated page other than a scenario's, as llms.txt lists it."""
    path: str  # docs-relative, e.g. axes/porting.md
    title: str
    description: str
    section: str  # the navigation section it sits in
    markdown: str = ""  # as published beside it


def _link(site_url: str, title: str, path: str, note: str) -> str:
    """A list item of llms.txt; the title is escaped here, the note by the caller (it mixes our words
    with contributed ones)."""
    return f"- [{md_text(title)}]({site_url}{path})" + (f": {note}" if note else "")


def scenario_note(r: ScenarioResult) -> str:
    """One line on a scenario: its verdict, what it saves a run where it goes to Trainium, its summary."""
    verdict = VERDICT_LABELS[r.verdict]
    saving = site_say("saving_a_run", amount=fmt.money(r.saving_per_run)) if r.verdict in ("trainium", "hybrid") else ""
    return site_say("scenario_note", verdict=verdict, saving=saving, summary=md_text(r.scenario.summary))


def _listed(r: ScenarioResult, site_url: str, charts: Iterable[ChartLabel]) -> str:
    return "\n".join([
        _link(site_url, r.scenario.title, markdown_path(f"scenarios/{r.id}.md"), scenario_note(r)),
        _link(site_url, site_say("result_link", title=r.scenario.title), result_path(r.id), SITE_WORDS["result_note"]),
        *(_link(site_url, site_say("chart_link", title=c.title), f"embed/{c.id}/{file_names(c.id)['metadata']}",
                SITE_WORDS["chart_note"]) for c in charts),
    ]) + "\n"


def _full(r: ScenarioResult, site_url: str) -> str:
    rows = "\n".join(
        site_say("full_workload", name=md_text(w.workload.name), verdict=VERDICT_LABELS[w.outcome.verdict],
                 trainium=fmt.money(w.outcome.trainium.total), gpu=fmt.money(w.outcome.gpu.total)) for w in r.workloads)
    return site_say("full_scenario", title=md_text(r.scenario.title), verdict=VERDICT_LABELS[r.verdict],
                    summary=md_text(r.scenario.summary), rows=rows, page=site_url + markdown_path(f"scenarios/{r.id}.md"),
                    result=site_url + result_path(r.id))


def llms_txt(site_name: str, summary: str, site_url: str, pages: Iterable[PageInfo],
             scenarios: Iterable[ScenarioTexts], data_as_of: dt.date) -> str:
    """The site's llms.txt: its name, the guide in one paragraph, then every page with a line on it,
    each scenario with its Markdown and its result, and the data files."""
    lines = [f"# {md_text(site_name)}", "", f"> {md_text(summary)}", "",
             site_say("llms_about", as_of=data_as_of.isoformat(), suffix=MARKDOWN_SUFFIX), ""]
    by_section: dict[str, list[PageInfo]] = {}
    for p in pages:
        by_section.setdefault(p.section, []).append(p)
    for section, listed in by_section.items():
        lines += [f"## {md_text(section)}", ""]
        lines += [_link(site_url, p.title, markdown_path(p.path), md_text(p.description)) for p in listed]
        lines.append("")
    lines += [f"## {SITE_WORDS['scenarios_heading']}", "", "".join(s.listed for s in scenarios) + f"## {SITE_WORDS['optional_heading']}", ""]
    lines += [_link(site_url, site_say("data_link", path=path), path, SITE_WORDS["data_note"]) for path in sorted(downloads.PATHS)]
    lines.append(_link(site_url, SITE_WORDS["full_link"], LLMS_FULL, SITE_WORDS["full_note"]))
    return "\n".join(lines) + "\n"


# Generated pages with a part for every scenario (its row of the index, its chart in the gallery).
PER_SCENARIO = frozenset({"scenarios/index.md", "embed.md"})


def llms_full(site_name: str, summary: str, site_url: str, pages: Iterable[PageInfo],
              scenarios: Iterable[ScenarioTexts]) -> str:
    """Every page's Markdown in one file, each after a line naming its address; the scenarios by their
    verdict and totals, each pointing at its own Markdown and result (the pages themselves would make
    the file grow with every scenario's tables and charts, and so would the pages with a part for
    each scenario, which are named with the address of their Markdown rather than held)."""
    parts = [f"# {md_text(site_name)}\n\n> {md_text(summary)}\n"]
    for p in pages:
        if p.path in PER_SCENARIO:
            said = site_say("per_scenario", description=md_text(p.description), markdown=site_url + markdown_path(p.path))
            parts.append(f"\n---\n\nPage: {site_url}{page_url(p.path)}\n\n# {md_text(p.title)}\n\n{said}\n")
            continue
        parts.append(f"\n---\n\nPage: {site_url}{page_url(p.path)}\n\n{p.markdown.rstrip()}\n")
    parts.append("\n---\n\n# Scenarios\n")
    parts += [s.full for s in scenarios]
    return "".join(parts)
