"""What a problem in an input file is, and how it is written: `path:line:col: field.path: what is
wrong (got X)`. Every reader collects problems of this one shape, so a contributor fixes them all
in one pass.

What a problem in an input file is and how it reads: `path:line:col: field: message (got X)`."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

Loc = tuple[str | int, ...]


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    col: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.field}: {self.message}"


class InputError(Exception):
    def __init__(self, problems: Iterable[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))



def excerpt(text: str, most: int = 60) -> str:
    """Text a message echoes, cut to its first `most` characters: a 100 KB value comes back as a few words."""
    return text if len(text) <= most else text[: most - 3] + "..."


def dotted(loc: Loc) -> str:
    return ".".join(excerpt(str(p)) for p in loc) if loc else "(document)"


def describe(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping" if value else "an empty mapping"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if isinstance(value, str):
        return repr(excerpt(value))
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return repr(value)

