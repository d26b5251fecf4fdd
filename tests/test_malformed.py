"""Malformed input files, one case per file, each with the exact lines `guide validate` must print.

tests/malformed/scenarios/NAME.yaml   a scenario file; NAME.expected holds its stderr, line for line.
tests/malformed/scenarios/NAME/       several scenario files validated in one run; NAME.expected.
tests/malformed/data/FILE.CASE.yaml   replaces data/FILE.yaml in a copy of data/; FILE.CASE.expected.

Each case runs the CLI's entry point, `guide --root TMP validate PATH...` as `python -m generator`
calls it, in this process (a new interpreter for each of some forty cases was most of this file's
time) on a scratch copy of data/, so the repository is never touched. It must exit 1, print exactly
the expected lines on stderr (nothing on stdout) and raise nothing. tests/test_cli.py runs the
command in its own process.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from core_support import DATA, copy_inputs, run_guide

from generator.commands import cli
from generator.model.suggest import did_you_mean

CASES = Path(__file__).parent / "malformed"
SCENARIO_CASES = sorted(p for p in (CASES / "scenarios").iterdir() if p.suffix != ".expected")
DATA_CASES = sorted(p for p in (CASES / "data").iterdir() if p.suffix != ".expected")
PROBLEM = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<field>\S+): (?P<msg>.+ \(got .+\))$")


def expected_file(case: Path) -> Path:
    return case.parent / ((case.name if case.is_dir() else case.stem) + ".expected")


def case_id(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


def run_case(case: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    if case.parent.name == "data":
        root = copy_inputs(tmp, scenarios=False)
        target = case.name.split(".", 1)[0] + ".yaml"
        shutil.copyfile(case, root / "data" / target)
        args = [f"data/{target}"]
    else:
        root = copy_inputs(tmp, scenarios=False)
        files = sorted(case.glob("*")) if case.is_dir() else [case]
        for f in files:
            shutil.copyfile(f, root / "scenarios" / f.name)
        args = [f"scenarios/{f.name}" for f in files]
    return _validate(root, args)


def _validate(root: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """`guide --root ROOT validate ARGS...` from ROOT, as a user types it, with what it prints."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(root)  # the paths are given as a user in the project gives them
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["--root", str(root), "validate", *args])
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every case's CLI run."""
    cases = SCENARIO_CASES + DATA_CASES
    return {case_id(c): run_case(c, tmp_path_factory.mktemp("case")) for c in cases}


def test_there_are_enough_cases_and_every_case_has_its_expected_lines():
    assert len(SCENARIO_CASES) + len(DATA_CASES) >= 35
    for case in SCENARIO_CASES + DATA_CASES:
        assert expected_file(case).is_file(), f"{case_id(case)} has no {expected_file(case).name}"
    for golden in list((CASES / "scenarios").glob("*.expected")) + list((CASES / "data").glob("*.expected")):
        stem = golden.name[: -len(".expected")]
        assert any(expected_file(c) == golden for c in SCENARIO_CASES + DATA_CASES), f"{golden.name} has no case ({stem})"


@pytest.mark.slow
@pytest.mark.parametrize("case", SCENARIO_CASES + DATA_CASES, ids=case_id)
def test_malformed_file_gets_its_exact_messages(case: Path, results):
    run = results[case_id(case)]
    expected = expected_file(case).read_text(encoding="utf-8").splitlines()
    assert "Traceback" not in run.stderr + run.stdout
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout == ""
    assert run.stderr.splitlines() == expected
    # The form every problem line keeps: path:line:col: field.path: what is wrong (got X).
    *problems, summary = expected
    assert summary == f"{len(problems)} problem(s) found."
    for line in problems:
        assert PROBLEM.match(line), line


def test_file_over_one_mebibyte_is_refused_before_parsing(tmp_path: Path):
    root = copy_inputs(tmp_path, scenarios=False)
    good = (CASES.parent.parent / "scenarios" / "one-off-run.yaml").read_text(encoding="utf-8")
    padding = "# " + "x" * 78 + "\n"
    text = good + padding * (1024 * 1024 // len(padding) + 1)
    big = root / "scenarios" / "huge.yaml"
    big.write_text(text, encoding="utf-8")
    size = big.stat().st_size
    assert size > 1024 * 1024
    run = run_guide("validate", "scenarios/huge.yaml", cwd=root, root=root)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        f"scenarios/huge.yaml:1:1: (file): file is larger than 1 MiB (got {size} bytes)",
        "1 problem(s) found.",
    ]


def test_a_price_broken_inside_the_real_data_is_located(tmp_path: Path):
    # The full prices.yaml, with the source of the p5.48xlarge on-demand price removed.
    root = copy_inputs(tmp_path, scenarios=False)
    prices = root / "data" / "prices.yaml"
    lines = prices.read_text(encoding="utf-8").splitlines(keepends=True)
    (i,) = [n for n, ln in enumerate(lines) if "instance: p5.48xlarge, region: us-east-1, option: on-demand" in ln]
    assert lines[i].count(", source: VAN-2026-01,") == 1  # the entry's own source, not an alternative's
    lines[i] = lines[i].replace(", source: VAN-2026-01,", ",")
    prices.write_text("".join(lines), encoding="utf-8")
    entries = YAML(typ="safe", pure=True).load((DATA / "prices.yaml").read_text(encoding="utf-8"))["prices"]
    (entry,) = [n for n, p in enumerate(entries) if (p["instance"], p["region"], p["option"]) == ("p5.48xlarge", "us-east-1", "on-demand")]
    col = lines[i].index("{") + 1
    run = run_guide("validate", cwd=root, root=root)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        f"data/prices.yaml:{i + 1}:{col}: prices.{entry}.source: missing required field (got no 'source')",
        "1 problem(s) found.",
    ]


def test_the_did_you_mean_hint_offers_the_closest_known_name_or_nothing():
    assert did_you_mean("trn2.48xlarg", ["p5.48xlarge", "trn2.48xlarge", "trn1.32xlarge"]) == "; did you mean 'trn2.48xlarge'?"
    assert did_you_mean("us-east1", {"us-east-1": 1, "eu-west-2": 2}) == "; did you mean 'us-east-1'?"  # a mapping's keys
    assert did_you_mean("zzzz", ["p5.48xlarge", "trn2.48xlarge"]) == ""


def test_the_did_you_mean_hint_is_worded_in_one_module():
    # Every located problem about an unknown name reads alike because one function words it.
    package = Path(__file__).resolve().parents[1] / "generator"
    writers = sorted(p.relative_to(package).as_posix() for p in package.rglob("*.py")
                     if re.search(r"did you mean '|get_close_matches", p.read_text(encoding="utf-8")))
    assert writers == ["model/suggest.py"]
