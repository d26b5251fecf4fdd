"""The site for language models and scripts (llmstxt.org): each page's Markdown beside its HTML at
the page's address with `index.html.md` appended, each scenario's full result as JSON at an address
of its own, and `llms.txt` and `llms-full.txt` at the site's root listing them.

A scenario's two files are made with its page and stored with it (`scenario_cache`), linked into the
site from the cache as its embed files are; the rest is made once a build has every page's Markdown.
"""

from __future__ import annotations

import datetime as dt
import json
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from generator.model import formatting as fmt
from generator.model.results import Judge, ScenarioResult, to_dict
from generator.model.wording import VERDICT_LABELS
from generator.rendering import downloads, passthrough
from generator.rendering.charts import ChartLabel
from generator.rendering.embeds import ChartFiles, file_names, page_url

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


# A relative Markdown link, as MkDocs reads it: to another docs page (a .md file) or to a file of the
# site, from the folder of the page's source file, maybe with an anchor.
_PAGE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|/|#)([^()\s#]+)(#[^()\s]*)?\)")


def page_markdown(markdown: str, page: str = "") -> str:
    """A page's Markdown as published beside it: the figures already filled in, without front matter,
    the charts' compiled specs and the build's markers. page: its docs path, where its Markdown links
    (`sources.md#x`, which MkDocs turns into addresses) are turned into the addresses they have from
    beside it; its HTML links already are."""
    text = _inert_blocks(_SPEC.sub("", FRONT_MATTER.sub("", markdown, count=1)))
    text = _MARKERS.sub("", "\n" + text)[1:].lstrip("\n")
    if not page:
        return text
    here = page_url(page)

    def address(m: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), m[1]))
        if target.endswith(".md"):
            return f"]({_relative(page_url(target), here)}{m[2] or ''})"
        return f"]({posixpath.relpath(target, here or '.')}{m[2] or ''})"

    return _PAGE_LINK.sub(address, text)


def _inert_blocks(markdown: str) -> str:
    """The page's raw HTML blocks (`passthrough`) without blank lines: the build keeps them out of
    Markdown, and a reader of the Markdown must not see one end at a blank line a contributor wrote,
    where what follows would be read as Markdown (a link, say) instead of the escaped text it is."""
    text, blocks = passthrough.split(markdown)
    return passthrough.join(text, [_BLANK_LINES.sub("\n", block) for block in blocks])


_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")


def _relative(target: str, here: str) -> str:
    """The address of a directory-URL page ('sources/') from another page's folder ('axes/porting/')."""
    rel = posixpath.relpath(target or ".", here or ".")
    return "./" if rel == "." else rel + "/"


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
    texts = {result_path(r.id): result_json(r, fresh), markdown_path(page): page_markdown(markdown)}
    return ScenarioTexts(ChartFiles(f"scenario:{r.id}", texts, None, ""), _listed(r, site_url, charts), _full(r, site_url))


# Markdown for llms.txt: contributed text (titles, summaries) with every character that could start
# Markdown or HTML escaped by a backslash, as CommonMark allows for any ASCII punctuation.
_PUNCTUATION = re.compile(r"([\\`*_\[\]<>#!|&~])")


def md_text(text: Any) -> str:
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(text).split()))


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
    saving = f", saving {fmt.money(r.saving_per_run)} a run" if r.verdict in ("trainium", "hybrid") else ""
    return f"verdict {verdict}{saving}. {md_text(r.scenario.summary)}"


def _listed(r: ScenarioResult, site_url: str, charts: Iterable[ChartLabel]) -> str:
    return "\n".join([
        _link(site_url, r.scenario.title, markdown_path(f"scenarios/{r.id}.md"), scenario_note(r)),
        _link(site_url, f"{r.scenario.title}: result as JSON", result_path(r.id),
              "the engine's whole result, as `guide evaluate --format json` writes it"),
        *(_link(site_url, f"Chart: {c.title}", f"embed/{c.id}/{file_names(c.id)['metadata']}",
                "its title, sources and dates, units, page and a citation; its data as CSV beside it") for c in charts),
    ]) + "\n"


def _full(r: ScenarioResult, site_url: str) -> str:
    rows = "\n".join(
        f"- {md_text(w.workload.name)}: {VERDICT_LABELS[w.outcome.verdict]}; total over the plan "
        f"Trainium {fmt.money(w.outcome.trainium.total)}, GPU {fmt.money(w.outcome.gpu.total)}" for w in r.workloads)
    return (f"\n## {md_text(r.scenario.title)}\n\nVerdict: {VERDICT_LABELS[r.verdict]}. {md_text(r.scenario.summary)}\n\n"
            f"{rows}\n\nPage: {site_url}{markdown_path(f'scenarios/{r.id}.md')} · result: {site_url}{result_path(r.id)}\n")


def llms_txt(site_name: str, summary: str, site_url: str, pages: Iterable[PageInfo],
             scenarios: Iterable[ScenarioTexts], data_as_of: dt.date) -> str:
    """The site's llms.txt: its name, the guide in one paragraph, then every page with a line on it,
    each scenario with its Markdown and its result, and the data files."""
    lines = [f"# {md_text(site_name)}", "", f"> {md_text(summary)}", "",
             "Every figure carries its source and the date that source shows; prices as of "
             f"{data_as_of.isoformat()} at the latest. Each page's Markdown is at its address followed by "
             f"`{MARKDOWN_SUFFIX}`. The engine is also served to assistants by `guide mcp`, an MCP server.", ""]
    by_section: dict[str, list[PageInfo]] = {}
    for p in pages:
        by_section.setdefault(p.section, []).append(p)
    for section, listed in by_section.items():
        lines += [f"## {md_text(section)}", ""]
        lines += [_link(site_url, p.title, markdown_path(p.path), md_text(p.description)) for p in listed]
        lines.append("")
    lines += ["## Scenarios", "", "".join(s.listed for s in scenarios) + "## Optional", ""]
    lines += [_link(site_url, f"Data: {path}", path, "every figure of data/, one row each, with its source and date")
              for path in sorted(downloads.PATHS)]
    lines.append(_link(site_url, "The whole guide in one file", LLMS_FULL, "every page's Markdown"))
    return "\n".join(lines) + "\n"


def llms_full(site_name: str, summary: str, site_url: str, pages: Iterable[PageInfo],
              scenarios: Iterable[ScenarioTexts]) -> str:
    """Every page's Markdown in one file, each after a line naming its address; the scenarios by their
    verdict and totals, each pointing at its own Markdown and result (the pages themselves would make
    the file grow with every scenario's tables and charts)."""
    parts = [f"# {md_text(site_name)}\n\n> {md_text(summary)}\n"]
    for p in pages:
        parts.append(f"\n---\n\nPage: {site_url}{page_url(p.path)}\n\n{p.markdown.rstrip()}\n")
    parts.append("\n---\n\n# Scenarios\n")
    parts += [s.full for s in scenarios]
    return "".join(parts)
