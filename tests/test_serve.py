"""`mkdocs serve` as a contributor runs it: it starts from what `mkdocs build` cached, what the
generator makes carries the published site URL, not the dev server's address, and under `--dirty`
a saved scenario is served again with the rest of the site, and its search index, intact."""

from __future__ import annotations

import html
import json
import os
import re
import time
import urllib.request
from pathlib import Path

import pytest
from site_support import READY, Served, build_into, run_mkdocs_build, site_hashes

pytestmark = pytest.mark.slow  # runs mkdocs serve and builds


def test_serve_after_a_build_renders_no_chart_image_again(two_scenario_project: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    built = run_mkdocs_build(two_scenario_project, tmp_path / "site", cache=cache)
    assert built.returncode == 0, built.stderr
    rendered = int(re.search(r"embed images: (\d+) charts rendered", built.stderr)[1])
    assert rendered > 0  # the build started with an empty cache
    served = Served(two_scenario_project, cache)
    try:
        m = served.wait_for(re.compile(r"embed images: (\d+) charts rendered, (\d+) from the cache"))
        assert (int(m[1]), int(m[2])) == (0, rendered)
        # The theme's file of every scenario page, though the dev server's address is in each page's
        # canonical link.
        assert served.wait_for(re.compile(r"guide: (\d+) page files from the cache"))[1] == str(len(scenarios(two_scenario_project)))
        base = served.wait_for(READY)[1]
        # Started before the server answers, not by the first save, which would wait for them.
        started = served.wait_for(re.compile(r"guide: image workers started for the next save"))
        serving = next(i for i, line in enumerate(served.lines) if READY.search(line))
        assert any(started[0] in line for line in served.lines[:serving]), "".join(served.lines)
        scenario = scenarios(two_scenario_project)[0]
        with urllib.request.urlopen(f"{base}scenarios/{scenario}/", timeout=30) as r:
            page = r.read().decode("utf-8")
    finally:
        served.stop()
    assert re.findall(r'<link rel="canonical" href="([^"]*)"', page) == [f"{base}scenarios/{scenario}/"]
    published = re.search(r"^site_url: *(\S+)", (two_scenario_project / "mkdocs.yml").read_text(encoding="utf-8"), re.M)[1]
    # The embed snippets a reader copies point where the site is published, in the preview too.
    snippets = re.findall(r'<details class="guide-embed".*?</details>', page, re.S)
    assert snippets
    for snippet in snippets:
        shown = html.unescape(snippet)
        assert f'<iframe src="{published}embed/' in shown and "127.0.0.1" not in shown


def test_a_build_after_serve_writes_the_files_serve_stored_and_is_what_a_cold_build_makes(two_scenario_project: Path, tmp_path: Path, seed_cache):
    cache = seed_cache(tmp_path / "cache")
    served = Served(two_scenario_project, cache)
    try:
        base = served.wait_for(READY)[1]
        assert served.wait_for(re.compile(r"guide: (\d+) page files from the cache"))[1] == "0"
        with urllib.request.urlopen(f"{base}scenarios/{scenarios(two_scenario_project)[0]}/", timeout=30) as r:
            assert f'<link rel="canonical" href="{base}scenarios/' in r.read().decode("utf-8")
    finally:
        served.stop()
    warm = build_into(two_scenario_project, tmp_path / "after-serve", cache)
    assert re.search(r"guide: (\d+) page files from the cache", warm.stderr)[1] == str(len(scenarios(two_scenario_project)))
    build_into(two_scenario_project, tmp_path / "cold", seed_cache(tmp_path / "another-cache"))
    assert site_hashes(tmp_path / "after-serve") == site_hashes(tmp_path / "cold")


def test_serve_stopped_by_sigterm_leaves_no_site_folder_behind(two_scenario_project: Path, tmp_path: Path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_IMAGES": "0", "TMPDIR": str(temp)}
    served = Served(two_scenario_project, tmp_path / "cache", env=env)
    try:
        served.wait_for(READY)
        assert [p.name[:7] for p in temp.iterdir()] == ["mkdocs_"]  # the folder it serves from
    finally:
        served.stop()  # SIGTERM
    assert served.proc.returncode == 0, "".join(served.lines)
    assert list(temp.iterdir()) == []


def scenarios(root: Path) -> list[str]:
    return [p.stem for p in sorted((root / "scenarios").glob("*.yaml"))]


def poll(url: str, done, timeout: float = 300) -> str:
    """The body at url once done(body) holds, fetched again until it does."""
    deadline = time.monotonic() + timeout
    body = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                body = r.read().decode("utf-8")
        except OSError:
            body = ""
        if done(body):
            return body
        time.sleep(0.1)
    raise AssertionError(f"{url} never got there; last body starts {body[:300]!r}")


def test_a_saved_scenario_under_serve_dirty_is_served_with_the_rest_of_the_site_intact(two_scenario_project: Path, tmp_path: Path, seed_cache):
    cache = seed_cache(tmp_path / "cache")
    paths = sorted((two_scenario_project / "scenarios").glob("*.yaml"))
    edited, other = paths[0], paths[1]
    served = Served(two_scenario_project, cache, "--dirty")
    try:
        base = served.wait_for(READY)[1]
        # The system's notices are on: they tell of the save below before MkDocs' poll would find it.
        served.wait_for(re.compile(r"guide: watching scenarios/, data/ by the system's change notices"))
        page = f"{base}scenarios/{edited.stem}/"
        poll(page, lambda body: "Embed this chart" in body)
        index_url = f"{base}search/search_index.json"
        before = json.loads(poll(index_url, bool))["docs"]
        text = edited.read_text(encoding="utf-8")
        # The title, which a one-workload scenario's chart and embed files carry, and the first workload's
        # name, which names its section on the page.
        text = re.sub(r'^(title:\s*["\']?)', r"\g<1>Saved again: ", text, count=1, flags=re.M)
        text = re.sub(r'^(  - name:\s*["\']?)', r"\g<1>renamed ", text, count=1, flags=re.M)
        edited.write_text(text, encoding="utf-8")
        shown = poll(page, lambda body: "Saved again: " in body)
        assert "Embed this chart" in shown
        chart = f"{edited.stem}-1-cumulative"
        assert f'data-embed="{chart}"' in shown
        embed_page = poll(f"{base}embed/{chart}/", lambda body: "Saved again: " in body)
        svg = poll(f"{base}embed/{chart}/{chart}.svg", lambda body: "Saved again: " in body)
        # The search index is written last: once it has the new title, the rebuild is over.
        after = json.loads(poll(index_url, lambda body: "Saved again: " in body))["docs"]
        scenarios = poll(f"{base}scenarios/", lambda body: "Saved again: " in body)
        calculator = poll(f"{base}calculator/", lambda body: "Saved again: " in body)
        # Written once saves pause (after_reload), before the next save is built.
        llms_full = poll(f"{base}llms-full.txt", lambda body: "Saved again: " in body)
        gallery = poll(f"{base}embed/index.html.md", lambda body: "Saved again: " in body)
    finally:
        served.stop()
    assert f'href="{edited.stem}/"' in scenarios and f'href="{other.stem}/"' in scenarios
    assert "Saved again: " in calculator  # its presets bake in every scenario's title
    assert f"/scenarios/{edited.stem}/" in llms_full and "Cumulative cost: Saved again: " in gallery
    # The new chart's files, linked in its folder.
    assert "Cumulative cost: Saved again: " in embed_page and "Cumulative cost: Saved again: " in svg
    # Each page once in the index, as a build from scratch lists it: the edited page with its new
    # title (and its renamed workload's section), every other page as it was but those that list
    # the edited scenario or its chart.
    locations = [d["location"] for d in after]
    section = re.compile(rf"^(scenarios/{re.escape(edited.stem)}/#workload-1-)")
    assert sorted(locations) == sorted(section.sub(r"\g<1>renamed-", d["location"]) for d in before)
    first = {d["location"]: d for d in after}[f"scenarios/{edited.stem}/"]
    assert first["title"].startswith("Saved again: ")
    unchanged = [d for d in before if not d["location"].startswith(("scenarios/", "calculator/", "embed/"))]
    assert unchanged and all(d in after for d in unchanged)


def test_under_serve_the_cache_records_its_files_digests_once_the_server_is_idle(two_scenario_project: Path, tmp_path: Path, seed_cache):
    cache = seed_cache(tmp_path / "cache")
    built = run_mkdocs_build(two_scenario_project, tmp_path / "site", cache=cache)
    assert built.returncode == 0, built.stderr
    (cache / "digests.json").unlink(missing_ok=True)  # a cold build records none: its files are too new to trust by their stat
    served = Served(two_scenario_project, cache, "--dirty")
    try:
        served.wait_for(READY)
        deadline = time.monotonic() + 120
        while not (cache / "digests.json").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        # Written between saves, while the server runs: not only when it stops.
        assert (cache / "digests.json").exists()
    finally:
        served.stop()


def test_under_serve_dirty_a_page_a_failed_build_wrote_is_written_again_when_its_scenario_goes_back(two_scenario_project: Path, tmp_path: Path,
                                                                                                    seed_cache):
    # A hook fails the build at the scenarios index, which MkDocs writes after the scenario pages,
    # while a file outside the watched folders says so.
    failing = tmp_path / "fail-the-build"
    (two_scenario_project / "failing_hook.py").write_text(
        "from pathlib import Path\n\n\n"
        "def on_post_page(output, page, config):\n"
        f"    if page.file.src_uri == 'scenarios/index.md' and Path({str(failing)!r}).exists():\n"
        "        raise RuntimeError('this build fails after the scenario pages')\n"
        "    return output\n", encoding="utf-8")
    config = two_scenario_project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "\nhooks:\n  - failing_hook.py\n", encoding="utf-8")
    edited = sorted((two_scenario_project / "scenarios").glob("*.yaml"))[0]
    assert edited.stem < "index"  # its page is written before the index's
    original = edited.read_text(encoding="utf-8")
    served = Served(two_scenario_project, seed_cache(tmp_path / "cache"), "--dirty")
    try:
        base = served.wait_for(READY)[1]
        page = f"{base}scenarios/{edited.stem}/"
        poll(page, lambda body: "Embed this chart" in body)
        failing.touch()
        edited.write_text(re.sub(r'^(title:\s*["\']?)', r"\g<1>Failed save: ", original, count=1, flags=re.M), encoding="utf-8")
        # The edited page is written before the build fails; the server answers nothing until a
        # build succeeds.
        served.wait_for(re.compile("this build fails after the scenario pages"))
        failing.unlink()
        edited.write_text(original, encoding="utf-8")  # back to what the last finished build wrote
        shown = poll(page, lambda body: "Failed save: " not in body, timeout=120)
    finally:
        served.stop()
    assert "Embed this chart" in shown


def test_under_serve_dirty_an_unchanged_stored_page_is_handed_over_as_the_last_build_made_it(two_scenario_project: Path, tmp_path: Path, monkeypatch):
    # MkDocs' serve, in this process: one configuration per save, the plugin kept between them.
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from generator.plugin.incremental import reuse as incremental

    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GUIDE_IMAGES", "0")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795000000")  # the day MkDocs dates each page with
    monkeypatch.chdir(two_scenario_project)
    made: list[str] = []

    class Counted(incremental.StoredPage):
        def __init__(self, f, *args, **kwargs):
            made.append(f.src_uri)
            super().__init__(f, *args, **kwargs)

    monkeypatch.setattr(incremental, "StoredPage", Counted)
    site = tmp_path / "site"
    started = []

    def save() -> list[str]:
        made.clear()
        config = load_config("mkdocs.yml", site_dir=str(site))
        if not started:
            config.plugins.on_startup(command="serve", dirty=True)
            started.append(config)
        config.site_url = "http://127.0.0.1:8000/guide/"  # as serve sets it
        build(config, serve_url=config.site_url, dirty=True)
        return sorted(made)

    edited, other = (f"scenarios/{name}.md" for name in scenarios(two_scenario_project))
    try:
        save()  # converts each page: none is stored yet
        assert save() == [edited, other]  # each stored page made once
        before = site_hashes(site)
        assert save() == []  # and handed over as it was
        assert site_hashes(site) == before
        path = two_scenario_project / "scenarios" / f"{scenarios(two_scenario_project)[0]}.yaml"
        path.write_text(re.sub(r'^(title:\s*["\']?)', r"\g<1>Saved again: ", path.read_text(encoding="utf-8"),
                               count=1, flags=re.M), encoding="utf-8")
        first_label = nav_label((site / "index.html").read_text(encoding="utf-8"), "contributing/")
        assert first_label == "Contributing"  # its heading: the navigation names no title for it
        assert save() == []  # the edited page is converted, the other is as it was
        page = (site / "scenarios" / scenarios(two_scenario_project)[0] / "index.html").read_text(encoding="utf-8")
        assert "Saved again: " in page
        # A page MkDocs did not read again keeps its title in the navigation of the pages it did.
        assert nav_label(page, "../../contributing/") == first_label
        assert save() == [edited]  # the edited page, stored now
        monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795100000")  # a day later: every page is dated anew
        assert save() == [edited, other]
    finally:
        started[0].plugins.on_shutdown()


def nav_label(page: str, href: str) -> str:
    """The text of the navigation's link to href in a page's HTML."""
    m = re.search(rf'<a href="{re.escape(href)}" class="md-nav__link">(.*?)</a>', page, re.S)
    assert m, f"no navigation link to {href}"
    return re.sub(r"<[^>]+>|\s+", " ", m[1]).strip()
