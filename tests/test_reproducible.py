"""Two builds of the same tree give the same site, byte for byte.

What could vary, and why it does not: the date (stale-price notes) is fixed with GUIDE_TODAY;
chart images come from the content-hash cache or are rendered again identically; MkDocs writes
sitemap.xml.gz with a fixed timestamp.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from conftest import copy_project, run_mkdocs_build


def digest(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(site.rglob("*")) if p.is_file()}


def test_two_builds_are_byte_identical(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("GUIDE_TODAY", "2026-11-21")
    root = copy_project(tmp_path / "project")
    first = run_mkdocs_build(root, tmp_path / "one")
    assert first.returncode == 0, first.stderr
    second = run_mkdocs_build(root, tmp_path / "two")
    assert second.returncode == 0, second.stderr
    one, two = digest(tmp_path / "one"), digest(tmp_path / "two")
    assert len(one) > 100
    assert one.keys() == two.keys()
    assert [p for p in one if one[p] != two[p]] == []
