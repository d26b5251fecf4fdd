"""Contributed text made safe where a page puts it: inert in Markdown and HTML (`md`), JSON in a script
tag or in front matter, each mention of a source linked to its entry, free text closed as a sentence."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from markupsafe import Markup

from generator.rendering.embeds import folders as embeds


def md(text: Any) -> Markup:
    """Make untrusted text inert in Markdown and HTML alike.

    Every ASCII character that is not a letter, digit or space becomes a numeric character
    reference, so no Markdown, math, attribute-list or HTML syntax can form from it.
    """
    s = "" if text is None else str(text)
    return Markup("".join(c if c.isalnum() or c == " " or ord(c) > 127 else f"&#{ord(c)};" for c in s.replace("\n", " ")))


def script_json(value: Any) -> Markup:
    """JSON that is safe inside <script type="application/json">: no '<', '>' or '&' survives."""
    text = value if isinstance(value, embeds.JSONText) else embeds.compact_json(value)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def source_pattern(keys: Iterable[str]) -> re.Pattern[str] | None:
    """Mentions of source keys in free text, as a contributor writes them: SEED-002, seed 002. Only
    keys with a number match in any case: a bare word such as VAN must match as written."""
    parts = []
    for k in sorted(keys, key=len, reverse=True):
        part = r"[-\s]?".join(re.escape(p) for p in re.split(r"[-\s]+", k))
        parts.append(f"(?i:{part})" if any(c.isdigit() for c in k) else part)
    return re.compile(r"(?<![\w-])(" + "|".join(parts) + r")(?![\w-])") if parts else None


_SURROGATE_PAIR = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


def front_matter(value: dict[str, str]) -> Markup:
    """A page's front matter as one line of JSON that MkDocs' YAML reader takes back whole. JSON
    writes a character beyond U+FFFF (an emoji) as two surrogate escapes, which YAML reads as two
    lone surrogates and refuses, and the page then shows the raw line as its heading; YAML's own
    eight-digit escape says the same character in ASCII."""

    def one(m: re.Match[str]) -> str:
        high, low = int(m[1], 16), int(m[2], 16)
        return f"\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08X}"

    return Markup(_SURROGATE_PAIR.sub(one, script_json(value)))


def linked_sources(text: str, pattern: re.Pattern[str] | None, keys: dict[str, str], root: str,
                   names: dict[str, str] | None = None) -> Markup:
    """Untrusted text made inert (md), with each mention of a source linked to its entry on the
    sources page; with `names` (by key), the link reads as the source's name and date instead of
    the key a contributor wrote ("seed 001"), which a stranger cannot decode."""
    out, last = [], 0
    for m in pattern.finditer(text) if pattern else ():
        key = keys[re.sub(r"[-\s]+", "", m[0]).lower()]
        shown = md(names[key]) if names and key in names else md(m[0])
        out += [md(text[last:m.start()]), Markup('<a href="{}sources/#{}">').format(root, key.lower()), shown, Markup("</a>")]
        last = m.end()
    out.append(md(text[last:]))
    return Markup("").join(out)


def sentence(text: str) -> str:
    """Free text closed as a sentence, so the next one does not run into it."""
    text = text.strip()
    return text if not text or text[-1] in ".!?:;" else text + "."
