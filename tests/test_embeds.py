"""Every chart travels: embed/<id>/ holds an iframe page, SVG and PNG in light and dark, the spec
and the data, all carrying the title, the source, the as-of date and a link back."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import re
import shutil
import stat
import subprocess
import xml.etree.ElementTree as ET
from concurrent.futures import ProcessPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_support import UNTRUSTED_ID, BuiltSite, copy_project, run_mkdocs_build
import vl_convert as vlc

from generator.rendering.embeds import folders as embeds
from generator.store.cachefile import Cache
from generator.rendering.embeds.folders import EXPORT_WIDTH, file_names
from generator.rendering.charts.images import PNG_SCALE, _only_bundled_fonts, png_width
from generator.rendering.pages.renderer import Renderer

SVG_NS = "{http://www.w3.org/2000/svg}"


def chart_ids(site: Path) -> list[str]:
    """Every chart drawn on any page of the site, from the pages themselves."""
    ids = set()
    for page in site.rglob("index.html"):
        if "embed" in page.relative_to(site).parts[:1]:
            continue
        ids.update(re.findall(r'class="guide-chart__view" data-chart="([^"]+)"', page.read_text(encoding="utf-8")))
    return sorted(ids)


def svg_text(path: Path) -> str:
    root = ET.parse(path).getroot()  # raises if the SVG does not parse
    assert root.tag == SVG_NS + "svg"
    # Multi-line titles put each line in a <tspan>, so read every text node under each <text>.
    return " ".join("".join(t.itertext()) for t in root.iter(SVG_NS + "text"))


def test_every_chart_has_its_files(built_site: BuiltSite, project):
    ids = chart_ids(built_site.site)
    site_wide = {"decision-map", "decision-map-porting", "reference-breakdown", "reference-sensitivity", "price-performance"}
    per_workload = {f"{r.id}-{i + 1}-cumulative" for r in project.results for i in range(len(r.workloads))}
    assert set(ids) == site_wide | per_workload
    for cid in ids:
        folder = built_site.site / "embed" / cid
        names = file_names(cid)
        # A narrow image is a scenario chart's alone (embeds.NARROW_KINDS).
        narrow = {names["svg-narrow"], names["svg-narrow-dark"]}
        for name in [*names.values(), "index.html"]:
            assert (folder / name).is_file() == (cid in per_workload or name not in narrow), f"{cid}: {name}"


def test_a_web_server_may_read_every_embed_file_as_it_reads_the_pages(built_site: BuiltSite):
    """Embed files are linked from the cache; a server reading the site as another user needs them
    readable as the pages MkDocs writes are (the mode a new file gets under the build's umask)."""
    site = built_site.site
    (page_mode,) = {stat.S_IMODE(p.stat().st_mode) for p in site.rglob("*.html") if not p.is_relative_to(site / "embed")}
    embedded = {p.relative_to(site).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in (site / "embed").rglob("*") if p.is_file()}
    assert len(embedded) > 20
    # Each scenario's result and Markdown are linked from the cache the same way.
    for name in ("result.json", "index.html.md"):
        linked = {p.relative_to(site).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in (site / "scenarios").glob(f"*/{name}")}
        assert len(linked) == len(list((site / "scenarios").glob("*/index.html")))
        embedded.update(linked)
    assert {path: oct(mode) for path, mode in embedded.items() if mode != page_mode} == {}


def test_a_text_an_older_build_stored_for_its_owner_alone_is_stored_again(tmp_path: Path):
    cache = Cache(tmp_path)
    known: embeds.Stored = {}
    files = embeds.ChartFiles("x", {"embed/x/x.csv": "a,b\n1,2\n"}, None, "")
    first = embeds._stored(cache, files, "embed/x/x.csv", {}, known)
    first.chmod(0o600)
    # As the next build of the same process finds it, whose texts it knows: the file is checked again.
    again = embeds._stored(cache, files, "embed/x/x.csv", known, {})
    assert again == first and again.read_text(encoding="utf-8") == "a,b\n1,2\n"
    assert stat.S_IMODE(again.stat().st_mode) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_images_carry_title_source_and_date_at_the_stated_width(built_site: BuiltSite):
    for cid in chart_ids(built_site.site):
        folder = built_site.site / "embed" / cid
        names = file_names(cid)
        spec = json.loads((folder / names["json"]).read_text(encoding="utf-8"))
        # A long title is set on several lines: each is a text element of the image.
        title = spec["title"]["text"]
        assert isinstance(title, list) and all(len(line) <= 75 or " " not in line for line in title), (cid, title)
        as_of = re.search(r"as of (\d{4}-\d{2}-\d{2})", " ".join(spec["title"]["subtitle"])).group(1)
        for key in ("svg", "svg-dark"):
            root = ET.parse(folder / names[key]).getroot()
            assert root.get("width") == str(EXPORT_WIDTH), (cid, key)
            text = svg_text(folder / names[key])
            assert all(line in text for line in title) and "Source:" in text and as_of in text and "From the guide:" in text, (cid, key)
        for key in ("png", "png-dark"):
            assert png_width((folder / names[key]).read_bytes()) == EXPORT_WIDTH * PNG_SCALE, (cid, key)
        assert spec["width"] == EXPORT_WIDTH
        assert '"url"' not in json.dumps(spec)  # inline data only: nothing to fetch


def test_csv_holds_the_data_drawn(built_site: BuiltSite):
    for cid in chart_ids(built_site.site):
        folder = built_site.site / "embed" / cid
        names = file_names(cid)
        spec = json.loads((folder / names["json"]).read_text(encoding="utf-8"))
        rows = list(csv.DictReader(io.StringIO((folder / names["csv"]).read_text(encoding="utf-8"))))
        assert len(rows) == len(spec["datasets"]["rows"]), cid
        first = spec["datasets"]["rows"][0]
        assert set(rows[0]) <= set(first), cid


def test_embed_pages_link_back_and_use_the_sites_own_bundle(built_site: BuiltSite):
    for cid in chart_ids(built_site.site):
        html = (built_site.site / "embed" / cid / "index.html").read_text(encoding="utf-8")
        assert '<script src="../../assets/charts.js"></script>' in html
        assert re.search(r'href="https://[^"]+" target="_top">See it in the guide', html), cid
        assert not re.search(r'(src|href)="(https?:)?//(?!trainium-or-gpu\.github\.io)', html.replace('target="_top"', "")), cid
        if "-1-" in cid:
            assert "calculator/?from=" in html, cid


def test_each_chart_on_the_site_offers_its_snippets(built_site: BuiltSite):
    page = (built_site.site / "scenarios" / "one-off-run" / "index.html").read_text(encoding="utf-8")
    assert page.count('class="guide-embed"') == page.count('class="guide-chart__view"') >= 1
    assert "&lt;iframe src=&#34;https://trainium-or-gpu.github.io/guide/embed/one-off-run-1-cumulative/&#34;" in page
    assert 'download>PNG (1280 px)</a>' in page
    gallery = (built_site.site / "embed" / "index.html").read_text(encoding="utf-8")
    for cid in chart_ids(built_site.site):
        assert f'data-embed="{cid}"' in gallery, cid


@pytest.mark.slow
def test_a_second_build_renders_no_image_and_a_broken_cache_only_costs_time(tmp_path: Path):
    root = copy_project(tmp_path / "project")
    shutil.rmtree(root / ".cache", ignore_errors=True)
    # Fewer scenarios keep three cold builds quick; the prose links to the two reported cases.
    keep = {"case-continuous-pretraining-trn1n.yaml", "case-series-a-startup.yaml"}
    for extra in (root / "scenarios").glob("*.yaml"):
        if extra.name not in keep:
            extra.unlink()
    cache = tmp_path / "cache"
    first = run_mkdocs_build(root, tmp_path / "one", cache=cache)
    assert first.returncode == 0, first.stderr
    rendered = int(re.search(r"embed images: (\d+) charts rendered, (\d+) from the cache", first.stderr).group(1))
    assert rendered > 0
    second = run_mkdocs_build(root, tmp_path / "two", cache=cache)
    assert re.search(r"embed images: 0 charts rendered, (\d+) from the cache", second.stderr), second.stderr
    # Corrupt one chart's entry and delete another's: both are rendered again, the build still passes.
    entries = sorted(p for p in (cache / "embeds").glob("*.svg") if ".dark." not in p.name)
    entries[0].write_text("not an svg")
    entries[1].unlink()
    third = run_mkdocs_build(root, tmp_path / "three", cache=cache)
    assert third.returncode == 0, third.stderr
    assert "embed images: 2 charts rendered" in third.stderr


@pytest.mark.slow
def test_only_a_change_to_the_image_code_renders_the_images_again(two_scenario_project: Path, tmp_path: Path, seed_cache):
    root = two_scenario_project
    # The first build's images may come from anywhere: what counts is what each change makes again.
    cache = seed_cache(tmp_path / "cache")
    first = run_mkdocs_build(root, tmp_path / "one", cache=cache)
    assert first.returncode == 0, first.stderr
    charts = sum(map(int, re.search(r"embed images: (\d+) charts rendered, (\d+) from the cache", first.stderr).groups()))
    # How embed pages are made and linked is not how images are drawn.
    with open(root / "generator" / "rendering" / "embeds" / "folders.py", "a", encoding="utf-8") as f:
        f.write("\n# a change to embed pages or links\n")
    second = run_mkdocs_build(root, tmp_path / "two", cache=cache)
    assert f"embed images: 0 charts rendered, {charts} from the cache" in second.stderr, second.stderr
    with open(root / "generator" / "rendering" / "charts" / "images.py", "a", encoding="utf-8") as f:
        f.write("\n# a change to how images are drawn\n")
    third = run_mkdocs_build(root, tmp_path / "three", cache=cache)
    assert f"embed images: {charts} charts rendered, 0 from the cache" in third.stderr, third.stderr


def test_contributed_title_is_inert_in_svg_and_embed_page(untrusted_site: BuiltSite):
    folders = sorted((untrusted_site.site / "embed").glob(f"{UNTRUSTED_ID}-*"))
    assert folders
    for folder in folders:
        for svg in folder.glob("*.svg"):
            root = ET.parse(svg).getroot()
            assert not [el for el in root.iter() if el.tag.endswith("script") or el.tag.endswith("foreignObject")], svg
            assert not any(k.lower().startswith("on") for el in root.iter() for k in el.attrib), svg
        tags = Tags()
        tags.feed((folder / "index.html").read_text(encoding="utf-8"))
        assert [t for t, _ in tags.seen if t == "script"] == ["script", "script"]  # the bundle and the loader
        assert not [(t, a) for t, attrs in tags.seen for a, _ in attrs if a.lower().startswith("on")]
        assert not [t for t, _ in tags.seen if t == "img" and dict(_).get("src") == "x"]


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.seen: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.seen.append((tag, attrs))


def test_every_embed_page_draws_inside_an_iframe(browser, serve, built_site: BuiltSite, tmp_path: Path):
    site = serve(built_site.site)
    ids = chart_ids(built_site.site)
    host = tmp_path / "host"
    host.mkdir()
    pages = [ids[i:i + 12] for i in range(0, len(ids), 12)]
    for n, group in enumerate(pages):
        frames = "".join(
            f'<iframe id="f{k}" src="{site}embed/{cid}/" title="{cid}" width="700" height="460"></iframe>'
            for k, cid in enumerate(group)
        )
        (host / f"{n}.html").write_text(f"<!doctype html><title>host</title><link rel=icon href='data:,'>{frames}", encoding="utf-8")
    base = serve(host)
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: problems.append(r.url) if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None)
    try:
        for n, group in enumerate(pages):
            page.goto(f"{base}{n}.html")
            for k, cid in enumerate(group):
                frame = page.frame_locator(f"#f{k}")
                # The static image shows until the reader points at the chart; then the live one.
                frame.locator("#chart > img").wait_for()
                frame.locator("#chart").hover()
                frame.locator("#chart[data-drawn] svg .mark-rect, #chart[data-drawn] svg .mark-line, #chart[data-drawn] svg .mark-symbol").first.wait_for()
    finally:
        page.close()
    assert not problems, problems


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_embed_page_paints_its_image_and_loads_the_runtime_only_when_reached(theme: str, browser, served_site: str):
    context = browser.new_context(color_scheme=theme)
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    try:
        # ?theme=auto: the reader's own scheme, which the frame follows only when the embedding page asks.
        page.goto(served_site + "embed/one-off-run-1-cumulative/?theme=auto", wait_until="networkidle")
        image = page.locator("#chart > img")
        assert image.evaluate("i => i.complete && i.naturalWidth > 0")
        assert image.get_attribute("src") == ("one-off-run-1-cumulative-dark.svg" if theme == "dark" else "one-off-run-1-cumulative.svg")
        assert not [u for u in requested if u.endswith("/vendor/vega.js")]
        page.focus("#chart")  # the keyboard reaches it as well as the pointer
        page.locator("#chart[data-drawn] svg").wait_for()
        assert page.get_attribute("#chart", "data-theme") == theme
        assert [u for u in requested if u.endswith("/vendor/vega.js")]
        assert page.locator("#chart svg .mark-line").count() > 0
    finally:
        context.close()


def test_copy_button_copies_the_snippet(browser, served_site: str):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        page.goto(served_site + "scenarios/one-off-run/")
        page.locator("details.guide-embed summary").first.click()
        page.locator("details.guide-embed button.guide-copy").first.click()
        copied = page.evaluate("navigator.clipboard.readText()")
        shown = page.locator("details.guide-embed pre code").first.inner_text()
        assert copied == shown
        assert copied.startswith('<iframe src="') and "/embed/one-off-run-1-cumulative/" in copied
    finally:
        context.close()


def test_compiling_each_shape_once_gives_what_compiling_each_chart_gives(project, monkeypatch):
    """compile_vega compiles one skeleton per shape of chart and fills it; the result must be
    exactly what vl-convert makes of the chart itself, for every chart of the site."""
    renderer = Renderer(project, site_url="https://example.org/")
    charts = []
    real = Renderer.register
    monkeypatch.setattr(Renderer, "register", lambda self, c, page, *rest: charts.append(drawn := real(self, c, page, *rest)) or drawn)
    renderer.render()
    assert len(charts) > len(renderer._vega) > 1
    for c in charts:
        for spec in (embeds.site_spec(c), embeds.export_spec(c, renderer.site_url)):
            assert json.loads(embeds.compile_vega(spec, None)) == vlc.vegalite_to_vega(spec), c.id


def test_the_dark_images_restyle_the_light_ones(built_site: BuiltSite):
    """The dark SVG is the light one with a stylesheet of light text and lines added and the white
    background made dark; nothing else may differ."""
    for cid in chart_ids(built_site.site):
        names = file_names(cid)
        light = (built_site.site / "embed" / cid / names["svg"]).read_text(encoding="utf-8")
        dark = (built_site.site / "embed" / cid / names["svg-dark"]).read_text(encoding="utf-8")
        styles = re.findall(r"<style>(.*?)</style>", dark, re.S)
        assert len(styles) == 1 and "<style>" not in light, cid
        assert re.search(r"\.role-title-text text[^{]*\{fill:#fff\}", styles[0]) and ".role-axis-grid line{stroke:#666}" in styles[0], cid
        background = re.search(r"<rect [^>]*/>", dark)[0]
        assert 'fill="#333"' in background and 'fill="white"' in re.search(r"<rect [^>]*/>", light)[0], cid
        restored = re.sub(r"<style>.*?</style>", "", dark, count=1, flags=re.S).replace(background, background.replace('fill="#333"', 'fill="white"'), 1)
        assert restored == light, cid
        assert svg_text(built_site.site / "embed" / cid / names["svg-dark"]) == svg_text(built_site.site / "embed" / cid / names["svg"])


def test_snippets_stay_out_of_the_search_index(built_site: BuiltSite):
    """Every page carries its charts' snippets; searching for a word should find prose, not them."""
    index = json.loads((built_site.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    texts = " ".join(d["text"] for d in index["docs"])
    assert "cumulative cost" in texts.lower()
    assert "iframe src" not in texts and "As an image that links back here" not in texts


def test_the_gallery_is_searched_for_the_charts_of_hand_written_pages_alone(built_site: BuiltSite):
    """A scenario's charts are found on its own page, by its title; the gallery's search entry holds
    the charts no scenario page shows, and none of a scenario's."""
    import html as htmllib

    index = json.loads((built_site.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    gallery = htmllib.unescape(" ".join(d["text"] for d in index["docs"] if d["location"].startswith("embed/")))
    scenario_charts = sorted({cid for page in (built_site.site / "scenarios").glob("*/index.html")
                              for cid in re.findall(r'class="guide-chart__view" data-chart="([^"]+)"', page.read_text(encoding="utf-8"))})
    assert "Every chart in this guide can travel" in gallery
    assert "decision-map-porting" in gallery and "reference-breakdown" in gallery
    assert len(scenario_charts) > 10 and [cid for cid in scenario_charts if f"<code>{cid}</code>" in gallery] == []


def _text_png(family: str) -> bytes:
    return vlc.svg_to_png(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="80" height="30">'
        f'<text x="5" y="20" font-family="{family}" font-size="14">Ag 10</text></svg>'
    )


def _render_texts(families: list[str], initializer=None) -> list[bytes]:
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn, initializer=initializer) as pool:
        return list(pool.map(_text_png, families))


@pytest.mark.slow
def test_image_workers_draw_with_the_bundled_font_whatever_the_machine_has():
    """The images must not depend on the build machine's fonts; see generator/rendering/charts/fonts.conf."""
    listed = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
    machine = sorted({f.split(",")[0].strip() for f in listed.splitlines()} - {""})
    machine = [f for f in machine if not f.startswith("Liberation")]
    if not machine:
        pytest.skip("this machine has no font besides Liberation to hide")
    family = machine[0]
    as_built = _render_texts([family, "no such font", "sans-serif"], _only_bundled_fonts)
    # In an image worker, the machine's font is not there: the text is dropped, like one in a missing font,
    # and sans-serif still draws it.
    assert as_built[0] == as_built[1] != as_built[2], family
    # The same call in a plain process finds the machine's font and draws it.
    plain = _render_texts([family, "no such font"])
    assert plain[0] != plain[1], family


def test_links_made_while_the_pages_are_built_are_in_the_site_and_a_failure_reaches_the_build(tmp_path: Path):
    cached = tmp_path / "cache" / "a.svg"
    cached.parent.mkdir()
    cached.write_text("<svg/>", encoding="utf-8")
    site = tmp_path / "site"
    embeds.link_meanwhile(site, {"embed/a/a.svg": cached, "embed/b/a.svg": cached}).result()
    assert (site / "embed" / "a" / "a.svg").samefile(cached) and (site / "embed" / "b" / "a.svg").samefile(cached)
    # A file where a chart's folder must go: the folder cannot be made, and the future says so.
    (site / "embed" / "c").write_text("in the way", encoding="utf-8")
    with pytest.raises(OSError):
        embeds.link_meanwhile(site, {"embed/c/a.svg": cached}).result()


def test_a_dirty_build_links_only_what_changed_and_leaves_a_settled_link_unlooked_at(tmp_path: Path):
    cached, other = tmp_path / "cache" / "a.svg", tmp_path / "cache" / "b.svg"
    cached.parent.mkdir()
    cached.write_text("<svg/>", encoding="utf-8")
    other.write_text("<svg>b</svg>", encoding="utf-8")
    site = tmp_path / "site"
    first = embeds.link_into(site, {"embed/a/a.svg": cached}, {})
    assert (site / "embed" / "a" / "a.svg").samefile(cached)
    # Gone from the cache since: a link still made to it fails, one settled is left as it is (the
    # site keeps its own link to the checked bytes), and a new path is linked.
    cached.unlink()
    with pytest.raises(FileNotFoundError):
        embeds.link_into(site, {"embed/a/a.svg": cached}, first, settled=lambda p: False)
    again = embeds.link_into(site, {"embed/a/a.svg": cached, "embed/b/b.svg": other}, first, settled=lambda p: p == cached)
    assert again["embed/a/a.svg"] == first["embed/a/a.svg"]
    assert (site / "embed" / "a" / "a.svg").read_text(encoding="utf-8") == "<svg/>"
    assert (site / "embed" / "b" / "b.svg").samefile(other)
    # One the build carried as the last build linked it is left as it is, settled or not.
    carried = embeds.link_into(site, {"embed/a/a.svg": cached}, first, settled=lambda p: False, as_before={"embed/a/a.svg"})
    assert carried == {"embed/a/a.svg": first["embed/a/a.svg"]}


def test_a_link_that_cannot_be_made_fails_the_build_with_a_sentence_naming_the_file(tmp_path: Path):
    from mkdocs.exceptions import Abort

    from generator.plugin.incremental.reuse import Reuse

    plugin = Reuse(serving=False, dirty=False)
    cached = tmp_path / "a.svg"
    cached.write_text("<svg/>", encoding="utf-8")
    site = tmp_path / "site"
    (site / "embed").mkdir(parents=True)
    (site / "embed" / "c").write_text("in the way", encoding="utf-8")
    plugin.linking = embeds.link_meanwhile(site, {"embed/c/a.svg": cached})
    with pytest.raises(Abort, match=r"^Putting the embed files into the site folder failed \(.*embed/c\): "):
        plugin.stop_linking()
    assert plugin.linking is None


def _chart(chart_id: str, data: str) -> embeds.ChartFiles:
    from generator.rendering.charts.images import Job

    return embeds.ChartFiles(chart_id, {f"embed/{chart_id}/{chart_id}.csv": data, f"embed/{chart_id}/index.html": f"<p>{data}</p>"},
                             Job("{}"), "")


def test_under_serve_dirty_an_unchanged_chart_is_linked_as_before_with_none_of_its_files_looked_at(tmp_path: Path, monkeypatch):
    cache = Cache(tmp_path / "cache")  # as `mkdocs serve` keeps it from one build to the next
    same, edited = _chart("same", "a,b\n1,2\n"), _chart("edited", "a,b\n3,4\n")
    for _ in range(2):  # the files the first build writes, the second checks (and knows their digests)
        cache.begin_build()
        _, first, _ = embeds.embed_files([same, edited], cache, None)
    cache.settle(first.values())  # as the plugin settles them once linked into the site
    kept = {path: cached for path, cached in first.items() if path.startswith("embed/same/")}
    looked: list[Path] = []
    real = Cache._linkable_on_disk
    monkeypatch.setattr(Cache, "_linkable_on_disk", lambda self, path, *sums: looked.append(path) or real(self, path, *sums))
    # The next save: `same` is the very object its scenario's stored entry gives back; `edited` is new.
    edited_again = _chart("edited", "a,b\n5,6\n")
    cache.begin_build()
    _, again, as_before = embeds.embed_files([same, edited_again], cache, None)
    assert {path: cached for path, cached in again.items() if path.startswith("embed/same/")} == kept
    assert as_before == {path: str(cached.absolute()) for path, cached in kept.items()}  # to link and settle as they were
    assert looked and set(looked).isdisjoint(kept.values())  # the new chart's files alone are looked at
    assert (tmp_path / "cache" / "embeds" / "texts").exists()
    assert {str(p.absolute()) for p in kept.values()} <= cache.used()  # and the bound keeps them
    assert again["embed/edited/edited.csv"].read_text(encoding="utf-8") == "a,b\n5,6\n"
    # Once nothing is settled (a failed build settles nothing), each file is checked again.
    cache.settle(())
    looked.clear()
    cache.begin_build()
    embeds.embed_files([same, edited_again], cache, None)
    assert set(kept.values()) <= set(looked)


def test_under_serve_dirty_a_settled_stored_text_is_whole_without_a_look_at_its_file(tmp_path: Path, monkeypatch):
    # What a scenario's stored entry names (`scenario_cache.get` asks after each on every save).
    cache = Cache(tmp_path / "cache")
    for _ in range(2):
        cache.begin_build()
        _, first, _ = embeds.embed_files([_chart("same", "a,b\n1,2\n")], cache, None)
    text = embeds.stored_text("embed/same/same.csv", "a,b\n1,2\n")
    assert text.file(cache) == first["embed/same/same.csv"]
    looked: list[Path] = []
    real = Cache._linkable_on_disk
    monkeypatch.setattr(Cache, "_linkable_on_disk", lambda self, path, *sums: looked.append(path) or real(self, path, *sums))
    cache.settle(first.values())
    assert text.whole(cache) and looked == []
    # Other bytes under the settled name, and a text once nothing is settled: looked at on disk.
    other = embeds.StoredText(text.suffix, text.size + 1, text.sha256)
    assert not other.whole(cache) and looked == [text.file(cache)]
    cache.settle(())
    assert text.whole(cache) and looked == [text.file(cache)] * 2


def test_after_a_build_that_checked_a_chart_an_equal_one_read_back_from_its_entry_is_carried(tmp_path: Path, monkeypatch):
    # `mkdocs serve`'s first save finds the charts its first build rendered in the entries that build
    # stored: equal, not the same objects.
    cache = Cache(tmp_path / "cache")
    rendered = _chart("same", "a,b\n1,2\n")
    for _ in range(2):
        cache.begin_build()
        _, first, _ = embeds.embed_files([rendered], cache, None)
    cache.settle(first.values())
    looked: list[Path] = []
    real = Cache._linkable_on_disk
    monkeypatch.setattr(Cache, "_linkable_on_disk", lambda self, path, *sums: looked.append(path) or real(self, path, *sums))
    read_back = _chart("same", "a,b\n1,2\n")
    assert read_back == rendered and read_back is not rendered
    cache.begin_build()
    _, again, as_before = embeds.embed_files([read_back], cache, None)
    assert again == first and set(as_before) == set(first)
    assert looked == []
    # Under the same id with other content, it is checked and linked anew.
    cache.begin_build()
    _, changed, as_before = embeds.embed_files([_chart("same", "a,b\n9,9\n")], cache, None)
    assert as_before == {} and looked
    assert changed["embed/same/same.csv"].read_text(encoding="utf-8") == "a,b\n9,9\n"


def _snippet(page, served_site: str, url: str, chart: str, n: int) -> str:
    page.goto(served_site + url)
    return page.evaluate("([chart, n]) => document.querySelectorAll(`details.guide-embed[data-embed='${chart}'] pre code`)[n].textContent",
                         [chart, n])


# The smallest text an SVG image shows on screen, in CSS px: its smallest font size, scaled as drawn.
SMALLEST_IMAGE_TEXT = """async () => {
  const img = document.images[0];
  const doc = new DOMParser().parseFromString(await (await fetch(img.currentSrc)).text(), 'image/svg+xml');
  const sizes = [...doc.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size'))).filter(n => n > 0);
  return {src: img.currentSrc, px: Math.min(...sizes) * img.getBoundingClientRect().width / parseFloat(doc.documentElement.getAttribute('width'))};
}"""


def test_the_image_snippet_stays_legible_in_a_320_px_column(browser, served_site: str):
    chart = "one-off-run-1-cumulative"
    context = browser.new_context(viewport={"width": 320, "height": 700}, is_mobile=True)
    try:
        page = context.new_page()
        snippet = _snippet(page, served_site, "scenarios/one-off-run/", chart, 1)
        page.set_content(f'<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head>'
                         f'<body style="margin:0">{snippet}</body></html>', wait_until="load")
        page.wait_for_function("() => document.images[0].complete && document.images[0].naturalWidth > 0")
        shown = page.evaluate(SMALLEST_IMAGE_TEXT)
        # The narrow image, as the chart's own page shows a phone, its text at the guide's 9 px or more.
        assert shown["src"].endswith("-narrow.svg") and shown["px"] >= 9, shown
    finally:
        context.close()


@pytest.mark.parametrize("chart,url", [("one-off-run-1-cumulative", "scenarios/one-off-run/"), ("reference-sensitivity", "methodology/")])
def test_an_iframe_at_its_natural_width_holds_its_chart_and_caption_without_an_empty_band(chart: str, url: str, browser, served_site: str):
    context = browser.new_context(viewport={"width": 700, "height": 900})
    try:
        page = context.new_page()
        snippet = _snippet(page, served_site, url, chart, 0)
        page.set_content(f"<!doctype html><body style='margin:0'>{snippet}</body>", wait_until="load")
        frame = page.frame_locator("iframe")
        frame.locator("figcaption").wait_for()
        height = page.evaluate("() => document.querySelector('iframe').getBoundingClientRect().height")
        inner = frame.locator("body").evaluate("b => [document.documentElement.scrollHeight, document.querySelector('figcaption').getBoundingClientRect().bottom]")
        assert inner[0] <= height, (inner, height)  # all of it shows, nothing to scroll
        assert height - inner[1] < 40, (inner, height)  # and no band of nothing under the caption
    finally:
        context.close()


def test_a_frame_stays_light_in_a_page_for_a_reader_in_dark_mode_unless_asked(browser, served_site: str):
    context = browser.new_context(color_scheme="dark")
    try:
        page = context.new_page()
        base = served_site + "embed/one-off-run-1-cumulative/"
        for query, theme in (("", "light"), ("?theme=dark", "dark"), ("?theme=auto", "dark"), ("?theme=light", "light")):
            page.goto(base + query, wait_until="load")
            assert page.get_attribute("body", "data-theme") == theme, query
            assert page.locator("#chart > img").get_attribute("src").endswith("-dark.svg") == (theme == "dark"), query
        # The gallery tells a blogger how to ask for the dark frame.
        page.goto(served_site + "embed/")
        text = page.locator("article").inner_text()
        assert "?theme=dark" in text and "?theme=auto" in text
    finally:
        context.close()


def test_a_scenario_pages_card_says_whether_its_verdict_holds_and_names_the_site(browser, served_site: str, project):
    context = browser.new_context()
    try:
        page = context.new_page()
        for r in project.results:
            page.goto(served_site + f"scenarios/{r.id}/")
            alt = page.get_attribute('meta[property="og:image:alt"]', "content")
            badge = page.inner_text(".guide-verdict .guide-badge")
            assert alt.startswith(f"Verdict: {page.inner_text('.guide-verdict__label strong')}. {badge[:1].upper()}{badge[1:]}. "), alt
            assert f"Trainium or GPU? · {r.scenario.title}" in alt, alt
    finally:
        context.close()
