"""How numbers read on pages, in charts and in reports: one definition each."""

from __future__ import annotations

import math


def usd(x: float | None, digits: int = 0) -> str:
    """Signed dollars, e.g. -$1,232; "none" for a missing or infinite figure."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "none"
    sign = "-" if x < 0 else ""
    return f"{sign}${abs(x):,.{digits}f}"
