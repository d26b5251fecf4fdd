"""The files the plugin hands MkDocs (`GeneratedFile`): generated files that know whether they changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

if TYPE_CHECKING:
    from generator.rendering.generate import Generated


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


def hand_over(files: Files, config: MkDocsConfig, made: Generated,
              page_files: Callable[[str, str, str | None, MkDocsConfig], GeneratedFile]) -> list[GeneratedFile]:
    """The generated pages and assets added to MkDocs' files, in the order MkDocs is handed them, each
    page's file made by page_files (the incremental layer's, `page_file` where it is off); published
    Markdown is left for after the build (`publishing`)."""
    generated: list[GeneratedFile] = []
    for path, markdown in sorted(made.site.pages.items()):
        f = page_files(path, markdown, made.site.sources.get(path), config)
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
