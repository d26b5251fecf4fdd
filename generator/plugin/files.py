"""The files the plugin hands MkDocs: generated files that know whether they changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

if TYPE_CHECKING:
    from generator.rendering.build import Generated


class PageFiles(Protocol):
    """What makes each generated page's file as it is handed over (the incremental build)."""

    def page_file(self, path: str, markdown: str, source: str | None, config: MkDocsConfig, record: Any) -> GeneratedFile: ...


class GeneratedFile(File):
    """A file the generator made. Under `mkdocs serve --dirty` MkDocs builds again only what
    `is_modified` says; MkDocs' own answer for generated content is always yes. Here it is yes when
    the content differs from what this process's last finished build wrote into the site folder,
    which the dev server alone writes: the file is taken to be there, as `Cache.settle` takes the
    links beside it, without a look at the disk (twice a page, some 6,000 stats a save at three
    thousand scenarios). A file removed from that folder by hand comes back with its next change."""

    changed = True

    def is_modified(self) -> bool:
        return self.changed


def hand_over(files: Files, config: MkDocsConfig, made: Generated, incremental: PageFiles | None,
              record: Callable[[str], Any]) -> list[GeneratedFile]:
    """The generated pages and assets added to MkDocs' files (a page's record made as it is), in the
    order MkDocs is handed them; published Markdown is left for after the build (`publishing`)."""
    generated: list[GeneratedFile] = []
    for path, markdown in sorted(made.site.pages.items()):
        source = made.site.sources.get(path)
        if incremental is not None:
            f = incremental.page_file(path, markdown, source, config, record(path))
        else:
            f = page_file(config, path, markdown, source)
        generated.append(f)
        files.append(f)
    for path, content in {**made.assets, **made.texts}.items():
        if not (path.endswith(".md") and path in made.texts):  # written after the build (publishing)
            f = GeneratedFile.generated(config, path, content=content)
            generated.append(f)
            files.append(f)
    return generated


def page_file(config: MkDocsConfig, path: str, markdown: str, source: str | None) -> GeneratedFile:
    """A generated page's file; source: the file in the project it is made from."""
    f = GeneratedFile.generated(config, path, content=markdown)
    if source:
        # Edit links on generated pages open the YAML the page is made from.
        f.edit_uri = f"../{source}"
    return f
