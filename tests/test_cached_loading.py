"""What one process keeps between loads (`mkdocs serve` loads the project on every save): the same
bytes are not parsed or evaluated again, and changed bytes always are."""

from __future__ import annotations

import re
from pathlib import Path


from generator.inputs import datafiles
from generator.inputs import cached_loading, loader
from generator.store.cachefile import Cache
from generator.store.validation_cache import KnownScenarios


def counted(monkeypatch, module, name: str) -> list[int]:
    calls = [0]
    real = getattr(module, name)

    def count(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, count)
    return calls


def test_unchanged_data_and_scenarios_are_not_parsed_or_evaluated_again(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    known = KnownScenarios(Cache(tmp_path / "known"))
    first = cached_loading.load_project(frozen_inputs, known=known)
    parsed = counted(monkeypatch, datafiles, "_read_catalog")
    evaluated = counted(monkeypatch, loader, "evaluate")
    again = cached_loading.load_project(frozen_inputs, known=known)
    assert (parsed[0], evaluated[0]) == (0, 0)
    assert again.results == first.results and again.digests == first.digests


def test_a_changed_price_is_read_and_every_scenario_evaluated_against_it(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    known = KnownScenarios(Cache(tmp_path / "known"))
    first = cached_loading.load_project(frozen_inputs, known=known)
    prices = frozen_inputs / "data" / "prices.yaml"
    text = prices.read_text(encoding="utf-8")
    m = re.search(r"usd_per_hour: (\d+(?:\.\d+)?)", text)
    assert m
    prices.write_text(text[:m.start(1)] + f"{float(m[1]) * 3:.3f}" + text[m.end(1):], encoding="utf-8")
    evaluated = counted(monkeypatch, loader, "evaluate")
    again = cached_loading.load_project(frozen_inputs, known=known)
    assert evaluated[0] == len(first.results)
    assert again.digests["data/prices.yaml"] != first.digests["data/prices.yaml"]
    assert again.catalog.prices != first.catalog.prices


def test_a_saved_scenario_alone_is_evaluated_again(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    known = KnownScenarios(Cache(tmp_path / "known"))
    first = cached_loading.load_project(frozen_inputs, known=known)
    path = sorted((frozen_inputs / "scenarios").glob("*.yaml"))[0]
    path.write_text(path.read_text(encoding="utf-8").replace('title: "', 'title: "Saved: ', 1), encoding="utf-8")
    parsed = counted(monkeypatch, loader, "validate")
    evaluated = counted(monkeypatch, loader, "evaluate")
    again = cached_loading.load_project(frozen_inputs, known=known)
    # Its new bytes are not known to the validation cache: parsed in full, once.
    assert parsed[0] == 1 and evaluated[0] == 1
    changed = [r for r in again.results if r.path == f"scenarios/{path.name}"][0]
    assert changed.scenario.title.startswith("Saved: ")
    assert [r for r in again.results if r is not changed] == [r for r in first.results if r.path != changed.path]
