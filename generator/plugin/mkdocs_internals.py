"""Every use the guide makes of what MkDocs, Material and MkDocs' dev server do not offer plugins:
their private names, their objects' methods replaced, their search index edited in place. Nothing
else in `generator/` touches them (tests/test_mkdocs_internals.py), so a new MkDocs or Material is
checked here, against the versions in CHECKED_AGAINST.

Each use says in one line why the public interface is not enough.

Every use of what MkDocs, Material and MkDocs' dev server do not offer plugins (private names,
methods replaced on their objects, Material's search index edited in place, what MkDocs keeps of a
page once it has written it), each with a line saying why, and `CHECKED_AGAINST`, the releases they
were read against (a build on others warns), of the engine that runs the build (MkDocs, or
ProperDocs, whose modules answer to the name `mkdocs`) and of Material.
`tests/test_mkdocs_internals.py` finds no such use anywhere else in `generator/` and fails on other
releases.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from watchdog.events import FileSystemEventHandler

# The releases every use below was read against; tests/test_mkdocs_internals.py fails on others. Of the
# two engines, the one running the build counts: MkDocs, or ProperDocs, its maintained fork, which runs
# as `properdocs` and answers plugins' imports of `mkdocs` with its own modules.
CHECKED_AGAINST = {"mkdocs": "1.6.1", "properdocs": "1.6.7", "mkdocs-material": "9.8.2"}
ENGINES = ("mkdocs", "properdocs")

log = logging.getLogger("mkdocs.plugins.guide")


def warn_if_unchecked() -> None:
    """A build on other releases than those in CHECKED_AGAINST says so, naming them."""
    unchecked = unchecked_versions()
    if unchecked:
        log.warning("guide: the plugin's uses of MkDocs' and Material's internals were not checked against %s "
                    "(generator/plugin/mkdocs_internals.py)", ", ".join(unchecked))


def running_engine() -> str:
    """"properdocs" where ProperDocs runs the build (its modules answer to the name `mkdocs`), else "mkdocs"."""
    import mkdocs

    return "properdocs" if mkdocs.__name__ == "properdocs" else "mkdocs"


def unchecked_versions() -> list[str]:
    """The installed engine running the build and Material where they are not the releases this
    module was checked against, each as "name installed (checked against x)"."""
    out = []
    engine = running_engine()
    for name, checked in CHECKED_AGAINST.items():
        if name in ENGINES and name != engine:
            continue
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "missing"
        if installed != checked:
            out.append(f"{name} {installed} (checked against {checked})")
    return out


# Pages -------------------------------------------------------------------------------------------


class PageWithKeptUrls(Page):
    """A page that takes its canonical, absolute and edit URLs from an earlier page made from the
    same key, where there was one. urls: what MkDocs made of those, by what it made them from."""

    def __init__(self, file: File, config: MkDocsConfig, urls: dict[tuple, tuple]):
        self.kept_urls = urls
        super().__init__(None, file, config)

    # Page.__init__ sets the URLs through these two private methods, with no hook a plugin could use.
    def _set_canonical_url(self, base: str | None) -> None:
        self._kept(("canonical", base, self.url), ("canonical_url", "abs_url"),
                   functools.partial(Page._set_canonical_url, self, base))

    # As above, for the edit URL.
    def _set_edit_url(self, repo_url: str | None, edit_uri: str | None = None, edit_uri_template: str | None = None) -> None:
        work = functools.partial(Page._set_edit_url, self, repo_url, edit_uri, edit_uri_template)
        if not repo_url:  # MkDocs may warn of the edit URI then, which each build should
            work()
            return
        self._kept(("edit", repo_url, edit_uri, edit_uri_template, self.file.edit_uri), ("edit_url",), work)

    def _kept(self, key: tuple, attributes: tuple[str, ...], work: Callable[[], None]) -> None:
        """The attributes as MkDocs set them for a page made from the same key, or as work() sets them
        now, kept for the pages after it."""
        known = self.kept_urls.get(key)
        if known is None:
            work()
            self.kept_urls[key] = tuple(getattr(self, a) for a in attributes)
            return
        for attribute, value in zip(attributes, known, strict=True):
            setattr(self, attribute, value)


def title_from_render(page: Page) -> str | None:
    # The title Markdown's first heading gave: `page.title` mixes it with nav and front matter titles.
    return page._title_from_render


def set_title_from_render(page: Page, title: str | None) -> None:
    # A stored page's render skips Markdown, which is what sets it; `page.title` reads it.
    page._title_from_render = title


def release_written_page(page: Page) -> None:
    # MkDocs keeps every page's HTML and Markdown until the build ends (some 200 MB at 3,000 scenarios)
    # and reads neither once on_post_page has returned: it writes the template's output, not these.
    # `Page.title`, which later pages' navigation reads, is None while the Markdown is: hence "".
    page.content = None
    page.markdown = ""


def release_source(f: File) -> None:
    # MkDocs reads a page's file once, as it reads the page's source, and keeps what it read: for a
    # file made in memory, its content stays with the file until the build ends.
    f.content_string = ""


def always_modified(f: File) -> None:
    # MkDocs asks `is_modified()` of each file under --dirty; a file not of ours has no other way to answer yes.
    f.is_modified = _yes.__get__(f)  # type: ignore[method-assign]


def _yes(f: File) -> bool:
    return True


def use_template(page: Page, name: str) -> dict:
    """Renders the page with the template `name`; returns its front matter as it was, to be put back
    with `restore_front_matter` before anything reads it."""
    # MkDocs picks a page's template from its front matter as it renders it, with no hook to name another.
    meta, page.meta = page.meta, {**page.meta, "template": name}
    return meta


def restore_front_matter(page: Page, meta: dict) -> None:
    page.meta = meta


def add_template(env: jinja2.Environment, name: str, source: str) -> None:
    # MkDocs' theme environment offers no way to add a template but its loader's folders on disk.
    env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({name: source}), env.loader])


# The theme's files ------------------------------------------------------------------------------


class ThemeListing:
    """The names of the files in the theme's folders, listed once in a `mkdocs serve` process and
    again only when a folder under them changed (a file added, removed or renamed changes its
    folder's time). MkDocs lists them on every build to find the static files it copies: Material
    holds 14,500 icons, 0.04 s of a save at 3,000 scenarios."""

    def __init__(self) -> None:
        # The loader's folders, every folder under them and each one's time; the names found in them.
        self._listed: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[int | None, ...]], list[str]] | None = None

    def use(self, config: MkDocsConfig) -> None:
        """Has this build's theme environment list the theme's files through this listing."""
        theme = config.theme
        make = theme.get_env

        # MkDocs makes the environment anew for each build and lists through its loader at once
        # (Files.add_files_from_theme), with no event between: the loader is where a list can be kept.
        def get_env() -> jinja2.Environment:
            env = make()
            if type(env.loader) is jinja2.FileSystemLoader:
                env.loader.list_templates = functools.partial(self.names, env.loader)  # type: ignore[method-assign]
            return env

        theme.get_env = get_env  # type: ignore[method-assign]

    def names(self, loader: jinja2.FileSystemLoader) -> list[str]:
        """What `loader.list_templates()` answers."""
        searchpath = tuple(loader.searchpath)
        known = self._listed
        if known is not None:
            (was, folders, times), names = known
            if was == searchpath and tuple(map(_time, folders)) == times:
                return list(names)
        # The times are taken before the list: a change made while it is listed is seen next time.
        folders = tuple(f for top in searchpath for f in _folders(top, loader.followlinks))
        times = tuple(map(_time, folders))
        names = jinja2.FileSystemLoader.list_templates(loader)
        # A folder's time has the grain of the file system's clock, and a change within the tick of
        # the one before leaves it as it was: a listing that found a folder changed lately is not kept.
        settled = time.time_ns() - _SETTLED_NS
        kept = all(t is None or t < settled for t in times)
        self._listed = ((searchpath, folders, times), names) if kept else None
        return list(names)


_SETTLED_NS = 2_000_000_000


def _folders(top: str, followlinks: bool) -> list[str]:
    """top (whether it is there or not) and every folder under it, as the loader walks them."""
    return [top, *(os.path.join(d, sub) for d, subs, _ in os.walk(top, followlinks=followlinks) for sub in subs)]


def _time(folder: str) -> int | None:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return None


# Material's search plugin --------------------------------------------------------------------------


def material_search_index(config: MkDocsConfig):
    """Material's search index for this build, or None where search is off."""
    search = config.plugins.get("material/search")
    # The plugin's index is an attribute of the plugin alone; its entries are what it writes out.
    return getattr(search, "search_index", None) if search is not None and search.config.enabled else None


def search_entries(index) -> list[dict]:
    # The entries the plugin made so far, in the order it writes them.
    return index.entries


def add_search_entries(index, entries: list[dict]) -> None:
    # A stored page's entries join the index as the plugin would have made them of its HTML.
    index.entries.extend(entries)


def search_without_rebuilt_pages(config: MkDocsConfig) -> None:
    """Material's search plugin, under a dirty rebuild, keeps the previous index and replaces the
    entries of one page only, the first it indexed this time; when several pages were built again
    (the scenario, the scenarios index, or all of them), the others would be listed twice. Every page
    indexed this time leaves the previous index first, so each is there once, as it is now."""
    search = config.plugins.get("material/search")
    # The previous index is the plugin's own, kept between dirty builds with no way to amend it.
    prev, index = getattr(search, "search_index_prev", None), getattr(search, "search_index", None)
    if prev is None or index is None or not index.entries:
        return
    rebuilt = {e["location"].split("#")[0] for e in index.entries}
    prev.entries = [e for e in prev.entries if e["location"].split("#")[0] not in rebuilt]


# MkDocs' dev server (LiveReloadServer) --------------------------------------------------------------


class _Handed:
    """Stands in for MkDocs' observer while `LiveReloadServer.watch` makes its handler for a folder."""

    handler: FileSystemEventHandler | None = None

    def schedule(self, handler: FileSystemEventHandler, path: str, **kwargs) -> None:
        self.handler = handler


def mkdocs_handler(server, folder: Path) -> FileSystemEventHandler:
    """The handler MkDocs makes for a watched folder, which starts a build. The folder is counted as
    watched, so that mkdocs.yml's `watch:` naming it again does not make MkDocs poll it twice."""
    # `watch` makes the handler and schedules it at once; the observer, swapped for a moment, hands it over.
    polling, server.observer = server.observer, _Handed()
    try:
        server.watch(str(folder))
        handler = server.observer.handler
    finally:
        server.observer = polling
    if handler is None:
        raise RuntimeError("MkDocs' server watched a folder without a handler: this MkDocs is not one the guide knows")
    return handler


def poll(server, handler: FileSystemEventHandler, folder: Path) -> None:
    """Has MkDocs' own polling observer hand what it finds in folder to handler."""
    # `LiveReloadServer.watch` schedules only handlers it makes; its observer takes ours as well.
    server.observer.schedule(handler, str(folder), recursive=True)


def wrap_served_html(server: Any, wrap: Callable[[bytes], bytes]) -> bool:
    """Has the dev server pass every page it serves through wrap, after it adds its live-reload
    script. Whether it could: a server without these private parts is left as it is."""
    # The server's one place that edits a page as it is served; MkDocs offers no hook there.
    inject = getattr(server, "_inject_js_into_html", None)
    # The epoch and its condition are how the server tells browsers to reload.
    able = callable(inject) and hasattr(server, "_epoch_cond") and hasattr(server, "_wanted_epoch")
    if able:
        server._inject_js_into_html = lambda content, epoch: wrap(inject(content, epoch))
    return able


def reload_browsers(server: Any) -> None:
    # What the server does after a build that succeeds, which it does not do after one that fails:
    # the browsers' long poll for a newer epoch returns.
    with server._epoch_cond:
        server._visible_epoch = server._wanted_epoch
        server._epoch_cond.notify_all()

