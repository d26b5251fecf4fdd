"""The "did you mean" hint every located problem about a misspelt name carries: one wording, one
measure of closeness, wherever a field, key, instance, region, source or class is unknown."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# How alike a name must be to be offered (difflib's ratio): close enough for a typo or a dropped
# letter, not so loose that an unrelated name is proposed.
CUTOFF = 0.5


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """"; did you mean 'x'?" with the known name closest to `word`, to go after a problem's first
    clause; empty where no known name is close."""
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=CUTOFF)
    return f"; did you mean '{match[0]}'?" if match else ""
