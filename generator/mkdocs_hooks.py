"""The MkDocs adapter: the only module of the package that imports MkDocs.

Wired in through `hooks:` in mkdocs.yml, so a plain `mkdocs build` or `mkdocs serve` runs the
generator. Pages and assets are added as generated files and never written into docs/, which keeps
the working tree clean and stops `mkdocs serve` from rebuilding forever (mkdocs issue 3433).
MkDocs does not reload hook modules in `mkdocs serve`: edits to this package need a restart,
edits to scenarios/ and data/ (watched in mkdocs.yml) do not.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import posixpath
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort
from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc

if TYPE_CHECKING:
    from concurrent.futures import Future

    from generator.converted import Converted, ConvertedPages
    from generator.images import Images
    from generator.site import Renderer
    from generator.themed import Themed, ThemedPages

log = logging.getLogger("mkdocs.hooks.guide")
# Stale prices are WARNING lines in the build log, but on a logger outside "mkdocs", whose warnings
# are the only ones `mkdocs build --strict` counts. On purpose: a price goes stale with the calendar,
# not with a change, so counting it would fail every build of an unchanged commit once a date passes
# (the deploy of main and every pull request alike). The pages say so in a visible note, and the gate
# is `guide validate --strict`. See "Stale prices" in CONTRIBUTING.md.
stale_log = logging.getLogger("guide.stale")


@dataclass
class BuildState:
    """What one build's hooks hand each other: set in on_config and on_files, used by the later hooks."""

    cache: Path | None = None  # the build cache, checked in on_config
    serving: bool = False  # under `mkdocs serve`
    dirty: bool = False  # `mkdocs serve --dirty`: only what changed is built again
    built: dict[str, str] | None = None  # generated file -> sha256 of what the last finished build wrote
    inputs: str | None = None  # what every page may depend on, as the last finished build saw it
    building: tuple[dict[str, str], str] | None = None  # the same for the build under way
    renderer: Renderer | None = None  # for hand-written pages that opt into figures
    images: Images | None = None  # the chart images still rendering
    linked: dict[str, Path] = field(default_factory=dict)  # site path -> cache file to link there once the images are rendered
    linking: Future | None = None  # the links made while the pages are built (embeds.link_meanwhile)
    converted: ConvertedPages | None = None  # scenario pages' HTML from earlier builds
    to_store: dict[str, Path] = field(default_factory=dict)  # page path -> entry its HTML goes to once converted
    full: dict[str, str] = field(default_factory=dict)  # page path -> its HTML, while search reads a part of it or none
    held: dict[str, list[str]] = field(default_factory=dict)  # page path -> raw HTML blocks Markdown skips (passthrough)
    nav: object = None  # MkDocs' navigation, for what every page's file depends on
    themed: ThemedPages | None = None  # scenario pages' files from earlier builds; None where other plugins may change pages
    theme_entries: dict[str, tuple[File, Path]] = field(default_factory=dict)  # page path -> its file and where it is stored
    stored_files: dict[str, tuple[Themed, dict]] = field(default_factory=dict)  # page path -> stored file, and the page's front matter
    to_theme: dict[str, _Pending] = field(default_factory=dict)  # page path -> what its file is stored with once rendered
    files_stored: int = 0  # pages whose file came from the cache this build
    linked_in: tuple[Path, dict[str, tuple]] | None = None  # under --dirty: the site folder, and what each embed file there links to
    site: Path | None = None  # the site folder of a build that is not dirty, whose folders it keeps (sitefolder)
    bounded_at: float = -math.inf  # time.monotonic() when the cache was last held to its bound


@dataclass
class _Pending:
    """A page whose file the theme renders this build, to be stored."""

    entry: Path
    check: str
    indexed_from: int | None = None  # how many entries the search index held before the page's
    search: list[dict] | None = None  # the entries the search plugin made of the page


BOUND_EVERY_SECONDS = 60

# MkDocs calls hooks as module functions: their shared state has to live at module level.
_build = BuildState()


class GeneratedFile(File):
    """A file the generator made. Under `mkdocs serve --dirty` MkDocs builds again only what
    `is_modified` says; MkDocs' own answer for generated content is always yes. Here it is yes when
    the content differs from what this process's last finished build wrote, or the file is not there."""

    changed = True

    def is_modified(self) -> bool:
        return self.changed or not os.path.isfile(self.abs_dest_path)


def _modified(f: File) -> bool:
    return True


class StoredPage(Page):
    """A generated page whose HTML an earlier build converted from the same Markdown: MkDocs builds it
    like any page, except that Markdown does not run."""

    def __init__(self, file: File, config: MkDocsConfig, markdown: str, stored: Converted):
        super().__init__(None, file, config)
        self._source = markdown
        self._stored = stored

    def read_source(self, config: MkDocsConfig) -> None:
        # The front matter is one line of JSON between two '---' lines (site.front_matter); what
        # MkDocs read from it is stored with the HTML.
        source = self._source
        end = source.find("\n---\n", 4) if source.startswith("---\n") else -1
        self.markdown = source[end + 5:] if end >= 0 else source
        self.meta = dict(self._stored.meta)

    def render(self, config: MkDocsConfig, files: Files) -> None:
        s = self._stored
        self.content = s.content
        self.toc = get_toc(s.toc)
        self._title_from_render = s.title
        self.present_anchor_ids = set(s.anchors)


def _toc_tokens(items: list[AnchorLink]) -> list[dict]:
    return [{"level": a.level, "id": a.id, "name": a.title, "children": _toc_tokens(a.children)} for a in items]


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_startup(command: str, dirty: bool) -> None:
    _build.serving = command == "serve"
    _build.dirty = dirty


def _published_url(config: MkDocsConfig) -> str:
    """The site URL the generated pages, embed files and images carry. `mkdocs serve` puts the dev
    server's address in site_url; the generator keeps the one mkdocs.yml names, so a preview reuses what
    `mkdocs build` cached (the images print the URL) and its embed snippets show where the site is published."""
    if not _build.serving:
        return config.site_url or ""
    from mkdocs.utils.yaml import yaml_load

    with open(config.config_file_path, "rb") as f:
        url = yaml_load(f).get("site_url") or ""
    return url if not url or url.endswith("/") else url + "/"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    # Lets `mkdocs build` find the package from a fresh checkout even before `pip install -e .`.
    root = str(_root(config))
    if root not in sys.path:
        sys.path.insert(0, root)
    from generator.cachefile import CacheDirError, cache_dir

    # Checked here, before MkDocs writes anything, so a misplaced cache stops the build in one line.
    try:
        _build.cache = cache_dir(_root(config))
    except CacheDirError as e:
        raise Abort(str(e)) from None
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


def on_pre_build(config: MkDocsConfig) -> None:
    if _build.dirty:
        return
    from generator import sitefolder

    _build.site = Path(config.site_dir)
    try:
        sitefolder.put_aside(_build.site)
    except OSError as e:
        raise _site_folder_failed(e) from None


def on_files(files: Files, config: MkDocsConfig) -> Files:
    # Runs on every (re)build, so a changed scenario or price is picked up by `mkdocs serve`.
    from generator import cachefile, converted, embeds, sitefolder, themed
    from generator.build import generate
    from generator.freshness import today
    from generator.images import Images
    from generator.loader import InputError

    root = _root(config)
    cache = _build.cache or cachefile.cache_dir(root)
    _cancel_images()  # a superseded `mkdocs serve` build's renders, before this build starts its own
    images = _build.images = Images(cache / "embeds")
    try:
        made = generate(root, cache, _published_url(config), today(), images, lambda project: _warn_stale(project, root))
    except InputError as e:
        lines = "\n".join(str(p) for p in e.problems)
        raise Abort(f"Invalid scenario or data files:\n{lines}\n{len(e.problems)} problem(s) found.") from None
    _build.renderer, _build.linked = made.renderer, made.linked
    if not _build.dirty:
        # MkDocs has emptied the site folder by now, and the last build's folders come back. What is
        # in the cache already, and not in them yet, is linked while the pages are built; the images
        # workers are rendering, once they are done.
        ready = {path: cached for path, cached in made.linked.items() if cached not in images.pending}
        _build.linked = {path: cached for path, cached in made.linked.items() if cached in images.pending}
        try:
            ready = sitefolder.put_back(Path(config.site_dir), ready)
        except OSError as e:
            raise _site_folder_failed(e) from None
        _build.linking = embeds.link_meanwhile(Path(config.site_dir), ready)
    _build.converted = pages = converted.ConvertedPages(cache / "html", Path(config.config_file_path).read_bytes())
    _build.to_store, _build.full, _build.held = {}, {}, {}
    _build.themed = themed.ThemedPages(cache / "themed", config.site_url or "") if _pages_only_ours(config) else None
    _build.theme_entries, _build.stored_files, _build.to_theme, _build.files_stored = {}, {}, {}, 0
    generated: list[GeneratedFile] = []
    for path, markdown in sorted(made.site.pages.items()):
        f = GeneratedFile.generated(config, path, content=markdown)
        generated.append(f)
        source = made.site.sources.get(path)
        if source:
            # Edit links on generated pages open the YAML the page is made from.
            f.edit_uri = f"../{source}"
        if converted.applies(path):
            parts = pages.parts(path, markdown)
            entry = pages.entry_at(parts)
            stored = pages.get(entry)
            if stored is not None:
                StoredPage(f, config, markdown, stored)
            else:
                _build.to_store[path] = entry
            if _build.themed is not None:
                _build.theme_entries[path] = (f, _build.themed.entry(parts))
        files.append(f)
    for path, content in {**made.assets, **made.texts}.items():
        f = GeneratedFile.generated(config, path, content=content)
        generated.append(f)
        files.append(f)
    if _build.dirty:
        _only_what_changed(files, generated, made, root)
    log.info("guide: %d scenario pages, %d charts", len(made.project.results), len(made.site.charts))
    return files


def _only_what_changed(files: Files, generated: list[GeneratedFile], made, root: Path) -> None:
    """Under `mkdocs serve --dirty`: which pages and files this build makes again. A generated file
    whose content is what the last build wrote is left as it is. A change to anything but the
    scenarios' own files (data/, the day, the set of scenarios) builds everything again, as does the
    first build; a scenario's change also rebuilds the hand-written pages that bake in every scenario
    (the calculator's presets)."""
    digests = {f.src_uri: hashlib.sha256(f.content_bytes).hexdigest() for f in generated}
    scenarios = {r.path for r in made.project.results}
    inputs = hashlib.sha256(repr((sorted((k, v) for k, v in made.project.digests.items() if k not in scenarios),
                                  sorted(scenarios), made.renderer.freshness.today, made.renderer.site_url)).encode()).hexdigest()
    _build.building = (digests, inputs)
    everything = _build.built is None or inputs != _build.inputs
    if everything:
        for f in files:
            f.is_modified = _modified.__get__(f)  # type: ignore[method-assign]
        return
    built = _build.built
    for f in generated:
        f.changed = built.get(f.src_uri) != digests[f.src_uri]
    if any(f.changed for f in generated):
        for f in files.documentation_pages():
            if f.abs_src_path and not f.generated_by and "calculator_json" in Path(f.abs_src_path).read_text(encoding="utf-8"):
                f.is_modified = _modified.__get__(f)  # type: ignore[method-assign]


def on_nav(nav, config: MkDocsConfig, files: Files):
    _build.nav = nav
    return nav


def on_env(env: jinja2.Environment, config: MkDocsConfig, files: Files) -> jinja2.Environment:
    from generator import themed
    from generator.compiled import COMPILED

    env.bytecode_cache = COMPILED
    if _build.themed is not None and _build.theme_entries:
        env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({themed.TEMPLATE: themed.TEMPLATE_SOURCE}), env.loader])
        _find_stored_files(config)
    return env


def _find_stored_files(config: MkDocsConfig) -> None:
    """Which pages' files an earlier build stored for what they and the site are now. Runs once
    every page is converted (their titles, which the navigation shows, are known by then); a page
    found is rendered with a template that writes its stored file, which MkDocs picks by the page's
    front matter before any plugin sees the page, so the front matter says so until then."""
    from generator import themed

    assert _build.themed is not None
    site = themed.site_inputs(_site_parts(config))
    for path, (f, entry) in _build.theme_entries.items():
        page = f.page
        if page is None or (_build.dirty and not f.is_modified()):
            continue
        check = themed.check(site, _page_parts(page, page.content))
        stored = _build.themed.get(entry, check, page.canonical_url)
        if stored is None:
            _build.to_theme[path] = _Pending(entry, check)
        else:
            _build.stored_files[path] = (stored, page.meta)
            page.meta = {**page.meta, "template": themed.TEMPLATE}


def _pages_only_ours(config: MkDocsConfig) -> bool:
    """Whether Material's search and these hooks are the only plugins: another one may put on a page
    what no key here names, so with it every page is rendered."""
    return all(name == "material/search" or getattr(plugin, "_build", None) is _build for name, plugin in config.plugins.items())


def _search_index(config: MkDocsConfig):
    search = config.plugins.get("material/search")
    return getattr(search, "search_index", None) if search is not None and search.config.enabled else None


def _theme_dirs_outside_packages(config: MkDocsConfig) -> list[tuple[str, str]]:
    """The theme's own templates are named by the versions of MkDocs and Material; a custom_dir's
    files by their bytes."""
    import importlib.util

    packaged = [Path(loc) for name in ("material", "mkdocs") for loc in (importlib.util.find_spec(name).submodule_search_locations or ())]
    out = []
    for d in config.theme.dirs:
        folder = Path(d)
        if any(folder.is_relative_to(p) for p in packaged):
            continue
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            out.append((path.relative_to(folder).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest()))
    return out


# Settings that change no page's file (what is only warned about or refused: `--strict`, validation),
# or whose effect a page's own parts already carry (Markdown's settings: its HTML), or that hold
# paths of this machine; the theme, the navigation and the site URL's path (its address is in no
# stored file: `themed`) are named on their own in _site_parts.
_NOT_IN_PAGES = frozenset({"plugins", "hooks", "mdx_configs", "markdown_extensions", "config_file_path", "watch", "dev_addr",
                           "site_dir", "docs_dir", "theme", "nav", "strict", "validation", "site_url"})


def _site_parts(config: MkDocsConfig) -> tuple:
    """What every page's file depends on: MkDocs' settings as read (command-line options included),
    the theme, the search plugin's settings and the navigation as it is shown."""
    from generator import themed
    from generator.rendered import code_digest

    theme = config.theme
    search = config.plugins.get("material/search")
    return (
        code_digest(),
        sorted((k, repr(v)) for k, v in config.items() if k not in _NOT_IN_PAGES),
        themed.site_path(config.site_url or ""),
        theme.name, sorted((k, repr(v)) for k, v in theme.items()), sorted(theme.static_templates),
        _theme_dirs_outside_packages(config),
        None if search is None else sorted((k, repr(v)) for k, v in search.config.items()),
        _nav_parts(_build.nav.items if _build.nav is not None else []),
    )


def _nav_parts(items) -> list:
    return [(i.is_page, i.is_section, i.is_link, i.title, getattr(i, "url", None), getattr(i, "is_index", None), repr(getattr(i, "meta", None)),
             _nav_parts(i.children or [])) for i in items]


def _page_parts(page: Page, content: str | None) -> tuple:
    """What one page's file depends on besides the site."""

    def neighbour(p) -> tuple | None:
        return None if p is None else (p.title, p.url)

    return (
        page.file.src_uri, page.url, page.canonical_url is None, page.abs_url, page.edit_url, page.is_homepage, page.title,
        repr(page.meta), _toc_tokens(list(page.toc)),
        hashlib.sha256((content or "").encode("utf-8", "surrogatepass")).hexdigest(),
        neighbour(page.previous_page), neighbour(page.next_page), [(a.title, getattr(a, "url", None)) for a in page.ancestors],
    )


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.edit_url and "/../" in page.edit_url:
        # MkDocs joins edit_uri and the file's edit_uri as text; fold the "docs/../" it leaves.
        parts = urlsplit(page.edit_url)
        page.edit_url = urlunsplit(parts._replace(path=posixpath.normpath(parts.path)))
    if isinstance(page, StoredPage):
        return markdown  # its HTML is stored: Markdown does not run on it

    from generator import passthrough

    # Hand-written pages opt into figures from data/ with `figures: true` in their front matter.
    if page.meta.get("figures"):
        from generator.site import render_markdown_page

        assert _build.renderer is not None, "on_files runs before any page"
        markdown = render_markdown_page(_build.renderer, markdown)
    markdown, blocks = passthrough.split(markdown)
    if blocks:
        _build.held[page.file.src_uri] = blocks
    return markdown


@event_priority(-100)  # after every other plugin has changed the HTML
def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    from generator import converted, passthrough

    path = page.file.src_uri
    blocks = _build.held.pop(path, None)
    if blocks:
        html = passthrough.join(html, blocks)
        page.present_anchor_ids = (page.present_anchor_ids or set()) | passthrough.anchors(blocks)
    entry = _build.to_store.pop(path, None)
    if entry is not None and _build.converted is not None:
        _build.converted.put(entry, converted.Converted(page.meta, html, _toc_tokens(list(page.toc)),
                                                        page._title_from_render, sorted(page.present_anchor_ids or ())))
    return html


@event_priority(100)  # before the search plugin indexes the page
def _before_search(context, page: Page, config: MkDocsConfig, nav):
    from generator import converted, themed

    path = page.file.src_uri
    stored = _build.stored_files.get(path)
    if stored is not None:
        found, page.meta = stored
        context[themed.CONTEXT_KEY] = found.output
        _build.full[path] = page.content or ""
        page.content = ""  # nothing for the search plugin to parse: the page's stored entries join its index next
        return context
    if page.file.generated_by:
        # The search plugin indexes the page while it holds only what a reader searches it by
        # (converted.searched); the whole HTML is put back before the theme renders the page.
        _build.full[path] = page.content or ""
        page.content = converted.searched(path, page.content or "")
    if path in _build.to_theme:
        index = _search_index(config)
        _build.to_theme[path].indexed_from = None if index is None else len(index.entries)
    return context


@event_priority(-100)  # after the search plugin has indexed the page
def _after_search(context, page: Page, config: MkDocsConfig, nav):
    path = page.file.src_uri
    full = _build.full.pop(path, None)
    if full is not None:
        page.content = full
    index = _search_index(config)
    stored = _build.stored_files.pop(path, None)
    if stored is not None:
        _build.files_stored += 1
        if index is not None and stored[0].search:
            index.entries.extend(stored[0].search)
    elif path in _build.to_theme:
        pending = _build.to_theme[path]
        if index is not None and pending.indexed_from is not None:
            pending.search = index.entries[pending.indexed_from:]
    return context


on_page_context = CombinedEvent(_before_search, _after_search)


@event_priority(100)  # what the template made, before any plugin changes it
def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    from generator import themed

    pending = _build.to_theme.pop(page.file.src_uri, None)
    if pending is not None and _build.themed is not None:
        _build.themed.put(pending.entry, themed.Themed(pending.check, output, pending.search), page.canonical_url)
    return output


@event_priority(50)  # before the search plugin writes its index
def on_post_build(config: MkDocsConfig) -> None:
    if _build.dirty:
        _search_without_rebuilt_pages(config)
    # Images render in worker processes while the pages are built; they, and the embed text files
    # stored beside them, join the site last.
    from generator import cachefile, embeds, sitefolder

    images, _build.images = _build.images, None
    if images is None:
        return
    try:
        images.wait()
    except Exception as e:  # a renderer crash: say which build step failed, not a worker traceback
        _stop_linking(quietly=True)
        raise Abort(f"Rendering the chart images failed: {e}") from None
    _stop_linking()
    site = Path(config.site_dir)
    try:
        if _build.dirty:
            before = _build.linked_in[1] if _build.linked_in is not None and _build.linked_in[0] == site else {}
            _build.linked_in = None  # until this build's links are all in place
            _build.linked_in = (site, embeds.link_into(site, _build.linked, before))
        else:
            embeds.link_into(site, _build.linked)
    except OSError as e:
        raise _link_failed(e) from None
    if not _build.dirty:
        try:
            sitefolder.drop_empty(site)
        except OSError as e:
            raise _site_folder_failed(e) from None
    images.close()
    cachefile.save_digests()
    if _build.building is not None:
        (_build.built, _build.inputs), _build.building = _build.building, None
    log.info("guide: embed images: %d charts rendered, %d from the cache", images.rendered, images.cached)
    log.info("guide: %d page files from the cache", _build.files_stored)
    # Looking over the whole cache (some 20,000 files at a thousand scenarios) takes longer than
    # building a changed page. A build that added nothing to the cache cannot have taken it over its
    # bound, so it does not look; while serving, a build looks at most once a minute, so a save
    # waits for it once in a while, not every time.
    grew = cachefile.wrote() or images.rendered > 0
    if _build.cache is not None and grew and (not _build.serving or time.monotonic() - _build.bounded_at >= BOUND_EVERY_SECONDS):
        _build.bounded_at = time.monotonic()
        removed = cachefile.keep_bounded(_build.cache)
        if removed:
            log.info("guide: cache over its bound: removed %d files this build did not use", removed)


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


def on_build_error(error: Exception) -> None:
    _cancel_images()
    if _build.site is not None:
        from generator import sitefolder

        try:
            sitefolder.drop_kept(_build.site)  # a failed build leaves no hidden folder in the site
        except OSError:
            pass  # the error the build stopped on is the one to report


def _cancel_images() -> None:
    """A build that stops early, or is superseded by `mkdocs serve`, stops its renders too."""
    images, _build.images = _build.images, None
    if images is not None:
        images.cancel()
    _stop_linking(quietly=True)


def _stop_linking(*, quietly: bool = False) -> None:
    """Waits for the links made while the pages were built, and raises what making them raised
    unless the build has failed already."""
    linking, _build.linking = _build.linking, None
    if linking is not None:
        error = linking.exception()
        if error is not None and not quietly:
            raise _link_failed(error) if isinstance(error, OSError) else error


def _failed(doing: str, error: OSError) -> Abort:
    # A full disk or a site folder another program holds: the build says so instead of a traceback.
    where = f" ({error.filename})" if error.filename else ""
    return Abort(f"{doing} failed{where}: {error.strerror or error}")


def _site_folder_failed(error: OSError) -> Abort:
    return _failed("Keeping the site folder's folders between builds", error)


def _link_failed(error: OSError) -> Abort:
    return _failed("Putting the embed files into the site folder", error)
