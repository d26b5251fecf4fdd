"""The guide as a MkDocs plugin: `GuidePlugin` (entry point `mkdocs.plugins`, named under `plugins:` in
mkdocs.yml), an adapter of some 250 lines. It reads its options (`config.py`), runs `rendering/generate.py`'s
`generate` and keeps what it made in a `OneBuild` (`one_build.py`), hands the generated pages and assets to
MkDocs, and fills in the figures of hand-written pages that ask for them. Under `--dirty` it gives a page MkDocs
did not read again the title the last build found: MkDocs leaves it none, and the navigation would show "None".
It hands each page to search as `search_handoff.py` shapes it, and lets each page go of its HTML and Markdown
once MkDocs has written it (a lone build also of its file's Markdown once read), since MkDocs holds both until
the build ends.

What MkDocs would make again and an earlier build kept is the incremental layer's: the plugin hands each MkDocs
event on to it through one interface (`incremental/layer.py`'s `Layer`), whichever kind it holds. Where the
plugin's `incremental` option leaves the layer out, the one it holds does nothing, so no branch asks whether it
is on (`tests/test_incremental.py`). Events also go on to `publishing.py` once the pages are written, to
`upkeep.py` after the build, and to `one_build.py` when it fails.

MkDocs does not reload plugin modules under `mkdocs serve`: edits to this package need a restart, edits to
scenarios/ and data/ (which the plugin watches, `watching`) do not.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from generator.plugin import mkdocs_internals as internals
from generator.plugin import failures, one_build, publishing, search_handoff, watching
from generator.plugin.after_reload import AfterReload
from generator.plugin.config import GuideConfig, Settings, checked
from generator.plugin.error_banner import ErrorBanner
from generator.plugin.files import GeneratedFile, hand_over
from generator.plugin.incremental.layer import Layer, Off, switched
from generator.plugin.one_build import OneBuild
from generator.plugin.page_record import PageRecord
from generator.plugin.stopping import StopAsCtrlC
from generator.plugin.upkeep import Upkeep
from generator.rendering.charts.images import Images
from generator.store.cachefile import Cache

log = logging.getLogger("mkdocs.plugins.guide")


class GuidePlugin(BasePlugin[GuideConfig]):
    """Adds the generated pages and assets during `mkdocs build` and `mkdocs serve` (under serve with
    the site URL mkdocs.yml names, not the dev server's address), and links the embed files into the site."""

    def __init__(self) -> None:
        self.cache: Cache | None = None  # the build cache (its place checked in on_config), and what this process knows of it
        self.options: Settings | None = None  # the options as builds use them, read in on_config
        self.serving = self.dirty = False  # under `mkdocs serve`; with --dirty, only what changed is built again
        self.incremental: Layer = Off()  # what earlier builds left that this one takes (on from on_startup)
        self.pages: dict[str, PageRecord] = {}  # each page's record, by its path in docs/
        self.upkeep = Upkeep()  # the cache's and the image workers' chores after a build
        self.published_url = publishing.PublishedUrl()
        self.watcher = None  # under serve: the system's watcher of scenarios/ and data/, where it started
        self.banner: ErrorBanner | None = None  # under serve: the failed build's error, shown in every page served
        self.after_reload: AfterReload | None = None  # under serve: the published Markdown, written once the pages are served
        self.loaded = None  # under serve: the project on_pre_build loaded, for on_files
        self.build: OneBuild | None = None  # what the last build's on_files handed the events after it
        self.stopping = StopAsCtrlC()  # under serve: SIGTERM stops the server as Ctrl-C does

    def on_startup(self, *, command: str, dirty: bool) -> None:
        internals.warn_if_unchecked()
        self.serving, self.dirty = command == "serve", dirty
        # On until on_config reads the option: the chores between saves start now.
        self.incremental = switched(self.incremental, True, serving=self.serving, dirty=self.dirty)
        if self.serving:
            self.upkeep.serving()
            self.stopping.start()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if self.after_reload is not None:
            self.after_reload.supersede()  # the last save's writes, before this build reads or writes anything
        self.incremental.starting()
        options = self.options = checked(self.config, _root(config))
        self.upkeep.make_images = options.images
        # Under serve, a save may have changed mkdocs.yml's option.
        self.incremental = switched(self.incremental, options.incremental, serving=self.serving, dirty=self.dirty)
        self.incremental.configured(config)
        if self.cache is None or self.cache.directory != options.cache_dir:
            self.cache = Cache(options.cache_dir, between_builds=self.serving)
        publishing.add_templates(config)
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        if self.serving:
            # Under serve, the inputs are read before MkDocs empties the site folder: a save that does
            # not validate then leaves the last good site served, with the error over it (error_banner).
            self.loaded = self._load(config)
        self.incremental.put_aside(Path(config.site_dir))

    def _load(self, config: MkDocsConfig):
        from generator.rendering.generate import load

        assert self.cache is not None, "on_config runs before the inputs are read"
        with failures.inputs_checked():
            return load(_root(config), self.cache)

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        # Runs on every (re)build, so a changed scenario or price is picked up by `mkdocs serve`.
        from generator.rendering.generate import generate

        cache, inc, options = self.cache, self.incremental, self.options
        assert cache is not None and options is not None, "on_config runs before on_files"
        one_build.stop(self.build, inc)  # a superseded `mkdocs serve` build's renders, before this build starts its own
        config_bytes = Path(config.config_file_path).read_bytes()
        images = Images(cache, workers=self.upkeep.workers) if options.images else None
        build = self.build = OneBuild(self.published_url.of(config, config_bytes, serving=self.serving), images)
        project, self.loaded = self.loaded or self._load(config), None
        made = build.made = generate(_root(config), cache, build.published, options.today, images,
                                     site_name=config.site_name, project=project)
        # Every page is converted again but under --dirty, and the site folder holds none of their Markdown.
        self.pages = {path: r.new_build() for path, r in self.pages.items()} if self.dirty else {}
        build.linked = inc.files(cache, config, config_bytes, made, images, self)
        generated = hand_over(files, config, made, inc.page_file)
        if not self.serving:
            # A lone build's pages' Markdown (some 90 MB at 3,000 scenarios) is held by their files
            # alone, and let go once MkDocs has read it (on_page_markdown).
            made.site.pages.clear()
        inc.only_what_changed(files, generated, made)
        log.info("guide: %d scenario pages, %d charts", len(made.project.results), len(made.site.embeds))
        return files

    def _record(self, path: str) -> PageRecord:
        return self.pages.setdefault(path, PageRecord())

    def on_nav(self, nav, *, config: MkDocsConfig, files: Files):
        assert self.build is not None, "on_files runs before on_nav"
        self.build.nav = nav
        return nav

    def on_env(self, env, *, config: MkDocsConfig, files: Files):
        assert self.build is not None, "on_files runs before on_env"
        if self.dirty:
            _titles_kept(self.build.nav, self.pages)  # before anything renders the navigation or keys on it
        assert self.cache is not None, "on_config runs before on_env"
        self.incremental.env(env, self.cache, config, self.build.nav)
        return env

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        publishing.fold_edit_url(page)
        if not self.serving and isinstance(page.file, GeneratedFile):
            internals.release_source(page.file)  # MkDocs has read it, and no build follows (on_files)
        if self.incremental.converted_before(page, keep_source=self.serving):
            return markdown  # its HTML is stored: Markdown does not run on it
        # Hand-written pages opt into figures from data/ with `figures: true` in their front matter.
        if page.meta.get("figures"):
            from generator.rendering.pages.hand_written import render_markdown_page

            assert self.build is not None and self.build.made is not None, "on_files runs before any page"
            markdown = render_markdown_page(self.build.made.renderer, markdown)
        return publishing.hold_back(page, markdown, self._record(page.file.src_uri))

    @event_priority(-100)  # after every other plugin has changed the HTML
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        record = self._record(page.file.src_uri)
        record.title = page.title
        html = publishing.put_back(page, html, record)
        self.incremental.converted_html(page, html)
        return html

    @event_priority(100)  # before the search plugin indexes the page
    def _before_search(self, context, *, page: Page, config: MkDocsConfig, nav):
        build, options = self.build, self.options
        assert build is not None and build.made is not None and options is not None, "on_files runs before the pages"
        context["guide_unfurl"] = publishing.unfurl_tags(page, config, build.made, build.published, options.images)
        search_handoff.before_search(context, page, config, self._record(page.file.src_uri), self.incremental)
        return context

    @event_priority(-100)  # after the search plugin has indexed the page
    def _after_search(self, context, *, page: Page, config: MkDocsConfig, nav):
        search_handoff.after_search(page, config, self._record(page.file.src_uri), self.incremental)
        return context

    on_page_context = CombinedEvent(_before_search, _after_search)

    @event_priority(100)  # what the template made, before any plugin changes it
    def _rendered(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        self.incremental.post_page(page, output)
        return output

    @event_priority(-100)  # after every plugin has read the page
    def _written(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        internals.release_written_page(page)
        return output

    on_post_page = CombinedEvent(_rendered, _written)

    @event_priority(50)  # before the search plugin writes its index
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.banner is not None:
            self.banner.succeeded()  # a step below that fails shows its own error again (on_build_error)
        inc, cache, build, options = self.incremental, self.cache, self.build, self.options
        assert cache is not None and build is not None and options is not None, "on_files runs before on_post_build"
        inc.before_search_written(config)
        images, build.images = build.images, None  # the site's from here on: a failure below does not cancel them
        later = self.after_reload.run if self.after_reload is not None else None
        publishing.join_site(Path(config.site_dir), config, build, images, cache, inc, self.pages, dirty=self.dirty, later=later)
        chores = self.upkeep.chores(cache, images, options.cache_max_mb)
        if not inc.finished(chores):  # under serve, run between saves
            self.upkeep.at_once(cache, images)

    def on_serve(self, server, *, config: MkDocsConfig, builder):
        root = _root(config)
        self.watcher = watching.watch(server, [root / "scenarios", root / "data"])
        self.banner = ErrorBanner(server)
        self.after_reload = AfterReload(self.banner.failed)
        # The first build is over and the server not yet answering: the workers start in their own
        # processes while the browser loads the first page, not in the first save.
        self.upkeep.warm()
        return server

    def on_shutdown(self) -> None:
        if self.after_reload is not None:
            self.after_reload.wait()
        self.stopping.stop()
        watching.stop(self.watcher)
        self.watcher = None
        self.incremental.stop()
        self.upkeep.close(self.cache if self.serving else None)

    def on_build_error(self, *, error: Exception) -> None:
        one_build.failed(error, self.build, self.cache, self.incremental, self.banner)


def _titles_kept(nav, pages: dict[str, PageRecord]) -> None:
    """Under --dirty, a page of the navigation MkDocs did not read again has no title of its own (the
    navigation showed "None"): it keeps the one the last build that read it found."""
    for page in nav.pages:
        record = pages.get(page.file.src_uri)
        if page.markdown is None and record is not None and record.title is not None:
            page.title = record.title


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent
