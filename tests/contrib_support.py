"""Helpers for the contributor-path tests: fill in what `guide new-scenario` leaves for a person,
guided by the located placeholder messages `guide validate` prints, as a contributor would be."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from generator.inputs.loader import PLACEHOLDER

PROBLEM = re.compile(r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<field>\S+): (?P<message>.+)$")
PLACEHOLDER_MESSAGE = f"placeholder from guide new-scenario; write your value here (got '{PLACEHOLDER}')"

# A small team's single run: one-off-run's numbers on one instance each, so the engine says gpu.
ANSWERS = {
    "title": "A small team's single fine-tune for a launch",
    "summary": "A team of three fine-tunes an open-weight model once, for a product launch, and does not plan to train again.",
    "expect": "gpu",
    "sources.0": "Test data written by tests/test_contributing.py",
    "workloads.0.architecture": "mainstream",
    "workloads.0.run_size.gpu_instance_hours": "300",
    "workloads.0.runs": "1",
    "workloads.0.relative_throughput.value": "1.0",
    "workloads.0.relative_throughput.low": "0.8",
    "workloads.0.relative_throughput.high": "1.2",
    "workloads.0.rationale.run_size": "About two weeks on one p5.48xlarge.",
    "workloads.0.rationale.runs": "One run, then done.",
    "workloads.0.rationale.relative_throughput": "Parity assumed, plus or minus 20 percent.",
}


def problems(stderr: str) -> list[dict]:
    """The located problem lines of `guide validate`, parsed (the closing count line is dropped)."""
    out = []
    for line in stderr.splitlines():
        m = PROBLEM.match(line)
        if m:
            out.append({**m.groupdict(), "line": int(m["line"]), "col": int(m["col"])})
    return out


def placeholder_positions(text: str) -> list[tuple[int, int]]:
    """(line, column) of every placeholder value in a file, 1-based, as validation reports them
    (the template's comments name the placeholder too; those lines are skipped)."""
    return [(i, m.start() + 1) for i, line in enumerate(text.splitlines(), 1) if not line.lstrip().startswith("#")
            for m in re.finditer(PLACEHOLDER, line)]


def fill(path: Path, reported: list[dict], answers: dict[str, str] = ANSWERS) -> None:
    """Replace each reported placeholder, at its line and column, with the answer for its field."""
    lines = path.read_text(encoding="utf-8").split("\n")
    # Right to left within a line, so earlier columns stay where they were reported.
    for p in sorted(reported, key=lambda p: (p["line"], -p["col"])):
        line = lines[p["line"] - 1]
        start = p["col"] - 1
        assert line[start:start + len(PLACEHOLDER)] == PLACEHOLDER, (p, line)
        lines[p["line"] - 1] = line[:start] + answers[p["field"]] + line[start + len(PLACEHOLDER):]
    path.write_text("\n".join(lines), encoding="utf-8")


def guide(*args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m generator ARGS...` run in cwd (the project root), with extra environment variables."""
    full_env = {**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=cwd, env=full_env, input=stdin,
                          capture_output=True, text=True, timeout=300, check=False)
