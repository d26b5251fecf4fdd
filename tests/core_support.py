"""Helpers for the core tests (engine, scenarios, loader, CLI, schema): where the repository is,
how to run the real `guide` CLI, and how to make a scratch copy of data/ and scenarios/.

Kept out of conftest.py, which belongs to the site tests.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Tests of behaviour read a frozen copy of data/ and scenarios/, so that refreshing a price or adding
# a scenario never changes what they expect. Only tests of the live files' structure and sourcing
# (tests/test_live_data.py) read LIVE_DATA and LIVE_SCENARIOS.
FROZEN = REPO / "tests" / "fixtures" / "project"
DATA = FROZEN / "data"
SCENARIOS = FROZEN / "scenarios"
LIVE_DATA = REPO / "data"
LIVE_SCENARIOS = REPO / "scenarios"


def run_guide(*args: str, cwd: Path, root: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m generator [--root ROOT] ARGS...` as a user runs it, output captured."""
    cmd = [sys.executable, "-m", "generator"]
    if root is not None:
        cmd += ["--root", str(root)]
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(cmd + list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def copy_inputs(dest: Path, *, scenarios: bool = True) -> Path:
    """A scratch project holding a copy of data/ (and of scenarios/, or an empty scenarios/)."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(DATA, dest / "data")
    if scenarios:
        shutil.copytree(SCENARIOS, dest / "scenarios")
    else:
        (dest / "scenarios").mkdir()
    return dest


def tree_hashes(*folders: Path) -> dict[str, str]:
    """sha256 of every file under the folders, by path: equal before and after means nothing was
    written, added or removed."""
    out = {}
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                out[p.relative_to(folder.parent).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
