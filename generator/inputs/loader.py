"""Loading a project as a pipeline. Each step takes what the one before returned:

1. read: the bytes of data/ and of each scenario file (`read_sources`), read once, so what is
   parsed is what is evaluated and its hash is what the build cache keys on;
2. validate: parse with positions, check limits, the schema and the names data/ must know
   (`validate`), every problem located;
3. resolve and evaluate: the model's work (`evaluate`);
4. check the expectation: a verdict off the file's `expect` is a located problem.

Every problem in every file is collected before anything stops. The build cache is not part of the
pipeline: `generator.inputs.cached_loading` wraps it and answers what it already knows. Never writes
into scenarios/ or data/.

Loading as a pipeline, each step taking what the one before returned: read the bytes
(`read_sources`), validate (`validate`), resolve and evaluate (`evaluate`), check the expectation;
every problem in every file collected before anything stops. One workload alone
(`data/reference.yaml`, or one `guide mcp` is handed as JSON) is checked as a scenario's are
(`validate_workload`). A layer wrapped around it answers in its place through `Answers`; the loader
imports nothing of the cache. Never writes into `scenarios/` or `data/`.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Protocol

from pydantic import ValidationError

from generator.inputs.datafiles import load_catalog, read_catalog, read_data
from generator.inputs.limits import limit_problems
from generator.inputs.pool import map_shared
from generator.inputs.problems import InputError, Problem, describe, dotted
from generator.inputs.validation import validate_doc
from generator.inputs.yamlread import Document, parse, read, read_bytes, strings
from generator.model import catalog as cat
from generator.model import quoting
from generator.model.resolve import check_references
from generator.model.results import ScenarioResult, WorkloadResult, evaluate_scenario, evaluate_workload, mismatch_message
from generator.model.schema import MODELINE, Compute, Scenario, Workload
from generator.store.cachefile import RACY_NS

# Names other modules import from here: the loader is where a caller starts.
__all__ = ["Answers", "InputError", "Problem", "Project", "Source", "load_catalog", "load_project", "load_scenario",
           "read", "scenario_files", "shown_path", "validate_workload", "workload_document"]

SCENARIO_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
REFERENCE = "reference.yaml"
# What `guide new-scenario` writes where only the contributor knows the value. A placeholder is
# reported as such, in place of whatever else its field would be blamed for, and it is reported even
# where it would pass as text (a title), so a half-filled file never validates.
PLACEHOLDER = "FILL-IN"
# Scenario files to validate before a second process pays for its start, which costs about as much
# as parsing a couple of hundred files (benchmarks/README.md, "Figures behind design choices").
# Below it, or on one core, everything is validated here.
PARALLEL_AT = 200


@dataclass(frozen=True)
class Source:
    """One scenario file as read: what every later step works from."""

    path: Path
    shown: str  # its path as problems and pages name it
    raw: bytes

    @functools.cached_property
    def digest(self) -> str:
        """The sha256 of its bytes: the key of every cache entry made from it, and asked for several
        times a load."""
        return sha256(self.raw)

    @property
    def well_named(self) -> bool:
        """Named as a scenario page's address can be, and opening with the schema modeline: the two
        checks a known text skips parsing for."""
        first = self.raw.removeprefix(b"\xef\xbb\xbf").partition(b"\n")[0].strip()
        return _page_name(self.path) and first == MODELINE.encode()


def _page_name(path: Path) -> bool:
    """Whether a scenario file's name can be its page's address."""
    return bool(SCENARIO_ID.match(path.stem)) and path.suffix == ".yaml"


# A file's outcome: its evaluated result, or every problem found in it.
Loaded = ScenarioResult | list[Problem]


def sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


# Step 1: read.

def scenario_files(root: Path, paths: Iterable[str] = ()) -> list[Path]:
    chosen: list[Path] = []
    for p in paths or [str(root / "scenarios")]:
        pp = Path(p)
        if pp.is_dir():
            chosen.extend(sorted(pp.glob("*.yaml")))
        else:
            chosen.append(pp)
    return chosen


def shown_path(path: Path, root: Path) -> str:
    return _shown(path, path.resolve(), root.resolve())


def _shown(path: Path, resolved: Path, root_resolved: Path) -> str:
    try:
        return resolved.relative_to(root_resolved).as_posix()
    except ValueError:
        return path.as_posix()


class Answers(Protocol):
    """What a layer wrapped around the pipeline answers in its place; the pipeline asks, never knows
    where the answers come from."""

    def reads(self) -> dict[str, tuple]:
        """What the last `read_sources` of this process kept, by path."""
        ...

    def keep_reads(self, now: dict[str, tuple]) -> None:
        """What this `read_sources` read, for the next."""
        ...

    def catalog(self, data_dir: Path, shown_dir: str, raws: dict[str, bytes | None]) -> tuple[cat.Catalog, dict[str, str]]:
        """`datafiles.read_catalog`, or what stands for it."""
        ...

    def run_all(self, sources: list[Source], catalog: cat.Catalog, check_expect: bool, data_key: str) -> list[Loaded]:
        """`run_all`, or what stands for it."""
        ...


def read_sources(root: Path, paths: Iterable[str], data_dir: Path, answers: Answers | None = None) -> list[Source | list[Problem]]:
    """The chosen scenario files (all of scenarios/ by default) as read, or why one could not be;
    files inside data_dir are data, not scenarios, and are left out.

    answers: with them, what the last call of this process read is given back for each file whose stat
    is what it was (`mkdocs serve` reads every scenario again on each save, three thousand files at
    a time). A file modified within RACY_NS of its reading may change again within the same
    tick of the file system's clock, its stat unchanged: it is read afresh every time."""
    data_resolved, root_resolved = data_dir.resolve(), root.resolve()
    out: list[Source | list[Problem]] = []
    last: dict[str, tuple] = answers.reads() if answers is not None else {}
    now: dict[str, tuple] = {}  # what this call read, for the next
    for path in scenario_files(root, paths):
        try:
            st = os.stat(path)
        except OSError:
            st = None
        identity = None if st is None else (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        seen = last.get(str(path)) if identity is not None else None
        if seen is not None and seen[0] == identity:
            now[str(path)] = seen
            if seen[1] is not None:
                out.append(seen[1])
            continue
        resolved = path.resolve()
        if resolved.parent == data_resolved:
            now[str(path)] = (identity, None)
            continue
        shown = _shown(path, resolved, root_resolved)
        if st is None and not path.exists():
            out.append([Problem(shown, 1, 1, "(file)", f"no such file (got {shown})")])
            continue
        try:
            source = Source(path, shown, read_bytes(path, shown))
        except InputError as e:
            out.append(e.problems)
            continue
        out.append(source)
        if identity is not None and time.time_ns() - identity[3] >= RACY_NS:
            now[str(path)] = (identity, source)
    if answers is not None:
        answers.keep_reads(now)
    return out


# Step 2: validate.

def _references_of_invalid(doc: Document, catalog: cat.Catalog) -> list[Problem]:
    """Instance, region and option names in a scenario that failed validation elsewhere: each side
    that validates on its own is checked, so one pass reports a typo there too."""
    problems = []
    workloads = doc.data.get("workloads")
    for i, w in enumerate(workloads if isinstance(workloads, list) else []):
        if not isinstance(w, dict):
            continue
        for side in ("trainium", "gpu"):
            try:
                compute = Compute.model_validate(w.get(side))
            except ValidationError:
                continue  # already reported by validation
            probe = SimpleNamespace(trainium=compute, gpu=compute)
            for loc, msg in check_references((probe,), catalog):  # type: ignore[arg-type]
                if loc[2] == side:
                    problems.append(doc.problem(("workloads", i) + loc[2:], msg))
    return problems


def _with_placeholders(doc: Document, problems: list[Problem]) -> list[Problem]:
    holes = {dotted(loc): loc for loc, text in strings(doc.data) if text.strip() == PLACEHOLDER}
    if not holes:
        return problems
    kept = [p for p in problems if not (p.path == doc.path and p.field in holes)]
    return kept + [doc.problem(loc, f"placeholder from guide new-scenario; write your value here (got '{PLACEHOLDER}')")
                   for loc in holes.values()]


def validate(source: Source, catalog: cat.Catalog) -> tuple[Scenario, Document]:
    """The scenario the file holds, and the parsed document that locates its fields; InputError with
    every problem found in the file."""
    path, shown = source.path, source.shown
    problems = []
    if not _page_name(path):
        problems.append(Problem(shown, 1, 1, "(file)", f"file name must be lower-case letters, digits and dashes, ending .yaml (got '{path.name}')"))
    try:
        doc = parse(source.raw, shown)
    except InputError as e:
        raise InputError(problems + e.problems) from None
    first = doc.text.splitlines()[0] if doc.text else ""
    if first.strip() != MODELINE:
        problems.append(Problem(shown, 1, 1, "(file)", f"the first line must be the schema modeline '{MODELINE}' (got {describe(first)})"))
    problems += limit_problems(doc)
    try:
        scenario = validate_doc(doc, Scenario)
    except InputError as e:
        raise InputError(_with_placeholders(doc, problems + e.problems + _references_of_invalid(doc, catalog))) from None
    for loc, msg in check_references(scenario.workloads, catalog):
        problems.append(doc.problem(loc, msg))
    problems += [doc.problem(("notes",), msg) for msg in quoting.problems(scenario.notes, catalog)]
    problems = _with_placeholders(doc, problems)
    if problems:
        raise InputError(problems)
    return scenario, doc


# Step 3: resolve and evaluate.

def evaluate(source: Source, scenario: Scenario, catalog: cat.Catalog, *, now: bool = True) -> ScenarioResult:
    """now=False: robustness and thresholds are worked out when a page first reads them
    (`results.WorkloadResult`)."""
    return evaluate_scenario(source.path.stem, source.shown, scenario, catalog, now=now)


# Step 4: check the expectation.

def expectation_problems(result: ScenarioResult, doc: Document) -> list[Problem]:
    if result.matches_expectation:
        return []
    return [doc.problem(("expect",), mismatch_message(result) + f" (got '{result.scenario.expect}')")]


def run(source: Source, catalog: cat.Catalog, check_expect: bool) -> Loaded:
    """Every step after reading, on one file: its result, or every problem found in it."""
    try:
        scenario, doc = validate(source, catalog)
    except InputError as e:
        return e.problems
    result = evaluate(source, scenario, catalog)
    problems = expectation_problems(result, doc) if check_expect else []
    return problems or result


def _run_some(sources: list[Source], catalog: cat.Catalog, check_expect: bool) -> list[Loaded]:
    return [run(s, catalog, check_expect) for s in sources]


def run_all(sources: list[Source], catalog: cat.Catalog, check_expect: bool) -> list[Loaded]:
    """`run` on each file, in order. Parsing YAML with positions is slow and every file is separate
    work, so many files are shared out between processes."""
    if len(sources) < PARALLEL_AT or (os.cpu_count() or 1) < 2:
        return _run_some(sources, catalog, check_expect)
    return map_shared(_run_some, sources, catalog, check_expect)


# The pipeline.

@dataclass(frozen=True)
class Project:
    catalog: cat.Catalog
    results: tuple[ScenarioResult, ...]
    # data/reference.yaml evaluated: the example the hand-written pages quote and the calculator starts from.
    reference: WorkloadResult
    # sha256 of the bytes each file was parsed from, by its shown path (data/ files and scenarios):
    # what the build cache keys on, so no later read of a file can disagree with what was evaluated.
    digests: dict[str, str] = field(default_factory=dict, compare=False)
    data_key: str = field(default="", compare=False)  # a hash of data/'s bytes, all of them: what every result depends on besides its file


def load_scenario(path: Path, shown: str, catalog: cat.Catalog, *, check_expect: bool = True) -> ScenarioResult:
    """Validate and evaluate one scenario. With check_expect=False a verdict that differs from the
    file's `expect` is not a problem (`guide diff` reports it instead of stopping)."""
    loaded = run(Source(path, shown, read_bytes(path, shown)), catalog, check_expect)
    if isinstance(loaded, list):
        raise InputError(loaded)
    return loaded


def load_project(
    root: Path, paths: Iterable[str] = (), data_dir: Path | None = None, *, check_expect: bool = True,
    answers: Answers | None = None,
) -> Project:
    """Load data/ and the chosen scenarios (all of scenarios/ by default); all problems at once.
    check_expect=False accepts verdicts that differ from their `expect` (see load_scenario). With
    `answers`, what they already know is taken from them (`cached_loading` gives the build cache's)."""
    data_dir = data_dir or root / "data"
    shown_dir = shown_path(data_dir, root)
    cached = answers
    raws = read_data(data_dir)
    catalog, digests = cached.catalog(data_dir, shown_dir, raws) if cached else read_catalog(data_dir, shown_dir, raws)
    problems: list[Problem] = []
    reference = None
    try:
        reference, digests[f"{shown_dir}/{REFERENCE}"] = load_reference(data_dir, shown_dir, catalog)
    except InputError as e:
        problems.extend(e.problems)
    # What every evaluation depends on besides its own file: the bytes of data/.
    data_key = sha256(repr(sorted(digests.items())).encode())
    read_ = read_sources(root, paths, data_dir, answers)
    sources = [s for s in read_ if isinstance(s, Source)]
    for s in sources:
        digests[s.shown] = s.digest
    if cached and reference is not None:
        loaded = cached.run_all(sources, catalog, check_expect, data_key)
    else:
        loaded = run_all(sources, catalog, check_expect)
    outcomes = iter(loaded)
    results = []
    for one in read_:
        out = next(outcomes) if isinstance(one, Source) else one
        if isinstance(out, list):
            problems.extend(out)
        else:
            results.append(out)
    if problems:
        raise InputError(problems)
    assert reference is not None
    return Project(catalog, tuple(results), reference, digests, data_key)


def load_reference(data_dir: Path, shown_dir: str, catalog: cat.Catalog) -> tuple[WorkloadResult, str]:
    """data/reference.yaml, a workload in the scenario format, validated, checked against the catalog
    and evaluated like any scenario's; with the sha256 of the bytes parsed."""
    shown = f"{shown_dir}/{REFERENCE}"
    path = data_dir / REFERENCE
    if not path.exists():
        raise InputError([Problem(shown, 1, 1, "(file)", f"required data file is missing (got no {REFERENCE} in {shown_dir}/)")])
    raw = read_bytes(path, shown)
    workload = validate_workload(parse(raw, shown), catalog)
    return evaluate_workload(workload, catalog), sha256(raw)


def validate_workload(doc: Document, catalog: cat.Catalog) -> Workload:
    """One workload as a scenario writes it (data/reference.yaml, or one handed to `guide mcp`),
    checked as a scenario's workloads are: limits and characters, the schema, the names data/ must
    know; InputError with every problem found."""
    problems = limit_problems(doc)
    try:
        workload = validate_doc(doc, Workload)
    except InputError as e:
        raise InputError(problems + e.problems) from None
    # check_references locates by scenario path; the document is one workload, so drop ("workloads", 0).
    problems += [doc.problem(loc[2:], msg) for loc, msg in check_references((workload,), catalog)]
    if problems:
        raise InputError(problems)
    return workload


def workload_document(data: object, shown: str) -> Document:
    """A workload that arrived as plain data (JSON), as a document whose problems name `shown` and
    the field, without lines: there is no file to point into."""
    return Document(shown, "", data)
