"""What a price refresh does to `scenarios/`: the `expect` of each scenario whose verdict the new data moves
(each scenario read once and evaluated on the catalogs before and after), and the notes that quote a figure that
moved, for a person to reread (each with the digest of its text, which `guide reread` checks until a person has
edited it or marked it as reread).

A refresh that moves a verdict would otherwise fail `guide validate` on that scenario's `expect`. The new
verdict is the engine's, on the refreshed data; the file is edited in ruamel's round-trip mode, so everything
else in it (comments, folded notes, layout) stays as written. Notes are not rewritten: they argue in words, and
only a person can say whether the argument still holds. A price a note quotes by name (`{price:...}`,
generator/model/quoting.py) follows the data by itself and is not listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from generator.commands.import_prices import round_trip, yaml_number, yaml_text
from generator.inputs.loader import Source, read_sources, run_all
from generator.inputs.problems import InputError, Problem
from generator.inputs.reread import digest, prose
from generator.model.catalog import Catalog
from generator.model.results import ScenarioResult


@dataclass(frozen=True)
class Flip:
    path: str  # as shown, e.g. scenarios/x.yaml
    before: str
    after: str
    prose: str = ""  # the digest of the scenario's prose (generator/inputs/reread.py)


@dataclass(frozen=True)
class Quote:
    path: str
    field: str  # e.g. notes, workloads.0.rationale.gpu
    figure: str
    excerpt: str
    prose: str = ""  # the digest of the field's text


@dataclass
class Followed:
    texts: dict[str, str] = field(default_factory=dict)  # file name under scenarios/ -> new text
    flips: list[Flip] = field(default_factory=list)
    quotes: list[Quote] = field(default_factory=list)


def _figure_pattern(value: float) -> re.Pattern[str]:
    return re.compile(rf"(?<![\d.]){re.escape(yaml_number(value))}(?![\d])")


def _sentence(flat: str, at: int) -> str:
    """The sentence of flat (one line of text) around position at."""
    stop = flat.rfind(". ", 0, at)
    start = stop + 2 if stop >= 0 else 0
    end = flat.find(". ", at)
    return flat[start: end + 1 if end >= 0 else len(flat)].strip()


def follow(root: Path, data_dir: Path, before: Catalog, after: Catalog, moved: Iterable[float]) -> Followed:
    """The scenario files to rewrite so that their `expect` is the verdict on the new data (`after`,
    the catalog of data/ as the refresh would leave it), and the prose that quotes any of the moved
    figures (the values before a move). Raises InputError when a scenario does not load."""
    out = Followed()
    if not (root / "scenarios").is_dir():
        return out
    read_ = read_sources(root, (), data_dir)
    sources = [s for s in read_ if isinstance(s, Source)]
    was, now = _results(read_, sources, before), _results([], sources, after)
    y = round_trip()
    patterns = {yaml_number(v): _figure_pattern(v) for v in moved}
    for source, old, new in zip(sources, was, now, strict=True):
        expect = new.scenario.expect
        flips = new.verdict != expect and old.verdict == expect
        flat = " ".join(source.raw.decode("utf-8-sig").split())
        # Most files quote no moved figure anywhere: those are not parsed again for their prose.
        if not flips and not any(pattern.search(flat) for pattern in patterns.values()):
            continue
        data = y.load(source.raw.decode("utf-8-sig"))
        if flips:
            data["expect"] = new.verdict
            out.texts[source.path.name] = yaml_text(y, data)
            out.flips.append(Flip(new.path, expect, new.verdict, digest(data)))
        for where, text in prose(data):
            flat = " ".join(text.split())
            for figure, pattern in patterns.items():
                if (m := pattern.search(flat)) is not None:
                    out.quotes.append(Quote(new.path, where, figure, _sentence(flat, m.start()), digest(data, where)))
    return out


def _results(read_: list[Source | list[Problem]], sources: list[Source], catalog: Catalog) -> list[ScenarioResult]:
    """Each scenario evaluated on the catalog, its `expect` aside; InputError with what could not
    be read (read_) or does not load."""
    loaded = run_all(sources, catalog, check_expect=False)
    problems = [p for one in [*read_, *loaded] if isinstance(one, list) for p in one]
    if problems:
        raise InputError(problems)
    return [r for r in loaded if isinstance(r, ScenarioResult)]
