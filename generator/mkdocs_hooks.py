"""The MkDocs adapter: the only module of the package that imports MkDocs.

Wired in through `hooks:` in mkdocs.yml, so a plain `mkdocs build` or `mkdocs serve` runs the
generator. Pages and assets are added as generated files and never written into docs/, which keeps
the working tree clean and stops `mkdocs serve` from rebuilding forever (mkdocs issue 3433).
MkDocs does not reload hook modules in `mkdocs serve`: edits to this package need a restart,
edits to scenarios/ and data/ (watched in mkdocs.yml) do not.
"""

from __future__ import annotations

import logging
import os
import posixpath
import shutil
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.guide")
# Stale prices are WARNING lines in the build log, but on a logger outside "mkdocs", whose warnings
# are the only ones `mkdocs build --strict` counts. On purpose: a price goes stale with the calendar,
# not with a change, so counting it would fail every build of an unchanged commit once a date passes
# (the deploy of main and every pull request alike). The pages say so in a visible note, and the gate
# is `guide validate --strict`. See "Stale prices" in CONTRIBUTING.md.
stale_log = logging.getLogger("guide.stale")
_state: dict = {}


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    # Lets `mkdocs build` find the package from a fresh checkout even before `pip install -e .`.
    root = str(_root(config))
    if root not in sys.path:
        sys.path.insert(0, root)
    return config


def _warn_stale(project, root: Path) -> None:
    from generator.freshness import stale_summary, today

    mkdocs_log = logging.getLogger("mkdocs")
    # Printed by MkDocs' own console handler, so the lines look like the rest of the log (and -q hides them).
    for handler in mkdocs_log.handlers:
        if handler.name == "MkDocsStreamHandler" and handler not in stale_log.handlers:
            stale_log.addHandler(handler)
            stale_log.propagate = False
    stale_log.setLevel(mkdocs_log.getEffectiveLevel())
    try:
        summary = stale_summary(project.catalog, on=today())
    except ValueError as e:
        raise Abort(str(e)) from None
    if summary:
        stale_log.warning("Stale prices: %s", summary)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    # Runs on every (re)build, so a changed scenario or price is picked up by `mkdocs serve`.
    from generator import assets, embeds
    from generator.freshness import today
    from generator.loader import InputError, KnownScenarios, load_project
    from generator.rendered import RenderedScenarios
    from generator.site import Renderer

    root = _root(config)
    cache = assets.cache_dir(root)
    try:
        project = load_project(root, known=KnownScenarios(cache / "scenarios"))
    except InputError as e:
        lines = "\n".join(str(p) for p in e.problems)
        raise Abort(f"Invalid scenario or data files:\n{lines}\n{len(e.problems)} problem(s) found.") from None
    _warn_stale(project, root)
    site_url = config.site_url or ""
    day = today()
    rendered = RenderedScenarios(cache / "pages", root, root / "data", site_url, day)
    _cancel_images()  # a superseded `mkdocs serve` build's renders, before this build starts its own
    images = _state["images"] = embeds.Images(cache / "embeds")
    renderer = Renderer(project, site_url=site_url, today=day, cache_dir=cache / "embeds", rendered=rendered, images=images)
    site = renderer.render()
    for path, markdown in sorted(site.pages.items()):
        f = File.generated(config, path, content=markdown)
        source = site.sources.get(path)
        if source:
            # Edit links on generated pages open the YAML the page is made from.
            f.edit_uri = f"../{source}"
        files.append(f)
    for path, content in assets.site_assets(root).items():
        files.append(File.generated(config, path, content=content))
    texts, linked = embeds.build(site.embeds, images)
    for path, content in texts.items():
        files.append(File.generated(config, path, content=content))
    _state.update(renderer=renderer, site=site, linked=linked)
    log.info("guide: %d scenario pages, %d charts", len(project.results), len(site.charts))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.edit_url and "/../" in page.edit_url:
        # MkDocs joins edit_uri and the file's edit_uri as text; fold the "docs/../" it leaves.
        parts = urlsplit(page.edit_url)
        page.edit_url = urlunsplit(parts._replace(path=posixpath.normpath(parts.path)))
    # Hand-written pages opt into figures from data/ with `figures: true` in their front matter.
    if not page.meta.get("figures"):
        return markdown
    from generator.site import render_markdown_page

    return render_markdown_page(_state["renderer"], markdown)


def on_post_build(config: MkDocsConfig) -> None:
    # Images render in worker processes while the pages are built; they, and the embed text files
    # stored beside them, join the site last.
    images = _state.pop("images", None)
    if images is None:
        return
    try:
        images.wait()
    except Exception as e:  # a renderer crash: say which build step failed, not a worker traceback
        raise Abort(f"Rendering the chart images failed: {e}") from None
    site_dir = Path(config.site_dir)
    for path, cached in _state.pop("linked").items():
        dest = site_dir / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.unlink(missing_ok=True)
        # A hard link, not a copy: at a thousand scenarios the images are hundreds of megabytes a
        # build, in thousands of files. The cache only ever replaces its files, never writes into
        # them, so a linked site file keeps its bytes. Where linking is not possible (another file
        # system), copy.
        try:
            os.link(cached, dest)
        except OSError:
            shutil.copyfile(cached, dest)
    log.info("guide: embed images: %d charts rendered, %d from the cache", images.rendered, images.cached)


def on_build_error(error: Exception) -> None:
    _cancel_images()


def _cancel_images() -> None:
    """A build that stops early, or is superseded by `mkdocs serve`, stops its renders too."""
    images = _state.pop("images", None)
    if images is not None:
        images.cancel()
