"""A build step that fails on the disk (a full disk, a site folder another program holds) stops the
build with a sentence naming the step and the file, instead of a traceback."""

from __future__ import annotations

from mkdocs.exceptions import Abort


def failed(doing: str, error: OSError) -> Abort:
    where = f" ({error.filename})" if error.filename else ""
    return Abort(f"{doing} failed{where}: {error.strerror or error}")


def site_folder_failed(error: OSError) -> Abort:
    return failed("Keeping the site folder's folders between builds", error)


def link_failed(error: OSError) -> Abort:
    return failed("Putting the embed files into the site folder", error)
