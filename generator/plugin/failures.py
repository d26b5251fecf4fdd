"""A build that fails on its inputs (scenario or data files that do not validate) or on the disk (a full disk, a
site folder another program holds) stops with MkDocs' `Abort`, worded as sentences instead of a traceback: each
invalid scenario or data file's problem on a line of its own, or one sentence naming the build step that failed
on the disk and the file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mkdocs.exceptions import Abort


@contextmanager
def inputs_checked() -> Iterator[None]:
    """Invalid scenario or data files stop the build with each problem on a line of its own."""
    from generator.inputs.loader import InputError

    try:
        yield
    except InputError as e:
        lines = "\n".join(str(p) for p in e.problems)
        raise Abort(f"Invalid scenario or data files:\n{lines}\n{len(e.problems)} problem(s) found.") from None


def failed(doing: str, error: OSError) -> Abort:
    where = f" ({error.filename})" if error.filename else ""
    return Abort(f"{doing} failed{where}: {error.strerror or error}")


def site_folder_failed(error: OSError) -> Abort:
    return failed("Keeping the site folder's folders between builds", error)


def link_failed(error: OSError) -> Abort:
    return failed("Putting the embed files into the site folder", error)
