"""The base side of `guide diff`: a git commit's scenarios/ and data/, copied out into a folder.

Reads the repository with `git rev-parse`, `git merge-base` and `git archive`; never checks out,
never touches the index or the work tree, and never fetches (it says what to fetch instead).
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path, PurePosixPath

PARTS = ("scenarios", "data")
DEFAULT_BRANCHES = ("main", "origin/main")


class BaseNotFound(Exception):
    """BASE cannot be resolved in this clone; the message says what to do."""


def _git(root: Path, *args: str, binary: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=not binary, check=False)


def _commit(root: Path, ref: str) -> str | None:
    r = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    return r.stdout.strip() if r.returncode == 0 else None


def _fetch_hint(ref: str) -> str:
    """The fetch that brings ref into this clone. A branch of origin goes to its remote-tracking
    ref by name: a --single-branch clone would not update refs/remotes/origin/X on its own."""
    branch = ref.removeprefix("origin/")
    if branch != ref or ref == "main":
        return f"git fetch --depth=1 origin {branch}:refs/remotes/origin/{branch}"
    return f"git fetch origin {ref}"


def resolve(root: Path, base: str | None) -> tuple[str, str]:
    """(commit, how it was chosen) for BASE, or for the merge base with main when BASE is None."""
    if _git(root, "rev-parse", "--git-dir").returncode != 0:
        raise BaseNotFound(f"{root} is not inside a git repository; guide diff compares against a git commit")
    if base is not None:
        sha = _commit(root, base)
        if sha is None:
            raise BaseNotFound(
                f"cannot find {base!r} in this clone; if it is on the remote, fetch it first "
                f"(e.g. `{_fetch_hint(base)}`), or name another BASE"
            )
        return sha, base
    found = []
    for branch in DEFAULT_BRANCHES:
        tip = _commit(root, branch)
        if tip is None:
            continue
        found.append(branch)
        r = _git(root, "merge-base", "HEAD", tip)
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip(), f"the merge base with {branch}"
    if not found:
        raise BaseNotFound(
            "cannot find main or origin/main to compare against; fetch it first "
            f"(`{_fetch_hint('origin/main')}`) or name a BASE, e.g. `guide diff HEAD~1`"
        )
    raise BaseNotFound(
        f"HEAD and {' or '.join(found)} have no merge base in this clone (a shallow clone?); fetch more "
        "history (`git fetch --unshallow`, or `git fetch --deepen=50`) or name a BASE, e.g. `guide diff origin/main`"
    )


def materialise(root: Path, commit: str, dest: Path) -> Path:
    """Copy scenarios/ and data/ as they are at commit into dest; returns dest. A folder the commit
    does not have is left empty (every scenario then counts as added)."""
    prefix = _git(root, "rev-parse", "--show-prefix").stdout.strip()  # root's place inside the repository
    for part in PARTS:
        target = dest / part
        target.mkdir(parents=True, exist_ok=True)
        tree = f"{commit}:{prefix}{part}"
        # (Not rev-parse "X:path^{tree}": after the colon, "^{tree}" would be read as part of the path.)
        if _git(root, "cat-file", "-t", tree).stdout.strip() != "tree":
            continue
        r = _git(root, "archive", "--format=tar", tree, binary=True)
        if r.returncode != 0:
            raise BaseNotFound(f"git archive {tree} failed: {r.stderr.decode(errors='replace').strip()}")
        with tarfile.open(fileobj=io.BytesIO(r.stdout)) as tar:
            _extract(tar, target, tree)
    return dest


def _extract(tar: tarfile.TarFile, target: Path, tree: str) -> None:
    """Write the archive's folders and regular files under target, refusing links, devices and any
    path that would leave target. Done by hand: extractall's `filter` argument, which does the same,
    exists only from Python 3.11.4, and Debian 12 ships 3.11.2."""
    for member in tar:
        parts = PurePosixPath(member.name).parts
        if member.type == tarfile.XGLTYPE or member.name == "pax_global_header":
            continue  # git archive's header carrying the commit id; no file
        if not parts or member.name.startswith("/") or ".." in parts:
            raise BaseNotFound(f"git archive {tree} holds a path outside its folder: {member.name!r}")
        path = target.joinpath(*parts)
        if member.isdir():
            path.mkdir(parents=True, exist_ok=True)
        elif member.isreg():
            path.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            path.write_bytes(source.read() if source else b"")
        else:
            raise BaseNotFound(f"git archive {tree} holds {member.name!r}, which is not a regular file or folder")
