"""The files the plugin hands MkDocs: generated files that know whether they changed."""

from __future__ import annotations

from mkdocs.structure.files import File


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
