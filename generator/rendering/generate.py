"""One build's generator side, MkDocs-free: load the project, render its pages and charts, find the
embed files and the served assets. `generator.plugin` hands the result to MkDocs; `guide cache prune`
runs it to learn which cache files the current tree uses.

One build's generator side, MkDocs-free: load, render, embed files, served assets. The plugin and
`guide cache prune` both run it; under `mkdocs serve` the plugin loads first, in `on_pre_build`,
before MkDocs empties the site folder, so a save that does not validate leaves the last good site
served (with `error_banner`'s banner over it)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from generator.inputs.cached_loading import load_project
from generator.inputs.loader import Project
from generator.rendering.charts import vega_runtime as assets
from generator.rendering.embeds import folders as embeds
from generator.rendering.embeds import unfurl
from generator.rendering.charts.images import Images
from generator.rendering.charts.js_engine import JsEngine
from generator.rendering.pages.scenario_cache import RenderedScenarios
from generator.rendering.pages.renderer import Renderer, Site
from generator.store.cachefile import Cache
from generator.store.html_cache import ConvertedPages, scenario_page
from generator.store.page_file_cache import ThemedPages
from generator.store.validation_cache import KnownScenarios


@dataclass
class Generated:
    project: Project
    renderer: Renderer
    site: Site
    assets: dict[str, str]  # site path -> text (the chart runtime)
    texts: dict[str, str]  # embed files, data downloads and the feed, which MkDocs writes
    linked: dict[str, Path]  # embed files to link from the cache, by site path
    as_before: dict[str, str]  # of those, the ones linked as the last build linked them: their keys in the cache's records


def load(root: Path, cache: Cache) -> Project:
    """The project, loaded and evaluated through the cache; raises InputError for invalid input.
    Starts the cache's record of this build (`Cache.begin_build`): what it marks used is what this
    build read or wrote there."""
    cache.begin_build()
    return load_project(root, known=KnownScenarios(cache))


def generate(root: Path, cache: Cache, site_url: str, day: dt.date, images: Images | None, *, site_name: str = "",
             project: Project | None = None) -> Generated:
    """Raises InputError for invalid input. site_name is what cards and oEmbed files name the site.
    images=None: a build without the charts' static images (the plugin's `images` option off), whose
    pages, embed files and unfurl tags name none. project: what `load` returned for this build, where
    the caller loaded it first; else it is loaded here."""
    if project is None:
        project = load(root, cache)
    static_images = images is not None
    rendered = RenderedScenarios(cache, project, site_url, day, site_name, static_images=static_images)
    # A lone build compiles its charts in a process of its own (js_engine); `mkdocs serve` keeps the engine.
    engine = JsEngine(apart=not cache.between_builds)
    try:
        renderer = Renderer(project, site_url=site_url, today=day, cache=cache, rendered=rendered, images=images,
                            site_name=site_name, static_images=static_images, engine=engine)
        site = renderer.render()
        site_assets = assets.site_assets(cache, engine)
    finally:
        engine.close()
    texts, linked, as_before = embeds.embed_files([*site.embeds, *(p.files for p in site.published)], cache, images)
    if site.site_card is not None and images is not None:
        linked[unfurl.SITE_CARD] = images.add(site.site_card)["card"]
    texts.update(site.files)
    return Generated(project, renderer, site, site_assets, texts, linked, as_before)


def page_stores(cache: Cache, config_bytes: bytes, site_url: str, pages: dict[str, str]
                ) -> tuple[ConvertedPages, ThemedPages, dict[str, tuple[Path, Path]]]:
    """The stores of the generated pages' HTML and files, and, for each page they keep
    (`html_cache.scenario_page`), its two entries: where a build finds and puts them, and what `guide cache
    prune` keeps. config_bytes: mkdocs.yml as MkDocs read it."""
    html = ConvertedPages(cache, config_bytes)
    files = ThemedPages(cache, site_url, html.names)
    entries = {}
    for path, markdown in pages.items():
        if scenario_page(path):
            parts = html.parts(path, markdown)
            entries[path] = (html.entry_at(parts), files.entry(parts))
    return html, files, entries
