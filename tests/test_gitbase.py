"""guide diff's base side copies a commit's folders out without Python 3.11.4's extraction filter,
so it must refuse by itself what that filter refused: links, devices and paths leaving the folder."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from generator.commands import gitbase


def _tar(*members: tuple[str, bytes | None, bytes]) -> tarfile.TarFile:
    """An in-memory tar: (name, type, content) each."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, kind, content in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind == tarfile.SYMTYPE:
                info.linkname = content.decode()
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    buf.seek(0)
    return tarfile.open(fileobj=buf)


@pytest.mark.parametrize(
    ("member", "says"),
    [
        (("../outside.yaml", tarfile.REGTYPE, b"x"), "outside its folder"),
        (("/etc/evil.yaml", tarfile.REGTYPE, b"x"), "outside its folder"),
        (("a/../../outside.yaml", tarfile.REGTYPE, b"x"), "outside its folder"),
        (("link.yaml", tarfile.SYMTYPE, b"/etc/passwd"), "not a regular file"),
        (("fifo", tarfile.FIFOTYPE, b""), "not a regular file"),
    ],
)
def test_refuses_what_the_data_filter_refused(tmp_path: Path, member, says):
    target = tmp_path / "data"
    target.mkdir()
    with _tar(member) as tar, pytest.raises(gitbase.BaseNotFound, match=says):
        gitbase._extract(tar, target, "HEAD:data")
    assert not (tmp_path / "outside.yaml").exists()
    assert list(target.iterdir()) == []


def test_copies_a_commits_folders_with_nested_files(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "data" / "deep").mkdir(parents=True)
    (repo / "data" / "prices.yaml").write_text("a: 1\n")
    (repo / "data" / "deep" / "more.yaml").write_text("b: 2\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    (repo / "data" / "prices.yaml").write_text("a: 9\n")  # a work-tree edit the copy must not see

    out = gitbase.materialise(repo, "HEAD", tmp_path / "base")
    assert (out / "data" / "prices.yaml").read_text() == "a: 1\n"
    assert (out / "data" / "deep" / "more.yaml").read_text() == "b: 2\n"
    assert list((out / "scenarios").iterdir()) == []  # the commit has no scenarios/: left empty
