"""One format for each kind of number, the same in Python (generator/model/formatting.py) and in the
calculator (docs/assets/calculator/format.mjs, run here through Node): golden strings for both."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import pytest

from generator.model import formatting

FORMAT = Path(__file__).resolve().parent.parent / "docs" / "assets" / "calculator" / "format.mjs"

# (function, arguments, expected string)
GOLDEN = [
    ("money", [1234.5], "$1,234"),  # a tie rounds to even
    ("money", [1235.5], "$1,236"),
    ("money", [-1232.4], "-$1,232"),
    ("money", [-0.4], "$0"),  # no minus sign on a figure that shows as zero
    ("money", [0], "$0"),
    ("money", [1e9], "$1,000,000,000"),
    ("money", [None], "none"),
    ("hourly", [55.04], "$55.04/h"),
    ("hourly", [35.76], "$35.76/h"),
    ("hourly", [38.5], "$38.50/h"),
    ("hourly", [85.964], "$85.96/h"),  # to the cent; the exact rate goes in a tooltip
    ("hourly", [27.7191], "$27.72/h"),
    ("hourly", [1.34375], "$1.34/h"),  # an exact tie, to even
    ("hourly", [3], "$3.00/h"),
    ("hourly", [None], "none"),
    ("hourly_exact", [85.964], "$85.964/h"),
    ("hourly_exact", [21.957642], "$21.957642/h"),
    ("hourly_exact", [1.34375], "$1.34375/h"),
    ("hourly_exact", [55.04], "$55.04/h"),
    ("hourly_exact", [3], "$3.00/h"),
    ("hourly_exact", [None], "none"),
    # Edge cases in words: a port paid back within the first run, and lines that never cross.
    ("break_even", [0.0808], "in the first run"),
    ("break_even", [1], "in the first run"),
    ("break_even", [1.13], "1.1"),
    ("break_even", [7.35], "7.3"),
    ("break_even", [None], "no crossing"),
    ("runs", [10], "10"),
    ("runs", [1000000], "1,000,000"),
    ("runs", [29.44], "29.4"),
    ("runs", [4.15], "4.2"),  # 4.15 is stored as 4.15000000000000035527
    ("runs", [0.25], "0.2"),  # an exact tie, to even
    ("runs", [0.75], "0.8"),
    ("runs", [0.0485], "0.049"),  # a quick break-even keeps two significant digits, never 0.0
    ("runs", [0.0125], "0.013"),  # stored just above the tie
    ("runs", [0.05], "0.050"),
    ("runs", [0.1], "0.1"),
    ("runs", [0.0999], "0.100"),
    ("runs", [None], "none"),
    ("ratio", [0.8], "0.80×"),
    ("ratio", [1.0349], "1.03×"),
    ("ratio", [0.125], "0.12×"),
    ("pct", [0.1], "10 %"),
    ("pct", [0.1325], "13.2 %"),
    ("pct", [-0.05], "-5 %"),
    ("pct", [0.999], "99.9 %"),
    ("pct", [0.0004], "0 %"),
    ("pct", [0.999, True], "+99.9 %"),
    ("pct", [-0.5, True], "-50 %"),
    ("pct", [0, True], "0 %"),
    ("weeks", [12], "12"),
    ("weeks", [2.5], "2.5"),
    ("weeks", [24.134], "24.1"),
    ("rate", [0.002], "0.002"),
    ("rate", [0.0005], "0.0005"),
    # Break-evens as calendar time at a plan's pace: 26,702 runs of 262.8 hours is 801 years; 190 runs a
    # month apart, 15.8 years.
    ("calendar", [26702 * 262.8], "801.1 years"),
    ("calendar", [801 * 8760], "801 years"),
    ("calendar", [190 * 730], "15.8 years"),
    ("calendar", [36], "36 hours"),
    ("calendar", [24], "24 hours"),
    ("calendar", [420], "17.5 days"),
    ("calendar", [3723], "5.1 months"),
    ("calendar", [730], "30.4 days"),  # days below two months, months below two years
    ("calendar", [8760], "12 months"),
    ("calendar", [17520], "2 years"),
    ("calendar", [1], "1 hour"),
    ("calendar", [None], "none"),
    ("rate", [0.00004], "0.00004"),  # two significant digits below 0.001: a rare interruption never reads 0
    ("rate", [0.000034679], "0.000035"),
    ("rate", [0.00014433], "0.00014"),
    ("rate", [0], "0"),
    ("days", [14], "14 days"),
    ("days", [17.5], "17.5 days"),
    ("days", [1], "1 day"),
    ("days", [0.96], "1 day"),
    ("count", [64], "64"),
    ("count", [100000], "100,000"),
    ("num", [989.4, 0], "989"),
    ("num", [3.2, 2], "3.20"),
    ("hours", [12.5], "12.5 hours"),
    ("hours", [47.99], "48.0 hours"),
    ("hours", [48], "2.0 days"),
    ("hours", [1000], "41.7 days"),
    ("date", ["2025-11-30"], "2025-11-30"),
]

# The build's and the commands' own formats, which the calculator never shows: Python alone.
PYTHON_ONLY = [
    ("usd", [12.3456, 2], "$12.35"),
    ("usd", [1234.5], "$1,234"),
    ("threshold", [5.0], "5.0 %"),
    ("threshold", [2.25], "2.2 %"),  # an exact tie, to even
    ("pixels", [1280], "1280"),  # no thousands separator, as image and CSS sizes are written
    ("pixels", [640.0], "640"),
    ("as_written", [55.59], "55.59"),
    ("as_written", [30.0], "30"),
    ("as_written", [0.002], "0.002"),
]

RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const f = await import(pathToFileURL(process.argv[1]).href);
const { cases, formats } = JSON.parse(readFileSync(0, "utf8"));
f.learn(formats);
// Python's snake_case names are camelCase here (hourly_exact: hourlyExact).
const fn = (name) => f[name.replace(/_([a-z])/g, (_, c) => c.toUpperCase())];
process.stdout.write(JSON.stringify(cases.map(([name, args]) => fn(name)(...args))));
"""


def _node(cases: list) -> list[str]:
    out = subprocess.run(["node", "--input-type=module", "-e", RUNNER, str(FORMAT)],
                         input=json.dumps({"cases": cases, "formats": formatting.formats()}),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize(("name", "args", "expected"), GOLDEN + PYTHON_ONLY, ids=[f"{n}{a}" for n, a, _ in GOLDEN + PYTHON_ONLY])
def test_python_formats(name, args, expected):
    assert getattr(formatting, name)(*args) == expected


def test_javascript_formats_give_the_same_golden_strings():
    got = _node([[name, args] for name, args, _ in GOLDEN])
    assert len(got) == len(GOLDEN)
    wrong = [(name, args, js, expected) for (name, args, expected), js in zip(GOLDEN, got, strict=True) if js != expected]
    assert not wrong, wrong


def test_a_date_object_reads_as_its_iso_form():
    assert formatting.date(dt.date(2025, 11, 30)) == "2025-11-30"


def test_rounding_agrees_on_many_values_including_exact_ties():
    # Exact binary ties (k/8, k/16) are where JavaScript's toFixed and Python part ways.
    values = [k / 16 for k in range(-40, 200)] + [k * 0.001 + 0.0005 for k in range(0, 400)] + [2.675, 1.005, 0.045, 1e-7, 123456.785]
    cases = [[name, [v]] for v in values for name in ("money", "hourly", "hourly_exact", "break_even", "runs", "ratio", "pct", "weeks", "days", "rate")]
    got = _node(cases)
    expected = [getattr(formatting, name)(*args) for name, args in cases]
    wrong = [(c, js, py) for c, js, py in zip(cases, got, expected, strict=True) if js != py]
    assert not wrong, wrong[:20]
