"""The README's commands, run as a newcomer would. The first in a clean copy of the repository, with
no virtualenv active, with the interpreter named by GUIDE_README_PYTHON (the Python this one was
made from when unset); slow: it makes a virtualenv, installs the guide and its dependencies, and
builds the site from an empty cache. The preview command on the shipped data and scenarios, whose
log a newcomer reads: it holds no warning."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from site_support import READY, REPO, Served, copy_project

README = REPO / "README.md"


def _blocks() -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", README.read_text(encoding="utf-8"), re.M | re.S)


def _interpreter() -> str:
    named = os.environ.get("GUIDE_README_PYTHON")
    if named:
        return named
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return str(base if base.exists() else Path(sys.executable).resolve())


def _clean_copy(dest: Path) -> Path:
    """The files git tracks (or would, once added), as they are in the work tree: no .venv, no .cache."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def test_the_readme_names_two_commands_and_ci_runs_the_second():
    blocks = _blocks()
    assert blocks[:2] == ["bash scripts/build.sh\n", "bash scripts/test.sh\n"]
    assert (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1] == blocks[1].strip()
    assert "/.venv/" in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()


@pytest.mark.slow
def test_the_first_command_installs_into_a_venv_and_builds_the_site(tmp_path: Path):
    root = _clean_copy(tmp_path / "guide")
    python = _interpreter()
    # No virtualenv active, nothing of this test's environment on PATH but the system's folders.
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH", "NO_MKDOCS_2_WARNING",
                                                               "GUIDE_CACHE_DIR", "PYTHONHOME"}}
    env |= {"PATH": f"{Path(python).parent}:/usr/bin:/bin", "PYTHON": python}
    r = subprocess.run(["bash", "-c", _blocks()[0]], cwd=root, env=env, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout + r.stderr
    log = r.stdout + r.stderr
    assert "end of life" not in log and "Traceback" not in log
    assert "Documentation built in" in log
    venv_python = root / ".venv" / "bin" / "python"
    assert subprocess.run([str(venv_python), "-c", "import sys; print(sys.base_prefix)"], capture_output=True,
                          text=True, check=True).stdout.strip() == subprocess.run(
        [python, "-c", "import sys; print(sys.base_prefix)"], capture_output=True, text=True, check=True).stdout.strip()
    home = (root / "site" / "index.html").read_text(encoding="utf-8")
    assert "Trainium or GPU?" in home
    assert len(list((root / "site" / "scenarios").glob("*/index.html"))) == len(list((root / "scenarios").glob("*.yaml")))
    # The README's "Use it" commands, from the virtualenv the command made.
    v = subprocess.run([str(root / ".venv" / "bin" / "guide"), "validate"], cwd=root, env=env, capture_output=True, text=True)
    assert (v.returncode, v.stdout.startswith("ok: data/ and ")) == (0, True), v.stderr


def test_preview_addresses_carry_the_path_mkdocs_serve_uses():
    # `mkdocs serve` serves under site_url's path; an address without it is a 404.
    site_url = re.search(r"^site_url: *(\S+)", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M)[1]
    prefix = "http://127.0.0.1:8000" + re.sub(r"^https?://[^/]+", "", site_url)
    found = [u for doc in ("README.md", "CONTRIBUTING.md")
             for u in re.findall(r"http://127\.0\.0\.1:8000[^\s>)`]*", (REPO / doc).read_text(encoding="utf-8"))]
    assert found and all(u.startswith(prefix) for u in found), (prefix, found)


def _preview_command() -> list[str]:
    rows = [ln for ln in README.read_text(encoding="utf-8").splitlines() if ln.startswith("| Preview the site")]
    assert len(rows) == 1, rows
    return re.findall(r"`([^`]+)`", rows[0])[-1].split()


@pytest.mark.slow
def test_the_preview_command_prints_no_warning_on_the_shipped_data(tmp_path: Path):
    command = _preview_command()
    assert command[:2] == ["mkdocs", "serve"]
    root = copy_project(tmp_path / "guide", shipped=True)
    # As typed in a new shell: no variable of this test's own, the day the machine's, the cache where
    # the plugin keeps it by default (copied from this checkout's, so the charts are not drawn again).
    env = {k: v for k, v in os.environ.items() if k not in {"NO_MKDOCS_2_WARNING", "GUIDE_TODAY", "GUIDE_CACHE_DIR"}}
    served = Served(root, root / ".cache", *command[2:], env=env)
    try:
        base = served.wait_for(READY)[1]
        with urllib.request.urlopen(base, timeout=30) as r:
            assert "Trainium or GPU?" in r.read().decode("utf-8")
    finally:
        served.stop()
    log = "".join(served.lines)
    assert "Documentation built in" in log
    # Every line MkDocs and the plugin printed up to serving, and none of them a warning of any kind.
    assert not [ln for ln in served.lines if not ln.startswith("INFO")], log


def _setup_block() -> str:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Set up, once", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```sh\n(.*?)```", section, re.S)[1]


def test_contributings_setup_builds_the_site_and_leaves_the_whole_suite_for_later():
    commands = [line.split("#", 1)[0].strip() for line in _setup_block().splitlines()]
    assert "bash scripts/build.sh" in commands
    assert not [c for c in commands if c.startswith("bash scripts/test.sh")], commands


def test_readme_and_contributing_state_no_test_count_that_goes_stale():
    for name in ("README.md", "CONTRIBUTING.md"):
        text = (REPO / name).read_text(encoding="utf-8")
        # "some 430 of the suite's 750 tests", "938 tests pass": right on the day they were written.
        assert not re.search(r"\b\d[\d,]*\s+(?:of the suite's\s+\d[\d,]*\s+)?tests\b", text), name
        assert not re.search(r"tests? in (?:about|some|under) \d", text), name


def test_the_readme_says_how_to_open_the_built_site():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert "python3 -m http.server -d site" in text and "not opened from disk" in text
