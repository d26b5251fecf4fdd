"""Self-contained copies of every chart for other sites: embed/<id>/ with an iframe page, SVG and
PNG in light and dark, the Vega-Lite spec and the data as CSV.

Pages draw a Vega spec compiled here from the Vega-Lite one, so readers need Vega alone. The
static images are `images`' work; this module places them, and the text files it writes once into
the cache, in the site.

Every chart's `embed/<id>/` folder: iframe page (light unless the embedding page asks `?theme=dark`
or `?theme=auto`; its frame as tall as the chart and caption, `unfurl.iframe_height`), spec, CSV,
`.metadata.json` (title, subtitle, source and date, units, page, citation), images, gallery section;
text files stored once by content hash and hard-linked into the site (a scenario's published files
too, as a bundle without a chart). A lone build stores each chart's texts as the chart is made and
holds only where they are; under `mkdocs serve` they are stored as the build links them, beside what
the last build stored.
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
from collections.abc import Callable, Container, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jinja2
from markupsafe import Markup

from generator.model.wording import CHART_UNITS, SITE_WORDS, site_say
from generator.rendering.embeds import unfurl
from generator.rendering.charts.specs import Chart
from generator.rendering.charts import images as image_files
from generator.rendering.charts.images import Images, Job
from generator.rendering.charts.js_engine import IN_PROCESS, JsEngine
from generator.store.cachefile import Cache, path_key

log = logging.getLogger("mkdocs.plugins.guide")

EXPORT_WIDTH = 640  # px, the width of every static SVG; PNGs are rendered at images.PNG_SCALE times it


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
        # What a phone shows of a scenario's chart on its page (images.NARROW_WIDTH wide).
        "svg-narrow": f"{chart_id}-narrow.svg",
        "svg-narrow-dark": f"{chart_id}-narrow-dark.svg",
        "png-dark": f"{chart_id}-dark.png",
        "card": f"{chart_id}-card.png",
        "json": f"{chart_id}.vl.json",
        "csv": f"{chart_id}.csv",
        # The chart compiled to Vega at the column's width: the embed gallery fetches it to draw the
        # chart live where the column is narrower than an image may be drawn (a phone).
        "vega": f"{chart_id}.vg.json",
        # What the chart is, where its figures come from and how to cite it.
        "metadata": f"{chart_id}.metadata.json",
    }


def image_height(chart: Chart) -> int:
    """The height of the chart's static images in px: its spec's, which autosize "fit" (charts.py)
    makes the whole image's at EXPORT_WIDTH, title and legend included."""
    return int(chart.spec["height"])


# The charts with a narrow image: a scenario's cumulative cost, which its page shows in the first
# screen. The site's charts keep the live chart on a phone: their legends and axis titles need
# more than the narrow image's width.
NARROW_KINDS = frozenset({"cumulative"})
# Where a page shows the narrow image: below 608 px the column is under 576 px (the viewport less
# Material's 16 px margins), the width that keeps the wide image's 10 px text at 9 (guide.css).
NARROW_BELOW = 608
NARROW_MEDIA = f"(max-width: {NARROW_BELOW - 0.02}px)"


def narrow_height(chart: Chart, site_url: str) -> int:
    """The height of the chart's narrow image in px; 0 for a chart without one."""
    if chart.kind not in NARROW_KINDS:
        return 0
    return image_files.narrow_height(export_spec(chart, site_url)["title"], image_height(chart))


def export_spec(chart: Chart, site_url: str) -> dict[str, Any]:
    """The spec as it travels: a fixed width, an opaque background, and the address of its page."""
    # Shallow copies: the rows are shared with the chart, and nothing here writes to them.
    spec = dict(chart.spec, width=EXPORT_WIDTH, title=dict(chart.spec["title"]))
    subtitle = list(spec["title"].get("subtitle", []))
    subtitle.append(f"{image_files.ADDRESS_LINE}{urljoin(site_url, page_url(chart.page))}")
    spec["title"]["subtitle"] = subtitle
    spec.pop("background", None)
    return spec


def site_spec(chart: Chart) -> dict[str, Any]:
    """The spec as the guide draws it: as wide as the column it sits in."""
    return dict(chart.spec, width="container")


# Stand-ins for what varies between charts of one shape (see _skeleton); private-use characters
# never occur in a real title.
_MARK = "\ue000"


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


def compact_json(value: Any) -> str:
    """JSON as the site embeds it: compact, keys sorted, no NaN."""
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


def compile_vega(vl_spec: dict[str, Any], cache: Cache | None, memo: dict[str, str] | None = None,
                 engine: JsEngine = IN_PROCESS) -> JSONText:
    """Vega-Lite to Vega, as JSON text. Compiling takes tens of milliseconds, so each shape of chart
    is compiled once, kept in memo (the cache's, by default) and on disk, and each chart's rows and
    titles are written into the compiled text where its stand-ins are."""
    skeleton, fills = _skeleton(vl_spec)
    text = compact_json(skeleton)
    memo = memo if memo is not None else cache.memo("vega") if cache is not None else {}
    template = memo.get(text)
    if template is None:
        path = None
        if cache is not None:
            path = cache.names("vega", suffix=".vg.json").path({"vega": text})
        compiled = None
        if path is not None:
            body = cache.read_checked(path)
            try:
                compiled = json.loads(body) if body is not None else None
            except ValueError:
                pass
        if compiled is None:
            compiled = engine.vegalite_to_vega(skeleton)
            if path is not None:
                cache.store(path, compact_json(compiled))
        template = memo[text] = compact_json(_with_data_stand_ins(compiled, set(skeleton.get("datasets", {}))))
    values = {compact_json(token): compact_json(value) for token, value in fills.items()}
    values.update({compact_json(f"{_MARK}data:{name}{_MARK}"): compact_json(rows) for name, rows in vl_spec.get("datasets", {}).items()})
    # One pass, so text written in is never searched again.
    return JSONText(_STAND_IN.sub(lambda m: values.get(m.group(0), m.group(0)), template))


def metadata_text(chart: Chart, site_url: str, site_name: str) -> str:
    """The chart's metadata file: title, subtitle, source and date, the unit of each data column, the
    page it belongs to, its files, and a line to cite it by. JSON escapes every contributed string."""
    page = urljoin(site_url, page_url(chart.page))
    folder = urljoin(site_url, f"embed/{chart.id}/")
    names = file_names(chart.id)
    subtitle = " ".join(chart.spec["title"].get("subtitle", []))
    name = site_name or SITE_WORDS["the_guide"]
    doc = {
        "id": chart.id,
        "title": chart.title,
        "subtitle": subtitle,
        "summary": chart.summary,
        "sources": [{"text": chart.source, "as_of": chart.as_of.isoformat()}],
        "as_of": chart.as_of.isoformat(),
        "units": {c: CHART_UNITS.get(c, "text") for c in chart.columns},
        "page": page,
        "files": {"csv": folder + names["csv"], "vega_lite": folder + names["json"], "chart": folder},
        "citation": site_say("citation", title=chart.title, site=name, page=page, as_of=chart.as_of.isoformat(), source=chart.source),
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def csv_text(chart: Chart) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=chart.columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in chart.rows:
        # A cell that starts like a formula would run in a spreadsheet; prefix it so it stays text.
        writer.writerow({k: f"'{v}" if isinstance(v, str) and v[:1] in "=+-@" else v for k, v in row.items()})
    return out.getvalue()


def embed_page(env: jinja2.Environment, chart: Chart, site_url: str, charts_js: str, site_name: str,
               unfurl_env: jinja2.Environment, *, images: bool = True) -> str:
    """The chart alone, for an iframe: its static image until the reader reaches it, then the live
    chart; with images=False (a build without static images) the live chart from the start."""
    names = file_names(chart.id)
    folder = f"embed/{chart.id}/"
    return env.get_template("embed.html.j2").render(
        c=chart,
        names=names,
        spec=chart.vega,
        page_url=urljoin(site_url, page_url(chart.page)),
        calc_url=urljoin(site_url, f"calculator/?from={chart.preset}") if chart.preset else None,
        charts_js=posixpath.relpath(charts_js, f"embed/{chart.id}"),
        width=EXPORT_WIDTH,
        height=image_height(chart),
        unfurl_tags=Markup(unfurl.tags(unfurl_env, unfurl.embed(chart, folder, names["card"]), site_url, site_name, image=images)),
        images=images,
        oembed_url=urljoin(site_url, folder + unfurl.OEMBED) if site_url else None,
    )


@dataclass(frozen=True)
class StoredText:
    """A text file in the cache's texts store (`_stored`), named by the sha256 of its bytes: what a
    scenario's stored entry keeps of its files instead of their text (`scenario_cache`). At three
    thousand scenarios their texts, read back with the entries, were some 200 MB of a warm build."""
    suffix: str
    size: int
    sha256: str

    @classmethod
    def at(cls, path: str, size: int, sha256: str) -> StoredText:
        """The stored text of this site path (its suffix kept, so the linked file keeps its type)."""
        return cls(posixpath.splitext(path)[1], size, sha256)

    @property
    def name(self) -> str:
        """Its file's name in the texts store."""
        return self.sha256 + self.suffix

    def file(self, cache: Cache) -> Path:
        return cache.folder("texts") / self.name

    def whole(self, cache: Cache) -> bool:
        """Whether the store holds it as it was stored, ready to be linked."""
        try:
            return cache.linkable_in("texts", self.name, self.size, self.sha256)
        except OSError:
            return False


def stored_text(path: str, text: str) -> StoredText:
    """Where `_stored` puts the text of this site path."""
    data = text.encode("utf-8")
    return StoredText.at(path, len(data), hashlib.sha256(data).hexdigest())


@dataclass(frozen=True)
class ChartFiles:
    """What embed/<id>/ holds for one chart: its text files by site-relative path (each its text, or
    where an earlier build stored it), and the job that renders its images; and the chart's section
    of the embed gallery (HTML), which points there."""
    chart_id: str
    texts: dict[str, str | StoredText]
    job: Job | None  # None: text files alone, no chart (a scenario's published files)
    gallery: str
    title: str = ""  # the chart's, for the gallery's fold of scenario charts

    @functools.cached_property
    def stored(self) -> dict[str, StoredText]:
        """Where `_stored` puts each text file: worked out once, for the scenario's stored entry
        (`scenario_cache`) and for `build`, which stores them."""
        return {path: text if isinstance(text, StoredText) else stored_text(path, text) for path, text in self.texts.items()}


def chart_files(c: Chart, env: jinja2.Environment, site_url: str, cache: Cache | None, charts_js: str,
                memo: dict[str, str] | None = None, *, site_name: str = "",
                unfurl_env: jinja2.Environment, images: bool = True, card_heading: tuple[str, ...] = (),
                engine: JsEngine = IN_PROCESS) -> ChartFiles:
    """images=False: a build without static images, whose files name none (`embed_page`, `unfurl.oembed`,
    and the gallery section through the environment's `static_images`). card_heading: the lines the
    chart's card carries above it (a scenario's answer)."""
    export = export_spec(c, site_url)
    base = f"embed/{c.id}/"
    names = file_names(c.id)
    texts = {
        # Compact: with an indent, Python's JSON encoder falls back to its slow pure-Python path.
        base + names["json"]: compact_json(export) + "\n",
        base + names["csv"]: csv_text(c),
        base + names["vega"]: str(c.vega) + "\n",
        base + names["metadata"]: metadata_text(c, site_url, site_name),
        base + "index.html": embed_page(env, c, site_url, charts_js, site_name, unfurl_env, images=images),
    }
    if site_url:
        texts[base + unfurl.OEMBED] = unfurl.oembed(c, base, names["card"], site_url, site_name, image=images)
    gallery = env.get_template("partials/gallery_section.html.j2").render(c=c)
    job = Job(compile_vega(export, cache, memo, engine), card_heading=card_heading, narrow_height=narrow_height(c, site_url))
    return ChartFiles(c.id, texts, job, gallery, c.title)


Stored = dict[tuple[str, str], StoredText]  # (suffix, text) -> where it is stored


def _stored(cache: Cache, c: ChartFiles, path: str, known: Stored, now: Stored) -> Path:
    """The chart's text file in the cache under the hash of its bytes, written unless a file of
    exactly those bytes is there already. known: where texts the last build of this process stored
    went (`mkdocs serve` links the same thousands again on every save, and only the check on disk is
    made again); now: this build's, added to. A StoredText is where it is: the entry it came from was
    taken only with every one of its texts whole (`scenario_cache`)."""
    text = c.texts[path]
    if isinstance(text, StoredText):
        stored_file = text.file(cache)
        cache.mark_used(stored_file)
        return stored_file
    key = (posixpath.splitext(path)[1], text)
    ref = known.get(key) or c.stored[path]
    stored = ref.file(cache)
    if ref.whole(cache):
        cache.mark_used(stored)
    else:
        cache.write(stored, text.encode("utf-8"))
    now[key] = ref
    return stored


def store_at_once(cache: Cache, c: ChartFiles) -> None:
    """A lone build's texts of a chart, stored as they are made and then held as where they are
    (StoredText): kept until the build linked them, 3,000 scenarios' texts were some 190 MB beside
    the image workers of a cold build. Under `mkdocs serve`, `build` stores them beside what the last
    build stored. A text the cache cannot take stays as it is, for `build` to hand to MkDocs."""
    if cache.between_builds:
        return
    for path, text in c.texts.items():
        if isinstance(text, StoredText):
            continue
        ref = c.stored[path]
        try:
            if not ref.whole(cache):
                cache.write(ref.file(cache), text.encode("utf-8"))
        except OSError:
            continue
        c.texts[path] = ref


@dataclass(frozen=True)
class Links:
    """What one build linked for one chart: its files by site path, and their keys in the cache's
    records (`path_key`)."""
    chart: ChartFiles
    files: dict[str, Path]
    keys: tuple[str, ...]
    images: bool  # whether the build made static images


def carried(cache: Cache | None, c: ChartFiles, images: bool) -> Links | None:
    """Under `mkdocs serve --dirty`: the chart's links as the last build made them, where that build's
    chart is this very object (its scenario's stored entry, unchanged), or one equal to a chart the
    last build checked file by file (read back from the entry it stored), and every file it links is
    settled (`Cache.settle`): nothing of it is looked at again. At three thousand scenarios, checking
    the files of 6,000 unchanged charts one by one was a sixth of a save."""
    if cache is None:
        return None
    links = cache.memo("chart links").get(id(c)) or cache.memo("checked chart links").get(c.chart_id)
    if links is None or links.images != images or not cache.all_settled(links.keys):
        return None
    if links.chart is not c and links.chart != c:
        return None
    return links


def embed_files(charts: Iterable[ChartFiles], cache: Cache, images: Images | None
          ) -> tuple[dict[str, str], dict[str, Path], dict[str, str]]:
    """The files of embed/: those to write, by site-relative path, and those to link from the cache,
    by site-relative path to their place there (every image, and the text files once stored); and
    of those, the ones `carried` as the last build linked them, by site path, with their keys in the
    cache's records. images=None: a build without static images, whose embed folders hold the text
    files alone.

    A thousand scenarios carry thousands of small text files. Written out by MkDocs, they took about
    two seconds of every build; linked from the cache, where each is written once, a tenth of that."""
    texts: dict[str, str] = {}
    linked: dict[str, Path] = {}
    # What this process stored, by text: the last build's texts only, so a long `mkdocs serve`
    # session keeps no more of them than one build links.
    known: Stored = cache.memo("texts")
    now: Stored = {}
    links_now: dict[int, Links] = {}
    checked_now: dict[str, Links] = {}  # the charts checked file by file, by chart id: the next build may read them back from an entry
    as_before: dict[str, str] = {}
    for c in charts:
        kept = carried(cache, c, images is not None)
        if kept is not None:
            linked.update(kept.files)
            as_before.update(zip(kept.files, kept.keys))
            cache.mark_all_used(kept.keys)
            if images is not None and c.job is not None:
                images.kept()
            links_now[id(c)] = kept
            continue
        files: dict[str, Path] = {}
        whole = True
        for path, text in c.texts.items():
            try:
                files[path] = _stored(cache, c, path, known, now)
            except OSError:
                texts[path] = text  # a read-only cache: MkDocs writes the file
                whole = False
        if images is not None and c.job is not None:
            names = file_names(c.chart_id)
            for image, path in images.add(c.job).items():
                files[f"embed/{c.chart_id}/{names[image]}"] = path
        linked.update(files)
        if whole:  # every file linked: a later build may carry the chart as it is
            links_now[id(c)] = Links(c, files, tuple(path_key(p) for p in files.values()), images is not None)
            checked_now[c.chart_id] = links_now[id(c)]
    cache.carry("texts", now)
    cache.carry("chart links", links_now)
    cache.carry("checked chart links", checked_now)
    return texts, linked, as_before


def link_into(site_dir: Path, linked: dict[str, Path], before: dict[str, tuple] | None = None,
              settled: Callable[[Path], bool] | None = None, as_before: Container[str] = ()) -> dict[str, tuple]:
    """Put the files `build` found into the site: each checked in the cache just before (its hash
    or its recorded sums), so what is linked is what was rendered. Returns what each site path now
    links to (the cache file and its identity); given that record from the last build into the same
    site folder by this process (`mkdocs serve --dirty`, whose folder nobody else writes), a file
    still linked to the same, unchanged cache file is left alone without a system call beyond a stat,
    and without that stat where the cache holds the file settled (`Cache.settle`) or `build` carried
    it as the last build linked it (as_before, by site path)."""
    folders: set[Path] = set()
    now: dict[str, tuple] = {}
    for path, cached in linked.items():
        if before is not None:
            was = before.get(path)
            if was is not None and was[0] == str(cached) and (
                    path in as_before or (settled is not None and settled(cached))):
                now[path] = was
                continue
            st = os.stat(cached)
            now[path] = current = (str(cached), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            if was == current:
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
