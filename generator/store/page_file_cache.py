"""The HTML file Material made of each scenario page in an earlier build, with the entries Material's search
plugin indexed the page to, so a later build writes the file without rendering the theme's templates or parsing
the page for search.

Once Markdown is skipped, Material's templates and its search plugin are most of a warm build at a thousand
scenarios: every page carries the whole navigation. What the templates make of a page depends on the page (its
HTML, table of contents, title, front matter, URLs, edit link, neighbours and ancestors in the navigation) and
on the site (mkdocs.yml as MkDocs read it, every navigation entry's title, URL and front matter, the theme's
templates, the plugins and their settings, the versions of MkDocs, Material and Jinja). An entry is found by the
page's converted-HTML key and the path of the site URL, so `guide cache prune` can name it without MkDocs; it
holds a hash of everything else the theme reads (`check`). Each file is read as its page is written; a page
whose file is missing or stale (its check differs) falls back to its own template, and a stale file is replaced
by the one rendered. A damaged entry reads as missing.

The site URL's scheme and host reach a page's file through its canonical link alone, and `mkdocs serve` puts its
own address there: the link is stored with a mark in place of the address, so the files `mkdocs build` stored
serve the preview that follows it, and the other way round.

MkDocs-free: `generator.plugin.incremental.theme_inputs` gathers what the check is made of from MkDocs' objects.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import orjson

from generator.store.cachefile import Cache
from generator.store.registry import EntryNames

# The template a page that may have a stored file is rendered with: the stored file as it is, or,
# where none is found, the template the page names (the theme's main.html unless its front matter
# says otherwise), rendered with the page's context as it would be on its own.
TEMPLATE = "guide-stored-page.html"
CONTEXT_KEY = "guide_stored_page"
OWN_TEMPLATE_KEY = "guide_own_template"
TEMPLATE_SOURCE = (f"{{% if {CONTEXT_KEY} is defined %}}{{{{ {CONTEXT_KEY} }}}}"
                   f"{{% else %}}{{% include {OWN_TEMPLATE_KEY} %}}{{% endif %}}")


# Not a character a URL or an HTML page holds.
_ADDRESS = "\0canonical\0"


def _canonical_link(url: str) -> str:
    # As Material's base.html writes it; MkDocs' template environment does not escape.
    return f'<link rel="canonical" href="{url}">'


def without_address(output: str, canonical: str | None) -> str | None:
    """The file as stored: its canonical link's URL replaced by a mark. None where the link is not
    found once, as the theme writes it (the file is then not stored)."""
    if _ADDRESS in output:
        return None
    if canonical is None:
        return output
    link = _canonical_link(canonical)
    return output.replace(link, _canonical_link(_ADDRESS)) if output.count(link) == 1 else None


def with_address(stored: str, canonical: str | None) -> str:
    return stored if canonical is None else stored.replace(_canonical_link(_ADDRESS), _canonical_link(canonical), 1)


def site_path(site_url: str) -> str | None:
    """What of the site URL the key holds: its path (`mkdocs serve` keeps it), or None without one."""
    return urlsplit(site_url).path if site_url else None


def check(site: str, page: object) -> str:
    """The hash an entry must hold to be used: site is `site_inputs`, page anything `repr`
    writes the same way in every process (no sets, no object addresses)."""
    return hashlib.sha256(f"{site}\0{page!r}".encode("utf-8", "surrogatepass")).hexdigest()


def site_inputs(keys: dict[str, str], parts: object) -> str:
    """What every page's file depends on, hashed once a build: the code and library versions
    (`Cache.keys`) and the site's parts."""
    return hashlib.sha256(f"{sorted(keys.items())!r}\0{parts!r}".encode("utf-8", "surrogatepass")).hexdigest()


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
    def __init__(self, cache: Cache, site_url: str, converted: EntryNames):
        """converted: how the store of the pages' HTML names its entries."""
        self.cache = cache
        self.site_url = site_url
        self.names = cache.names("themed", {**converted.common, "site_url": site_path(site_url)})
        self.directory = self.names.directory

    def entry(self, converted_parts: dict[str, str]) -> Path:
        """Where a page's file is stored: by what its HTML converted from (`ConvertedPages.parts`
        and the parts every page's HTML shares) and the path of the site URL."""
        return self.names.path(converted_parts)

    def get(self, entry: Path, check: str, canonical: str | None) -> Themed | None:
        """The stored file with canonical, the page's canonical URL in this build, in its link."""
        # Not kept in the process like other entries: a thousand files of about 45 KB each are
        # read once a build and would double the memory of a build that holds them.
        body = self.cache.read_checked(entry)
        themed = None if body is None else _parse(body)
        if themed is None or themed.check != check:
            return None
        return replace(themed, output=with_address(themed.output, canonical))

    def put(self, entry: Path, themed: Themed, canonical: str | None) -> None:
        # Search fields that do not travel as JSON are not stored: the page is rendered every time.
        output = without_address(themed.output, canonical)
        if output is not None:
            self.cache.store_json(entry, {"check": themed.check, "output": output, "search": themed.search})
