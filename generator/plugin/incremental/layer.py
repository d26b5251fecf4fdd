"""The incremental layer as the plugin sees it: one interface (`Layer`), met by `Reuse` when
the plugin's `incremental` option is on and by `Off`, which does nothing of its own, when it is off.
The plugin calls every event on whichever it holds and never asks which (`switched` picks it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from generator.plugin.files import GeneratedFile, page_file
from generator.plugin.incremental.between_saves import Chore
from generator.plugin.incremental.reuse import Reuse
from generator.rendering.embeds import folders as embeds
from generator.rendering.charts.images import Images
from generator.store.cachefile import Cache

if TYPE_CHECKING:
    from generator.rendering.generate import Generated


class Layer(Protocol):
    """What the plugin hands the incremental layer at each MkDocs event, in the order they come."""

    def stop(self) -> None:
        """The layer is left (mkdocs.yml turned it off, or MkDocs shuts down)."""

    def starting(self) -> None:
        """A build starts: what ran between the last build and this one stops."""

    def configured(self, config: MkDocsConfig) -> None:
        """MkDocs has read mkdocs.yml."""

    def put_aside(self, site: Path) -> None:
        """Before MkDocs empties the site folder."""

    def files(self, cache: Cache, config: MkDocsConfig, config_bytes: bytes, made: Generated, images: Images | None,
              ours: object) -> dict[str, Path]:
        """The generator has made its files: the embed files still to link once the images are
        rendered. ours: the guide's plugin, told from the build's other plugins."""

    def page_file(self, path: str, markdown: str, source: str | None, config: MkDocsConfig) -> GeneratedFile:
        """The file a generated page is handed to MkDocs as."""

    def only_what_changed(self, files: Files, generated: list[GeneratedFile], made: Generated) -> None:
        """Once the files are handed over: which MkDocs builds again."""

    def env(self, env: jinja2.Environment, cache: Cache, config: MkDocsConfig, nav) -> None:
        """The theme's Jinja environment, once every page is converted."""

    def converted_before(self, page: Page, *, keep_source: bool) -> bool:
        """Whether Markdown is not to run on the page, its HTML taken from an earlier build."""

    def converted_html(self, page: Page, html: str) -> None:
        """What Markdown and every plugin made of a page's Markdown."""

    def stored_file(self, context, page: Page) -> bool:
        """Whether the theme writes the page's file as an earlier build stored it (search then reads
        none of its HTML)."""

    def before_search(self, config: MkDocsConfig, page: Page) -> None:
        """Search is about to index a page whose file is made afresh."""

    def after_search(self, config: MkDocsConfig, page: Page) -> None:
        """Search has indexed a page (or skipped a stored one)."""

    def post_page(self, page: Page, output: str) -> None:
        """What the theme made of a page."""

    def before_search_written(self, config: MkDocsConfig) -> None:
        """Every page is written; search's index is not yet."""

    def stop_linking(self, *, quietly: bool = False) -> None:
        """Waits for the embed links made while the pages were built; raises what they raised unless quietly."""

    def link(self, site: Path, linked: dict[str, Path], cache: Cache) -> None:
        """The rest of the embed files into the site folder. Raises OSError."""

    def drop_empty(self, site: Path) -> None:
        """The site folder's folders no file of this build went into, removed."""

    def finished(self, chores: Sequence[Chore]) -> bool:
        """The build finished: whether the chores are left to run between saves (else they run now)."""

    def failed(self) -> None:
        """The build failed: nothing it did is taken as done."""


class Off:
    """The layer off: MkDocs builds every page itself, nothing is stored or taken from earlier builds
    but what the generator's own stores keep, and the embed files are linked once the pages are written."""

    def stop(self) -> None:
        pass

    def starting(self) -> None:
        pass

    def configured(self, config: MkDocsConfig) -> None:
        pass

    def put_aside(self, site: Path) -> None:
        pass

    def files(self, cache: Cache, config: MkDocsConfig, config_bytes: bytes, made: Generated, images: Images | None,
              ours: object) -> dict[str, Path]:
        return made.linked

    def page_file(self, path: str, markdown: str, source: str | None, config: MkDocsConfig) -> GeneratedFile:
        return page_file(config, path, markdown, source)

    def only_what_changed(self, files: Files, generated: list[GeneratedFile], made: Generated) -> None:
        pass

    def env(self, env: jinja2.Environment, cache: Cache, config: MkDocsConfig, nav) -> None:
        pass

    def converted_before(self, page: Page, *, keep_source: bool) -> bool:
        return False

    def converted_html(self, page: Page, html: str) -> None:
        pass

    def stored_file(self, context, page: Page) -> bool:
        return False

    def before_search(self, config: MkDocsConfig, page: Page) -> None:
        pass

    def after_search(self, config: MkDocsConfig, page: Page) -> None:
        pass

    def post_page(self, page: Page, output: str) -> None:
        pass

    def before_search_written(self, config: MkDocsConfig) -> None:
        pass

    def stop_linking(self, *, quietly: bool = False) -> None:
        pass

    def link(self, site: Path, linked: dict[str, Path], cache: Cache) -> None:
        embeds.link_into(site, linked)

    def drop_empty(self, site: Path) -> None:
        pass

    def finished(self, chores: Sequence[Chore]) -> bool:
        return False

    def failed(self) -> None:
        pass


def switched(current: Layer | None, on: bool, *, serving: bool, dirty: bool) -> Layer:
    """The layer for a build whose `incremental` option is on: current if it is of that kind, else a
    new one, current stopped (under `mkdocs serve`, a save may change the option in mkdocs.yml)."""
    if current is not None and isinstance(current, Reuse) == on:
        return current
    if current is not None:
        current.stop()
    return Reuse(serving=serving, dirty=dirty) if on else Off()
