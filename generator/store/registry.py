"""Every store of the build cache in one table (`STORES`): its name, its folder, how its entries are named (the
key recipe) and how their bytes are written (the encoding); what every key is made from (one digest of the code,
one list of library versions, `LIBRARIES`); and the names of what a process keeps between builds (`MEMOS`). A
store is found only through this table: `Cache.folder`, `Cache.names` and `Cache.memo` refuse a name it lacks,
and `tests/test_store_registry.py` checks every file a build leaves belongs to one store. This module imports
nothing of ours.

An entry is named by the hash of everything it is made from. What is its own (a scenario's bytes, a page's
Markdown, the site URL) its store names; what nearly every entry is made from is here: the generator's code and
templates (the whole package, so no hand-kept list of files can miss one) and the versions of the libraries that
shape anything the build makes. A change to either makes every entry again, but the chart images', whose key is
narrower because rendering them is most of a cold build. A rendering module that owns a store supplies its own
parts through `EntryNames` or `hashed`.

The key recipes: named parts (`EntryNames`), the sha256 of `name\\0value\\0` parts in name order, being the code
digest, the library versions and the store's own parts; rendering parts, the chart images' narrower key, which
`hashed` starts with vl-convert's version, the PNG scale, `fonts.conf` and `images.py`, then the chart's spec
and headings follow. The encodings: checked, a header with size and sha256, read back only whole; linked, raw
bytes hard-linked into sites, checked against a recorded size and sha256.
"""

from __future__ import annotations

import enum
import fnmatch
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

PACKAGE = Path(__file__).parents[1]

# Distributions whose releases can change what a build makes for the same input: validation
# (pydantic), pages and charts (altair, jinja2, markupsafe, vl-convert), Markdown (mkdocs, markdown,
# pymdown-extensions) and the theme (mkdocs-material).
LIBRARIES = ("altair", "jinja2", "markdown", "markupsafe", "mkdocs", "mkdocs-material", "pydantic",
             "pymdown-extensions", "vl-convert-python")


def code_digest(package: Path | None = None) -> str:
    """sha256 of the generator's code and templates: every file of the package."""
    package = package or PACKAGE
    h = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(f"{path.relative_to(package).as_posix()}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def library_version(name: str) -> str:
    """The installed version of one of LIBRARIES."""
    if name not in LIBRARIES:
        raise KeyError(f"{name} is not among the libraries that enter the cache's keys (registry.LIBRARIES)")
    return metadata.version(name)


def library_versions(names: tuple[str, ...] = LIBRARIES) -> str:
    """The installed versions of these distributions, as one key part."""
    return "\0".join(f"{name} {metadata.version(name)}" for name in names)


class Recipe(enum.Enum):
    """How a store names its entries."""
    NAMED = "sha256 of named parts (`EntryNames`): the code digest, the library versions and the store's own parts"
    CONTENT = "sha256 of the entry's own bytes"
    RENDERING = "sha256 of what decides a chart image's bytes (`hashed`: vl-convert's version, the PNG scale, " \
                "fonts.conf, images.py), then the chart's spec and headings; not the code digest"
    FIXED = "one file of a fixed name"


class Encoding(enum.Enum):
    """How a store writes its entries' bytes."""
    CHECKED = "a header with the size and sha256 of what follows, read back only whole (`cachefile.checked`)"
    LINKED = "the bytes as they are, hard-linked into sites, checked against the size and sha256 recorded when stored"


@dataclass(frozen=True)
class Store:
    name: str  # what the code calls it: `Cache.folder(name)`, `Cache.names(name)`
    folder: str  # under the cache's top; "" is the top itself
    files: tuple[str, ...]  # what its entries' paths inside the folder look like (glob patterns, one per depth)
    key: Recipe
    encoding: Encoding
    holds: str  # what it keeps, and the module that keeps it

    def has(self, path: str) -> bool:
        """Whether a path relative to the cache's top (with "/") is one of this store's entries."""
        prefix = f"{self.folder}/" if self.folder else ""
        if not path.startswith(prefix):
            return False
        parts = path[len(prefix):].split("/")
        return any(len(parts) == len(pattern.split("/"))
                   and all(fnmatch.fnmatchcase(part, p) for part, p in zip(parts, pattern.split("/")))
                   for pattern in self.files)


TABLE: tuple[Store, ...] = (
    Store("known", "scenarios", ("*.json",), Recipe.NAMED, Encoding.CHECKED,
          "scenarios and catalogs that validated (store/validation_cache.py)"),
    Store("rendered", "pages", ("*.json",), Recipe.NAMED, Encoding.CHECKED,
          "what each scenario rendered to: page, charts, where its embed texts are stored, index row (rendering/pages/scenario_cache.py)"),
    Store("converted", "html", ("*.json",), Recipe.NAMED, Encoding.CHECKED,
          "scenario pages' HTML, table of contents and anchors (store/html_cache.py)"),
    Store("themed", "themed", ("*.json",), Recipe.NAMED, Encoding.CHECKED,
          "scenario pages' files as the theme made them, with their search entries (store/page_file_cache.py)"),
    Store("published", "published", ("*.md",), Recipe.NAMED, Encoding.CHECKED,
          "the hand-written pages' Markdown as published beside them, by the Markdown they were made from (plugin/publishing.py)"),
    Store("compiled", "templates", ("*/*.bc",), Recipe.NAMED, Encoding.CHECKED,
          "compiled Jinja templates, a folder for each state of the code and libraries (store/template_cache.py)"),
    Store("images", "embeds", ("*.svg", "*.svg.dark", "*.svg-narrow", "*.svg-narrow.dark", "*.png", "*.png.dark",
                               "*.card", "*.sums.json"),
          Recipe.RENDERING, Encoding.LINKED,
          "chart images (a scenario chart's narrow SVGs too), with their sizes and sums in a checked `.sums.json` "
          "(rendering/charts/images.py)"),
    Store("vega", "embeds", ("*.vg.json",), Recipe.NAMED, Encoding.CHECKED,
          "charts' compiled Vega skeletons (rendering/embeds/folders.py compile_vega)"),
    Store("texts", "embeds/texts", ("*",), Recipe.CONTENT, Encoding.LINKED,
          "embed folders' text files (rendering/embeds/folders.py)"),
    Store("assets", "", ("vega-runtime-*.js",), Recipe.NAMED, Encoding.CHECKED,
          "the Vega runtime the site serves (rendering/charts/vega_runtime.py)"),
    Store("digests", "", ("digests.json",), Recipe.FIXED, Encoding.CHECKED,
          "the digests of the cache's files, by their stat, as git's index keeps them (store/cachefile.py)"),
)
STORES: dict[str, Store] = {s.name: s for s in TABLE}


# What a process keeps between builds (`Cache.memo`), by name: keyed by what the values are made from.
MEMOS: dict[str, str] = {
    "known:reads": "scenario files' bytes by their stat (inputs/cached_loading.py)",
    "known:catalog": "the catalog last read, by its files' bytes (inputs/cached_loading.py)",
    "known:evaluated": "scenarios evaluated against that catalog (inputs/cached_loading.py)",
    "compiled": "Jinja's compiled templates (store/template_cache.py)",
    "markdown": "the hash of each page's Markdown (store/html_cache.py)",
    "vega": "charts compiled to Vega, by shape (rendering/embeds/folders.py, rendering/pages/renderer.py)",
    "reference": "the reference workload evaluated (rendering/pages/renderer.py)",
    "schema page": "the schema page (rendering/pages/renderer.py)",
    "home charts": "the home page's charts (rendering/pages/renderer.py)",
    "images": "chart images found whole, with their sums (rendering/charts/images.py)",
    "texts": "where each embed text was stored (rendering/embeds/folders.py)",
    "chart links": "each chart's links, by the chart object (rendering/embeds/folders.py)",
    "checked chart links": "each chart's links checked file by file, by chart id (rendering/embeds/folders.py)",
    "entry names": "each named store's entry names, with the paths given, by the parts common to a build (store/cachefile.py)",
}


def hashed(parts: Iterable[str]) -> hashlib._Hash:
    """The hash every key of a RENDERING store starts from: each part and a NUL, in order."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h


def _part(name: str, value: str) -> bytes:
    return f"{name}\0{value}\0".encode()


class EntryNames:
    """How a NAMED store names its entries: an entry's name is the sha256 of all the named parts it
    is made from, each `name\0value\0`, in the order of their names; an entry's own parts take the
    place of common ones of the same name. Most parts are common to every entry of a build: they
    are sorted and hashed once, not again for each of the thousands of entries a save looks up
    (benchmarks/README.md, `live_edit.py`)."""

    def __init__(self, directory: Path, common: dict[str, str], suffix: str = ".json", *, remember: bool = False):
        """remember: keep each path given, by the entry's own parts (a process that builds again and again)."""
        self.directory = directory
        self.common = common
        self.suffix = suffix
        self._paths: dict[tuple[tuple[str, str], ...], Path] | None = {} if remember else None
        # By the sorted names of an entry's own parts: the hash of the common parts that sort before
        # all of them, then, in order, the encoded common parts between and after them, or the name
        # of an own part.
        self._plans: dict[tuple[str, ...], tuple[hashlib._Hash, list[bytes | str]]] = {}

    def path(self, own: dict[str, str]) -> Path:
        paths = self._paths
        if paths is None:
            return self.directory / f"{self.digest(own)}{self.suffix}"
        key = tuple(own.items())
        known = paths.get(key)
        if known is None:
            known = paths[key] = self.directory / f"{self.digest(own)}{self.suffix}"
        return known

    def digest(self, own: dict[str, str]) -> str:
        names = tuple(sorted(own))
        plan = self._plans.get(names)
        if plan is None:
            plan = self._plans[names] = self._plan(names)
        start, steps = plan
        h = start.copy()
        for step in steps:
            h.update(step if isinstance(step, bytes) else _part(step, own[step]))
        return h.hexdigest()

    def _plan(self, names: tuple[str, ...]) -> tuple[hashlib._Hash, list[bytes | str]]:
        shared = sorted((n, v) for n, v in self.common.items() if n not in names)
        start = hashlib.sha256()
        while shared and (not names or shared[0][0] < names[0]):
            start.update(_part(*shared.pop(0)))
        steps: list[bytes | str] = []
        for name in names:
            while shared and shared[0][0] < name:
                steps.append(_part(*shared.pop(0)))
            steps.append(name)
        if shared:
            steps.append(b"".join(_part(n, v) for n, v in shared))
        return start, steps
