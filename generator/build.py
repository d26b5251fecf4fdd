"""One build's generator side, MkDocs-free: load the project, render its pages and charts, find the
embed files and the served assets. `generator.plugin` hands the result to MkDocs; `guide cache prune`
runs it to learn which cache files the current tree uses."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from generator import assets, cachefile, compiled, embeds, unfurl
from generator.images import Images
from generator.known import KnownScenarios
from generator.loader import Project, load_project
from generator.rendered import RenderedScenarios, library_versions
from generator.site import Renderer, Site


@dataclass
class Generated:
    project: Project
    renderer: Renderer
    site: Site
    assets: dict[str, str]  # site path -> text (the chart runtime)
    texts: dict[str, str]  # embed files, data downloads and the feed, which MkDocs writes
    linked: dict[str, Path]  # embed files to link from the cache, by site path


def generate(root: Path, cache: Path, site_url: str, day: dt.date, images: Images, *, site_name: str = "") -> Generated:
    """Raises InputError for invalid input. site_name is what cards and oEmbed files name the site."""
    cachefile.begin_build(cache)
    project = load_project(root, known=KnownScenarios(cache / "scenarios"))
    rendered = RenderedScenarios(cache / "pages", project, site_url, day, site_name)
    # Before anything is rendered; the generator's code is hashed once, for the pages' keys.
    compiled.COMPILED.keep_in(cache / "templates", rendered.common["code"] + library_versions(compiled.LIBRARIES))
    renderer = Renderer(project, site_url=site_url, today=day, cache_dir=cache / "embeds", rendered=rendered, images=images,
                        site_name=site_name)
    site = renderer.render()
    texts, linked = embeds.build(site.embeds, images)
    if site.site_card is not None:
        linked[unfurl.SITE_CARD] = images.add(site.site_card)["card"]
    texts.update(site.files)
    return Generated(project, renderer, site, assets.site_assets(cache), texts, linked)
