"""Two builds of the same tree give the same site, byte for byte.

What could vary, and why it does not: the date (stale-price notes) is fixed with GUIDE_TODAY;
MkDocs writes sitemap.xml.gz with a fixed timestamp. The first build starts from an empty cache and
the second uses all it left (images, compiled specs, known scenarios, rendered scenario pages), so
this also shows that what comes from the cache is what would have been made afresh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from site_support import copy_project, run_mkdocs_build, site_hashes

pytestmark = pytest.mark.slow  # builds the site twice




def test_two_builds_are_byte_identical(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("GUIDE_TODAY", "2026-11-21")
    root = copy_project(tmp_path / "project")
    cache = tmp_path / "cache"
    first = run_mkdocs_build(root, tmp_path / "one", cache=cache)
    assert first.returncode == 0, first.stderr
    assert "0 from the cache" in first.stderr
    second = run_mkdocs_build(root, tmp_path / "two", cache=cache)
    assert second.returncode == 0, second.stderr
    assert "embed images: 0 charts rendered" in second.stderr
    assert len(list((cache / "pages").glob("*.json"))) == len(list((root / "scenarios").glob("*.yaml")))
    one, two = site_hashes(tmp_path / "one"), site_hashes(tmp_path / "two")
    assert len(one) > 100
    assert one.keys() == two.keys()
    assert [p for p in one if one[p] != two[p]] == []
