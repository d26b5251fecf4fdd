"""The scenario prose a price refresh asks a person to reread before its pull request is merged.

When a refresh moves a scenario's verdict, the notes that argued for the old one are still in the
file; when it moves a figure a note quotes as a number, the note is out of date. The refresh cannot
rewrite an argument, so it lists each such text under `reread` in data/refresh.yaml with a digest
of it as it stood. `guide reread` (a check on every pull request) fails while any listed text is as
it was: a person edits it, or deletes its entry to say it still holds. A price quoted through a
placeholder (`{price:...}`) follows data/ by itself and is never listed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from generator.inputs.problems import InputError, Problem
from generator.inputs.yamlread import read, strings
from generator.model.catalog import Reread

# The prose fields of a scenario file (and of each workload's rationale) a person writes.
PROSE = ("title", "summary", "notes", "rationale")


def prose(data: Any) -> Iterable[tuple[str, str]]:
    """(field path, text) of every prose string in a scenario's data, in the file's order."""
    for loc, text in strings(data):
        if any(k in PROSE for k in loc):
            yield ".".join(map(str, loc)), text


def digest(data: Any, field: str | None = None) -> str:
    """The digest of a scenario's prose (field None) or of one prose field, as a reread entry keeps it."""
    h = hashlib.sha256()
    for where, text in prose(data):
        if field is None or where == field:
            h.update(f"{where}\0{text}\0".encode())
    return h.hexdigest()[:16]


def waiting(root: Path, entries: list[Reread]) -> list[int]:
    """The indexes of the entries whose text is as it was when the refresh asked for it to be reread.
    An entry whose scenario is gone waits for nothing."""
    out = []
    for i, e in enumerate(entries):
        path = root / e.scenario
        if path.is_file() and digest(read(path, e.scenario).data, e.field) == e.prose:
            out.append(i)
    return out


def problems(root: Path, entries: list[Reread], shown_dir: str = "data") -> list[Problem]:
    """One located problem (at its entry in data/refresh.yaml) per text still waiting to be reread."""
    left = waiting(root, entries)
    if not left:
        return []
    doc = read(root / "data" / "refresh.yaml", f"{shown_dir}/refresh.yaml")
    out = []
    for i in left:
        e = entries[i]
        what = f"{e.scenario} {e.field}" if e.field else f"{e.scenario}'s prose"
        out.append(doc.problem(("reread", i), (
            f"{what}: {e.why} in the price refresh of {e.since}, and the text is as it was then: reread it, then edit it "
            f"or delete this entry to say it still holds (got prose {e.prose})")))
    return out


def check(root: Path, entries: list[Reread]) -> None:
    """Raises InputError with every text still waiting to be reread."""
    found = problems(root, entries)
    if found:
        raise InputError(found)
