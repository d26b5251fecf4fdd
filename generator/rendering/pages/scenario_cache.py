"""What each scenario rendered to in an earlier build: its page, its charts and their embed files.

At a thousand scenarios, rendering the pages and embed files of unchanged scenarios was most of
what a warm build added to MkDocs' own work. An entry is found by a hash of everything the output
is made from: the bytes the scenario was parsed from, those of every file in data/, the generator's
code and templates, the versions of the libraries that shape the output, the site URL and the day of
the build (stale-price notes depend on it). Anything else misses and renders afresh, and an entry
that is damaged reads as missing; the cache only saves time.

What each scenario rendered to in an earlier build (page, what names its charts, embed files, its
index row and calculator presets, its published result and Markdown), found by a hash of everything
it is made from. Its text files are named by where the `texts` store holds them
(`embeds.StoredText`), not carried as text: an entry is taken only while every one of them is whole
there, and a warm build holds none of those texts in memory.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import orjson

from generator.inputs.loader import Project
from generator.model.results import ScenarioResult
from generator.model.trn3 import PriceAt, PriceToBeat
from generator.rendering.charts.specs import ChartLabel
from generator.rendering.embeds.folders import ChartFiles, JSONText, StoredText
from generator.rendering.charts.images import Job
from generator.rendering.published.llms import ScenarioTexts
from generator.store.cachefile import Cache


@dataclass(frozen=True)
class Rendered:
    page: str  # Markdown
    # Only what names each chart: their specs and rows, read back as Python objects for every
    # scenario, were most of a warm build's memory, and a build from the cache never reads them.
    charts: list[ChartLabel]
    files: list[ChartFiles]
    row: dict  # what the scenarios index says of the scenario (wording.scenario_row)
    row_html: str  # the scenario's row in the scenarios index (partials/index_row.html.j2)
    presets: list[str]  # its workloads as the calculator's presets (calculator.presets)
    # Each workload's Trn3 price to beat, which the Trainium3 page lists for every scenario: stored
    # with the page so that a warm build does not solve it again for each one.
    beats: list[tuple[PriceToBeat, ...]]
    # Each workload's inputs whose range flips its verdict, which the FAQ counts over every scenario.
    flips: list[tuple[str, ...]]
    # Its result as JSON and its page's Markdown, published beside the page (`published.scenario_files`):
    # the result needs the robustness and thresholds a stored page never works out again.
    published: ScenarioTexts


def key_parts(project: Project, site_url: str, today: dt.date, site_name: str = "",
              static_images: bool = True) -> dict[str, str]:
    """Everything the pages are made from but the scenario itself and the code and library versions
    every store's key holds (`Cache.names`), by name: each data/ file as it was parsed, the site URL and name, the
    day, and whether the build makes static images (its pages and embed files name them or not)."""
    scenarios = {r.path for r in project.results}
    parts = {"site_url": site_url, "site_name": site_name, "day": today.isoformat(),
             "static_images": str(static_images)}
    parts.update({f"data:{shown}": digest for shown, digest in sorted(project.digests.items()) if shown not in scenarios})
    return parts


def _beats_json(beats: tuple[PriceToBeat, ...]) -> list[dict]:
    return [dataclasses.asdict(b) for b in beats]


def _beats(d: list[dict]) -> tuple[PriceToBeat, ...]:
    return tuple(PriceToBeat(**{**b, "prices": tuple(PriceAt(**p) for p in b["prices"])}) for b in d)


def _texts(d: dict[str, list]) -> dict[str, str | StoredText]:
    return {path: StoredText.at(path, int(size), str(sha256)) for path, (size, sha256) in d.items()}


def _stored_texts(files: ChartFiles) -> dict[str, list]:
    """Each text file as where `embeds.embed_files` stores it, its size and sha256."""
    return {path: [ref.size, ref.sha256] for path, ref in files.stored.items()}


def _all_texts(rendered: Rendered) -> list[StoredText]:
    files = [*rendered.files, rendered.published.files]
    return [t for f in files for t in f.texts.values() if isinstance(t, StoredText)]


def _parse(body: bytes) -> Rendered | None:
    try:
        d = orjson.loads(body)
        return Rendered(
            d["page"],
            [ChartLabel(**c) for c in d["charts"]],
            [ChartFiles(f["chart_id"], _texts(f["texts"]), Job(JSONText(f["job"]), card_heading=tuple(f["card_heading"]),
                                                               narrow_height=f["narrow_height"]), f["gallery"], f["title"])
             for f in d["files"]],
            d["row"],
            d["row_html"],
            d["presets"],
            [_beats(b) for b in d["beats"]],
            [tuple(f) for f in d["flips"]],
            ScenarioTexts(ChartFiles(d["published"]["chart_id"], _texts(d["published"]["texts"]), None, ""),
                          d["published"]["listed"], d["published"]["full"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


class RenderedScenarios:
    def __init__(self, cache: Cache, project: Project, site_url: str, today: dt.date, site_name: str = "", *,
                 static_images: bool = True):
        self.cache = cache
        self.digests = project.digests
        self.names = cache.names("rendered", key_parts(project, site_url, today, site_name, static_images))
        self.directory = self.names.directory

    def entry(self, r: ScenarioResult) -> Path | None:
        """Where the scenario's entry is; None for a result the loader did not read from a file. The
        scenario is keyed on the hash of the very bytes the loader parsed and evaluated, never a
        second read of its file, which an editor may have saved since."""
        if r.path not in self.digests:
            return None
        return self.names.path({"scenario": f"{r.id}\0{r.path}\0{self.digests[r.path]}"})

    def get(self, path: Path) -> Rendered | None:
        """The entry, where the texts store still holds every text file it names, whole."""
        rendered = self.cache.read_remembered(path, _parse)
        if rendered is None or not all(t.whole(self.cache) for t in _all_texts(rendered)):
            return None
        return rendered

    def put(self, path: Path, rendered: Rendered) -> None:
        # A chart that does not travel as JSON is not stored: its scenario is rendered every time.
        self.cache.store_json(path, {
            "page": rendered.page,
            "charts": [dataclasses.asdict(c) for c in rendered.charts],
            "files": [{"chart_id": f.chart_id, "texts": _stored_texts(f), "job": f.job.spec, "gallery": f.gallery, "title": f.title,
                       "card_heading": list(f.job.card_heading),
                       "narrow_height": f.job.narrow_height} for f in rendered.files],
            "row": rendered.row,
            "row_html": rendered.row_html,
            "presets": rendered.presets,
            "beats": [_beats_json(b) for b in rendered.beats],
            "flips": [list(f) for f in rendered.flips],
            "published": {"chart_id": rendered.published.files.chart_id, "texts": _stored_texts(rendered.published.files),
                          "listed": rendered.published.listed, "full": rendered.published.full},
        }, _parse)
