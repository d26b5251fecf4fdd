"""What each scenario rendered to in an earlier build: its page, its charts and their embed files.

At a thousand scenarios, rendering the pages and embed files of unchanged scenarios was most of
what a warm build added to MkDocs' own work. An entry is found by a hash of everything the output
is made from: the scenario's file, every file in data/, the generator's code and templates, the
versions of the libraries that shape the output, the site URL and the day of the build (stale-price
notes depend on it). Anything else misses and renders afresh; the cache only saves time.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from generator.cachefile import write_atomically
from generator.charts import Chart
from generator.embeds import ChartFiles, JSONText, Job
from generator.results import ScenarioResult

PACKAGE = Path(__file__).parent
# Distributions whose releases can change a page or a chart for the same input.
LIBRARIES = ("altair", "jinja2", "markupsafe", "pydantic", "vl-convert-python")


@dataclass(frozen=True)
class Rendered:
    page: str  # Markdown
    charts: list[Chart]
    files: list[ChartFiles]


def _chart_json(c: Chart) -> dict:
    return {**{f.name: getattr(c, f.name) for f in dataclasses.fields(c)}, "as_of": c.as_of.isoformat()}


def _chart(d: dict) -> Chart:
    d["as_of"] = dt.date.fromisoformat(d["as_of"])
    if d["vega"] is not None:
        d["vega"] = JSONText(d["vega"])
    return Chart(**d)


class RenderedScenarios:
    def __init__(self, directory: Path, root: Path, data_dir: Path, site_url: str, today: dt.date):
        self.directory = directory
        self.root = root
        h = hashlib.sha256()
        for path in sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            h.update(f"{path.relative_to(PACKAGE).as_posix()}\0".encode())
            h.update(path.read_bytes())
        for name in LIBRARIES:
            h.update(f"{name} {metadata.version(name)}\0".encode())
        for path in sorted(data_dir.glob("*")):
            if path.is_file():
                h.update(f"{path.name}\0".encode())
                h.update(path.read_bytes())
        h.update(f"{site_url}\0{today.isoformat()}\0".encode())
        self._context = h.hexdigest()

    def entry(self, r: ScenarioResult) -> Path | None:
        """Where the scenario's entry is, or None when its file cannot be read."""
        try:
            text = (self.root / r.path).read_bytes()
        except OSError:
            return None
        key = hashlib.sha256(f"{self._context}\0{r.id}\0{r.path}\0".encode() + text).hexdigest()
        return self.directory / f"{key}.json"

    def get(self, path: Path) -> Rendered | None:
        try:
            d = json.loads(path.read_bytes())
            return Rendered(
                d["page"],
                [_chart(c) for c in d["charts"]],
                [ChartFiles(f["chart_id"], f["texts"], Job(JSONText(f["job"]))) for f in d["files"]],
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, path: Path, rendered: Rendered) -> None:
        try:
            text = json.dumps({
                "page": rendered.page,
                "charts": [_chart_json(c) for c in rendered.charts],
                "files": [{"chart_id": f.chart_id, "texts": f.texts, "job": f.job.spec} for f in rendered.files],
            }, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            return  # a chart that does not travel as JSON is rendered every time
        try:
            write_atomically(path, text)
        except OSError:
            pass
