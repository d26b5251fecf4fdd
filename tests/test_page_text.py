"""Text around the figures: a source a scenario names is a link to its entry, a note reads as a
sentence before the next one, and a legend for "none" appears only where "none" is shown."""

from __future__ import annotations

import re

import pytest

from generator.inputs.loader import load_project
from generator.rendering.pages.renderer import Renderer
from generator.rendering.pages.escaping import linked_sources, sentence, source_pattern
from core_support import REPO

KEYS = ["SEED-002", "SEED-001", "VAN", "AWS-PRICE-LIST-2025-11"]
NORMAL = {re.sub(r"[-\s]+", "", k).lower(): k for k in KEYS}


def link(text: str) -> str:
    return str(linked_sources(text, source_pattern(KEYS), NORMAL, "../../"))


@pytest.mark.parametrize(("text", "linked"), [
    ('situation "a one-off run" (seed 002)', ["seed 002"]),
    ("Reported case in SEED-001 (as reported)", ["SEED&#45;001"]),
    ("prices from VAN and aws price list 2025 11", ["VAN", "aws price list 2025 11"]),
    ("caravan, van der Berg, SEED-0021, xSEED-002", []),
])
def test_a_named_source_links_to_its_entry(text: str, linked: list[str]):
    out = link(text)
    assert re.findall(r'<a href="\.\./\.\./sources/#[a-z0-9-]+">(.*?)</a>', out) == linked
    targets = re.findall(r'href="\.\./\.\./sources/#([a-z0-9-]+)"', out)
    assert all(t in {k.lower() for k in KEYS} for t in targets)


def test_the_rest_of_the_text_stays_inert():
    out = link('<img src=x onerror=alert(1)> [x](javascript:1) SEED-002 "quoted"')
    assert "<img" not in out and "](" not in out and '"quoted"' not in out
    assert out.count("<a ") == 1


@pytest.mark.parametrize(("text", "read"), [
    ("37.76 in other regions", "37.76 in other regions."),
    ("labelled an estimate by its source.", "labelled an estimate by its source."),
    ("  why? ", "why?"),
    ("", ""),
])
def test_a_note_closes_as_a_sentence(text: str, read: str):
    assert sentence(text) == read


@pytest.fixture(scope="module")
def live_pages():
    project = load_project(REPO)
    r = Renderer(project)
    return [(res, r.scenario_page(res)) for res in project.results]


def test_the_none_legend_only_where_none_is_shown(live_pages):
    # Structure, not figures: whichever scenarios have a threshold that does not exist.
    for res, page in live_pages:
        line = next(ln for ln in page.splitlines() if ln.startswith("<p>Where both sides cost the same"))
        shown = re.sub(r"<[^>]+>", "", line)
        assert ('"none": no value of that input makes the costs equal.' in shown) == bool(
            re.search(r"(throughput|runs|effort|price) none\b", shown)), res.id
        assert "None" not in shown, res.id


def test_scenario_sources_link_to_the_sources_page(live_pages):
    keys = {k.lower() for k in load_project(REPO).catalog.sources}
    targets = []
    for res, page in live_pages:
        block = page.split('<ul class="guide-sources">', 1)[1].split("</ul>", 1)[0]
        targets += [(res.id, t) for t in re.findall(r'href="\.\./\.\./sources/#([^"]+)"', block)]
    assert targets, "no scenario's sources name a source of data/sources.yaml"
    assert [(rid, t) for rid, t in targets if t not in keys] == []


def test_a_trainium_side_pinned_to_an_older_neuron_release_says_so_beside_the_verdict():
    from core_support import FROZEN

    project = load_project(FROZEN)
    renderer = Renderer(project)
    keys = {k.lower() for k in project.catalog.sources}
    seen = set()
    for res in project.results:
        page = renderer.scenario_page(res)
        box = page.split('<div class="guide-verdict', 1)[1].split("</div>", 1)[0]
        pins = re.findall(r'<p class="guide-neuron-pin" data-neuron-pin="([^"]+)">(.*?)</p>', box)
        generations = [project.catalog.instances[w.workload.trainium.instance].chip for w in res.workloads]
        assert len(pins) == generations.count("trainium1"), res.id
        for where, text in pins:
            seen.add(where.split(":")[0])
            assert where.endswith(":2.28.0") and "<strong>Pinned to Neuron 2.28.0.</strong> PyTorch training on" in text
            assert "released 2026-02-26" in text and "Sources: " in text
            assert {t for t in re.findall(r'href="\.\./\.\./sources/#([^"]+)"', text)} <= keys
    assert seen == {"trn1.32xlarge", "trn1n.32xlarge"}  # both Trainium1 instances the frozen scenarios name
