"""Math for the guide's formulas, turned into MathML at build time.

Browsers render MathML natively, so formulas need no script and no font from another host.
Used by pymdownx.superfences (```math blocks) and pymdownx.inlinehilite (`#!math x` inline).
"""

from __future__ import annotations

from latex2mathml.converter import convert


def fence(source: str, language: str, css_class: str, options: dict, md, **kwargs) -> str:
    # A formula may be wider than a phone and scroll: it can take keyboard focus from the start, so
    # it can be scrolled by keyboard before any script runs; guide.js names the ones that scroll and
    # takes the focus back from those that fit.
    return f'<div class="guide-math" tabindex="0">{convert(source.strip(), display="block")}</div>'


def inline(source: str, language: str, css_class: str, md) -> str:
    return convert(source.strip())
