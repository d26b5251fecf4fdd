"""The build cache wrapped around the loading pipeline (`generator.inputs.loader`): it answers for
every file whose bytes it has seen, and hands the pipeline only the rest.

Two layers of answers, cheapest first:
- in this process (`mkdocs serve` loads the project again on every save): the catalog last read from
  the same bytes of data/, and each scenario's result evaluated against them;
- on disk (`KnownScenarios`): data/ and the scenarios that validated before, which skip parsing with
  positions, most of what loading a thousand unchanged files costs; they are still evaluated, but
  their robustness and thresholds only when a page is rendered afresh.

Any doubt (a name data/ no longer knows, a verdict off the file's `expect`, a damaged entry) sends the
file down the whole pipeline, which locates every problem.

The build cache wrapped around that pipeline (its `load_project` hands the loader's a
`CachedLoading` as its `Answers`): the catalog and the results this process already has for the same
bytes, then the scenarios that validated before; only the rest goes down the pipeline.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from generator.inputs import loader
from generator.inputs.datafiles import read_catalog
from generator.inputs.loader import Loaded, Project, Source
from generator.model import catalog as cat
from generator.model.resolve import check_references
from generator.model.results import ScenarioResult
from generator.store.validation_cache import KnownScenarios


def load_project(
    root: Path, paths: Iterable[str] = (), data_dir: Path | None = None, *, check_expect: bool = True,
    known: KnownScenarios,
) -> Project:
    """`loader.load_project`, the build cache answering for every file whose bytes it has seen."""
    return loader.load_project(root, paths, data_dir, check_expect=check_expect, answers=CachedLoading(known))


class CachedLoading:
    """The build cache as the `loader.Answers` the pipeline asks."""

    def __init__(self, known: KnownScenarios):
        self.known = known

    def reads(self) -> dict[str, tuple]:
        return self.known.memo("reads")

    def keep_reads(self, now: dict[str, tuple]) -> None:
        self.known.carry("reads", now)

    def catalog(self, data_dir: Path, shown_dir: str, raws: dict[str, bytes | None]) -> tuple[cat.Catalog, dict[str, str]]:
        """`datafiles.read_catalog`, answered from this process or the disk when data/ holds the same
        bytes as when it last validated."""
        key = (str(data_dir), shown_dir, tuple((n, None if r is None else hashlib.sha256(r).hexdigest()) for n, r in raws.items()))
        last: dict[tuple, tuple[cat.Catalog, dict[str, str]]] = self.known.memo("catalog")
        read = last.get(key)
        if read is None:
            # A catalog is only stored once every file parsed: its digests are those of the key.
            catalog = self.known.catalog(repr(key[1:]))
            if catalog is not None:
                read = catalog, {f"{shown_dir}/{name}": digest for name, digest in key[2] if digest is not None}
        if read is None:
            read = read_catalog(data_dir, shown_dir, raws)
            self.known.put_catalog(repr(key[1:]), read[0])
        last.clear()
        last[key] = read
        return read[0], dict(read[1])

    def _evaluated(self, data_key: str) -> dict[tuple[str, str, bool], ScenarioResult]:
        """This process's results evaluated against the data/ named by data_key; those against any
        other data/ are let go."""
        memo = self.known.memo("evaluated")
        if data_key not in memo:
            memo.clear()
            memo[data_key] = {}
        return memo[data_key]

    def recall(self, source: Source, catalog: cat.Catalog, check_expect: bool) -> ScenarioResult | None:
        """The file's result from a scenario validated before, or None where the pipeline must run."""
        if not source.well_named:
            return None
        scenario = self.known.get(source.raw)
        if scenario is None or next(iter(check_references(scenario.workloads, catalog)), None) is not None:
            return None
        # A scenario that validated before most often has a stored page too, which needs neither
        # its robustness nor its thresholds.
        result = loader.evaluate(source, scenario, catalog, now=False)
        if check_expect and not result.matches_expectation:
            return None  # the pipeline locates the problem
        return result

    def run_all(self, sources: list[Source], catalog: cat.Catalog, check_expect: bool, data_key: str) -> list[Loaded]:
        """`loader.run_all`, with what is known answered here and the rest remembered."""
        evaluated = self._evaluated(data_key)
        out: list[Loaded | None] = []
        for source in sources:
            key = (source.shown, source.digest, check_expect)
            result = evaluated.get(key)
            if result is None:
                result = self.recall(source, catalog, check_expect)
                if result is not None:
                    evaluated[key] = result
            out.append(result)
        todo = [s for s, one in zip(sources, out, strict=True) if one is None]
        ran = iter(loader.run_all(todo, catalog, check_expect))
        for i, (source, one) in enumerate(zip(sources, out, strict=True)):
            if one is not None:
                continue
            one = out[i] = next(ran)
            if not isinstance(one, list):
                self.known.put(source.raw, one.scenario)
                evaluated[(source.shown, source.digest, check_expect)] = one
        return out  # type: ignore[return-value]
