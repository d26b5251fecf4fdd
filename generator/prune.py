"""`guide cache prune`: remove from the build cache every file the current tree does not use.

What the tree uses is found the way a build finds it (load, render, embed files, assets), with the
site URL from mkdocs.yml and today's date, but nothing is rendered: images missing from the cache
stay missing until the next build.
"""

from __future__ import annotations

import re
from pathlib import Path

from generator import cachefile, compiled, converted, themed
from generator.build import generate
from generator.freshness import today
from generator.images import Images


def site_url(root: Path) -> str:
    """site_url from mkdocs.yml, read as text (the file may carry tags only MkDocs resolves)."""
    try:
        text = (root / "mkdocs.yml").read_text(encoding="utf-8")
    except OSError:
        return ""
    m = re.search(r"^site_url:\s*['\"]?([^'\"#\s]*)", text, re.MULTILINE)
    url = m[1] if m else ""
    return url if not url or url.endswith("/") else url + "/"  # as MkDocs reads it


def prune(root: Path, url: str | None = None) -> tuple[int, int]:
    """Files and bytes removed. Raises CacheDirError and InputError."""
    cache = cachefile.cache_dir(root)
    url = site_url(root) if url is None else url
    made = generate(root, cache, url, today(), Images(cache / "embeds", render=False))
    made.renderer.calculator_json  # noqa: B018 - compiles the calculator's chart, as its page does
    # The scenario pages' HTML and their files, keyed as a build with this mkdocs.yml keys them.
    try:
        pages = converted.ConvertedPages(cache / "html", (root / "mkdocs.yml").read_bytes())
    except OSError:
        pages = None
    files = themed.ThemedPages(cache / "themed", url)
    for path, markdown in made.site.pages.items() if pages else ():
        if converted.applies(path):
            parts = pages.parts(path, markdown)
            cachefile.mark_used(pages.entry_at(parts))
            cachefile.mark_used(files.entry(parts))
    templates = {str(p.absolute()) for p in compiled.COMPILED.stored()}
    return cachefile.prune(cache, cachefile.used() | templates)
