"""A scenario page's file that an earlier build rendered is written from the
cache: the site and its search index stay byte-identical to a cold build, what the stored file says
is what the page shows, and a change anywhere the theme reads (a navigation title on another page,
another plugin) renders the pages again."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from site_support import build_into, site_hashes

from generator.store import cachefile
from generator.store import page_file_cache


def _from_cache(proc: subprocess.CompletedProcess[str]) -> int:
    return int(re.search(r"guide: (\d+) page files from the cache", proc.stderr).group(1))


def _scenario_ids(root: Path) -> list[str]:
    return [p.stem for p in sorted((root / "scenarios").glob("*.yaml"))]


@pytest.mark.slow
def test_a_warm_build_writes_the_stored_files_and_the_site_and_search_index_are_those_of_a_cold_build(two_scenario_project: Path, tmp_path: Path, seed_cache):
    cache = seed_cache(tmp_path / "cache")
    cold = build_into(two_scenario_project, tmp_path / "one", cache)
    assert _from_cache(cold) == 0
    entries = sorted((cache / "themed").glob("*.json"))
    assert len(entries) == 2  # the two scenario pages
    warm = build_into(two_scenario_project, tmp_path / "two", cache)
    assert _from_cache(warm) == 2
    assert site_hashes(tmp_path / "two") == site_hashes(tmp_path / "one")
    index = json.loads((tmp_path / "two" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert {f"scenarios/{i}/" for i in _scenario_ids(two_scenario_project)} <= {d["location"] for d in index["docs"]}

    # What a stored file says is what the page shows: a mark put into each (whole and checked) must
    # appear in the next build, and the stored search entries are what the index holds.
    for entry in entries:
        stored = json.loads(cachefile.unchecked(entry.read_bytes()))
        stored["output"] = stored["output"].replace("</h1>", "</h1><p>FILE-MARK</p>", 1)
        for e in stored["search"]:
            e["text"] += " searchmark"
        cachefile.write_atomically(entry, cachefile.checked(json.dumps(stored)))
    third = build_into(two_scenario_project, tmp_path / "three", cache)
    assert _from_cache(third) == 2
    for i in _scenario_ids(two_scenario_project):
        assert "<p>FILE-MARK</p>" in (tmp_path / "three" / "scenarios" / i / "index.html").read_text(encoding="utf-8")
    marked = json.loads((tmp_path / "three" / "search" / "search_index.json").read_text(encoding="utf-8"))
    for i in _scenario_ids(two_scenario_project):
        docs = [d for d in marked["docs"] if d["location"].split("#")[0] == f"scenarios/{i}/"]
        assert docs and all(d["text"].endswith(" searchmark") for d in docs)

    # A stored file found damaged as its page is written: the page is rendered by the theme instead,
    # exactly as a cold build renders it, and stored again.
    first = f"scenarios/{_scenario_ids(two_scenario_project)[0]}/index.html"
    damaged = next(e for e in entries
                   if json.loads(cachefile.unchecked(e.read_bytes()))["search"][0]["location"] == first[:-len("index.html")])
    damaged.write_bytes(damaged.read_bytes()[:-10])
    fourth = build_into(two_scenario_project, tmp_path / "four", cache)
    assert _from_cache(fourth) == 1
    assert (tmp_path / "four" / first).read_bytes() == (tmp_path / "one" / first).read_bytes()
    assert _from_cache(build_into(two_scenario_project, tmp_path / "five", cache)) == 2


@pytest.mark.slow
def test_the_files_a_strict_build_stored_serve_a_plain_build(two_scenario_project: Path, tmp_path: Path, seed_cache):
    # The README builds with --strict, a contributor often without: only warnings differ.
    cache = seed_cache(tmp_path / "cache")
    build_into(two_scenario_project, tmp_path / "one", cache)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_CACHE_DIR": str(cache)}
    plain = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-d", str(tmp_path / "two")], cwd=two_scenario_project, env=env,
                           capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr
    assert _from_cache(plain) == 2
    assert site_hashes(tmp_path / "two") == site_hashes(tmp_path / "one")


@pytest.mark.slow
def test_a_new_title_in_the_navigation_renders_every_stored_page_again(two_scenario_project: Path, tmp_path: Path, seed_cache):
    cache = seed_cache(tmp_path / "cache")
    build_into(two_scenario_project, tmp_path / "one", cache)
    # The contributing page's title comes from its own front matter, not from mkdocs.yml: only the
    # navigation every page carries changes.
    page = two_scenario_project / "docs" / "contributing.md"
    page.write_text(page.read_text(encoding="utf-8").replace("title: Contributing\n", "title: Contributing, renamed\n", 1), encoding="utf-8")
    again = build_into(two_scenario_project, tmp_path / "two", cache)
    assert _from_cache(again) == 0
    for i in _scenario_ids(two_scenario_project):
        assert "Contributing, renamed" in (tmp_path / "two" / "scenarios" / i / "index.html").read_text(encoding="utf-8")
    # And the files stored now are used by the build after.
    assert _from_cache(build_into(two_scenario_project, tmp_path / "three", cache)) == 2
    assert site_hashes(tmp_path / "three") == site_hashes(tmp_path / "two")


STAMP_HOOK = '''import os


def on_page_context(context, page, config, nav):
    config.copyright = "stamp " + os.environ.get("GUIDE_TEST_STAMP", "")
    return context
'''


@pytest.mark.slow
def test_with_another_plugin_every_page_is_rendered(two_scenario_project: Path, tmp_path: Path, seed_cache, monkeypatch):
    # A hook of the site's own that changes what every page shows, by something no key names.
    (two_scenario_project / "stamp_hook.py").write_text(STAMP_HOOK, encoding="utf-8")
    config = two_scenario_project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "\nhooks:\n  - stamp_hook.py\n", encoding="utf-8")
    cache = seed_cache(tmp_path / "cache")
    monkeypatch.setenv("GUIDE_TEST_STAMP", "one")
    build_into(two_scenario_project, tmp_path / "one", cache)
    monkeypatch.setenv("GUIDE_TEST_STAMP", "two")
    again = build_into(two_scenario_project, tmp_path / "two", cache)
    assert _from_cache(again) == 0
    for i in _scenario_ids(two_scenario_project):
        assert "stamp two" in (tmp_path / "two" / "scenarios" / i / "index.html").read_text(encoding="utf-8")


def test_a_stored_file_holds_a_mark_for_its_canonical_address_and_takes_the_one_a_build_gives():
    page = '<head><link rel="canonical" href="https://example.test/guide/a/"></head><body>https://example.test/guide/a/</body>'
    stored = page_file_cache.without_address(page, "https://example.test/guide/a/")
    assert "https://example.test/guide/a/\"" not in stored and "<body>https://example.test/guide/a/</body>" in stored
    assert page_file_cache.with_address(stored, "http://127.0.0.1:8000/guide/a/") == page.replace(
        'href="https://example.test/guide/a/"', 'href="http://127.0.0.1:8000/guide/a/"')
    # A file whose link the theme did not write as expected is not stored at all.
    link = '<link rel="canonical" href="https://example.test/guide/a/">'
    assert page_file_cache.without_address(page.replace("<head>", "<head>" + link), "https://example.test/guide/a/") is None
    assert page_file_cache.without_address("<head></head>", "https://example.test/guide/a/") is None
    assert page_file_cache.without_address("<head></head>", None) == "<head></head>"
