"""The static images of every chart: SVG and PNG, light and dark, rendered with vl-convert from the
chart's compiled Vega spec in worker processes, and kept in the build cache under a hash of what
their bytes depend on (the spec, vl-convert's version, the PNG scale, the font setting and this
module), so an unchanged chart is never rendered twice and a change to how embed pages or links
are made renders nothing again. The cache only saves time: an image missing, truncated or altered
there is rendered again.

Each chart's static images (light and dark SVG and PNG, and its link card, under the lines its job
names: a scenario's answer, the site's question and answer; for a scenario's cumulative chart also a
narrow SVG, light and dark, 340 px wide with its title rewrapped and its legend under the plot,
which its page shows a phone) in worker processes (a build's own: one, and a process for each other
core once it has more than sixteen charts to render; or those `mkdocs serve` keeps), cached under a
hash of what decides their bytes; fonts fixed by `fonts.conf`. What a build rendered it hashes
before it ends, so the next build checks those files by their stat. Whether a build makes them at
all is the plugin's to say (`images`).
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import os
import re
import shutil
import struct
import tempfile
import textwrap
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass
from pathlib import Path

import vl_convert as vlc

from generator.model.wording import SITE_WORDS
from generator.inputs.pool import process_pool
from generator.store.cachefile import Cache, checked, writable, write_atomically
from generator.store.registry import hashed, library_version

PNG_SCALE = 2  # PNGs are this many times the SVG's width (embeds.EXPORT_WIDTH)
FONTS_CONF = Path(__file__).parent / "fonts.conf"
# The card a link to a chart unfurls to in chats and social networks: the size Open Graph readers
# show whole (1.91:1), the light chart fitted inside it on white.
CARD_WIDTH, CARD_HEIGHT = 1200, 630
CARD_MARGIN = 24


# The dark variants restyle the light SVG instead of running Vega a second time: Vega marks each
# part of a chart with a role class, and an SVG's own stylesheet outranks its presentation
# attributes, in browsers and in the PNG rasteriser alike. Colours follow the live charts' dark theme.
DARK_CSS = (
    "<style>"
    ".role-title-text text,.role-axis-label text,.role-axis-title text,.role-legend-label text,"
    ".role-legend-title text{fill:#fff}"
    ".role-title-subtitle text{fill:#ddd}"
    ".role-mark text{fill:#bbb}"
    ".role-axis-domain line,.role-axis-tick line{stroke:#fff}"
    ".role-axis-grid line{stroke:#666}"
    ".role-frame>g>path.background{stroke:#666}"
    "</style>"
)
DARK_BACKGROUND = "#333"
IMAGES = ("svg", "svg-dark", "png", "png-dark", "card")
# A phone's image of a chart, for the pages alone: EXPORT_WIDTH's image there would be drawn at some
# 330 px, its 10 px text at 5. This one's text stays at 9 px or more down to 0.9 of its width.
NARROW_WIDTH = 340
NARROW_IMAGES = ("svg-narrow", "svg-narrow-dark")
# How the last line of an exported chart's subtitle starts: the address of the page it is from.
ADDRESS_LINE = SITE_WORDS["address_line"]


def dark_svg(svg: str) -> str:
    head, sep, rest = svg.partition(">")
    # The background is the first element, a rect without a class for a stylesheet to reach.
    background, end, marks = rest.partition("/>")
    if not background.startswith("<rect ") or 'fill="white"' not in background:
        raise ValueError("the SVG does not open with Vega's white background")
    return head + sep + DARK_CSS + background.replace('fill="white"', f'fill="{DARK_BACKGROUND}"') + end + marks


_ROOT = re.compile(r'<svg [^>]*?\bwidth="([0-9.]+)" height="([0-9.]+)"[^>]*>')


# The heading's type: a feed shows a card some 500 px wide, 0.42 of its size, where 30 px is 12.5 px.
HEADING_SIZES = (52, 30)
# Liberation Sans averages under 0.55 em a character in running text: a line of this many ems fits.
_EM_PER_CHARACTER = 0.55


def _wrapped(text: str, size: int, room: float, most: int = 2) -> list[str]:
    """text in lines that fit `room` px at `size` px, at most `most` of them, the last cut with an
    ellipsis where the text is longer."""
    lines = textwrap.wrap(text, max(8, int(room / (size * _EM_PER_CHARACTER))))
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = lines[-1].rstrip(" ,;:") + "\u2026"
    return lines


def card_svg(svg: str, heading: tuple[str, ...] = ()) -> str:
    """The chart's SVG fitted, whole and centred, into a CARD_WIDTH x CARD_HEIGHT card on white,
    under the heading's lines (the first large and bold, the others smaller, each wrapped to the
    card's width) where there are any. The chart's marks go in as they are, in a scaled group: a
    nested <svg> would draw the same, but the rasteriser takes four times as long over it."""
    m = _ROOT.match(svg)
    if m is None or not svg.endswith("</svg>"):
        raise ValueError("the SVG does not open with Vega's width and height")
    width, height = float(m[1]), float(m[2])
    lines: list[str] = []
    y = CARD_MARGIN
    for i, text in enumerate(heading):
        size = HEADING_SIZES[0] if i == 0 else HEADING_SIZES[1]
        weight = ' font-weight="bold"' if i == 0 else ""
        for line in _wrapped(text, size, CARD_WIDTH - 4 * CARD_MARGIN):
            y += size
            lines.append(f'<text x="{CARD_MARGIN * 2}" y="{y}" font-family="Liberation Sans" font-size="{size}"{weight} '
                         f'fill="#222">{html.escape(line)}</text>')
            y += size // 4
        y += size // 8
    top = y + (CARD_MARGIN // 2 if heading else 0)
    room_w, room_h = CARD_WIDTH - 2 * CARD_MARGIN, CARD_HEIGHT - top - CARD_MARGIN
    scale = min(room_w / width, room_h / height)
    x, y = (CARD_WIDTH - width * scale) / 2, top + (room_h - height * scale) / 2
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{CARD_WIDTH}" '
            f'height="{CARD_HEIGHT}" viewBox="0 0 {CARD_WIDTH} {CARD_HEIGHT}"><rect width="{CARD_WIDTH}" height="{CARD_HEIGHT}" '
            f'fill="white"/>' + "".join(lines) + f'<g transform="translate({x:.2f},{y:.2f}) scale({scale:.4f})">'
            + svg[m.end():-len("</svg>")] + "</g></svg>")


# Characters in a line of the narrow image's title (13 px bold) and subtitle (12 px), and the height
# each line takes: the lines the export's title gains there are added to the image's height, and
# so is a row for the legend, which moves under the plot, so that the plot keeps its own height.
_NARROW_TITLE_CHARS, _NARROW_SUBTITLE_CHARS = 43, 54
_TITLE_LINE, _LEGEND_ROW = 15, 24
_BREAKS = re.compile(r"[^ /]*(?:/+| +|$)")


def _narrow_lines(lines: list[str], chars: int) -> list[str]:
    """The lines joined and wrapped again at `chars`, at spaces and after slashes (a URL)."""
    out: list[str] = []
    line = ""
    for piece in _BREAKS.findall(" ".join(lines)):
        if line and len((line + piece).rstrip()) > chars:
            out.append(line.rstrip())
            line = piece
        else:
            line += piece
    if line.strip():
        out.append(line.rstrip())
    return out


def _narrow_title(title: dict) -> dict:
    narrow = dict(title, text=_narrow_lines(list(title["text"]), _NARROW_TITLE_CHARS))
    if "subtitle" in title:
        # Without the page's address: the narrow image is shown on that page alone, and a wrapped
        # address would make its height, and the page's markup, depend on the site URL's length.
        kept = [line for line in title["subtitle"] if not line.startswith(ADDRESS_LINE)]
        narrow["subtitle"] = _narrow_lines(kept, _NARROW_SUBTITLE_CHARS)
    return narrow


def narrow_height(title: dict, height: int) -> int:
    """The narrow image's height, for a chart of this title (lists of lines) and height."""
    def count(t: dict) -> int:
        return len(t["text"]) + len(t.get("subtitle", []))
    return height + _TITLE_LINE * (count(_narrow_title(title)) - count(title)) + _LEGEND_ROW


def narrow_spec(spec: dict, height: int) -> dict:
    """The compiled chart laid out NARROW_WIDTH x height: its title wrapped to the width, its
    legends in a row under the plot, and its axis titles cut to the plot's width."""
    narrow = dict(spec, width=NARROW_WIDTH, height=height, title=_narrow_title(spec["title"]))
    narrow["legends"] = [dict(legend, orient="bottom", direction="horizontal", columns=2) for legend in spec.get("legends", [])]
    narrow["axes"] = [dict(axis, titleLimit={"signal": "width"}) if "title" in axis else axis for axis in spec.get("axes", [])]
    return narrow


# Everything besides the spec that decides an image's bytes: where every image's cache key starts
# (the images store's recipe in store/registry.py). Not the code digest every other store's key
# holds: rendering the images is most of a cold build (at
# least 38 s of wall for 1,072 charts on two cores, benchmarks/README.md), and a change to how embed
# pages, links or pages are made does not change an image.
# Hashed once: every chart's key starts with it (this module's text is most of the bytes).
_RENDERING_HASHED = hashed((library_version("vl-convert-python"), str(PNG_SCALE), FONTS_CONF.read_text("utf-8"),
                            Path(__file__).read_text("utf-8")))


@dataclass(frozen=True)
class Job:
    spec: str  # the export spec compiled to Vega, as JSON text
    # A site's card: the chart under these lines, and no other image. Empty for a chart's own images.
    heading: tuple[str, ...] = ()
    # A chart's own images, its card under these lines (a scenario's verdict, saving and title).
    card_heading: tuple[str, ...] = ()
    # A chart's own images, with the narrow image (NARROW_IMAGES) this high; 0: none.
    narrow_height: int = 0

    @property
    def images(self) -> tuple[str, ...]:
        if self.heading:
            return ("card",)
        return IMAGES + NARROW_IMAGES if self.narrow_height else IMAGES

    @functools.cached_property
    def key(self) -> str:
        h = _RENDERING_HASHED.copy()
        for part in (self.spec, *self.heading):
            h.update(part.encode("utf-8"))
            h.update(b"\0")
        h.update(str(len(self.heading)).encode())
        if self.card_heading:
            for part in self.card_heading:
                h.update(part.encode("utf-8"))
                h.update(b"\0")
            h.update(f"card {len(self.card_heading)}".encode())
        if self.narrow_height:
            h.update(f"narrow {self.narrow_height}".encode())
        return h.hexdigest()


def _cached(cache_dir: Path, key: str, image: str) -> Path:
    return cache_dir / f"{key}.{image.replace('-dark', '.dark')}"


def _sums(cache_dir: Path, key: str) -> Path:
    """The size and sha256 of a chart's images, written after them: what a later build checks
    the images against before it links them into a site (where an edit would reach the cache)."""
    return cache_dir / f"{key}.sums.json"


def _only_bundled_fonts() -> None:
    """Runs first in each worker, before vl-convert builds its font database (see fonts.conf)."""
    os.environ["FONTCONFIG_FILE"] = str(FONTS_CONF)


def _started() -> int:
    """A worker's first job: vl-convert's engine started and its fonts read, as a chart's text needs."""
    vlc.vega_to_svg({"width": 10, "height": 10, "marks": [{"type": "text", "encode": {"enter": {"text": {"value": "0"}}}}]},
                    allowed_base_urls=[])
    return os.getpid()


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
    """A chart's images, written to the cache: the SVG, its dark restyling, both rasterised and
    its card from one Vega run; with a second, the narrow SVG and its dark restyling. Runs in a
    worker process; the bytes never travel back."""
    # Parsed here, not handed over as text: vl-convert's own JSON parser can round a number's last
    # digit differently, which moves a coordinate in the SVG.
    spec = json.loads(job.spec)
    svg = vlc.vega_to_svg(spec, allowed_base_urls=[])
    card = vlc.svg_to_png(drawable_svg(card_svg(svg, job.heading or job.card_heading)))
    if job.heading:
        images = {"card": card}
    else:
        dark = dark_svg(svg)
        images = {
            "svg": svg.encode("utf-8"),
            "svg-dark": dark.encode("utf-8"),
            "png": vlc.svg_to_png(drawable_svg(svg), scale=PNG_SCALE),
            "png-dark": vlc.svg_to_png(drawable_svg(dark), scale=PNG_SCALE),
            "card": card,
        }
        if job.narrow_height:
            narrow = vlc.vega_to_svg(narrow_spec(spec, job.narrow_height), allowed_base_urls=[])
            images["svg-narrow"] = narrow.encode("utf-8")
            images["svg-narrow-dark"] = dark_svg(narrow).encode("utf-8")
    for image, data in images.items():
        write_atomically(_cached(cache_dir, job.key, image), data)
    sums = {image: [len(data), hashlib.sha256(data).hexdigest()] for image, data in images.items()}
    write_atomically(_sums(cache_dir, job.key), checked(json.dumps(sums, sort_keys=True)))


def png_width(data: bytes) -> int:
    return struct.unpack(">I", data[16:20])[0]


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    return struct.unpack(">II", data[16:24])


# Renders a build making its own workers sends to one before the other cores join (`Images._own_workers`).
# A worker takes some 0.5 s of CPU to start, three charts' rendering: a project of two scenarios (nine
# charts) built cold in 5.5 s with one worker, 5.7 s (and 0.4 s more CPU) when a second joined for the ninth.
ONE_WORKER_UP_TO = 16


class Workers:
    """The image workers a `mkdocs serve` process keeps from one build to the next. A save that
    changes a scenario renders that scenario's few charts again, and starting workers (a Python
    process each, and vl-convert's JavaScript engine in it) took longer than rendering them. Started
    on first use; `close` ends them."""

    def __init__(self, size: int | None = None) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self.size = size or os.cpu_count() or 1

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = process_pool(self.size, _only_bundled_fonts)
        return self._pool

    def warm(self) -> list[Future[int]]:
        """Start the workers and their engines now, while the server waits for a save: the first save
        otherwise waits for them at its end (some 0.4 s). Each start draws a little text; the futures
        give each worker's process id; there are none where the workers are started already."""
        if self._pool is not None:
            return []
        pool = self.pool()
        return [pool.submit(_started) for _ in range(self.size)]

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


class Images:
    """The static images of a build. Charts come in one at a time, as the pages that show them are
    rendered; those missing from the cache, or whose cached bytes are not what was rendered, go at
    once to worker processes, which run while the rest of the site is laid out and while MkDocs
    renders the pages. `wait` collects them. Images stay on disk, in the cache: at a thousand
    scenarios they would not fit in memory together. With a cache that cannot be written (a warm,
    read-only one), what is missing renders into a temporary folder instead.

    render=False only finds where each image is (for `guide cache prune`). workers: the workers to
    render with, kept by the caller from one build to the next; without them, the build starts its
    own and ends them once its images are in."""

    def __init__(self, cache: Cache, *, render: bool = True, workers: Workers | None = None):
        self.cache = cache
        self.cache_dir = cache.folder("images")
        self.render = render
        self.paths: dict[str, dict[str, Path]] = {}
        self.pending: set[Path] = set()  # image files a worker is still to write
        self.rendered = self.cached = 0
        self._workers = workers
        # Workers of this build alone, where it was handed none: one, and the other cores' once it
        # renders more than ONE_WORKER_UP_TO charts.
        self._own: list[Workers] = []
        self._futures: list[Future[None]] = []
        self._scratch: Path | None = None

    def add(self, job: Job) -> dict[str, Path]:
        """Where the chart's images are, or will be once rendered."""
        key = job.key
        paths = self.paths.get(key)
        if paths is not None:
            return paths
        # The images and sums found whole by an earlier build of this process (`mkdocs serve`
        # checks every chart on each save): only their check on disk is made again.
        whole: dict[str, tuple[dict[str, Path], dict, Path]] = self.cache.memo("images")
        found = whole.get(key)
        if found is not None and _still_whole(self.cache, found[0], found[1]):
            self.cache.mark_used(found[2])
            self.cached += 1
            self.paths[key] = found[0]
            return found[0]
        paths = {image: _cached(self.cache_dir, key, image) for image in job.images}
        sums = _whole(self.cache, self.cache_dir, key, paths)
        if sums is not None or not self.render:
            if sums is not None:
                whole[key] = (paths, sums, _sums(self.cache_dir, key))
            self.cached += 1
            self.paths[key] = paths
            return paths
        self.rendered += 1
        target = self.cache_dir if writable(self.cache_dir) else self._scratch_dir()
        paths = self.paths[key] = {image: _cached(target, key, image) for image in job.images}
        self.pending.update(paths.values())
        workers = self._workers or self._own_workers()
        self._futures.append(workers.pool().submit(_render, job, target))
        return paths

    def _own_workers(self) -> Workers:
        """The workers for the next render of a build handed none. A build after one scenario changed
        renders a chart or two (its own, and a site chart its point is on): a worker per core would
        start a Python process and a JavaScript engine each (90 to 150 MB) to save a fraction of a second."""
        if not self._own:
            self._own.append(Workers(size=1))
        cores = os.cpu_count() or 1
        if self.rendered > ONE_WORKER_UP_TO and len(self._own) == 1 and cores > 1:
            self._own.append(Workers(size=cores - 1))
        if len(self._own) == 1:
            return self._own[0]
        # Shared out as the processes are: one in every `cores` to the first worker.
        return self._own[0] if self.rendered % cores == 0 else self._own[1]

    def kept(self) -> None:
        """A chart whose images are where the last build found them whole, carried as it was
        (`embeds.carried`): counted with those from the cache."""
        self.cached += 1

    def _scratch_dir(self) -> Path:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="guide-images-"))
        return self._scratch

    def close(self) -> None:
        """Once the images are in the site: remove what a read-only cache made render elsewhere."""
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def record_rendered(self) -> None:
        """Once rendered: each new image hashed as the next build's check would hash it, so that the
        cache records its digest now (settled where the file was written long enough ago, see
        `Cache.digest`). The build after a cold one then checks a thousand charts' images by their
        stat alone, instead of reading some 400 MB again."""
        for path in self.pending:
            if path.parent != self.cache_dir:
                continue  # rendered aside, for a cache that cannot be written
            try:
                self.cache.digest(path)
            except OSError:
                continue  # the next build finds it missing and renders it again
            self.cache.mark_used(path)

    def wait(self) -> None:
        """Returns once every image is in the cache; raises what a worker raised, after which the
        workers handed in are ended too (the next build starts its own: a worker that died leaves its
        pool unusable)."""
        try:
            for future in self._futures:
                future.result()
        except BaseException:
            if self._workers is not None:
                self._workers.close()
            raise
        finally:
            self.cancel()

    def cancel(self) -> None:
        """Drops the renders not started, and returns once those started are done."""
        own, self._own = self._own, []
        for workers in own:
            workers.close()
        # A future cancelled before it ran is never finished: only those that did run are waited for.
        futures_wait([future for future in self._futures if not future.cancel()])


def _parse_sums(body: bytes) -> dict | None:
    try:
        sums = json.loads(body)
    except ValueError:
        return None
    return sums if isinstance(sums, dict) else None


def _whole(cache: Cache, cache_dir: Path, key: str, paths: dict[str, Path]) -> dict | None:
    """The sums of a chart's images, where every one is in the cache with the size and hash it was
    rendered with; else None."""
    # The images of one key are the same bytes whenever they are rendered, and so is their record.
    sums = cache.read_remembered(_sums(cache_dir, key), _parse_sums)
    return sums if sums is not None and _still_whole(cache, paths, sums) else None


def _still_whole(cache: Cache, paths: dict[str, Path], sums: dict) -> bool:
    try:
        for image, path in paths.items():
            size, sha256 = sums[image]
            if not cache.linkable(path, size, sha256):
                return False
    except (OSError, ValueError, KeyError, TypeError):
        return False
    for path in paths.values():
        cache.mark_used(path)
    return True
