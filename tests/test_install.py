"""The guide as a user installs it: the wheel pip builds from pyproject.toml holds every file of
generator/ (modules, templates, fonts.conf), and installed without `-e` in a fresh virtualenv it builds
the site. Every install the suite otherwise makes is editable, which reads generator/ from the
checkout and so hides a module or data file the wheel leaves out.

Kept cheap: the fresh virtualenv gets the wheel alone; the libraries it needs are those of the
suite's own virtualenv, put on its path (all but the editable install of this package), not
installed again, and the build is the two-scenario project's from a seeded cache."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from site_support import REPO


def _source_copy(dest: Path) -> Path:
    """What a wheel is built from, as git has it (tracked or to be added): pyproject.toml, README.md
    and generator/, copied so the build writes nothing into the checkout."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--",
                             "pyproject.toml", "README.md", "generator"], cwd=REPO, capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_bytes((REPO / name).read_bytes())
    return dest


def _libraries_beside(venv: Path, into: Path) -> None:
    """The suite's virtualenv's libraries on venv's path, through links in a folder of their own: none
    of this package's editable install (its finder, its .pth and its metadata) comes along."""
    into.mkdir()
    ours = ("__editable__", "trainium_or_gpu")
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.startswith(ours) and entry.suffix != ".pth" and entry.name != "__pycache__":
            (into / entry.name).symlink_to(entry)
    site_packages = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip()
    (Path(site_packages) / "suite-libraries.pth").write_text(f"{into}\n", encoding="utf-8")


@pytest.mark.slow
def test_the_wheel_installed_without_e_holds_the_whole_package_and_builds_the_site(
        two_scenario_project: Path, tmp_path: Path, seed_cache):
    source = _source_copy(tmp_path / "source")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"), str(source)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = (tmp_path / "dist").glob("trainium_or_gpu-*.whl")
    with zipfile.ZipFile(wheel) as z:
        shipped = {name for name in z.namelist() if name.startswith("generator/")}
    package = {p.relative_to(source).as_posix() for p in (source / "generator").rglob("*") if p.is_file()}
    assert shipped == package, f"left out: {sorted(package - shipped)}; added: {sorted(shipped - package)}"

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                        str(wheel)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    _libraries_beside(venv, tmp_path / "libraries")

    root = two_scenario_project
    shutil.rmtree(root / "generator")  # the project copy's own, which `python -m` would import from the folder
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "NO_MKDOCS_2_WARNING"}}
    env |= {"GUIDE_CACHE_DIR": str(seed_cache(tmp_path / "cache"))}
    found = subprocess.run([str(python), "-c", "import generator; print(generator.__file__)"], cwd=root, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(found).is_relative_to(venv), found  # the wheel's copy, not the checkout's

    built = subprocess.run([str(python), "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")], cwd=root,
                           env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    assert "guide: 2 scenario pages" in built.stderr
    assert "end of life" not in built.stderr  # Material's banner: the installed package silences it too
    site = tmp_path / "site"
    assert {p.parent.name for p in (site / "scenarios").glob("*/index.html")} == \
        {p.stem for p in (root / "scenarios").glob("*.yaml")}
    assert 'property="og:image"' in (site / "index.html").read_text(encoding="utf-8")  # the theme folder's main.html

    # The console script; judged on the calendar's day (the build's GUIDE_TODAY precedes some as_of dates).
    env.pop("GUIDE_TODAY", None)
    validated = subprocess.run([str(venv / "bin" / "guide"), "validate"], cwd=root, env=env, capture_output=True, text=True,
                               timeout=300)
    assert (validated.returncode, validated.stdout.startswith("ok: ")) == (0, True), validated.stderr
