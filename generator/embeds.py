"""Self-contained copies of every chart for other sites: embed/<id>/ with an iframe page, SVG and
PNG in light and dark, the Vega-Lite spec and the data as CSV.

Pages draw a Vega spec compiled here from the Vega-Lite one, so readers need Vega alone. Static
images are rendered offline with vl-convert, in parallel worker processes, and cached by a
hash of what they are made from, so an unchanged chart is never rendered twice. The cache only
saves time: a missing or corrupt entry is rendered again.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import logging
import multiprocessing
import os
import posixpath
import struct
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jinja2
import vl_convert as vlc

from generator.charts import Chart

log = logging.getLogger("mkdocs.hooks.guide")

EXPORT_WIDTH = 640  # px, the width of every static SVG; PNGs are rendered at PNG_SCALE times it
PNG_SCALE = 2
THEMES = ("light", "dark")
FORMATS = ("svg", "png")
TEMPLATES = Path(__file__).parent / "templates"


def page_url(page: str) -> str:
    """The site-relative URL of a docs page with MkDocs' directory URLs: 'scenarios/x.md' -> 'scenarios/x/'."""
    stem = page[:-3] if page.endswith(".md") else page
    if stem == "index" or stem.endswith("/index"):
        stem = stem[: -len("index")]
    return stem + "/" if stem and not stem.endswith("/") else stem


def relative_root(page: str) -> str:
    """From a page's URL back to the site root, e.g. 'scenarios/x.md' -> '../../'."""
    depth = page_url(page).count("/")
    return "../" * depth


def file_names(chart_id: str) -> dict[str, str]:
    return {
        "svg": f"{chart_id}.svg",
        "png": f"{chart_id}.png",
        "svg-dark": f"{chart_id}-dark.svg",
        "png-dark": f"{chart_id}-dark.png",
        "json": f"{chart_id}.vl.json",
        "csv": f"{chart_id}.csv",
    }


def export_spec(chart: Chart, site_url: str) -> dict[str, Any]:
    """The spec as it travels: a fixed width, an opaque background, and the address of its page."""
    spec = copy.deepcopy(chart.spec)
    spec["width"] = EXPORT_WIDTH
    subtitle = list(spec["title"].get("subtitle", []))
    subtitle.append(f"From the guide: {urljoin(site_url, page_url(chart.page))}")
    spec["title"]["subtitle"] = subtitle
    spec.pop("background", None)
    return spec


def site_spec(chart: Chart) -> dict[str, Any]:
    """The spec as the guide draws it: as wide as the column it sits in."""
    spec = copy.deepcopy(chart.spec)
    spec["width"] = "container"
    return spec


def compile_vega(vl_spec: dict[str, Any], cache_dir: Path | None) -> dict[str, Any]:
    """Vega-Lite to Vega, cached like the images: compiling takes tens of milliseconds a chart."""
    text = json.dumps(vl_spec, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(f"{vlc.__version__}\0vega\0{text}".encode("utf-8")).hexdigest()
    path = cache_dir / f"{key}.vg.json" if cache_dir else None
    if path is not None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    spec = vlc.vegalite_to_vega(vl_spec)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(spec, sort_keys=True, separators=(",", ":")), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            pass
    return spec


def csv_text(chart: Chart) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=chart.columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in chart.rows:
        # A cell that starts like a formula would run in a spreadsheet; prefix it so it stays text.
        writer.writerow({k: f"'{v}" if isinstance(v, str) and v[:1] in "=+-@" else v for k, v in row.items()})
    return out.getvalue()


@dataclass(frozen=True)
class Job:
    fmt: str
    theme: str
    spec: str  # JSON text

    @property
    def key(self) -> str:
        h = hashlib.sha256()
        for part in (vlc.__version__, self.fmt, self.theme, str(PNG_SCALE), self.spec):
            h.update(part.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()


def _render(job: Job) -> bytes:
    spec = json.loads(job.spec)
    theme = "dark" if job.theme == "dark" else None
    if job.fmt == "svg":
        return vlc.vegalite_to_svg(spec, theme=theme, allowed_base_urls=[]).encode("utf-8")
    return vlc.vegalite_to_png(spec, theme=theme, scale=PNG_SCALE, allowed_base_urls=[])


def _valid(fmt: str, data: bytes) -> bool:
    if fmt == "png":
        return data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 24
    return data.lstrip().startswith(b"<svg") and data.rstrip().endswith(b"</svg>")


def png_width(data: bytes) -> int:
    return struct.unpack(">I", data[16:20])[0]


def render_images(jobs: list[Job], cache_dir: Path) -> tuple[dict[str, bytes], int, int]:
    """Every job's bytes by key; also how many were rendered and how many came from the cache."""
    out: dict[str, bytes] = {}
    todo: list[Job] = []
    for job in {j.key: j for j in jobs}.values():
        path = cache_dir / f"{job.key}.{job.fmt}"
        try:
            data = path.read_bytes()
            if _valid(job.fmt, data):
                out[job.key] = data
                continue
        except OSError:
            pass
        todo.append(job)
    if todo:
        workers = max(1, min(len(todo) // 8, os.cpu_count() or 1))
        if workers == 1:
            results = [_render(j) for j in todo]
        else:
            # spawn, not fork: forking a process that has already used vl-convert can deadlock.
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                results = list(pool.map(_render, todo, chunksize=max(1, len(todo) // (workers * 4))))
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        for job, data in zip(todo, results):
            out[job.key] = data
            tmp = cache_dir / f"{job.key}.{job.fmt}.tmp"
            try:
                tmp.write_bytes(data)
                tmp.replace(cache_dir / f"{job.key}.{job.fmt}")
            except OSError:
                pass  # an unwritable cache only costs time on the next build
    return out, len(todo), len(out) - len(todo)


def embed_page(env: jinja2.Environment, chart: Chart, site_url: str, charts_js: str) -> str:
    names = file_names(chart.id)
    return env.get_template("embed.html.j2").render(
        c=chart,
        names=names,
        spec=chart.vega,
        page_url=urljoin(site_url, page_url(chart.page)),
        calc_url=urljoin(site_url, f"calculator/?from={chart.preset}") if chart.preset else None,
        charts_js=posixpath.relpath(charts_js, f"embed/{chart.id}"),
        width=EXPORT_WIDTH,
    )


def build(charts: Iterable[Chart], env: jinja2.Environment, site_url: str, cache_dir: Path, charts_js: str) -> dict[str, bytes | str]:
    """All files of embed/ by site-relative path."""
    charts = list(charts)
    jobs: dict[tuple[str, str, str], Job] = {}
    exports = {c.id: export_spec(c, site_url) for c in charts}
    for c in charts:
        spec = json.dumps(exports[c.id], sort_keys=True, separators=(",", ":"))
        for theme in THEMES:
            for fmt in FORMATS:
                jobs[(c.id, theme, fmt)] = Job(fmt, theme, spec)
    images, rendered, cached = render_images(list(jobs.values()), cache_dir)
    log.info("guide: embed images: %d rendered, %d from the cache", rendered, cached)
    files: dict[str, bytes | str] = {}
    for c in charts:
        base = f"embed/{c.id}/"
        names = file_names(c.id)
        files[base + names["svg"]] = images[jobs[(c.id, "light", "svg")].key]
        files[base + names["png"]] = images[jobs[(c.id, "light", "png")].key]
        files[base + names["svg-dark"]] = images[jobs[(c.id, "dark", "svg")].key]
        files[base + names["png-dark"]] = images[jobs[(c.id, "dark", "png")].key]
        files[base + names["json"]] = json.dumps(exports[c.id], indent=2, sort_keys=True) + "\n"
        files[base + names["csv"]] = csv_text(c)
        files[base + "index.html"] = embed_page(env, c, site_url, charts_js)
    return files
