"""The guide as a MkDocs plugin: one `GuidePlugin` instance per MkDocs run holds what one build's
events hand each other, and what a `mkdocs serve` process keeps from one build to the next.

MkDocs does not reload plugin modules under `mkdocs serve`: edits to this package need a restart,
edits to scenarios/ and data/ (which the plugin watches, `watching`) do not.
"""

from __future__ import annotations

import hashlib
import logging
import posixpath
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from generator.plugin import sitefolder, watching
from generator.plugin.between_saves import BetweenSaves
from generator.plugin.config import GuideConfig, settings
from generator.plugin.error_banner import ErrorBanner
from generator.plugin.files import GeneratedFile, StoredPage, always_modified, toc_tokens
from generator.plugin.theme_inputs import page_parts, site_parts
from generator.rendering import embeds, passthrough, published, unfurl
from generator.rendering.images import Images, Workers
from generator.rendering.site import Renderer
from generator.store import cachefile, html_cache, page_file_cache
from generator.store.cachefile import Cache
from generator.store.html_cache import ConvertedPages
from generator.store.page_file_cache import Themed, ThemedPages
from generator.store.template_cache import Compiled

log = logging.getLogger("mkdocs.plugins.guide")

# Templates the plugin adds to the theme's (main.html: each page's unfurl tags in its <head>).
THEME = Path(__file__).parent / "theme"


@dataclass
class _Pending:
    """A page whose file the theme renders this build, to be stored."""

    entry: Path
    check: str
    indexed_from: int | None = None  # how many entries the search index held before the page's
    search: list[dict] | None = None  # the entries the search plugin made of the page


class GuidePlugin(BasePlugin[GuideConfig]):
    """Adds the generated pages and assets during `mkdocs build` and `mkdocs serve` (under serve with
    the site URL mkdocs.yml names, not the dev server's address), hands MkDocs what earlier builds
    stored, and links the embed files into the site."""

    def __init__(self) -> None:
        # What a `mkdocs serve` process keeps from one build to the next.
        self.cache: Cache | None = None  # the build cache (its place checked in on_config), and what this process knows of it
        self.day = None  # the date prices are judged against, read in on_config
        self.make_images = True  # whether builds make the charts' static images, read in on_config
        self.cache_max_mb: float | None = None  # the cache's bound, read in on_config
        self.serving = False  # under `mkdocs serve`
        self.dirty = False  # `mkdocs serve --dirty`: only what changed is built again
        self.built: dict[str, str] | None = None  # generated file -> sha256 of what the last finished build wrote
        self.inputs: str | None = None  # what every page may depend on, as the last finished build saw it
        self.linked_in: tuple[Path, dict[str, tuple]] | None = None  # under --dirty: the site folder, and what each embed file there links to
        self.grew = False  # under serve: whether the cache has grown since it was last held to its bound
        self.published_from: tuple[bytes, str] | None = None  # under serve: mkdocs.yml as last read, and its site URL
        self.site: Path | None = None  # the site folder of a build that is not dirty, whose folders it keeps (sitefolder)
        self.between: BetweenSaves | None = None  # under serve: the cache's chores and full garbage collections, run between saves
        self.workers: Workers | None = None  # under serve: the image workers, kept from one build to the next
        self.watcher = None  # under serve: the system's watcher of scenarios/ and data/, where it started (watching)
        self.banner: ErrorBanner | None = None  # under serve: the failed build's error, shown in every page served
        self.loaded = None  # under serve: the project on_pre_build loaded, for on_files
        self.page_urls: dict[tuple, tuple] = {}  # what MkDocs made of stored pages' URLs (StoredPage), kept from one build to the next
        # Each page's Markdown as published beside it, but the scenarios' (published.scenario_texts), by page
        # path: kept from one build to the next, since `mkdocs serve --dirty` converts only what changed.
        self.page_markdown: dict[str, str] = {}
        self.markdown_written: dict[str, str] = {}  # of those, what was last written into the site folder
        self._new_build()

    def _new_build(self) -> None:
        """What one build's events hand each other, set in on_files and used by the later events."""
        self.building: tuple[dict[str, str], str] | None = None  # built and inputs for the build under way
        self.renderer: Renderer | None = None  # for hand-written pages that opt into figures
        self.scenario_texts: list[published.ScenarioTexts] = []  # what each scenario publishes, for llms.txt
        # Published Markdown the cache could not store (a read-only cache): handed to MkDocs, a `.md`
        # file would be built as a page, so it is written into the site after the build.
        self.markdown_texts: dict[str, str] = {}
        self.images: Images | None = None  # the chart images still rendering; None in a build without images
        self.linked: dict[str, Path] = {}  # site path -> cache file to link there once the images are rendered
        self.as_before: dict[str, str] = {}  # of those, the ones linked as the last build linked them (embeds.build)
        self.linking: Future | None = None  # the links made while the pages are built (embeds.link_meanwhile)
        self.converted: ConvertedPages | None = None  # scenario pages' HTML from earlier builds
        self.to_store: dict[str, Path] = {}  # page path -> entry its HTML goes to once converted
        self.full: dict[str, str] = {}  # page path -> its HTML, while search reads a part of it or none
        self.held: dict[str, list[str]] = {}  # page path -> raw HTML blocks Markdown skips (passthrough)
        self.nav = None  # MkDocs' navigation, for what every page's file depends on
        self.themed: ThemedPages | None = None  # scenario pages' files from earlier builds; None where other plugins may change pages
        self.theme_entries: dict[str, tuple[File, Path]] = {}  # page path -> its file and where it is stored
        self.site_inputs = ""  # what every page's stored file depends on (page_file_cache.site_inputs), once the pages are converted
        self.offered: dict[str, tuple[Path, dict]] = {}  # page path -> where its file may be stored, and its front matter
        self.stored_files: dict[str, Themed] = {}  # page path -> its stored file, from its context to its search entries
        self.to_theme: dict[str, _Pending] = {}  # page path -> what its file is stored with once rendered
        self.files_stored = 0  # pages whose file came from the cache this build
        self.published = ""  # the site URL the generated files carry (_published_url)
        self.unfurls: Mapping[str, unfurl.Unfurl] = {}  # page path -> its card, where the generator made one
        self.unfurl_tags: dict[str, str] = {}  # page path -> its unfurl tags, once made

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"
        self.dirty = dirty
        if self.serving and self.between is None:
            self.between = BetweenSaves()
            self.between.start()
        if self.serving and self.workers is None:
            self.workers = Workers()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if self.between is not None:
            self.between.building()  # the last build's chores stop before this one reads the cache
        # Checked here, before MkDocs writes anything, so a misplaced cache or a bad date stops the
        # build in one line.
        try:
            options = settings(self.config, _root(config))
        except (cachefile.CacheDirError, ValueError) as e:
            raise Abort(str(e)) from None
        directory, self.day, self.make_images, self.cache_max_mb = (options.cache_dir, options.today, options.images,
                                                                    options.cache_max_mb)
        if self.cache is None or self.cache.directory != directory:
            self.cache = Cache(directory, between_builds=self.serving)
        # After a custom_dir, whose templates override the theme's and these alike.
        if str(THEME) not in config.theme.dirs:
            config.theme.dirs.insert(1 if config.theme.custom_dir else 0, str(THEME))
        return config

    def _published_url(self, config: MkDocsConfig, text: bytes) -> str:
        """The site URL the generated pages, embed files and images carry. `mkdocs serve` puts the dev
        server's address in site_url; the generator keeps the one mkdocs.yml names, so a preview reuses
        what `mkdocs build` cached (the images print the URL) and its embed snippets show where the site
        is published. text: mkdocs.yml as this build read it."""
        if not self.serving:
            return config.site_url or ""
        from mkdocs.utils.yaml import yaml_load

        # Parsed again only when mkdocs.yml changed.
        if self.published_from is None or self.published_from[0] != text:
            with open(config.config_file_path, "rb") as f:
                url = yaml_load(f).get("site_url") or ""
            self.published_from = (text, url if not url or url.endswith("/") else url + "/")
        return self.published_from[1]

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        if self.serving:
            # Under serve, the inputs are read before MkDocs empties the site folder: a save that does
            # not validate then leaves the last good site served, with the error over it (error_banner).
            self.loaded = self._load(config)
        if self.dirty:
            return
        self.site = Path(config.site_dir)
        try:
            sitefolder.put_aside(self.site)
        except OSError as e:
            raise _site_folder_failed(e) from None

    def _load(self, config: MkDocsConfig):
        from generator.inputs.loader import InputError
        from generator.rendering.build import load

        assert self.cache is not None, "on_config runs before the inputs are read"
        try:
            return load(_root(config), self.cache)
        except InputError as e:
            lines = "\n".join(str(p) for p in e.problems)
            raise Abort(f"Invalid scenario or data files:\n{lines}\n{len(e.problems)} problem(s) found.") from None

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        # Runs on every (re)build, so a changed scenario or price is picked up by `mkdocs serve`.
        from generator.rendering.build import generate, page_stores

        root = _root(config)
        cache = self.cache
        assert cache is not None, "on_config runs before on_files"
        self._cancel_images()  # a superseded `mkdocs serve` build's renders, before this build starts its own
        self._new_build()
        images = self.images = Images(cache, workers=self.workers) if self.make_images else None
        config_bytes = Path(config.config_file_path).read_bytes()
        self.published = self._published_url(config, config_bytes)
        project, self.loaded = self.loaded or self._load(config), None
        made = generate(root, cache, self.published, self.day, images, site_name=config.site_name, project=project)
        self.renderer, self.linked, self.unfurls = made.renderer, made.linked, made.site.unfurls
        self.scenario_texts = made.site.published
        if not self.dirty:  # every page is converted again, and the site folder holds none of their Markdown
            self.page_markdown, self.markdown_written = {}, {}
        self.as_before = made.as_before
        if not self.dirty:
            # MkDocs has emptied the site folder by now, and the last build's folders come back. What is
            # in the cache already, and not in them yet, is linked while the pages are built; the images
            # workers are rendering, once they are done.
            pending = images.pending if images is not None else set()
            ready = {path: cached for path, cached in made.linked.items() if cached not in pending}
            self.linked = {path: cached for path, cached in made.linked.items() if cached in pending}
            try:
                ready = sitefolder.put_back(Path(config.site_dir), ready)
            except OSError as e:
                raise _site_folder_failed(e) from None
            self.linking = embeds.link_meanwhile(Path(config.site_dir), ready)
        pages, files_stored, entries = page_stores(cache, config_bytes, config.site_url or "",
                                                   made.site.pages)
        self.converted = pages
        self.themed = files_stored if self._pages_only_ours(config) else None
        generated: list[GeneratedFile] = []
        for path, markdown in sorted(made.site.pages.items()):
            f = GeneratedFile.generated(config, path, content=markdown)
            generated.append(f)
            source = made.site.sources.get(path)
            if source:
                # Edit links on generated pages open the YAML the page is made from.
                f.edit_uri = f"../{source}"
            if path in entries:
                entry, file_entry = entries[path]
                stored = pages.get(entry)
                if stored is not None:
                    StoredPage(f, config, markdown, stored, self.page_urls)
                else:
                    self.to_store[path] = entry
                if self.themed is not None:
                    self.theme_entries[path] = (f, file_entry)
            files.append(f)
        self.markdown_texts = {path: text for path, text in made.texts.items() if path.endswith(".md")}
        for path, content in {**made.assets, **made.texts}.items():
            if path in self.markdown_texts:
                continue
            f = GeneratedFile.generated(config, path, content=content)
            generated.append(f)
            files.append(f)
        if self.dirty:
            self._only_what_changed(files, generated, made)
        log.info("guide: %d scenario pages, %d charts", len(made.project.results), len(made.site.embeds))
        return files

    def _only_what_changed(self, files: Files, generated: list[GeneratedFile], made) -> None:
        """Under `mkdocs serve --dirty`: which pages and files this build makes again. A generated file
        whose content is what the last build wrote is left as it is. A change to anything but the
        scenarios' own files (data/, the day, the set of scenarios) builds everything again, as does the
        first build; a scenario's change also rebuilds the hand-written pages that bake in every scenario
        (the calculator's presets)."""
        assert self.converted is not None, "on_files keys the pages first"
        digests = {f.src_uri: self.converted.digest(f.content_string) for f in generated}
        scenarios = {r.path for r in made.project.results}
        inputs = hashlib.sha256(repr((made.project.data_key, sorted(scenarios), made.renderer.freshness.today,
                                      made.renderer.site_url)).encode()).hexdigest()
        self.building = (digests, inputs)
        everything = self.built is None or inputs != self.inputs
        if everything:
            for f in files:
                f.is_modified = always_modified.__get__(f)  # type: ignore[method-assign]
            return
        built = self.built
        for f in generated:
            f.changed = built.get(f.src_uri) != digests[f.src_uri]
        if any(f.changed for f in generated):
            for f in files.documentation_pages():
                if f.abs_src_path and not f.generated_by and "calculator_json" in Path(f.abs_src_path).read_text(encoding="utf-8"):
                    f.is_modified = always_modified.__get__(f)  # type: ignore[method-assign]

    def on_nav(self, nav, *, config: MkDocsConfig, files: Files):
        self.nav = nav
        return nav

    def on_env(self, env: jinja2.Environment, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        assert self.cache is not None, "on_config runs before on_env"
        env.bytecode_cache = Compiled(self.cache)
        if self.themed is not None and self.theme_entries:
            env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({page_file_cache.TEMPLATE: page_file_cache.TEMPLATE_SOURCE}), env.loader])
            self._offer_stored_files(config)
        return env

    def _offer_stored_files(self, config: MkDocsConfig) -> None:
        """Pages whose file an earlier build may have stored are rendered with a template that writes
        the stored file, or, where none is stored for what the page and the site are now, the page's
        own template (page_file_cache.TEMPLATE_SOURCE). MkDocs picks the template by the page's front
        matter before any plugin sees the page, so the front matter names it until then. Runs once
        every page is converted (their titles, which the navigation shows, are known by then). Each
        stored file is read as its page is written: read all at once, they weighed as much as the
        pages' own HTML."""
        assert self.themed is not None and self.cache is not None
        self.site_inputs = page_file_cache.site_inputs(self.cache.keys, site_parts(config, self.nav))
        for path, (f, entry) in self.theme_entries.items():
            page = f.page
            if page is None or (self.dirty and not f.is_modified()):
                continue
            self.offered[path] = (entry, page.meta)
            page.meta = {**page.meta, "template": page_file_cache.TEMPLATE}

    def _stored_file(self, context, page: Page) -> Themed | None:
        """The page's stored file, if it was offered one and one is stored for what it is now; a page
        offered none is to be stored once the theme has rendered it."""
        offered = self.offered.pop(page.file.src_uri, None)
        if offered is None:
            return None
        assert self.themed is not None
        entry, page.meta = offered
        context[page_file_cache.OWN_TEMPLATE_KEY] = page.meta.get("template", "main.html")
        check = page_file_cache.check(self.site_inputs, (page_parts(page, page.content), context["guide_unfurl"]))
        stored = self.themed.get(entry, check, page.canonical_url)
        if stored is None:
            self.to_theme[page.file.src_uri] = _Pending(entry, check)
        return stored

    def _unfurl_tags(self, page: Page, config: MkDocsConfig) -> str:
        """The page's Open Graph and Twitter card tags: the generator's card for a page it made one
        for (a scenario's), the site card with the page's title and description for any other."""
        path = page.file.src_uri
        tags = self.unfurl_tags.get(path)
        if tags is None:
            card = self.unfurls.get(path)
            if card is None:
                # As Material titles and describes the page.
                title = page.meta.get("title") or (config.site_name if page.is_homepage else page.title) or config.site_name
                description = page.meta.get("description") or config.site_description or ""
                card = unfurl.page(str(title), str(description), page.url, homepage=page.is_homepage)
            assert self.renderer is not None, "on_files runs before the pages"
            tags = self.unfurl_tags[path] = unfurl.tags(self.renderer.unfurl_env, card, self.published, config.site_name,
                                                        image=self.make_images)
        return tags

    def _pages_only_ours(self, config: MkDocsConfig) -> bool:
        """Whether Material's search and this plugin are the only plugins: another one may put on a page
        what no key here names, so with it every page is rendered."""
        return all(name == "material/search" or plugin is self for name, plugin in config.plugins.items())

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if page.edit_url and "/../" in page.edit_url:
            # MkDocs joins edit_uri and the file's edit_uri as text; fold the "docs/../" it leaves.
            parts = urlsplit(page.edit_url)
            page.edit_url = urlunsplit(parts._replace(path=posixpath.normpath(parts.path)))
        if isinstance(page, StoredPage):
            return markdown  # its HTML is stored: Markdown does not run on it
        # Hand-written pages opt into figures from data/ with `figures: true` in their front matter.
        if page.meta.get("figures"):
            from generator.rendering.site import render_markdown_page

            assert self.renderer is not None, "on_files runs before any page"
            markdown = render_markdown_page(self.renderer, markdown)
        if not html_cache.scenario_page(page.file.src_uri):
            self.page_markdown[page.file.src_uri] = published.page_markdown(markdown, page.file.src_uri)
        markdown, blocks = passthrough.split(markdown)
        if blocks:
            self.held[page.file.src_uri] = blocks
        return markdown

    @event_priority(-100)  # after every other plugin has changed the HTML
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        path = page.file.src_uri
        blocks = self.held.pop(path, None)
        if blocks:
            html = passthrough.join(html, blocks)
            page.present_anchor_ids = (page.present_anchor_ids or set()) | passthrough.anchors(blocks)
        entry = self.to_store.pop(path, None)
        if entry is not None and self.converted is not None:
            self.converted.put(entry, html_cache.Converted(page.meta, html, toc_tokens(list(page.toc)),
                                                          page._title_from_render, sorted(page.present_anchor_ids or ())))
        return html

    @event_priority(100)  # before the search plugin indexes the page
    def _before_search(self, context, *, page: Page, config: MkDocsConfig, nav):
        path = page.file.src_uri
        context["guide_unfurl"] = self._unfurl_tags(page, config)
        stored = self._stored_file(context, page)
        # The search plugin indexes the page while it holds only what a reader searches it by
        # (html_cache.searched), or nothing where the page's stored entries join its index instead;
        # the whole HTML is put back before the theme renders the page.
        self.full[path] = page.content or ""
        if stored is not None:
            self.stored_files[path] = stored
            context[page_file_cache.CONTEXT_KEY] = stored.output
            page.content = ""
            return context
        page.content = html_cache.searched(path, page.content or "")
        if path in self.to_theme:
            index = _search_index(config)
            self.to_theme[path].indexed_from = None if index is None else len(index.entries)
        return context

    @event_priority(-100)  # after the search plugin has indexed the page
    def _after_search(self, context, *, page: Page, config: MkDocsConfig, nav):
        path = page.file.src_uri
        full = self.full.pop(path, None)
        if full is not None:
            page.content = full
        index = _search_index(config)
        stored = self.stored_files.pop(path, None)
        if stored is not None:
            self.files_stored += 1
            if index is not None and stored.search:
                index.entries.extend(stored.search)
        elif path in self.to_theme:
            pending = self.to_theme[path]
            if index is not None and pending.indexed_from is not None:
                pending.search = index.entries[pending.indexed_from:]
        return context

    on_page_context = CombinedEvent(_before_search, _after_search)

    @event_priority(100)  # what the template made, before any plugin changes it
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        pending = self.to_theme.pop(page.file.src_uri, None)
        if pending is not None and self.themed is not None:
            self.themed.put(pending.entry, page_file_cache.Themed(pending.check, output, pending.search), page.canonical_url)
        return output

    @event_priority(50)  # before the search plugin writes its index
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.banner is not None:
            self.banner.succeeded()  # a step below that fails shows its own error again (on_build_error)
        if self.dirty:
            _search_without_rebuilt_pages(config)
        # Images render in worker processes while the pages are built; they, and the embed text files
        # stored beside them, join the site last.
        images, self.images = self.images, None
        if images is not None:
            try:
                images.wait()
            except Exception as e:  # a renderer crash: say which build step failed, not a worker traceback
                self._stop_linking(quietly=True)
                raise Abort(f"Rendering the chart images failed: {e}") from None
        self._stop_linking()
        site = Path(config.site_dir)
        cache = self.cache
        assert cache is not None, "on_config runs before on_post_build"
        try:
            if self.dirty:
                before = self.linked_in[1] if self.linked_in is not None and self.linked_in[0] == site else {}
                self.linked_in = None  # until this build's links are all in place
                as_before = self.as_before
                self.linked_in = (site, embeds.link_into(site, self.linked, before, cache.settled, as_before))
                cache.settle((cached for path, cached in self.linked.items() if path not in as_before), as_before.values())
            else:
                embeds.link_into(site, self.linked)
        except OSError as e:
            raise _link_failed(e) from None
        try:
            self._publish_markdown(site, config)
        except OSError as e:
            raise _failed("Writing the pages' Markdown and llms.txt into the site folder", e) from None
        if not self.dirty:
            try:
                sitefolder.drop_empty(site)
            except OSError as e:
                raise _site_folder_failed(e) from None
        if images is not None:
            images.record_rendered()
            images.close()
        if self.building is not None:
            (self.built, self.inputs), self.building = self.building, None
        if images is not None:
            log.info("guide: embed images: %d charts rendered, %d from the cache", images.rendered, images.cached)
        else:
            log.info("guide: no chart images (the plugin's images option is off)")
        log.info("guide: %d page files from the cache", self.files_stored)
        # A build without images uses none of those in the cache, and would take its bound as leave to
        # remove them: it leaves the bound to the next build that makes them. A build that added nothing
        # to the cache cannot have taken it over its bound.
        self.grew = self.grew or (images is not None and (cache.wrote() or images.rendered > 0))
        if self.between is None:
            cache.save_digests()
            if images is not None:
                self._keep_bounded()
            return
        # Each of these but the first goes over every file the build used (some 40,000 at three
        # thousand scenarios).
        chores = [self._warm_workers, cache.touch_used, lambda stopping: cache.save_digests()]
        if images is not None:
            chores.append(self._keep_bounded)
        self.between.built(chores)

    def _publish_markdown(self, site: Path, config: MkDocsConfig) -> None:
        """Each page's Markdown beside its HTML, and llms.txt and llms-full.txt listing every page in the
        order of the navigation, then the scenarios (whose own files `embeds.build` linked)."""
        assert self.renderer is not None, "on_files runs before on_post_build"
        pages = [replace(p, markdown=self.page_markdown.get(p.path, "")) for p in _nav_pages(self.nav)]
        for path, text in self.markdown_texts.items():
            (site / path).parent.mkdir(parents=True, exist_ok=True)
            (site / path).write_text(text, encoding="utf-8")
        for path, markdown in self.page_markdown.items():
            if self.dirty and self.markdown_written.get(path) is markdown:
                continue  # `mkdocs serve --dirty` did not convert the page again: its file is as written
            dest = site / published.markdown_path(path)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(markdown, encoding="utf-8")
            self.markdown_written[path] = markdown
        summary = config.site_description or ""
        (site / published.LLMS).write_text(published.llms_txt(
            config.site_name, summary, self.published, pages, self.scenario_texts,
            self.renderer.project.catalog.latest_as_of()), encoding="utf-8")
        (site / published.LLMS_FULL).write_text(
            published.llms_full(config.site_name, summary, self.published, pages, self.scenario_texts), encoding="utf-8")

    def _warm_workers(self, stopping: Callable[[], bool]) -> None:
        if self.workers is not None and self.make_images and self.workers.warm():
            log.info("guide: image workers started for the next save")

    def _keep_bounded(self, stopping: Callable[[], bool] = lambda: False) -> None:
        if not self.grew:
            return
        assert self.cache is not None, "on_config runs before any build's chores"
        removed = self.cache.keep_bounded(max_mb=self.cache_max_mb, stopping=stopping)
        if not stopping():
            self.grew = False
        if removed:
            log.info("guide: cache over its bound: removed %d files the last build did not use", removed)

    def on_serve(self, server, *, config: MkDocsConfig, builder):
        root = _root(config)
        self.watcher = watching.watch(server, [root / "scenarios", root / "data"])
        self.banner = ErrorBanner(server)
        # The first build is over and the server not yet answering: the workers start in their own
        # processes while the browser loads the first page, not in the first save.
        self._warm_workers(lambda: False)
        return server

    def on_shutdown(self) -> None:
        watching.stop(self.watcher)
        self.watcher = None
        if self.between is not None:
            self.between.stop()
            self.between = None
        if self.serving and self.cache is not None:
            self.cache.save_digests()  # what saves since the last idle moment hashed (see on_post_build)
        if self.workers is not None:
            self.workers.close()
            self.workers = None

    def on_build_error(self, *, error: Exception) -> None:
        if self.banner is not None:
            self.banner.failed(str(error) if isinstance(error, Abort) else f"{type(error).__name__}: {error}")
        self._cancel_images()
        if self.building is not None and self.built is not None:
            # The failed build may have written any page it found changed: the next one takes none of
            # those as written, and the rest as the last finished build wrote them.
            made, _ = self.building
            self.built = {path: digest for path, digest in self.built.items() if made.get(path) == digest}
        self.building = None
        if self.cache is not None:
            self.cache.settle(())  # the next build checks every file again
        if self.between is not None:
            self.between.built()  # no chores: what the failed build used is not the whole of what the site uses
        if self.site is not None:
            try:
                sitefolder.drop_kept(self.site)  # a failed build leaves no hidden folder in the site
            except OSError:
                pass  # the error the build stopped on is the one to report

    def _cancel_images(self) -> None:
        """A build that stops early, or is superseded by `mkdocs serve`, stops its renders too."""
        images, self.images = self.images, None
        if images is not None:
            images.cancel()
        self._stop_linking(quietly=True)

    def _stop_linking(self, *, quietly: bool = False) -> None:
        """Waits for the links made while the pages were built, and raises what making them raised
        unless the build has failed already."""
        linking, self.linking = self.linking, None
        if linking is not None:
            error = linking.exception()
            if error is not None and not quietly:
                raise _link_failed(error) if isinstance(error, OSError) else error


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def _search_index(config: MkDocsConfig):
    search = config.plugins.get("material/search")
    return getattr(search, "search_index", None) if search is not None and search.config.enabled else None


def _search_without_rebuilt_pages(config: MkDocsConfig) -> None:
    """Material's search plugin, under a dirty rebuild, keeps the previous index and replaces the
    entries of one page only, the first it indexed this time; when several pages were built again
    (the scenario, the scenarios index, or all of them), the others would be listed twice. Every page
    indexed this time leaves the previous index first, so each is there once, as it is now."""
    search = config.plugins.get("material/search")
    prev, index = getattr(search, "search_index_prev", None), getattr(search, "search_index", None)
    if prev is None or index is None or not index.entries:
        return
    rebuilt = {e["location"].split("#")[0] for e in index.entries}
    prev.entries = [e for e in prev.entries if e["location"].split("#")[0] not in rebuilt]


def _failed(doing: str, error: OSError) -> Abort:
    # A full disk or a site folder another program holds: the build says so instead of a traceback.
    where = f" ({error.filename})" if error.filename else ""
    return Abort(f"{doing} failed{where}: {error.strerror or error}")


def _site_folder_failed(error: OSError) -> Abort:
    return _failed("Keeping the site folder's folders between builds", error)


def _link_failed(error: OSError) -> Abort:
    return _failed("Putting the embed files into the site folder", error)


def _nav_pages(nav, section: str = "Guide") -> list[published.PageInfo]:
    """The navigation's pages in its order, each with the title of the section it sits in."""
    out: list[published.PageInfo] = []
    for item in getattr(nav, "items", nav) or ():
        if getattr(item, "is_section", False):
            out += _nav_pages(item.children, item.title or section)
        elif getattr(item, "is_page", False):
            meta = item.meta or {}
            out.append(published.PageInfo(item.file.src_uri, item.title or meta.get("title") or item.file.src_uri,
                                          str(meta.get("description") or ""), section))
    return out
