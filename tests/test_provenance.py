"""`guide validate` refuses figures whose provenance cannot be right: an `as_of` later than today,
and a price whose value changed against the last commit while its `source` and `as_of` did not."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from contrib_support import guide, problems
from core_support import copy_inputs

pytestmark = pytest.mark.slow  # runs the guide command in git repositories

DAY = {"GUIDE_TODAY": "2026-11-23"}
GIT_ID = ["-c", "user.name=T", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
P5 = "{instance: p5.48xlarge, region: us-east-1, option: on-demand, usd_per_hour: 55.04, source: VAN-2026-01, as_of: 2026-01-21,"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _line_col(path: Path, needle: str) -> tuple[int, int]:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return i, line.index(needle) + 1
    raise AssertionError(needle)


def _git_repo(root: Path) -> None:
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "data"]):
        subprocess.run(["git", *GIT_ID, *args], cwd=root, check=True, capture_output=True)


def test_an_as_of_later_than_today_is_refused_where_it_is(tmp_path: Path):
    root = copy_inputs(tmp_path, scenarios=False)
    prices, sources = root / "data" / "prices.yaml", root / "data" / "sources.yaml"
    _edit(prices, P5, P5.replace("as_of: 2026-01-21", "as_of: 2026-11-24"))
    _edit(sources, "    as_of: 2026-07-22\n", "    as_of: 2027-01-01\n")
    r = guide("validate", cwd=root, env=DAY)
    assert (r.returncode, r.stdout) == (1, "")
    found = problems(r.stderr)
    assert [(p["path"], p["field"], p["message"]) for p in found] == [
        ("data/prices.yaml", f"prices.{_index(prices)}.as_of",
         "as_of is later than today (2026-11-23); give the date the source shows (got 2026-11-24)"),
        ("data/sources.yaml", "sources.CB-2026-07.as_of",
         "as_of is later than today (2026-11-23); give the date the source shows (got 2027-01-01)"),
    ]
    assert (found[0]["line"], found[0]["col"]) == _line_col(prices, "2026-11-24")
    assert (found[1]["line"], found[1]["col"]) == _line_col(sources, "2027-01-01")
    # The same files on the day after pass.
    assert guide("validate", cwd=root, env={"GUIDE_TODAY": "2027-01-01"}).returncode == 0


def _index(prices: Path) -> int:
    from generator.inputs.loader import load_catalog

    keys = [(p.instance, p.region, p.option) for p in load_catalog(prices.parent).prices]
    return keys.index(("p5.48xlarge", "us-east-1", "on-demand"))


def test_a_price_changed_under_its_old_source_and_date_is_refused_against_the_commit(tmp_path: Path):
    root = copy_inputs(tmp_path, scenarios=False)
    prices = root / "data" / "prices.yaml"
    assert guide("validate", cwd=root, env=DAY).returncode == 0  # outside git: nothing to compare with
    _edit(prices, P5, P5.replace("55.04", "55.59"))
    assert guide("validate", cwd=root, env=DAY).returncode == 0
    _git_repo(root)
    assert guide("validate", cwd=root, env=DAY).returncode == 0  # committed as it is: nothing changed
    _edit(prices, "usd_per_hour: 55.59,", "usd_per_hour: 56.15,")
    r = guide("validate", cwd=root, env=DAY)
    assert (r.returncode, r.stdout) == (1, "")
    (found,) = problems(r.stderr)
    assert (found["path"], found["field"]) == ("data/prices.yaml", f"prices.{_index(prices)}.usd_per_hour")
    assert (found["line"], found["col"]) == _line_col(prices, "56.15")
    assert found["message"] == ("p5.48xlarge us-east-1 on-demand changed from 55.59 (committed) but still cites VAN-2026-01 "
                                "as of 2026-01-21; cite the source of the new figure and the date it shows (got 56.15)")
    # A new date (the day the source shows the new figure) is what makes the change acceptable.
    _edit(prices, "usd_per_hour: 56.15, source: VAN-2026-01, as_of: 2026-01-21,", "usd_per_hour: 56.15, source: VAN-2026-01, as_of: 2026-11-23,")
    r = guide("validate", cwd=root, env=DAY)
    assert (r.returncode, r.stderr) == (0, "")
