"""Self-contained copies of every chart for other sites: embed/<id>/ with an iframe page, SVG and
PNG in light and dark, the Vega-Lite spec and the data as CSV.

Pages draw a Vega spec compiled here from the Vega-Lite one, so readers need Vega alone. Static
images are rendered offline with vl-convert, in parallel worker processes, and cached by a
hash of what they are made from, so an unchanged chart is never rendered twice. The cache only
saves time: a missing, truncated or altered entry is rendered again.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import logging
import os
import posixpath
import re
import shutil
import struct
import tempfile
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jinja2
import vl_convert as vlc

from generator import cachefile
from generator.cachefile import read_checked, read_remembered, store, write_atomically, write_checked
from generator.charts import Chart
from generator.pool import process_pool

log = logging.getLogger("mkdocs.hooks.guide")

EXPORT_WIDTH = 640  # px, the width of every static SVG; PNGs are rendered at PNG_SCALE times it
PNG_SCALE = 2
TEMPLATES = Path(__file__).parent / "templates"
FONTS_CONF = Path(__file__).parent / "fonts.conf"


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
    # Shallow copies: the rows are shared with the chart, and nothing here writes to them.
    spec = dict(chart.spec, width=EXPORT_WIDTH, title=dict(chart.spec["title"]))
    subtitle = list(spec["title"].get("subtitle", []))
    subtitle.append(f"From the guide: {urljoin(site_url, page_url(chart.page))}")
    spec["title"]["subtitle"] = subtitle
    spec.pop("background", None)
    return spec


def site_spec(chart: Chart) -> dict[str, Any]:
    """The spec as the guide draws it: as wide as the column it sits in."""
    return dict(chart.spec, width="container")


# Stand-ins for what varies between charts of one shape (see _skeleton); private-use characters
# never occur in a real title.
_MARK = "\ue000"
_compiled: dict[str, str] = {}  # skeleton key -> compiled skeleton as JSON text, for this process


def _dummy(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return 0
    if isinstance(value, str):
        return ""
    return value


def _skeleton(vl_spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The spec with its rows, title strings and parameter values swapped for stand-ins, and what to
    put back. Every chart of one kind shares a skeleton, so the kind compiles once per build, not
    once per chart. One row of each dataset stays, with its types but not its values, because the
    compiler reads the first row to decide how to parse the data."""
    fills: dict[str, Any] = {}

    def stand_in(value: Any) -> str:
        token = f"{_MARK}{len(fills)}{_MARK}"
        fills[token] = value
        return token

    skeleton = dict(vl_spec)
    skeleton["datasets"] = {
        name: [{k: _dummy(v) for k, v in rows[0].items()}] if rows else [] for name, rows in vl_spec.get("datasets", {}).items()
    }
    title = dict(vl_spec["title"])
    title["text"] = stand_in(title["text"])
    if "subtitle" in title:
        title["subtitle"] = [stand_in(line) for line in title["subtitle"]]
    skeleton["title"] = title
    if "params" in vl_spec:
        skeleton["params"] = [dict(p, value=stand_in(p["value"])) if isinstance(p.get("value"), str) else p for p in vl_spec["params"]]
    return skeleton, fills


class JSONText(str):
    """JSON already serialised (compact, keys sorted): pages embed it as it is."""


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _with_data_stand_ins(node: Any, names: set[str]) -> Any:
    if isinstance(node, list):
        return [_with_data_stand_ins(v, names) for v in node]
    if isinstance(node, dict):
        if "values" in node and node.get("name") in names:
            return {**node, "values": f"{_MARK}data:{node['name']}{_MARK}"}
        return {k: _with_data_stand_ins(v, names) for k, v in node.items()}
    return node


_STAND_IN = re.compile(r'"\\ue000[^"\\]*\\ue000"')


def compile_vega(vl_spec: dict[str, Any], cache_dir: Path | None) -> JSONText:
    """Vega-Lite to Vega, as JSON text. Compiling takes tens of milliseconds, so each shape of chart
    is compiled once, kept in memory and on disk, and each chart's rows and titles are written into
    the compiled text where its stand-ins are."""
    skeleton, fills = _skeleton(vl_spec)
    text = _dump(skeleton)
    key = hashlib.sha256(f"{vlc.__version__}\0vega\0{text}".encode("utf-8")).hexdigest()
    template = _compiled.get(key)
    if template is None:
        path = cache_dir / f"{key}.vg.json" if cache_dir else None
        compiled = None
        if path is not None:
            body = read_checked(path)
            try:
                compiled = json.loads(body) if body is not None else None
            except ValueError:
                pass
        if compiled is None:
            compiled = vlc.vegalite_to_vega(skeleton)
            if path is not None:
                store(path, _dump(compiled))
        template = _compiled[key] = _dump(_with_data_stand_ins(compiled, set(skeleton.get("datasets", {}))))
    values = {_dump(token): _dump(value) for token, value in fills.items()}
    values.update({_dump(f"{_MARK}data:{name}{_MARK}"): _dump(rows) for name, rows in vl_spec.get("datasets", {}).items()})
    # One pass, so text written in is never searched again.
    return JSONText(_STAND_IN.sub(lambda m: values.get(m.group(0), m.group(0)), template))


def csv_text(chart: Chart) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=chart.columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in chart.rows:
        # A cell that starts like a formula would run in a spreadsheet; prefix it so it stays text.
        writer.writerow({k: f"'{v}" if isinstance(v, str) and v[:1] in "=+-@" else v for k, v in row.items()})
    return out.getvalue()


# The dark variants restyle the light SVG instead of running Vega a second time: Vega marks each
# part of a chart with a role class, and an SVG's own stylesheet outranks its presentation
# attributes, in browsers and in the PNG rasteriser alike. Colours follow the live charts' dark theme.
DARK_CSS = (
    "<style>"
    ".role-title-text text,.role-axis-label text,.role-axis-title text,.role-legend-label text,"
    ".role-legend-title text{fill:#fff}"
    ".role-title-subtitle text{fill:#ddd}"
    ".role-axis-domain line,.role-axis-tick line{stroke:#fff}"
    ".role-axis-grid line{stroke:#666}"
    ".role-frame>g>path.background{stroke:#666}"
    "</style>"
)
DARK_BACKGROUND = "#333"
IMAGES = ("svg", "svg-dark", "png", "png-dark")


def dark_svg(svg: str) -> str:
    head, sep, rest = svg.partition(">")
    # The background is the first element, a rect without a class for a stylesheet to reach.
    background, end, marks = rest.partition("/>")
    if not background.startswith("<rect ") or 'fill="white"' not in background:
        raise ValueError("the SVG does not open with Vega's white background")
    return head + sep + DARK_CSS + background.replace('fill="white"', f'fill="{DARK_BACKGROUND}"') + end + marks


# Everything besides the spec that decides an image's bytes: part of every image's cache key.
_RENDERING = (vlc.__version__, str(PNG_SCALE), FONTS_CONF.read_text("utf-8"), Path(__file__).read_text("utf-8"))


@dataclass(frozen=True)
class Job:
    spec: str  # the export spec compiled to Vega, as JSON text

    @functools.cached_property
    def key(self) -> str:
        h = hashlib.sha256()
        for part in (*_RENDERING, self.spec):
            h.update(part.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()


def _cached(cache_dir: Path, key: str, image: str) -> Path:
    return cache_dir / f"{key}.{image.replace('-dark', '.dark')}"


def _sums(cache_dir: Path, key: str) -> Path:
    """The size and sha256 of a chart's four images, written after them: what a later build checks
    the images against before it links them into a site (where an edit would reach the cache)."""
    return cache_dir / f"{key}.sums.json"


def _only_bundled_fonts() -> None:
    """Runs first in each worker, before vl-convert builds its font database (see fonts.conf)."""
    os.environ["FONTCONFIG_FILE"] = str(FONTS_CONF)


def _probe(text: str) -> bytes:
    return vlc.svg_to_png(f'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><text x="5" y="20" '
                          f'font-family="Liberation Sans" font-size="14">{text}</text></svg>')


@functools.lru_cache(maxsize=None)
def _drawable(ch: str) -> bool:
    """Whether the bundled font has a glyph for ch: a character it lacks draws the same box as a
    private-use character, which no font here has."""
    return _probe(ch) != _probe("\ue000")


_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


def drawable_svg(svg: str) -> str:
    """The SVG with every run of characters the bundled font cannot draw (Chinese, Arabic, emoji and
    more) written as an ellipsis, for the PNGs: drawn, they would be boxes. Bundling fonts for every
    script would add tens of megabytes to every image worker; the SVGs and the pages keep the text,
    and the reader's own fonts draw it there."""
    return _NON_ASCII_RUN.sub(lambda m: _ellipsis(m[0]), svg)


def _ellipsis(run: str) -> str:
    out: list[str] = []
    missing = False
    for ch in run:
        if _drawable(ch):
            out.append(ch)
            missing = False
        elif not missing:
            out.append("\u2026")
            missing = True
    return "".join(out)


def _render(job: Job, cache_dir: Path) -> None:
    """All four images of a chart from one Vega run, written to the cache: the SVG, its dark
    restyling, and both rasterised. Runs in a worker process; the bytes never travel back."""
    # Parsed here, not handed over as text: vl-convert's own JSON parser can round a number's last
    # digit differently, which moves a coordinate in the SVG.
    svg = vlc.vega_to_svg(json.loads(job.spec), allowed_base_urls=[])
    dark = dark_svg(svg)
    images = {
        "svg": svg.encode("utf-8"),
        "svg-dark": dark.encode("utf-8"),
        "png": vlc.svg_to_png(drawable_svg(svg), scale=PNG_SCALE),
        "png-dark": vlc.svg_to_png(drawable_svg(dark), scale=PNG_SCALE),
    }
    for image, data in images.items():
        write_atomically(_cached(cache_dir, job.key, image), data)
    sums = {image: [len(data), hashlib.sha256(data).hexdigest()] for image, data in images.items()}
    write_checked(_sums(cache_dir, job.key), json.dumps(sums, sort_keys=True))


def png_width(data: bytes) -> int:
    return struct.unpack(">I", data[16:20])[0]


class Images:
    """The static images of a build. Charts come in one at a time, as the pages that show them are
    rendered; those missing from the cache, or whose cached bytes are not what was rendered, go at
    once to worker processes, which run while the rest of the site is laid out and while MkDocs
    renders the pages. `wait` collects them. Images stay on disk, in the cache: at a thousand
    scenarios they would not fit in memory together. With a cache that cannot be written (a warm,
    read-only one), what is missing renders into a temporary folder instead.

    render=False only finds where each image is (for `guide cache prune`)."""

    def __init__(self, cache_dir: Path, *, render: bool = True):
        self.cache_dir = cache_dir
        self.render = render
        self.paths: dict[str, dict[str, Path]] = {}
        self.pending: set[Path] = set()  # image files a worker is still to write
        self.rendered = self.cached = 0
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list[Future[None]] = []
        self._scratch: Path | None = None

    def add(self, job: Job) -> dict[str, Path]:
        """Where the chart's images are, or will be once rendered."""
        key = job.key
        paths = self.paths.get(key)
        if paths is not None:
            return paths
        paths = {image: _cached(self.cache_dir, key, image) for image in IMAGES}
        if _whole(self.cache_dir, key, paths) or not self.render:
            self.cached += 1
            self.paths[key] = paths
            return paths
        self.rendered += 1
        target = self.cache_dir if cachefile.writable(self.cache_dir) else self._scratch_dir()
        paths = self.paths[key] = {image: _cached(target, key, image) for image in IMAGES}
        self.pending.update(paths.values())
        if self._pool is None:
            self._pool = process_pool(os.cpu_count() or 1, _only_bundled_fonts)
        self._futures.append(self._pool.submit(_render, job, target))
        return paths

    def _scratch_dir(self) -> Path:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="guide-images-"))
        return self._scratch

    def close(self) -> None:
        """Once the images are in the site: remove what a read-only cache made render elsewhere."""
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def wait(self) -> None:
        """Returns once every image is in the cache; raises what a worker raised."""
        try:
            for future in self._futures:
                future.result()
        finally:
            self.cancel()

    def cancel(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _parse_sums(body: bytes) -> dict | None:
    try:
        sums = json.loads(body)
    except ValueError:
        return None
    return sums if isinstance(sums, dict) else None


def _whole(cache_dir: Path, key: str, paths: dict[str, Path]) -> bool:
    """Whether every image of a chart is in the cache with the size and hash it was rendered with."""
    # The images of one key are the same bytes whenever they are rendered, and so is their record.
    sums = read_remembered(_sums(cache_dir, key), _parse_sums)
    if sums is None:
        return False
    try:
        for image, path in paths.items():
            size, sha256 = sums[image]
            if not cachefile.linkable(path, size, sha256):
                return False
    except (OSError, ValueError, KeyError, TypeError):
        return False
    for path in paths.values():
        cachefile.mark_used(path)
    return True


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


@dataclass(frozen=True)
class ChartFiles:
    """What embed/<id>/ holds for one chart: its text files by site-relative path, and the job that
    renders its images; and the chart's section of the embed gallery (HTML), which points there."""
    chart_id: str
    texts: dict[str, str]
    job: Job
    gallery: str


def chart_files(c: Chart, env: jinja2.Environment, site_url: str, cache_dir: Path | None, charts_js: str) -> ChartFiles:
    export = export_spec(c, site_url)
    base = f"embed/{c.id}/"
    names = file_names(c.id)
    texts = {
        # Compact: with an indent, Python's JSON encoder falls back to its slow pure-Python path.
        base + names["json"]: _dump(export) + "\n",
        base + names["csv"]: csv_text(c),
        base + "index.html": embed_page(env, c, site_url, charts_js),
    }
    gallery = env.get_template("partials/gallery_section.html.j2").render(c=c)
    return ChartFiles(c.id, texts, Job(compile_vega(export, cache_dir)), gallery)


def _stored(cache_dir: Path, path: str, text: str) -> Path:
    """The text in the cache under the hash of its bytes, written unless a file of exactly those
    bytes is there already."""
    data = text.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    stored = cache_dir / "texts" / (digest + posixpath.splitext(path)[1])
    try:
        whole = cachefile.linkable(stored, len(data), digest)
    except OSError:
        whole = False
    if whole:
        cachefile.mark_used(stored)
    else:
        write_atomically(stored, data)
    return stored


def build(charts: Iterable[ChartFiles], images: Images) -> tuple[dict[str, str], dict[str, Path]]:
    """The files of embed/: those to write, by site-relative path, and those to link from the cache,
    by site-relative path to their place there (every image, and the text files once stored).

    A thousand scenarios carry thousands of small text files. Written out by MkDocs, they took about
    two seconds of every build; linked from the cache, where each is written once, a tenth of that."""
    texts: dict[str, str] = {}
    linked: dict[str, Path] = {}
    for c in charts:
        for path, text in c.texts.items():
            try:
                linked[path] = _stored(images.cache_dir, path, text)
            except OSError:
                texts[path] = text  # a read-only cache: MkDocs writes the file
        names = file_names(c.chart_id)
        for image, path in images.add(c.job).items():
            linked[f"embed/{c.chart_id}/{names[image]}"] = path
    return texts, linked


def link_into(site_dir: Path, linked: dict[str, Path], before: dict[str, tuple] | None = None) -> dict[str, tuple]:
    """Put the files `build` found into the site: each checked in the cache just before (its hash
    or its recorded sums), so what is linked is what was rendered. Returns what each site path now
    links to (the cache file and its identity); given that record from the last build into the same
    site folder by this process (`mkdocs serve --dirty`, whose folder nobody else writes), a file
    still linked to the same, unchanged cache file is left alone without a system call beyond a stat."""
    folders: set[Path] = set()
    now: dict[str, tuple] = {}
    for path, cached in linked.items():
        if before is not None:
            st = os.stat(cached)
            now[path] = was = (str(cached), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            if before.get(path) == was:
                continue
        dest = site_dir / path
        if dest.parent not in folders:
            dest.parent.mkdir(parents=True, exist_ok=True)
            folders.add(dest.parent)
        # A hard link, not a copy: at a thousand scenarios the images are hundreds of megabytes a
        # build, in thousands of files. The cache only ever replaces its files, never writes into
        # them; a built file edited in place edits the cache too, which the next build's check
        # finds and renders again. Where linking is not possible (another file system), copy.
        try:
            _link_or_copy(cached, dest)
        except FileExistsError:
            if os.path.samefile(cached, dest):
                continue  # linked by an earlier build into the same site (`mkdocs serve --dirty`)
            dest.unlink()
            _link_or_copy(cached, dest)
    return now


def link_meanwhile(site_dir: Path, linked: dict[str, Path]) -> Future[dict[str, tuple]]:
    """`link_into` on a thread of its own, while MkDocs writes the pages: at a thousand scenarios a
    warm build makes some 1,100 folders and 7,500 links, system calls that wait on the file system
    more than on Python. The future's result raises what linking raised."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="guide-link")
    future = pool.submit(link_into, site_dir, linked)
    pool.shutdown(wait=False)  # the thread ends once its one task is done
    return future


def _link_or_copy(cached: Path, dest: Path) -> None:
    """Raises FileExistsError where dest is taken."""
    try:
        os.link(cached, dest)
    except FileExistsError:
        raise
    except OSError:
        shutil.copyfile(cached, dest)
