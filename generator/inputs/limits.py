"""Limits on contributed text that a real team never meets, and characters that must not reach a page.

A scenario of thousands of workloads, or a megabyte of notes, validates but builds for minutes into
a page nobody reads; a bidirectional override (U+202E) reorders what the reader sees after it; a
control character or a lone surrogate (both reachable through YAML's "\\u" escapes) breaks the
page's encodings. Each is refused where it is, before validation.
"""

from __future__ import annotations

import unicodedata

from generator.inputs.problems import Problem
from generator.inputs.yamlread import Document, strings

MAX_WORKLOADS = 50
MAX_SOURCES = 50
MAX_SUMMARY = 1000  # characters; it is also the page's meta description
MAX_TEXT = 4000  # characters, any other text (the schema itself limits the title and workload names)
# Embeddings, overrides and isolates: they reorder the text that follows them. The marks
# (U+200E, U+200F, U+061C) only set a direction and stay allowed, for right-to-left text.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _bad_character(text: str) -> str | None:
    for ch in text:
        if ch in BIDI_CONTROLS:
            return f"bidirectional control characters reorder the text a reader sees and are not allowed (got U+{ord(ch):04X})"
        if ch not in "\n\t" and unicodedata.category(ch) in ("Cc", "Cs"):
            kind = "a lone surrogate" if unicodedata.category(ch) == "Cs" else "a control character"
            return f"{kind} cannot be shown on a page and is not allowed (got U+{ord(ch):04X})"
    return None


def character_problems(doc: Document) -> list[Problem]:
    """Text anywhere in the file holding characters no page may show."""
    return [doc.problem(loc, msg) for loc, text in strings(doc.data) if (msg := _bad_character(text))]


def limit_problems(doc: Document) -> list[Problem]:
    """A scenario's text and lists past what a real team writes, and characters no page may show."""
    problems = character_problems(doc)
    data = doc.data
    for field, most in (("workloads", MAX_WORKLOADS), ("sources", MAX_SOURCES)):
        items = data.get(field) if isinstance(data, dict) else None
        if isinstance(items, list) and len(items) > most:
            problems.append(doc.problem((field,), f"at most {most} {field} in one scenario; split it into several scenarios (got {len(items)})", key=True))
    for loc, text in strings(data):
        if loc == ("title",) or (len(loc) == 3 and loc[0] == "workloads" and loc[2] == "name"):
            continue
        most = MAX_SUMMARY if loc == ("summary",) else MAX_TEXT
        if len(text) > most:
            problems.append(doc.problem(loc, f"at most {most} characters (got {len(text)})"))
    return problems
