"""The built site for language models and scripts: llms.txt and llms-full.txt at its root, each
page's Markdown beside its HTML, each scenario's full result at scenarios/<id>/result.json and each
chart's .metadata.json, all checked against `guide evaluate --format json` run on the same project
(never against numbers written here)."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from urllib.parse import urlsplit

import pytest
from site_support import BuiltSite

from generator.model import formatting as fmt
from generator.model.wording import VERDICT_LABELS

pytestmark = pytest.mark.slow
SITE_URL = "https://trainium-or-gpu.github.io/guide/"


@pytest.fixture(scope="module")
def built_results(built_site: BuiltSite) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "generator", "--root", str(built_site.root), "evaluate", "--format", "json"],
                         capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout)


def test_each_scenario_result_is_the_document_guide_evaluate_gives(built_site: BuiltSite, built_results):
    for entry in built_results:
        path = built_site.site / "scenarios" / entry["id"] / "result.json"
        assert json.loads(path.read_text(encoding="utf-8")) == entry
        # Each price in it carries its source and the date that source shows.
        for w in entry["workloads"]:
            assert all(re.fullmatch(r"\d{4}-\d\d-\d\d", p["as_of"]) and p["source"] for p in w["prices"].values())
        page = (built_site.site / "scenarios" / entry["id"] / "index.html").read_text(encoding="utf-8")
        assert 'href="result.json"' in page and 'href="index.html.md"' in page


def test_each_chart_has_metadata_with_its_sources_units_page_and_citation(built_site: BuiltSite, built_results):
    by_id = {e["id"]: e for e in built_results}
    folders = sorted(p for p in (built_site.site / "embed").iterdir() if p.is_dir())
    assert folders
    checked_against_engine = 0
    for folder in folders:
        chart_id = folder.name
        meta = json.loads((folder / f"{chart_id}.metadata.json").read_text(encoding="utf-8"))
        spec = json.loads((folder / f"{chart_id}.vl.json").read_text(encoding="utf-8"))
        assert meta["title"] == " ".join(spec["title"]["text"])
        assert meta["subtitle"] and meta["subtitle"] in " ".join(spec["title"]["subtitle"])
        with (folder / f"{chart_id}.csv").open(encoding="utf-8") as f:
            assert list(meta["units"]) == next(csv.reader(f))
        page = meta["page"].removeprefix(SITE_URL)
        assert meta["page"].startswith(SITE_URL) and (built_site.site / page / "index.html").is_file()
        assert meta["sources"][0]["text"] in meta["subtitle"] or meta["sources"][0]["text"][:40] in meta["subtitle"]
        assert meta["title"] in meta["citation"] and meta["page"] in meta["citation"] and meta["as_of"] in meta["citation"]
        m = re.fullmatch(r"(.+)-(\d+)-[a-z-]+", chart_id)
        if m and m[1] in by_id:
            w = by_id[m[1]]["workloads"][int(m[2]) - 1]
            assert meta["as_of"] == max(p["as_of"] for p in w["prices"].values())
            for p in w["prices"].values():
                assert fmt.date(p["as_of"]) in meta["sources"][0]["text"]
            checked_against_engine += 1
    assert checked_against_engine >= len(built_results)


def _links(text: str) -> list[str]:
    return re.findall(r"\]\(([^()\s]+)\)", text)


def test_llms_txt_follows_the_convention_and_lists_every_page_and_result(built_site: BuiltSite, built_results):
    text = (built_site.site / "llms.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0].startswith("# ") and lines[1] == "" and lines[2].startswith("> ")
    assert re.findall(r"^## (.+)$", text, re.M)[-2:] == ["Scenarios", "Optional"]
    links = _links(text)
    for entry in built_results:
        page = f"{SITE_URL}scenarios/{entry['id']}/index.html.md"
        (line,) = [line for line in lines if f"]({page})" in line]
        assert f": verdict {VERDICT_LABELS[entry['verdict']]}" in line
        assert f"{SITE_URL}scenarios/{entry['id']}/result.json" in links
    for link in links:
        assert link.startswith(SITE_URL)
        assert (built_site.site / link.removeprefix(SITE_URL)).is_file(), link
    assert f"{SITE_URL}methodology/index.html.md" in links and f"{SITE_URL}llms-full.txt" in links
    # Each scenario's charts by their metadata files.
    for entry in built_results:
        for folder in (built_site.site / "embed").glob(f"{entry['id']}-*"):
            assert f"{SITE_URL}embed/{folder.name}/{folder.name}.metadata.json" in links


def _prose(markdown: str) -> str:
    """Markdown without its code (fenced blocks and spans), where HTML is text."""
    return re.sub(r"(`+).+?\1", "", re.sub(r"^(```+).*?^\1$", "", markdown, flags=re.S | re.M), flags=re.S)


def _tags(markdown: str) -> list[str]:
    """The HTML tags a reader of the Markdown meets outside its code (an escaped '\\<' is text)."""
    return re.findall(r"(?<!\\)</?[a-zA-Z][^<>\n]*>", _prose(markdown))


def _resolves(site, url: str) -> bool:
    path = urlsplit(url).path.removeprefix(urlsplit(SITE_URL).path)
    target = site / path
    return (target / "index.html").is_file() if path.endswith("/") or not path else target.is_file()


def test_llms_full_holds_every_page_and_each_scenarios_verdict_and_totals(built_site: BuiltSite, built_results):
    text = (built_site.site / "llms-full.txt").read_text(encoding="utf-8")
    methodology = (built_site.site / "methodology" / "index.html.md").read_text(encoding="utf-8")
    assert methodology.rstrip() in text
    # Markdown a model reads from the site's root: no link relative to a page, and hardly a tag.
    links = _links(text)
    assert links and all(re.match(r"[a-z]+:", link) for link in links), [x for x in links if not re.match(r"[a-z]+:", x)][:5]
    assert all(_resolves(built_site.site, link) for link in links if link.startswith(SITE_URL))
    tags = sum(len(t) for t in re.findall(r"(?<!\\)</?[a-zA-Z][^<>\n]*>", text))
    assert tags / len(text) < 0.05
    assert _tags(text) == []
    # The pages with a part for each scenario are named, not held: they would grow it with every one.
    from generator.rendering.published.llms import PER_SCENARIO, markdown_path

    for page in PER_SCENARIO:
        assert (built_site.site / markdown_path(page)).is_file()
        assert f"{SITE_URL}{markdown_path(page)}" in text
    gallery = (built_site.site / "embed" / "index.html.md").read_text(encoding="utf-8")
    assert gallery[gallery.index("\n## "):][:2000] not in text
    for entry in built_results:
        for w in entry["workloads"]:
            o = w["outcome"]
            assert (f"{VERDICT_LABELS[o['verdict']]}; total over the plan Trainium {fmt.money(o['trainium']['total'])}, "
                    f"GPU {fmt.money(o['gpu']['total'])}") in text


def test_each_pages_markdown_is_beside_it_with_the_figures_filled_in(built_site: BuiltSite, project):
    # Every page but the embed folders' chart-alone pages, which are no page of the guide.
    pages = [p for p in built_site.site.rglob("index.html")
             if not p.relative_to(built_site.site).as_posix().startswith("embed/") or p.parent.name == "embed"]
    assert len(pages) > 20
    for page in pages:
        md = page.with_name("index.html.md")
        assert md.is_file(), md
        text = md.read_text(encoding="utf-8")
        assert "{{" not in text and "{%" not in text, md
        assert not text.startswith("---")  # no front matter
        assert "<template" not in text  # no chart spec or baked-in JSON
        # Markdown alone: no HTML outside code, titles as text, and every link absolute, the site's
        # own to a file the site has.
        assert _tags(text) == [], (md, _tags(text)[:3])
        assert "&#" not in _prose(text), md
        for url in _links(text):
            assert re.match(r"[a-z]+:", url), (md, url)
            if url.startswith(SITE_URL):
                assert _resolves(built_site.site, url), (md, url)
    methodology = (built_site.site / "methodology" / "index.html.md").read_text(encoding="utf-8")
    assert fmt.money(project.catalog.assumptions.engineer_week_usd.value) in methodology
    home = (built_site.site / "index.html.md").read_text(encoding="utf-8")
    assert home.startswith("# ")


def test_contributed_text_stays_text_in_the_published_files(untrusted_site: BuiltSite):
    from site_support import UNTRUSTED_ID, untrusted_scenario

    site = untrusted_site.site
    listed = (site / "llms.txt").read_text(encoding="utf-8")
    full = (site / "llms-full.txt").read_text(encoding="utf-8")
    page = (site / "scenarios" / UNTRUSTED_ID / "index.html.md").read_text(encoding="utf-8")
    assert not re.search(r"(?<!\\)<", listed)  # llms.txt has no HTML of its own: every '<' is a contributor's, escaped
    for text in (listed, full, page):
        # No tag forms from a contributor's text, and no link: in what a reader of the Markdown reads as
        # Markdown (every block but those a tag opens, which run to the next blank line), each '[' and
        # ']' of it is escaped.
        assert not re.search(r"(?<!\\)<(script>window|img src=x|/script>(?!\\)<script)", text)
        for block in re.split(r"\n[ \t]*\n", text):
            if not block.lstrip().startswith("<"):
                assert not re.search(r"(?<!\\)\]\(javascript:", block), block
    assert "Hostile \\<script\\>window.\\_\\_pwned=1\\</script\\>" in listed  # kept, as text
    # The result keeps every string as it was written, JSON-escaped.
    result = json.loads((site / "scenarios" / UNTRUSTED_ID / "result.json").read_text(encoding="utf-8"))
    assert result["title"] == untrusted_scenario()["title"]
    for folder in (site / "embed").glob(f"{UNTRUSTED_ID}-*"):
        meta = json.loads((folder / f"{folder.name}.metadata.json").read_text(encoding="utf-8"))
        assert untrusted_scenario()["title"] in meta["title"]
