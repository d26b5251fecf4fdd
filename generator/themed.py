"""The HTML file the theme made of each scenario page (and of the embed gallery) in an earlier build,
with the entries Material's search plugin indexed the page to, so a later build writes the file
without rendering the theme's templates or parsing the page for search.

Once Markdown is skipped, Material's templates and its search plugin are most of a warm build at a
thousand scenarios: every page carries the whole navigation. What the templates make of a page
depends on the page (its HTML, table of contents, title, front matter, URLs, edit link, neighbours
and ancestors in the navigation) and on the site (mkdocs.yml as MkDocs read it, every navigation
entry's title, URL and front matter, the theme's templates, the plugins and their settings, the
versions of MkDocs, Material and Jinja). An entry is found by the page's converted-HTML key and the
site URL, so `guide cache prune` can name it without MkDocs; it holds a hash of everything else
(`check`), and a stored file whose check differs is rendered again and replaced. A damaged entry
reads as missing.

MkDocs-free: `mkdocs_hooks` gathers what the check is made of from MkDocs' objects.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from generator.cachefile import entry_path, read_checked, store_json
from generator.rendered import library_versions

# The template a page whose file is stored is rendered with: the stored file, as it is.
TEMPLATE = "guide-stored-page.html"
TEMPLATE_SOURCE = "{{ guide_stored_page }}"
CONTEXT_KEY = "guide_stored_page"

# Distributions whose releases can change what the theme makes of a page.
LIBRARIES = ("mkdocs", "mkdocs-material", "jinja2")


def check(site: str, page: object) -> str:
    """The hash an entry must hold to be used: site is `site_inputs`, page anything `repr`
    writes the same way in every process (no sets, no object addresses)."""
    return hashlib.sha256(f"{site}\0{page!r}".encode("utf-8", "surrogatepass")).hexdigest()


def site_inputs(parts: object) -> str:
    """What every page's file depends on, hashed once a build."""
    return hashlib.sha256(f"{library_versions(LIBRARIES)}\0{parts!r}".encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Themed:
    check: str
    output: str  # what the theme's template rendered, before any plugin's on_post_page
    search: list[dict] | None  # the search plugin's entries for the page, in its order; None without the plugin


def _parse(body: bytes) -> Themed | None:
    try:
        d = orjson.loads(body)
        themed = Themed(d["check"], d["output"], d["search"])
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(themed.output, str) or not (themed.search is None or isinstance(themed.search, list)):
        return None
    return themed


class ThemedPages:
    def __init__(self, directory: Path, site_url: str):
        self.directory = directory
        self.site_url = site_url

    def entry(self, converted_parts: dict[str, str]) -> Path:
        """Where a page's file is stored: by what its HTML converted from (`ConvertedPages.parts`)
        and the site URL the build was given (`mkdocs serve` gives its own address)."""
        return entry_path(self.directory, {**converted_parts, "site_url": self.site_url})

    def get(self, entry: Path, check: str) -> Themed | None:
        # Not kept in the process like other entries: a thousand files of about 45 KB each are
        # read once a build and would double the memory of a build that holds them.
        body = read_checked(entry)
        themed = None if body is None else _parse(body)
        return themed if themed is not None and themed.check == check else None

    def put(self, entry: Path, themed: Themed) -> None:
        # Search fields that do not travel as JSON are not stored: the page is rendered every time.
        store_json(entry, {"check": themed.check, "output": themed.output, "search": themed.search})
