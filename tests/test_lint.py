"""ruff, with the settings in pyproject.toml, finds nothing in the package, the tests or the scripts."""

from __future__ import annotations

import subprocess
import sys

from core_support import REPO


def test_ruff_check_passes():
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "generator", "tests", "scripts"],
                       cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
