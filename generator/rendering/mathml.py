"""Math for the guide's formulas, turned into MathML at build time.

Browsers render MathML natively, so formulas need no script and no font from another host.
Used by pymdownx.superfences (```math blocks) and pymdownx.inlinehilite (`#!math x` inline).
"""

from __future__ import annotations

from latex2mathml.converter import convert


def fence(source: str, language: str, css_class: str, options: dict, md, **kwargs) -> str:
    return f'<div class="guide-math">{convert(source.strip(), display="block")}</div>'


def inline(source: str, language: str, css_class: str, md) -> str:
    return convert(source.strip())
