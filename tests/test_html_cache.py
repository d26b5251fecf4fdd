"""Scenario pages whose HTML an earlier build converted are handed to MkDocs without Markdown: the
stored HTML is what the page shows, anything it is made from, changed, converts it afresh, and the
search index still finds every scenario by its title and summary."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from site_support import BuiltSite, leave_out_of_entry_names, pretend_upgraded, run_mkdocs_build

from generator.store import cachefile
from generator.store import html_cache
from generator.store import registry
from generator.store.cachefile import Cache
from generator.inputs.loader import load_project

REPO = Path(__file__).resolve().parents[1]
CONFIG = b"site_url: https://example.org/guide/\nmarkdown_extensions:\n  - md_in_html\n"
PAGE, MARKDOWN = "scenarios/one.md", "# One\n\n<p>text</p>\n"


def _change_code(monkeypatch, tmp_path: Path) -> dict:
    package = tmp_path / "generator"
    shutil.copytree(REPO / "generator", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "rendering" / "mathml.py").write_text((package / "rendering" / "mathml.py").read_text() + "\n# edited\n")
    monkeypatch.setattr(registry, "PACKAGE", package)
    return {}


def _change_library(monkeypatch, tmp_path: Path) -> dict:
    pretend_upgraded(monkeypatch, "pymdown-extensions")
    return {}


CHANGES = {
    "code": ("code", _change_code),
    "library version": ("libraries", _change_library),
    "mkdocs.yml": ("mkdocs.yml", lambda mp, tmp: {"config": CONFIG + b"  - footnotes\n"}),
    "page path": ("page", lambda mp, tmp: {"path": "scenarios/two.md"}),
    "markdown": ("markdown", lambda mp, tmp: {"markdown": MARKDOWN + "\n## More\n"}),
}


def check_entry_moves(tmp_path: Path, monkeypatch, change) -> None:
    before = html_cache.ConvertedPages(Cache(tmp_path), CONFIG).entry(PAGE, MARKDOWN)
    args = change(monkeypatch, tmp_path)
    after = html_cache.ConvertedPages(Cache(tmp_path), args.get("config", CONFIG)).entry(args.get("path", PAGE), args.get("markdown", MARKDOWN))
    assert after != before, "a changed input left the entry where it was: stale HTML would be served"


@pytest.mark.parametrize("name", CHANGES)
def test_a_change_to_any_input_moves_the_entry(tmp_path: Path, monkeypatch, name: str):
    check_entry_moves(tmp_path, monkeypatch, CHANGES[name][1])


@pytest.mark.parametrize("name", CHANGES)
def test_the_key_test_fails_when_that_input_is_left_out_of_the_key(tmp_path: Path, monkeypatch, name: str):
    part, change = CHANGES[name]
    leave_out_of_entry_names(monkeypatch, part)
    with pytest.raises(AssertionError, match="stale HTML"):
        check_entry_moves(tmp_path, monkeypatch, change)


def test_search_reads_a_scenario_page_without_its_tables_and_charts_and_any_page_without_what_it_skips_anyway():
    html = ('<h1 id="t">Title</h1><p>Summary.</p><table data-table="inputs"><tr><td>1</td></tr></table>'
            '<figure class="guide-chart"><table><tr><td>2</td></tr></table><figcaption>Cap</figcaption></figure><p>After.</p>'
            '<details class="guide-embed" data-search-exclude><summary>Embed</summary><p>snippet</p></details><p>End.</p>')
    assert html_cache.searched("scenarios/one.md", html) == '<h1 id="t">Title</h1><p>Summary.</p><p>After.</p><p>End.</p>'
    assert html_cache.searched("scenarios/index.md", html) == html_cache.searched("scenarios/one.md", html)
    gallery = html_cache.searched("embed.md", html)
    assert "snippet" not in gallery and "<table" in gallery and "Cap" in gallery
    sections = ('<p>Intro.</p><section class="guide-gallery" id="s" data-embed="s" data-search-exclude><h2>A scenario chart</h2>'
                '<p>meta</p></section><section class="guide-gallery" id="h" data-embed="h"><h2>A home chart</h2></section>')
    assert html_cache.searched("embed.md", sections) == ('<p>Intro.</p><section class="guide-gallery" id="h" data-embed="h">'
                                                         '<h2>A home chart</h2></section>')
    calculator = ('<p>Put in your own workload.</p><div hidden><template id="guide-calc-data" data-search-exclude>'
                  '{"presets": {"a": "<b>x</b>"}}</template></div><p>End.</p>')
    assert html_cache.searched("calculator.md", calculator) == '<p>Put in your own workload.</p><div hidden></div><p>End.</p>'


def test_search_skips_a_block_to_the_first_closing_tag_of_its_element_and_keeps_one_never_closed():
    nested = '<p>a</p><table data-search-exclude><tr><td><table><tr><td>1</td></tr></table>tail</td></tr></table><p>b</p>'
    assert html_cache.searched("calculator.md", nested) == "<p>a</p>tail</td></tr></table><p>b</p>"
    unclosed = '<p>a</p><section data-search-exclude><p>x</p></details><template data-search-exclude>y</template>'
    assert html_cache.searched("calculator.md", unclosed) == '<p>a</p><section data-search-exclude><p>x</p></details>'
    assert html_cache.searched("scenarios/one.md", "<p>a</p><figure>x<table>y</table><p>b</p>") == "<p>a</p><figure>x<p>b</p>"
    words = '<section data-search-excluded>1</section><section x-data-search-exclude>2</section>'
    assert html_cache.searched("calculator.md", words) == '<section data-search-excluded>1</section>'


@pytest.mark.slow
def test_a_warm_build_shows_the_stored_html_and_converts_a_changed_page_afresh(two_scenario_project: Path, tmp_path: Path, seed_cache):
    cache = seed_cache(tmp_path / "cache")
    first = run_mkdocs_build(two_scenario_project, tmp_path / "one", cache=cache)
    assert first.returncode == 0, first.stderr
    entries = sorted((cache / "html").glob("*.json"))
    assert len(entries) == 2  # the two scenario pages
    # Rewrite each entry, whole and checked, with a mark in its HTML: a warm build must show it.
    for entry in entries:
        stored = json.loads(cachefile.unchecked(entry.read_bytes()))
        stored["content"] = stored["content"].replace("</h1>", "</h1><p>STORED-MARK</p>", 1)
        cachefile.write_atomically(entry, cachefile.checked(json.dumps(stored)))
    second = run_mkdocs_build(two_scenario_project, tmp_path / "two", cache=cache)
    assert second.returncode == 0, second.stderr
    ids = [p.stem for p in sorted((two_scenario_project / "scenarios").glob("*.yaml"))]
    for i in ids:
        assert "<p>STORED-MARK</p>" in (tmp_path / "two" / "scenarios" / i / "index.html").read_text(encoding="utf-8")
    # A changed scenario's Markdown is a new key: its page is converted again, without the mark.
    path = two_scenario_project / "scenarios" / f"{ids[0]}.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace('title: "', 'title: "Changed: ', 1), encoding="utf-8")
    third = run_mkdocs_build(two_scenario_project, tmp_path / "three", cache=cache)
    assert third.returncode == 0, third.stderr
    page = (tmp_path / "three" / "scenarios" / ids[0] / "index.html").read_text(encoding="utf-8")
    assert "STORED-MARK" not in page and "Changed: " in page
    assert "<p>STORED-MARK</p>" in (tmp_path / "three" / "scenarios" / ids[1] / "index.html").read_text(encoding="utf-8")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def test_search_finds_every_scenario_by_title_and_summary(built_site: BuiltSite):
    import html as htmllib

    index = json.loads((built_site.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    docs = {d["location"]: d for d in index["docs"]}
    project = load_project(built_site.root)
    assert project.results
    # The scenarios index is found by its own words, not by one entry holding every row of its table.
    listed = htmllib.unescape(docs["scenarios/"]["text"])
    assert "Sort the table with its column headings" in listed
    for r in project.results:
        assert r.scenario.title not in listed
        page = docs[f"scenarios/{r.id}/"]
        assert htmllib.unescape(page["title"]) == r.scenario.title
        assert " ".join(r.scenario.summary.split()) in _text(htmllib.unescape(page["text"]))
