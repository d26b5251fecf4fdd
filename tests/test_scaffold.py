"""`guide new-scenario NAME`: a commented file with the modeline, that fails validation only on its
placeholders and validates once they are filled; it never replaces a file and refuses bad names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contrib_support import ANSWERS, PLACEHOLDER_MESSAGE, fill, placeholder_positions, problems
from core_support import SCENARIOS, run_guide, tree_hashes
from generator.commands.scaffold import scenario_text
from generator.model.schema import MODELINE


def test_writes_a_commented_file_that_starts_with_the_modeline(frozen_inputs: Path):
    r = run_guide("new-scenario", "weekly-lora", cwd=frozen_inputs, root=frozen_inputs)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == ("wrote scenarios/weekly-lora.yaml: replace every FILL-IN in it, "
                        "then run `guide validate scenarios/weekly-lora.yaml`\n")
    text = (frozen_inputs / "scenarios" / "weekly-lora.yaml").read_text(encoding="utf-8")
    assert text == scenario_text("weekly-lora")
    assert text.splitlines()[0] == MODELINE
    comments = [ln for ln in text.splitlines() if ln.lstrip().startswith("#")]
    assert len(comments) > 20, "the template should explain its fields"
    assert "FILL-IN" in text


def test_the_new_file_fails_validation_only_on_its_placeholders(frozen_inputs: Path):
    run_guide("new-scenario", "weekly-lora", cwd=frozen_inputs, root=frozen_inputs)
    path = frozen_inputs / "scenarios" / "weekly-lora.yaml"
    r = run_guide("validate", "scenarios/weekly-lora.yaml", cwd=frozen_inputs, root=frozen_inputs)
    assert r.returncode == 1 and r.stdout == ""
    found = problems(r.stderr)
    assert {p["path"] for p in found} == {"scenarios/weekly-lora.yaml"}
    assert {p["message"] for p in found} == {PLACEHOLDER_MESSAGE}
    # One problem per placeholder, at its place, and no other problem.
    assert [(p["line"], p["col"]) for p in found] == placeholder_positions(path.read_text(encoding="utf-8"))
    assert {p["field"] for p in found} == set(ANSWERS)
    assert r.stderr.splitlines()[-1] == f"{len(found)} problem(s) found."


def test_the_filled_file_validates_and_evaluates(frozen_inputs: Path):
    run_guide("new-scenario", "weekly-lora", cwd=frozen_inputs, root=frozen_inputs)
    path = frozen_inputs / "scenarios" / "weekly-lora.yaml"
    fill(path, problems(run_guide("validate", "scenarios/weekly-lora.yaml", cwd=frozen_inputs, root=frozen_inputs).stderr))
    assert placeholder_positions(path.read_text(encoding="utf-8")) == []
    r = run_guide("validate", cwd=frozen_inputs, root=frozen_inputs)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines()[0] == f"ok: data/ and {len(list(SCENARIOS.glob('*.yaml'))) + 1} scenario(s) are valid."
    report = json.loads(run_guide("evaluate", "--format", "json", "scenarios/weekly-lora.yaml", cwd=frozen_inputs, root=frozen_inputs).stdout)
    assert [(s["id"], s["verdict"], s["expect"]) for s in report] == [("weekly-lora", "gpu", "gpu")]


def test_a_placeholder_left_in_an_otherwise_valid_file_is_the_one_problem(frozen_inputs: Path):
    path = frozen_inputs / "scenarios" / "one-off-run.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    runs: 1\n", "    runs: FILL-IN\n"), encoding="utf-8")
    r = run_guide("validate", cwd=frozen_inputs, root=frozen_inputs)
    assert r.returncode == 1
    (p,) = problems(r.stderr)
    assert (p["field"], p["message"]) == ("workloads.0.runs", PLACEHOLDER_MESSAGE)


def test_it_never_replaces_a_file(frozen_inputs: Path):
    path = frozen_inputs / "scenarios" / "one-off-run.yaml"
    before = path.read_bytes()
    r = run_guide("new-scenario", "one-off-run", cwd=frozen_inputs, root=frozen_inputs)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.endswith("scenarios/one-off-run.yaml already exists; pick another NAME or edit that file\n")
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", ["Bad_Name", "-starts-with-dash", "has space", "../outside", "dots.yaml", "x" * 81, ""])
def test_a_bad_name_is_a_usage_error_and_writes_nothing(frozen_inputs: Path, name: str):
    before = tree_hashes(frozen_inputs / "scenarios", frozen_inputs / "data")
    r = run_guide("new-scenario", "--", name, cwd=frozen_inputs, root=frozen_inputs)
    assert r.returncode == 2 and r.stdout == ""
    assert "NAME must be lower-case letters, digits and dashes" in r.stderr and "usage: guide new-scenario" in r.stderr
    assert "Traceback" not in r.stderr
    assert tree_hashes(frozen_inputs / "scenarios", frozen_inputs / "data") == before
    assert not (frozen_inputs / "outside.yaml").exists()
