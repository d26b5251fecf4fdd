"""How numbers read on pages, in charts, in the calculator and in reports: one definition each.

docs/assets/calculator/format.mjs mirrors, character for character, every function the calculator
uses; tests/test_formats.py holds both to the same golden strings. Those only the build and the
commands use (`usd`, `threshold`, `pixels`, `as_written`) are here alone, golden-tested all the same. Symbols that belong to a kind ($, /h,
×, %) are part of its format; word units (runs, engineer-weeks) are left to the sentence.

Rounding is to the nearest decimal of the double's exact value, ties to even (Python's own
formatting), so "0.125 to two places" reads 0.12 in both languages.

One format for each kind of number (money, hourly prices, runs, calendar time, ratios, weeks, dates,
counts, pixel sizes, the report threshold, a contributor's figure echoed in a message): every number
a page, chart, report or message shows goes through it, none is formatted inline;
`calculator/format.mjs` mirrors the functions the calculator uses.
"""

from __future__ import annotations

import datetime as dt
import math

NONE = "none"
# Edge cases in words, the same wherever a figure would read oddly: a port repaid within the first run
# (not "0.081 runs") and cost lines that never meet (not "no value makes them equal").
FIRST_RUN = "in the first run"
NO_CROSSING = "no crossing"
# What each kind writes after its figure, and where a display changes unit or precision.
UNITS = {"per_hour": "/h", "times": "×", "percent": " %", "day": " day", "days": " days", "hours": " hours", "dollar": "$"}
DAYS_FROM_HOURS = 48.0  # a duration from two days up reads in days
RUNS_FINE_BELOW = 0.1  # a fraction of a run below this keeps two significant digits
RATE_FINE_BELOW = 0.001  # and so does a rate
# Calendar time: each unit's size in hours and the hours below which it is used; past the last, years.
CALENDAR = ((1.0, 48.0, "hour"), (24.0, 1460.0, "day"), (730.0, 17520.0, "month"))
YEAR_HOURS = 8760.0


def formats() -> dict:
    """The words, units and display limits above, for the calculator's format.mjs (in its data, with
    wording's tables): it holds the rounding and none of these."""
    return {"NONE": NONE, "FIRST_RUN": FIRST_RUN, "NO_CROSSING": NO_CROSSING, "UNITS": UNITS,
            "DAYS_FROM_HOURS": DAYS_FROM_HOURS, "RUNS_FINE_BELOW": RUNS_FINE_BELOW, "RATE_FINE_BELOW": RATE_FINE_BELOW,
            "CALENDAR": [list(c) for c in CALENDAR], "YEAR_HOURS": YEAR_HOURS}


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def fixed(x: float, digits: int) -> str:
    """`x` to `digits` places with thousands separators; no minus sign on a figure that rounds to zero."""
    text = f"{abs(x):,.{digits}f}"
    zero = all(c in "0.," for c in text)
    return text if x >= 0 or zero else "-" + text


def _trim(text: str, keep: int) -> str:
    """Drop trailing zeros after the point, keeping at least `keep` decimals."""
    if "." not in text:
        return text
    whole, frac = text.split(".")
    frac = frac.rstrip("0")
    frac = frac + "0" * (keep - len(frac))
    return whole + ("." + frac if frac else "")


def _signed_dollars(x: float, body: str) -> str:
    return ("-" if body.startswith("-") else "") + UNITS["dollar"] + body.lstrip("-")


def money(x: float | None) -> str:
    """Whole dollars: $1,234 and -$1,232."""
    if _missing(x):
        return NONE
    return _signed_dollars(x, fixed(x, 0))  # type: ignore[arg-type]


def hourly(x: float | None) -> str:
    """An hourly price to the cent, as a reader compares them: $55.04/h, $85.96/h. `hourly_exact`
    gives the rate as the source wrote it, for a tooltip."""
    if _missing(x):
        return NONE
    return _signed_dollars(x, fixed(x, 2)) + UNITS["per_hour"]  # type: ignore[arg-type]


def hourly_exact(x: float | None) -> str:
    """An hourly price to the sixth decimal a price list may give, cents at least: $85.964/h, $21.957642/h."""
    if _missing(x):
        return NONE
    return _signed_dollars(x, _trim(fixed(x, 6), 2)) + UNITS["per_hour"]  # type: ignore[arg-type]


def runs(x: float | None) -> str:
    """A number of runs: whole runs as they are (10, 1,000,000); a fraction to one decimal (29.4),
    and below 0.1 to two significant digits (0.048), so a quick break-even never reads 0.0."""
    if _missing(x):
        return NONE
    assert x is not None
    if float(x).is_integer():
        return fixed(x, 0)
    if abs(x) >= RUNS_FINE_BELOW:
        return fixed(x, 1)
    digits = 1 - math.floor(math.log10(abs(x)))
    return fixed(x, digits)


def break_even(x: float | None) -> str:
    """Runs until a port is paid back: a count (7.3), within the first run said so, none as no crossing."""
    if _missing(x):
        return NO_CROSSING
    assert x is not None
    return FIRST_RUN if x <= 1 else runs(x)


def ratio(x: float | None) -> str:
    """A ratio such as relative throughput: 0.80×."""
    if _missing(x):
        return NONE
    return fixed(x, 2) + UNITS["times"]  # type: ignore[arg-type]


def pct(x: float | None, signed: bool = False) -> str:
    """A fraction as a percentage to one decimal, a whole one without it: 12.5 %, 10 %, +99.9 %."""
    if _missing(x):
        return NONE
    assert x is not None
    body = _trim(fixed(x * 100, 1), 0)
    if signed and not body.startswith("-") and body.strip("0.,") != "":
        body = "+" + body
    return body + UNITS["percent"]


def weeks(x: float | None) -> str:
    """Engineer-weeks to one decimal, a whole number without it: 12, 2.5."""
    if _missing(x):
        return NONE
    return _trim(fixed(x, 1), 0)  # type: ignore[arg-type]


def rate(x: float | None) -> str:
    """A small rate such as interruptions per instance-hour, to four decimals without trailing zeros
    (0.002), and below 0.001 to two significant digits (0.000035), so a rare interruption never reads 0."""
    if _missing(x):
        return NONE
    assert x is not None
    if x == 0 or abs(x) >= RATE_FINE_BELOW:
        return _trim(fixed(x, 4), 0)
    return _trim(fixed(x, 1 - math.floor(math.log10(abs(x)))), 0)


def days(x: float | None) -> str:
    """Calendar days to one decimal, a whole number without it: 14 days, 17.5 days, 1 day."""
    if _missing(x):
        return NONE
    body = _trim(fixed(x, 1), 0)  # type: ignore[arg-type]
    return body + UNITS["day" if body == "1" else "days"]


def count(x: float | None) -> str:
    """A whole number: 1,000."""
    if _missing(x):
        return NONE
    return fixed(x, 0)  # type: ignore[arg-type]


def num(x: float | None, digits: int = 2) -> str:
    """A measured quantity with no kind of its own (TFLOPS, GiB, Gbps), to `digits` places."""
    if _missing(x):
        return NONE
    return fixed(x, digits)  # type: ignore[arg-type]


def hours(h: float | None) -> str:
    """A duration: 12.5 hours, or days from two days up: 3.2 days."""
    if _missing(h):
        return NONE
    assert h is not None
    return fixed(h / 24, 1) + UNITS["days"] if h >= DAYS_FROM_HOURS else fixed(h, 1) + UNITS["hours"]


def calendar(h: float | None) -> str:
    """Calendar time a number of runs takes, to one decimal without a trailing zero: hours below two
    days (36 hours), days below two months (17.5 days), months below two years (5.1 months), then years
    (15.8 years, 801 years). A month is 730 hours, a year 8,760."""
    if _missing(h):
        return NONE
    assert h is not None
    for size, below, unit in CALENDAR:
        if h < below:
            body = _trim(fixed(h / size, 1), 0)
            return body + " " + unit + ("" if body == "1" else "s")
    body = _trim(fixed(h / YEAR_HOURS, 1), 0)
    return body + (" year" if body == "1" else " years")


def date(d: dt.date | str | None) -> str:
    """A date as the sources give it: 2025-11-30."""
    if d is None:
        return NONE
    return d if isinstance(d, str) else d.isoformat()


def usd(x: float | None, digits: int = 0) -> str:
    """Dollars to `digits` places, for a figure of no kind of its own (dollars per PFLOP-hour);
    whole dollars are `money`, hourly prices `hourly`."""
    if _missing(x):
        return NONE
    return _signed_dollars(x, fixed(x, digits))  # type: ignore[arg-type]


def threshold(x: float) -> str:
    """How far a figure must move to be reported, given in percent, to one decimal: 5.0 %."""
    return fixed(x, 1) + UNITS["percent"]


def pixels(x: float) -> str:
    """A size in pixels as image and CSS sizes are written, whole and without a thousands separator:
    640, 1280. The unit is the sentence's, which may give two sizes one ("640 × 460 px")."""
    return f"{x:.0f}"


def as_written(x: float) -> str:
    """A contributor's figure echoed back in a message about it, in its shortest form and without a
    unit, as a data file gives it: 55.59, 30, 0.002 (six significant digits at most)."""
    return f"{x:g}"
