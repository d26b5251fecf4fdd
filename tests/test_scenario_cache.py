"""Scenario pages remembered from an earlier build come back exactly as rendering them again would
give; anything they are made from, changed, renders them afresh; a damaged entry is never served."""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
from pathlib import Path

import pytest
from site_support import leave_out_of_entry_names, pretend_upgraded

from generator.store import registry
from generator.store.cachefile import Cache
from generator.inputs.loader import load_project
from generator.rendering.embeds import folders as embeds
from generator.rendering.pages.scenario_cache import RenderedScenarios
from generator.rendering.pages.renderer import Renderer, Site

pytestmark = pytest.mark.slow  # renders the frozen project again and again

REPO = Path(__file__).resolve().parents[1]
DAY = dt.date(2026, 11, 21)
URL = "https://example.org/guide/"
DATA_FILES = ("sources.yaml", "chips.yaml", "instances.yaml", "prices.yaml", "assumptions.yaml", "neuron.yaml")


def render_held(root: Path, cache: Path | Cache, url: str = URL, day: dt.date = DAY, project=None) -> tuple[Site, Cache]:
    """Render with the cache (a folder, as a new process finds it, or the Cache of a process that
    rendered before) as a build does: the text files of every chart and scenario go to the cache's
    texts store (embeds.embed_files), where the entries name them."""
    project = project or load_project(root)
    cache = cache if isinstance(cache, Cache) else Cache(cache)
    site = Renderer(project, site_url=url, today=day, rendered=RenderedScenarios(cache, project, url, day)).render()
    return stored_as_built(site, cache), cache


def stored_as_built(site: Site, cache: Cache) -> Site:
    """The site, its text files put in the cache's texts store as a build puts them (embeds.embed_files):
    an entry is served only with every text file it names whole there."""
    embeds.embed_files([*site.embeds, *(p.files for p in site.published)], cache, None)
    return site


def _read_back(files: embeds.ChartFiles, cache: Cache) -> embeds.ChartFiles:
    texts = {path: text if isinstance(text, str) else text.file(cache).read_text(encoding="utf-8")
             for path, text in files.texts.items()}
    return dataclasses.replace(files, texts=texts)


def render(root: Path, cache: Path | Cache, url: str = URL, day: dt.date = DAY, project=None) -> Site:
    """render_held, with the texts of files that came from entries read back from the store."""
    site, cache = render_held(root, cache, url, day, project)
    return dataclasses.replace(site, embeds=[_read_back(f, cache) for f in site.embeds],
                               published=[dataclasses.replace(p, files=_read_back(p.files, cache)) for p in site.published])


def first_scenario(root: Path) -> Path:
    return sorted((root / "scenarios").glob("*.yaml"))[0]


def retitle(path: Path, prefix: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert 'title: "' in text
    path.write_text(text.replace('title: "', f'title: "{prefix}', 1), encoding="utf-8")


def test_a_second_render_from_the_cache_gives_the_same_pages_charts_and_embed_files(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    cache = Cache(tmp_path / "cache")
    first = render(frozen_inputs, cache)
    entries = sorted(cache.folder("rendered").glob("*.json"))
    assert len(entries) == len(list((frozen_inputs / "scenarios").glob("*.yaml")))
    rendered_pages: list[str] = []
    real = Renderer.scenario_page
    monkeypatch.setattr(Renderer, "scenario_page", lambda self, r: rendered_pages.append(r.id) or real(self, r))
    held, _ = render_held(frozen_inputs, cache)
    assert rendered_pages == []  # every scenario page came from the cache
    # ... with its text files where the first build stored them: none of their texts is held.
    assert {type(t) for p in held.published for t in p.files.texts.values()} == {embeds.StoredText}
    stored_charts = [f for f in held.embeds if {type(t) for t in f.texts.values()} == {embeds.StoredText}]
    assert len(stored_charts) >= len(entries)  # each scenario's charts; the site's own are drawn every time
    second = render(frozen_inputs, cache)
    assert second.pages == first.pages
    assert second.embeds == first.embeds
    # Each scenario's result and Markdown come from its entry too: a stored result never works out
    # its robustness and thresholds again, and the texts are the ones a fresh render writes.
    assert second.published == first.published and len(first.published) == len(entries)
    assert second.unfurls == first.unfurls  # each card shows its first chart by its stored label
    # An entry edited by hand is not served: that page alone is rendered again, as it should be.
    entries[0].write_bytes(entries[0].read_bytes().replace(b"## Workload 1", b"## (edited) Workload 1", 1))
    third = render(frozen_inputs, cache.directory)  # as the next build, a new process, finds the cache
    assert len(rendered_pages) == 1
    assert third.pages == first.pages
    # So is an entry whose text files are no longer whole in the store: a page comes with them.
    (gone,) = [t for t in held.published[1].files.texts.values() if t.suffix == ".json"]
    gone.file(cache).unlink()
    fourth = render(frozen_inputs, cache.directory)
    assert len(rendered_pages) == 2 and fourth.pages == first.pages and fourth.published == first.published


def test_a_file_saved_between_the_load_and_the_render_never_leaves_a_stale_page(frozen_inputs: Path, tmp_path: Path):
    """`mkdocs serve`: an editor saves a scenario after the loader parsed it but before its page is
    rendered and stored. The page stored is that of the text parsed, under that text's key; the next
    build, which parses the saved text, renders the saved text."""
    cache = tmp_path / "cache"
    scenario = first_scenario(frozen_inputs)
    page = f"scenarios/{scenario.stem}.md"
    before_save = load_project(frozen_inputs)
    retitle(scenario, "Saved meanwhile: ")
    racing = render(frozen_inputs, cache, project=before_save)
    assert "Saved meanwhile" not in racing.pages[page]  # the build in flight shows what it parsed
    after_save = render(frozen_inputs, cache)
    assert after_save.pages[page] == render(frozen_inputs, tmp_path / "fresh").pages[page]
    assert "Saved meanwhile" in after_save.pages[page]


# Each input of the key, and a change to it: the entry of every scenario (or, for "scenario", of the
# changed one) must move.
def _change_scenario(root: Path, monkeypatch) -> dict:
    retitle(first_scenario(root), "Changed: ")
    return {}


def _change_data(name: str):
    def change(root: Path, monkeypatch) -> dict:
        with (root / "data" / name).open("a", encoding="utf-8") as f:
            f.write("\n# a comment changes no number, but the file is part of every key\n")
        return {}
    return change


def _package_copy(root: Path, monkeypatch, edit) -> None:
    package = root / "package"
    shutil.copytree(REPO / "generator", package, ignore=shutil.ignore_patterns("__pycache__"))
    edit(package)
    monkeypatch.setattr(registry, "PACKAGE", package)


def _change_code(root: Path, monkeypatch) -> dict:
    _package_copy(root, monkeypatch, lambda p: (p / "rendering" / "charts" / "specs.py").write_text((p / "rendering" / "charts" / "specs.py").read_text() + "\n# edited\n"))
    return {}


def _change_template(root: Path, monkeypatch) -> dict:
    template = "templates/scenario.md.j2"
    _package_copy(root, monkeypatch, lambda p: (p / template).write_text((p / template).read_text() + "\n"))
    return {}


def _change_library(root: Path, monkeypatch) -> dict:
    pretend_upgraded(monkeypatch, "altair")
    return {}


CHANGES = {
    "scenario": ("scenario", _change_scenario),
    **{f"data/{name}": (f"data:data/{name}", _change_data(name)) for name in DATA_FILES},
    "code": ("code", _change_code),
    "templates": ("code", _change_template),
    "library version": ("libraries", _change_library),
    "site URL": ("site_url", lambda root, mp: {"url": "https://example.com/elsewhere/"}),
    # Embed pages and oEmbed files name the site.
    "site name": ("site_name", lambda root, mp: {"name": "Another guide"}),
    "date": ("day", lambda root, mp: {"day": DAY + dt.timedelta(days=1)}),
    # Without static images, pages and embed files name none.
    "static images": ("static_images", lambda root, mp: {"images": False}),
}


def check_entry_moves(root: Path, tmp_path: Path, monkeypatch, change) -> None:
    project = load_project(root)
    scenario = next(r for r in project.results if r.path == f"scenarios/{first_scenario(root).name}")
    before = RenderedScenarios(Cache(tmp_path), project, URL, DAY, "Trainium or GPU?").entry(scenario)
    args = change(root, monkeypatch)
    project = load_project(root)
    scenario = next(r for r in project.results if r.id == scenario.id)
    after = RenderedScenarios(Cache(tmp_path), project, args.get("url", URL), args.get("day", DAY),
                              args.get("name", "Trainium or GPU?"), static_images=args.get("images", True)).entry(scenario)
    assert after != before, "a changed input left the entry where it was: a stale page would be served"


@pytest.mark.parametrize("name", CHANGES)
def test_a_change_to_any_input_moves_the_entry(frozen_inputs: Path, tmp_path: Path, monkeypatch, name: str):
    check_entry_moves(frozen_inputs, tmp_path, monkeypatch, CHANGES[name][1])


@pytest.mark.parametrize("name", CHANGES)
def test_the_key_test_fails_when_that_input_is_left_out_of_the_key(frozen_inputs: Path, tmp_path: Path, monkeypatch, name: str):
    part, change = CHANGES[name]
    leave_out_of_entry_names(monkeypatch, part)
    with pytest.raises(AssertionError, match="stale page"):
        check_entry_moves(frozen_inputs, tmp_path, monkeypatch, change)


@pytest.mark.parametrize("change", ["scenario", "data", "day", "site_url"])
def test_a_change_to_what_a_page_is_made_from_renders_it_again(frozen_inputs: Path, tmp_path: Path, change: str):
    cache = tmp_path / "cache"
    first = render(frozen_inputs, cache)
    url, day = URL, DAY
    page = f"scenarios/{first_scenario(frozen_inputs).stem}.md"
    if change == "scenario":
        retitle(first_scenario(frozen_inputs), "Changed: ")
    elif change == "data":
        with (frozen_inputs / "data" / "assumptions.yaml").open("a", encoding="utf-8") as f:
            f.write("\n# a comment changes no number, but the file is part of every key\n")
    elif change == "day":
        day = DAY + dt.timedelta(days=400)  # every price is stale by then
    else:
        url = "https://example.com/elsewhere/"
    fresh = render(frozen_inputs, tmp_path / "empty", url, day)
    again = render(frozen_inputs, cache, url, day)
    assert again.pages == fresh.pages
    assert again.embeds == fresh.embeds
    if change != "data":
        assert again.pages[page] != first.pages[page]


@pytest.mark.parametrize("damage", ["empty", "truncated", "not json", "wrong shape", "edited"])
def test_a_damaged_entry_is_rendered_again(frozen_inputs: Path, tmp_path: Path, damage: str):
    cache = tmp_path / "cache"
    first = render(frozen_inputs, cache)
    for entry in sorted((cache / "pages").glob("*.json")):
        raw = entry.read_bytes()
        damaged = {
            "empty": b"",
            "truncated": raw[: len(raw) // 2],
            "not json": b"{",
            "wrong shape": b'{"page": 1}',
            "edited": raw.replace(b"Workload", b"Workl0ad", 1),
        }[damage]
        assert damaged != raw
        entry.write_bytes(damaged)
    assert render(frozen_inputs, cache).pages == first.pages  # as the next build, a new process, finds the cache


def test_a_render_from_the_cache_reads_each_price_to_beat_with_its_page(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    """The Trainium3 page lists every workload's price to beat; a render whose scenario pages come
    from the cache takes them from there instead of solving each again, and says the same."""
    from generator.model import trn3
    from generator.rendering.pages.hand_written import render_markdown_page

    page = (Path(__file__).resolve().parents[1] / "docs" / "trainium3.md").read_text(encoding="utf-8").split("---\n", 2)[2]

    def trn3_page() -> str:
        project = load_project(frozen_inputs)
        cache = Cache(tmp_path / "cache")
        renderer = Renderer(project, site_url=URL, today=DAY, rendered=RenderedScenarios(cache, project, URL, DAY))
        stored_as_built(renderer.render(), cache)
        return render_markdown_page(renderer, page)

    first = trn3_page()
    solved: list[str] = []
    real = trn3.price_to_beat
    monkeypatch.setattr(trn3, "price_to_beat", lambda catalog, w: solved.append(w.workload.name) or real(catalog, w))
    again = trn3_page()  # as the next build, a new process, finds the cache
    assert solved == []
    assert again == first and "scenarios/" in again


def test_a_warm_render_works_out_no_robustness_and_the_faq_counts_the_same(frozen_inputs: Path, tmp_path: Path):
    """A scenario loaded from the validation cache leaves its robustness to be worked out when read,
    and a render whose scenario pages come from the cache never reads it: the FAQ's count of
    scenarios a Trainium price range flips comes from the stored pages, and says the same."""
    from generator.rendering.pages.hand_written import render_markdown_page
    from generator.inputs.cached_loading import load_project as cached_load
    from generator.store.validation_cache import KnownScenarios

    faq = (REPO / "docs" / "faq.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    flips = "moving a Trainium price to one end of the"

    def faq_page():
        cache = Cache(tmp_path / "cache")  # as a new process finds the folder
        project = cached_load(frozen_inputs, known=KnownScenarios(cache))
        renderer = Renderer(project, site_url=URL, today=DAY, rendered=RenderedScenarios(cache, project, URL, DAY))
        stored_as_built(renderer.render(), cache)
        return project, render_markdown_page(renderer, faq)

    _, first = faq_page()
    assert flips in first  # the frozen project holds a scenario such a range flips
    project, again = faq_page()
    assert again == first
    workloads = [w for r in project.results for w in r.workloads]
    assert workloads and not [w for w in workloads if "robustness" in w.__dict__ or "thresholds" in w.__dict__]
    assert all(isinstance(w.robustness.flips_on, tuple) for w in workloads)  # still there when asked for


def test_the_home_charts_are_drawn_once_while_data_stays_and_again_when_it_changes(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    drawn: list[int] = []
    real = Renderer._home_charts
    monkeypatch.setattr(Renderer, "_home_charts", lambda self: drawn.append(1) or real(self))
    cache = Cache(tmp_path / "cache")  # as `mkdocs serve` keeps it from one build to the next

    def build() -> Renderer:
        renderer = Renderer(load_project(frozen_inputs), site_url=URL, today=DAY, cache=cache)
        renderer.render()
        return renderer

    first = build()
    retitle(first_scenario(frozen_inputs), "Saved: ")
    second = build()
    assert len(drawn) == 1
    assert {k: c.vega for k, c in second.home.items()} == {k: c.vega for k, c in first.home.items()}
    reference = frozen_inputs / "data" / "reference.yaml"
    reference.write_text(reference.read_text(encoding="utf-8").replace("runs: 10\n", "runs: 12\n", 1), encoding="utf-8")
    third = build()
    assert len(drawn) == 2
    assert third.home["decision_map"].vega != first.home["decision_map"].vega


def test_a_save_finds_the_reference_evaluated_and_the_schema_page_made(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    from generator.rendering.pages import renderer as rendering

    evaluated: list[int] = []
    schemas: list[int] = []
    real_reference, real_schema = rendering.reference, rendering.json_schema
    monkeypatch.setattr(rendering, "reference", lambda w: evaluated.append(1) or real_reference(w))
    monkeypatch.setattr(rendering, "json_schema", lambda: schemas.append(1) or real_schema())
    cache = Cache(tmp_path / "cache")  # as `mkdocs serve` keeps it from one build to the next

    def build() -> tuple[Renderer, str]:
        renderer = Renderer(load_project(frozen_inputs), site_url=URL, today=DAY, cache=cache)
        site = renderer.render()
        renderer.headline()  # as the hand-written pages ask for it
        return renderer, site.pages["reference/schema.md"]

    first, schema_page = build()
    retitle(first_scenario(frozen_inputs), "Saved: ")
    second, again = build()
    assert (len(evaluated), len(schemas)) == (1, 1)
    assert again == schema_page and "## Workload" in again
    assert second.reference.inputs == first.reference.inputs
    reference = frozen_inputs / "data" / "reference.yaml"
    reference.write_text(reference.read_text(encoding="utf-8").replace("runs: 10\n", "runs: 12\n", 1), encoding="utf-8")
    third, _ = build()
    assert (len(evaluated), len(schemas)) == (2, 1)
    assert third.reference.inputs != first.reference.inputs
