"""`guide cache prune`: remove from the build cache every file the current tree does not use.

What the tree uses is found the way a build finds it (load, render, embed files, assets), with the site URL,
cache folder and date from mkdocs.yml, but nothing is rendered: images missing from the cache stay missing until
the next build.
"""

from __future__ import annotations

from pathlib import Path

from generator.commands import siteconfig
from generator.rendering.generate import generate, page_stores
from generator.rendering.charts.images import Images
from generator.store.cachefile import Cache
from generator.store.template_cache import Compiled


def prune(root: Path, url: str | None = None) -> tuple[int, int]:
    """Files and bytes removed. Raises CacheDirError and InputError."""
    settings = siteconfig.read(root)
    cache = Cache(siteconfig.cache_dir(root, settings.cache_dir))
    url = settings.site_url if url is None else url
    made = generate(root, cache, url, siteconfig.today(settings.today), Images(cache, render=False), site_name=settings.site_name)
    made.renderer.calculator_json  # noqa: B018 - compiles the calculator's chart, as its page does
    # The scenario pages' HTML and their files, keyed as a build with this mkdocs.yml keys them.
    try:
        config_bytes = (root / "mkdocs.yml").read_bytes()
    except OSError:
        config_bytes = None
    if config_bytes is not None:
        for entries in page_stores(cache, config_bytes, url, made.site.pages)[2].values():
            for entry in entries:
                cache.mark_used(entry)
    for template in Compiled(cache).stored():
        cache.mark_used(template)
    return cache.prune()
