"""The incremental build, the layer when on (the plugin calls it through `layer.Layer`): one `Reuse` per MkDocs
run takes what earlier builds left instead of making it again, and one `PageState` per scenario page holds what
the layer hands itself from one event to the next about that page.

What it takes instead of making: a scenario page's HTML (`html_cache`, as a `StoredPage`) and the file the theme
made of it (`page_file_cache`, with its search entries); MkDocs' URLs of stored pages; the site folder's folders
and the embed files already linked there (`sitefolder`); under `mkdocs serve --dirty`, every file whose content
is what the last build wrote, and the file and page objects of each unchanged stored page, made from the last
build's; Jinja's compiled templates. Under `mkdocs serve` it also keeps the names of the theme's files, and runs
the cache's chores and CPython's full collections between saves (`between_saves`). The pages' stores serve only
where search and the guide are the build's only plugins (`pages_only_ours`): a stored page would skip another
plugin's page hooks.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_build_date

from generator.plugin import mkdocs_internals as internals
from generator.plugin.failures import link_failed, site_folder_failed
from generator.plugin.files import GeneratedFile, page_file
from generator.plugin.incremental import sitefolder
from generator.plugin.incremental.between_saves import BetweenSaves, Chore
from generator.plugin.incremental.stored_page import StoredPage, toc_tokens
from generator.plugin.incremental.theme_inputs import page_parts, site_parts
from generator.rendering.embeds import folders as embeds
from generator.rendering.charts.images import Images
from generator.store import html_cache, page_file_cache
from generator.store.cachefile import Cache
from generator.store.page_file_cache import Themed
from generator.store.template_cache import Compiled

if TYPE_CHECKING:
    from generator.rendering.generate import Generated

log = logging.getLogger("mkdocs.plugins.guide")


def pages_only_ours(config: MkDocsConfig, plugin: object) -> bool:
    """Whether Material's search and `plugin` (the guide's) are the only plugins (MkDocs' `hooks:` count
    as plugins too). Another one may change a page where a stored page skips it: its Markdown
    (`on_page_markdown`'s answer is dropped, `on_page_read_source` is not asked), its HTML
    (`on_page_content` would run again on HTML it already changed) and what the theme makes of it (no
    stored page file's check names it, page_file_cache). The stores' keys name mkdocs.yml and the
    versions of MkDocs and Material (`registry.LIBRARIES`) and of this code, so they name every plugin a
    build that uses them can hold. With another plugin every page is converted and rendered."""
    return all(other is plugin or (name == "material/search" and type(other).__module__.startswith("material."))
               for name, other in config.plugins.items())


@dataclass
class Pending:
    """A page whose file the theme renders this build, to be stored."""

    entry: Path
    check: str
    indexed_from: int | None = None  # how many entries the search index held before the page's
    search: list[dict] | None = None  # the entries the search plugin made of the page


@dataclass
class PageState:
    """What the incremental layer keeps of one scenario page from one event of a build to the next."""

    file_entry: Path  # where its page file is stored
    to_store: Path | None = None  # the entry its converted HTML goes to
    file: GeneratedFile | None = None  # its generated file, where its page file may come from the cache
    offered: dict | None = None  # its front matter, while its template is the stored file's
    stored: Themed | None = None  # its stored file, found for what it is now
    pending: Pending | None = None  # its file, to be stored once the theme has rendered it


class Reuse:
    """Takes over from MkDocs, at each event the plugin hands it, what an earlier build left for it."""

    def __init__(self, *, serving: bool, dirty: bool) -> None:
        self.dirty = dirty
        self.between: BetweenSaves | None = None  # under serve: the cache's chores and full collections, run between saves
        if serving:
            self.between = BetweenSaves()
            self.between.start()
        # Kept from one build to the next.
        self.built: dict[str, str] | None = None  # generated file -> sha256 of what the last finished build wrote
        self.inputs: str | None = None  # what every page may depend on, as the last finished build saw it
        self.linked_in: tuple[Path, dict[str, tuple]] | None = None  # under --dirty: the site folder, and what each embed file there links to
        self.site: Path | None = None  # the site folder of a build that is not dirty, whose folders it keeps
        self.page_urls: dict[tuple, tuple] = {}  # what MkDocs made of stored pages' URLs (StoredPage)
        # Under --dirty: the last finished build's stored pages' files, by path, with what each was made from.
        self.kept_files: dict[str, tuple[tuple, GeneratedFile]] = {}
        self.pages_from: tuple | None = None  # the configuration and day the kept files' pages were made under
        self.theme_files = internals.ThemeListing() if serving else None  # the names of the theme's files
        self._new_build()

    def _new_build(self) -> None:
        self.building: tuple[dict[str, str], str] | None = None  # built and inputs for the build under way
        self.converted: html_cache.ConvertedPages | None = None  # scenario pages' HTML from earlier builds
        self.themed: page_file_cache.ThemedPages | None = None  # their files; None where other plugins may change pages
        self.entries: dict[str, tuple[Path, Path]] = {}  # where each scenario page's HTML and file are stored
        self.pages: dict[str, PageState] = {}  # each scenario page's, by its path in docs/
        self.site_inputs = ""  # what every page's stored file depends on, once the pages are converted
        self.files_stored = 0  # pages whose file came from the cache this build
        self.linking: Future | None = None  # the links made while the pages are built (embeds.link_meanwhile)
        self.as_before: dict[str, str] = {}  # embed files linked as the last build linked them (embeds.embed_files)
        self.files_made: dict[str, tuple[tuple, GeneratedFile]] = {}  # kept_files as this build makes them

    def stop(self) -> None:
        if self.between is not None:
            self.between.stop()
            self.between = None

    # Before and as MkDocs reads the files.

    def starting(self) -> None:
        if self.between is not None:
            self.between.building()  # the last build's chores stop before this one reads the cache

    def configured(self, config: MkDocsConfig) -> None:
        if self.theme_files is not None:
            self.theme_files.use(config)

    def put_aside(self, site: Path) -> None:
        """Before MkDocs empties the site folder of a build that is not dirty (a dirty one keeps it)."""
        if self.dirty:
            return
        self.site = site
        try:
            sitefolder.put_aside(site)
        except OSError as e:
            raise site_folder_failed(e) from None

    def files(self, cache: Cache, config: MkDocsConfig, config_bytes: bytes, made: Generated, images: Images | None,
              ours: object) -> dict[str, Path]:
        """A new build: puts back the site folder's folders and starts linking what of made's embed
        files is in the cache already; finds the pages' stores, used only where `ours` (the guide's
        plugin) and search are the build's only plugins (`pages_only_ours`). Returns the embed files
        to link once the images are rendered."""
        from generator.rendering.generate import page_stores

        self._new_build()
        self.as_before = made.as_before
        linked = made.linked
        if not self.dirty:
            # MkDocs has emptied the site folder by now, and the last build's folders come back. What is
            # in the cache already, and not in them yet, is linked while the pages are built; the images
            # workers are rendering, once they are done.
            pending = images.pending if images is not None else set()
            ready = {path: cached for path, cached in made.linked.items() if cached not in pending}
            linked = {path: cached for path, cached in made.linked.items() if cached in pending}
            try:
                ready = sitefolder.put_back(Path(config.site_dir), ready)
            except OSError as e:
                raise site_folder_failed(e) from None
            self.linking = embeds.link_meanwhile(Path(config.site_dir), ready)
        self.converted, self.themed, entries = page_stores(cache, config_bytes, config.site_url or "", made.site.pages)
        if pages_only_ours(config, ours):
            self.entries = entries
        else:
            self.themed = None
        # What a page object takes from the configuration and the day, beside its stored entry's key.
        pages_from = (config.site_url, config.repo_url, config.edit_uri, config.edit_uri_template,
                      config.use_directory_urls, config.site_dir, get_build_date())
        if pages_from != self.pages_from:
            self.kept_files, self.pages_from = {}, pages_from
        return linked

    def page_file(self, path: str, markdown: str, source: str | None, config: MkDocsConfig) -> GeneratedFile:
        """A generated page's file: with its stored HTML, if there is one, or noting where its HTML goes
        once converted."""
        at = self.entries.get(path)
        if at is None:
            return page_file(config, path, markdown, source)
        assert self.converted is not None
        entry, file_entry = at
        state = self.pages[path] = PageState(file_entry)
        stored = self.converted.get(entry)
        if stored is not None:
            f = self._stored_page_file(path, markdown, source, config, entry, stored)
        else:
            f = page_file(config, path, markdown, source)
            state.to_store = entry
        if self.themed is not None:
            state.file = f
        return f

    def _stored_page_file(self, path: str, markdown: str, source: str | None, config: MkDocsConfig, entry: Path,
                          stored: html_cache.Converted) -> GeneratedFile:
        """A stored page's file and page. Under --dirty, where the last finished build made them from the
        same Markdown, source, entry and stored HTML, they are that build's again: MkDocs neither reads
        nor renders an unchanged page, and making the two objects anew took a tenth of a save at three
        thousand scenarios."""
        made_from = (markdown, source, entry, stored)
        if self.dirty:
            kept = self.kept_files.get(path)
            if kept is not None and kept[0] == made_from:
                self.files_made[path] = kept
                return kept[1]
        f = page_file(config, path, markdown, source)
        StoredPage(f, config, markdown, stored, self.page_urls)
        if self.dirty:
            self.files_made[path] = (made_from, f)
        return f

    def only_what_changed(self, files: Files, generated: list[GeneratedFile], made: Generated) -> None:
        """Under `mkdocs serve --dirty` (nothing otherwise): which pages and files this build makes again. A generated file
        whose content is what the last build wrote is left as it is. A change to anything but the
        scenarios' own files (data/, the day, the set of scenarios) builds everything again, as does the
        first build; a scenario's change also rebuilds the hand-written pages that bake in every scenario
        (the calculator's presets)."""
        if not self.dirty:
            return
        assert self.converted is not None, "files() keys the pages first"
        digests = {f.src_uri: self.converted.digest(f.content_string) for f in generated}
        scenarios = {r.path for r in made.project.results}
        inputs = hashlib.sha256(repr((made.project.data_key, sorted(scenarios), made.renderer.freshness.today,
                                      made.renderer.site_url)).encode()).hexdigest()
        self.building = (digests, inputs)
        everything = self.built is None or inputs != self.inputs
        if everything:
            for f in files:
                if isinstance(f, GeneratedFile):
                    f.changed = True  # it may be the last build's file again (_stored_page_file)
                else:
                    internals.always_modified(f)
            return
        built = self.built
        for f in generated:
            f.changed = built.get(f.src_uri) != digests[f.src_uri]
        if any(f.changed for f in generated):
            for f in files.documentation_pages():
                if f.abs_src_path and not f.generated_by and "calculator_json" in Path(f.abs_src_path).read_text(encoding="utf-8"):
                    internals.always_modified(f)

    def env(self, env: jinja2.Environment, cache: Cache, config: MkDocsConfig, nav) -> None:
        """Pages whose file an earlier build may have stored are rendered with a template that writes
        the stored file, or, where none is stored for what the page and the site are now, the page's
        own template (page_file_cache.TEMPLATE_SOURCE). MkDocs picks the template by the page's front
        matter before any plugin sees the page, so the front matter names it until then. Runs once
        every page is converted (their titles, which the navigation shows, are known by then). Each
        stored file is read as its page is written: read all at once, they weighed as much as the
        pages' own HTML."""
        env.bytecode_cache = Compiled(cache)
        offered = [state for state in self.pages.values() if state.file is not None]
        if self.themed is None or not offered:
            return
        internals.add_template(env, page_file_cache.TEMPLATE, page_file_cache.TEMPLATE_SOURCE)
        self.site_inputs = page_file_cache.site_inputs(cache.keys, site_parts(config, nav))
        for state in offered:
            page = state.file.page
            if page is None or (self.dirty and not state.file.is_modified()):
                continue
            state.offered = internals.use_template(page, page_file_cache.TEMPLATE)

    # As MkDocs builds each page.

    def converted_before(self, page: Page, *, keep_source: bool) -> bool:
        """Whether the page's HTML is stored (a `StoredPage`): Markdown does not run on it. Unless
        keep_source (a build `mkdocs serve` may follow), its Markdown is let go of."""
        if not isinstance(page, StoredPage):
            return False
        if not keep_source:
            page.source = ""
        return True

    def converted_html(self, page: Page, html: str) -> None:
        state = self.pages.get(page.file.src_uri)
        if state is None:
            return
        entry, state.to_store = state.to_store, None
        if entry is not None and self.converted is not None:
            self.converted.put(entry, html_cache.Converted(page.meta, html, toc_tokens(list(page.toc)),
                                                          internals.title_from_render(page), sorted(page.present_anchor_ids or ())))

    def stored_file(self, context, page: Page) -> bool:
        """Whether the page's file is stored for what it is now (the theme then writes that file); a
        page offered none is to be stored once the theme has rendered it."""
        state = self.pages.get(page.file.src_uri)
        if state is None or state.offered is None:
            return False
        meta, state.offered = state.offered, None
        assert self.themed is not None
        internals.restore_front_matter(page, meta)
        context[page_file_cache.OWN_TEMPLATE_KEY] = page.meta.get("template", "main.html")
        check = page_file_cache.check(self.site_inputs, (page_parts(page, page.content), context["guide_unfurl"]))
        state.stored = self.themed.get(state.file_entry, check, page.canonical_url)
        if state.stored is None:
            state.pending = Pending(state.file_entry, check)
            return False
        context[page_file_cache.CONTEXT_KEY] = state.stored.output
        return True

    def before_search(self, config: MkDocsConfig, page: Page) -> None:
        """As search is about to index a page whose file is not stored: where its entries will start."""
        state = self.pages.get(page.file.src_uri)
        if state is not None and state.pending is not None:
            index = internals.material_search_index(config)
            state.pending.indexed_from = None if index is None else len(internals.search_entries(index))

    def after_search(self, config: MkDocsConfig, page: Page) -> None:
        """A stored page's search entries joined to the index, or what search indexed of a page to be
        stored kept with it."""
        state = self.pages.get(page.file.src_uri)
        if state is None:
            return
        index = internals.material_search_index(config)
        stored, state.stored = state.stored, None
        if stored is not None:
            self.files_stored += 1
            if index is not None and stored.search:
                internals.add_search_entries(index, stored.search)
        elif state.pending is not None:
            pending = state.pending
            if index is not None and pending.indexed_from is not None:
                pending.search = internals.search_entries(index)[pending.indexed_from:]

    def post_page(self, page: Page, output: str) -> None:
        state = self.pages.get(page.file.src_uri)
        if state is None:
            return
        pending, state.pending = state.pending, None
        if pending is not None and self.themed is not None:
            self.themed.put(pending.entry, page_file_cache.Themed(pending.check, output, pending.search), page.canonical_url)

    # Once the pages are built.

    def before_search_written(self, config: MkDocsConfig) -> None:
        if self.dirty:
            internals.search_without_rebuilt_pages(config)

    def link(self, site: Path, linked: dict[str, Path], cache: Cache) -> None:
        """The embed files into the site folder: under --dirty those not there as the last build
        linked them, else those not linked while the pages were built. Raises OSError."""
        if self.dirty:
            before = self.linked_in[1] if self.linked_in is not None and self.linked_in[0] == site else {}
            self.linked_in = None  # until this build's links are all in place
            as_before = self.as_before
            self.linked_in = (site, embeds.link_into(site, linked, before, cache.settled, as_before))
            cache.settle((cached for path, cached in linked.items() if path not in as_before), as_before.values())
        else:
            embeds.link_into(site, linked)

    def drop_empty(self, site: Path) -> None:
        if not self.dirty:
            try:
                sitefolder.drop_empty(site)
            except OSError as e:
                raise site_folder_failed(e) from None

    def finished(self, chores: Sequence[Chore]) -> bool:
        """The build finished: what it wrote is the last finished build's. Whether the chores were
        left to run between saves."""
        log.info("guide: %d page files from the cache", self.files_stored)
        if self.building is not None:
            (self.built, self.inputs), self.building = self.building, None
        self.kept_files, self.files_made = self.files_made, {}
        if self.between is None:
            return False
        self.between.built(chores)
        return True

    def failed(self) -> None:
        if self.building is not None and self.built is not None:
            # The failed build may have written any page it found changed: the next one takes none of
            # those as written, and the rest as the last finished build wrote them.
            made, _ = self.building
            self.built = {path: digest for path, digest in self.built.items() if made.get(path) == digest}
        self.building = None
        self.kept_files, self.files_made = {}, {}  # MkDocs may have left any of them half made
        if self.between is not None:
            self.between.built()  # no chores: what the failed build used is not the whole of what the site uses
        if self.site is not None:
            try:
                sitefolder.drop_kept(self.site)  # a failed build leaves no hidden folder in the site
            except OSError:
                pass  # the error the build stopped on is the one to report

    def stop_linking(self, *, quietly: bool = False) -> None:
        """Waits for the links made while the pages were built, and raises what making them raised
        unless the build has failed already."""
        linking, self.linking = self.linking, None
        if linking is not None:
            error = linking.exception()
            if error is not None and not quietly:
                raise link_failed(error) if isinstance(error, OSError) else error
