"""Scenarios remembered from an earlier build load exactly as a full parse does, and any doubt
falls back to the full path with its located problems."""

from __future__ import annotations

import os
import shutil
import types
from pathlib import Path

import pytest

from generator.inputs import datafiles
from generator.inputs import loader
from generator.store.cachefile import Cache
from generator.inputs.cached_loading import load_project
from generator.inputs.loader import InputError
from generator.store.validation_cache import KnownScenarios

REPO = Path(__file__).resolve().parents[1]


def test_a_second_load_uses_the_remembered_scenarios_and_gives_the_same_results(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    full = loader.load_project(frozen_inputs)
    known = KnownScenarios(Cache(tmp_path / "cache"))
    first = load_project(frozen_inputs, known=known)
    remembered = sorted(p for p in known.directory.glob("*.json") if not p.name.startswith("catalog-"))
    assert len(remembered) == len(first.results)
    parsed: list[str] = []
    real = loader.validate
    monkeypatch.setattr(loader, "validate", lambda source, *rest: parsed.append(source.path.name) or real(source, *rest))
    second = load_project(frozen_inputs, known=known)
    assert parsed == []  # every file came from the cache
    assert second.results == first.results == full.results
    # An entry altered by hand is not trusted: that file alone is parsed again, and loads as its text says.
    entry = remembered[0]
    entry.write_bytes(entry.read_bytes().replace(b'"title":"', b'"title":"(cached) ', 1))
    known = KnownScenarios(Cache(tmp_path / "cache"))  # as the next build, a new process, finds the cache
    third = load_project(frozen_inputs, known=known)
    assert len(parsed) == 1
    assert third.results == full.results


def test_a_broken_entry_only_costs_time(frozen_inputs: Path, tmp_path: Path):
    known = KnownScenarios(Cache(tmp_path / "cache"))
    first = load_project(frozen_inputs, known=known)
    for entry in known.directory.glob("*.json"):
        entry.write_text("{not json", encoding="utf-8")
    known = KnownScenarios(Cache(tmp_path / "cache"))  # as the next build, a new process, finds the cache
    assert load_project(frozen_inputs, known=known).results == first.results


def test_a_change_elsewhere_still_gets_its_located_problem(frozen_inputs: Path, tmp_path: Path):
    known = KnownScenarios(Cache(tmp_path / "cache"))
    load_project(frozen_inputs, known=known)
    # The scenario file is unchanged and remembered, but the price it names is gone from data/.
    prices = frozen_inputs / "data" / "prices.yaml"
    text = prices.read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines(keepends=True) if "instance: p4de.24xlarge" not in ln or "on-demand" not in ln]
    assert len(lines) < len(text.splitlines())
    prices.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_project(frozen_inputs, known=known)
    located = [p for p in e.value.problems if p.path.startswith("scenarios/")]
    assert located and all(p.line > 1 for p in located), [str(p) for p in e.value.problems]


@pytest.mark.slow
def test_many_files_are_parsed_in_several_processes_with_the_same_results_and_problems(frozen_inputs: Path, monkeypatch):
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: everything is parsed in one process")

    def load() -> tuple[str, list]:
        try:
            return repr(loader.load_project(frozen_inputs).results), []
        except InputError as e:
            return "", e.problems

    one = load()
    monkeypatch.setattr(loader, "PARALLEL_AT", 1)
    several = load()
    assert several == one and one[0]
    # Broken files among good ones: the same problems, at the same places, in file order.
    for bad in sorted((REPO / "tests" / "malformed" / "scenarios").glob("*.yaml"))[:6]:
        shutil.copy(bad, frozen_inputs / "scenarios" / bad.name)
    broken_several = load()
    monkeypatch.setattr(loader, "PARALLEL_AT", 10_000)
    broken_one = load()
    assert broken_several == broken_one
    assert len({p.path for p in broken_one[1]}) >= 3


def test_data_that_validated_before_is_not_parsed_again_until_a_byte_changes(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    known = KnownScenarios(Cache(tmp_path / "cache"))
    first = load_project(frozen_inputs, known=known)
    parsed: list[str] = []
    real = datafiles._read_catalog
    monkeypatch.setattr(datafiles, "_read_catalog", lambda *a: parsed.append("data") or real(*a))
    known = KnownScenarios(Cache(tmp_path / "cache"))  # as the next build, a new process, finds the cache
    second = load_project(frozen_inputs, known=known)
    assert parsed == []
    assert second.catalog == first.catalog and second.digests == first.digests and second.results == first.results

    # One source's title changed: data/ is parsed again and the catalog says what the file now says.
    key, source = next(iter(first.catalog.sources.items()))
    sources = frozen_inputs / "data" / "sources.yaml"
    text = sources.read_text(encoding="utf-8")
    assert text.count(source.title) == 1
    sources.write_text(text.replace(source.title, source.title + " (edited)"), encoding="utf-8")
    known = KnownScenarios(Cache(tmp_path / "cache"))  # a new process
    third = load_project(frozen_inputs, known=known)
    assert parsed == ["data"]
    assert third.catalog.sources[key].title == source.title + " (edited)"
    assert third.catalog.model_copy(update={"sources": first.catalog.sources}) == first.catalog

    # A damaged entry only costs time.
    for entry in known.directory.glob("catalog-*.json"):
        entry.write_text("{not json", encoding="utf-8")
    known = KnownScenarios(Cache(tmp_path / "cache"))  # a new process
    assert load_project(frozen_inputs, known=known).catalog == third.catalog
    assert parsed == ["data", "data"]


def test_a_later_load_in_the_process_reads_again_only_files_whose_stat_moved_or_that_are_new(frozen_inputs: Path, tmp_path: Path, monkeypatch):
    """`mkdocs serve` loads every scenario on each save: a file whose stat is what it was when read,
    and that was last modified well before, is not read again; a changed file is, and so is one
    modified so lately that a second write could leave its stat as it is."""
    files = sorted((frozen_inputs / "scenarios").glob("*.yaml"))
    assert len(files) >= 3
    an_hour_ago = (os.stat(files[0]).st_mtime_ns // 10**9 - 3600) * 10**9
    for f in files:
        os.utime(f, ns=(an_hour_ago, an_hour_ago))
    fresh = files[2]
    os.utime(fresh, None)  # modified now
    # The loads below happen a second after that write, however long this machine takes to get there.
    just_after = os.stat(fresh).st_mtime_ns + 10**9
    monkeypatch.setattr(loader, "time", types.SimpleNamespace(time_ns=lambda: just_after))
    known = KnownScenarios(Cache(tmp_path / "cache"))
    read: list[str] = []
    real = loader.read_bytes
    scenarios = {f.name for f in files}  # data/reference.yaml is read the same way, every load
    monkeypatch.setattr(loader, "read_bytes", lambda path, shown: path.name in scenarios and read.append(path.name) or real(path, shown))
    first = load_project(frozen_inputs, known=known)
    assert sorted(read) == sorted(f.name for f in files)
    read.clear()
    assert load_project(frozen_inputs, known=known).results == first.results
    assert read == [fresh.name]
    # A changed file is read, and loads as it now reads.
    changed = files[1]
    text = changed.read_text(encoding="utf-8")
    assert 'title: "' in text
    changed.write_text(text.replace('title: "', 'title: "Renamed ', 1), encoding="utf-8")
    os.utime(changed, ns=(an_hour_ago + 10**9, an_hour_ago + 10**9))
    read.clear()
    third = load_project(frozen_inputs, known=known)
    assert sorted(read) == sorted([fresh.name, changed.name])
    assert [r.scenario.title for r in third.results if r.path.endswith(changed.name)][0].startswith("Renamed ")
