"""Loading a project: data/ and the scenarios, validated and evaluated, with every problem in every
file collected before anything stops. Reads each file once: what is parsed is what is evaluated,
and its hash is what the build cache keys on. Never writes into scenarios/ or data/.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from pydantic import ValidationError

from generator.inputs.datafiles import load_catalog, read_catalog
from generator.inputs.limits import limit_problems
from generator.inputs.pool import map_shared
from generator.inputs.problems import InputError, Problem, describe, dotted
from generator.inputs.validation import validate_doc
from generator.inputs.yamlread import Document, parse, read, strings
from generator.model import catalog as cat
from generator.model.resolve import check_references
from generator.model.results import (
    ScenarioResult,
    WorkloadResult,
    evaluate_scenario,
    evaluate_workload,
    mismatch_message,
)
from generator.model.schema import MODELINE, Compute, Scenario, Workload
from generator.store.validation_cache import KnownScenarios

# Names other modules import from here: the loader is where a caller starts.
__all__ = ["InputError", "KnownScenarios", "Problem", "Project", "load_catalog", "load_project", "load_scenario", "read",
           "scenario_files", "shown_path"]

SCENARIO_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
REFERENCE = "reference.yaml"
# What `guide new-scenario` writes where only the contributor knows the value. A placeholder is
# reported as such, in place of whatever else its field would be blamed for, and it is reported even
# where it would pass as text (a title), so a half-filled file never validates.
PLACEHOLDER = "FILL-IN"


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


def sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _read_bytes(path: Path, shown: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise InputError([Problem(shown, 1, 1, "(file)", f"cannot be read: {e.strerror} (got {shown})")]) from None


def _evaluate_known(raw: bytes, path: Path, shown: str, catalog: cat.Catalog, check_expect: bool,
                    known: KnownScenarios) -> ScenarioResult | None:
    if not SCENARIO_ID.match(path.stem) or path.suffix != ".yaml":
        return None
    if raw.removeprefix(b"\xef\xbb\xbf").partition(b"\n")[0].strip() != MODELINE.encode():
        return None
    scenario = known.get(raw)
    if scenario is None or next(iter(check_references(scenario.workloads, catalog)), None) is not None:
        return None
    result = evaluate_scenario(path.stem, shown, scenario, catalog)
    if check_expect and not result.matches_expectation:
        return None
    return result


def _evaluated(known: KnownScenarios) -> dict[str, dict[tuple[str, str, bool], ScenarioResult]]:
    """Scenarios evaluated in this process, for the data/ they were evaluated against: `mkdocs serve`
    loads the project again on every save, and evaluating a thousand unchanged scenarios (ranges,
    thresholds) takes seconds. Keyed by the bytes of the file and of every data/ file."""
    return known.memo("evaluated")


def _remember(known: KnownScenarios, data_key: str, key: tuple[str, str, bool], result: ScenarioResult) -> None:
    evaluated = _evaluated(known)
    if data_key not in evaluated:
        evaluated.clear()  # evaluations against other data/ are not needed again
        evaluated[data_key] = {}
    evaluated[data_key][key] = result


def load_scenario(path: Path, shown: str, catalog: cat.Catalog, *, check_expect: bool = True,
                  known: KnownScenarios | None = None) -> ScenarioResult:
    """Validate and evaluate one scenario. With check_expect=False a verdict that differs from the
    file's `expect` is not a problem (`guide diff` reports it instead of stopping)."""
    raw = _read_bytes(path, shown)
    if known is not None:
        result = _evaluate_known(raw, path, shown, catalog, check_expect, known)
        if result is not None:
            return result
    return _parse_scenario(raw, path, shown, catalog, check_expect, known)


def _parse_scenario(raw: bytes, path: Path, shown: str, catalog: cat.Catalog, check_expect: bool,
                    known: KnownScenarios | None) -> ScenarioResult:
    """The full path: parse with positions, validate, locate every problem; remember a clean file."""
    problems = []
    if not SCENARIO_ID.match(path.stem) or path.suffix != ".yaml":
        problems.append(Problem(shown, 1, 1, "(file)", f"file name must be lower-case letters, digits and dashes, ending .yaml (got '{path.name}')"))
    try:
        doc = parse(raw, shown)
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
    problems = _with_placeholders(doc, problems)
    if problems:
        raise InputError(problems)
    result = evaluate_scenario(path.stem, shown, scenario, catalog)
    if check_expect and not result.matches_expectation:
        got = f" (got '{scenario.expect}')"
        raise InputError([doc.problem(("expect",), mismatch_message(result) + got)])
    if known is not None:
        known.put(raw, scenario)
    return result


@dataclass(frozen=True)
class Project:
    catalog: cat.Catalog
    results: tuple[ScenarioResult, ...]
    # data/reference.yaml evaluated: the example the hand-written pages quote and the calculator starts from.
    reference: WorkloadResult
    # sha256 of the bytes each file was parsed from, by its shown path (data/ files and scenarios):
    # what the build cache keys on, so no later read of a file can disagree with what was evaluated.
    digests: dict[str, str] = field(default_factory=dict, compare=False)


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


# Scenario files to parse before a second process pays for its start, which costs about as much as
# parsing a couple of hundred files (benchmarks/README.md, "Figures behind design choices"). Below
# it, or on one core, everything is parsed here.
PARALLEL_AT = 200

Loaded = ScenarioResult | list[Problem]


def _parse_some(items: list[tuple[bytes, Path, str]], catalog: cat.Catalog, check_expect: bool,
                known: KnownScenarios | None) -> list[Loaded]:
    out: list[Loaded] = []
    for raw, path, shown in items:
        try:
            out.append(_parse_scenario(raw, path, shown, catalog, check_expect, known))
        except InputError as e:
            out.append(e.problems)
    return out


def _parse_all(items: list[tuple[bytes, Path, str]], catalog: cat.Catalog, check_expect: bool,
               known: KnownScenarios | None) -> list[Loaded]:
    """Each file's result or problems, in order, from the full path (none of them is known).
    Parsing YAML with positions is slow and every file is separate work, so many files are shared
    out between processes."""
    if len(items) < PARALLEL_AT or (os.cpu_count() or 1) < 2:
        return _parse_some(items, catalog, check_expect, known)
    return map_shared(_parse_some, items, catalog, check_expect, known)


def load_project(
    root: Path, paths: Iterable[str] = (), data_dir: Path | None = None, *, check_expect: bool = True,
    known: KnownScenarios | None = None,
) -> Project:
    """Load data/ and the chosen scenarios (all of scenarios/ by default); all problems at once.
    check_expect=False accepts verdicts that differ from their `expect` (see load_scenario)."""
    data_dir = data_dir or root / "data"
    shown_dir = shown_path(data_dir, root)
    catalog, digests = read_catalog(data_dir, shown_dir, known)
    problems: list[Problem] = []
    reference = None
    try:
        reference, digests[f"{shown_dir}/{REFERENCE}"] = load_reference(data_dir, shown_dir, catalog)
    except InputError as e:
        problems.extend(e.problems)
    data_resolved, root_resolved = data_dir.resolve(), root.resolve()
    data_key = sha256(repr(sorted(digests.items())).encode()) if reference is not None else None
    # Scenarios known from an earlier load take a millisecond each; only the others are parsed.
    slots: list[Loaded | None] = []
    todo: list[tuple[bytes, Path, str]] = []
    for path in scenario_files(root, paths):
        resolved = path.resolve()
        if resolved.parent == data_resolved:
            continue  # data files were validated as the catalog above
        shown = _shown(path, resolved, root_resolved)
        if not path.exists():
            slots.append([Problem(shown, 1, 1, "(file)", f"no such file (got {shown})")])
            continue
        try:
            raw = _read_bytes(path, shown)
        except InputError as e:
            slots.append(e.problems)
            continue
        digests[shown] = sha256(raw)
        result = None
        if known is not None:
            key = (shown, digests[shown], check_expect)
            result = _evaluated(known).get(data_key, {}).get(key) if data_key else None
            if result is None:
                result = _evaluate_known(raw, path, shown, catalog, check_expect, known)
                if result is not None and data_key:
                    _remember(known, data_key, key, result)
        slots.append(result)
        if result is None:
            todo.append((raw, path, shown))
    parsed = _parse_all(todo, catalog, check_expect, known)
    if known is not None and data_key:
        for (_, _, shown), one in zip(todo, parsed, strict=True):
            if not isinstance(one, list):
                _remember(known, data_key, (shown, digests[shown], check_expect), one)
    loaded = iter(parsed)
    results = []
    for slot in slots:
        if slot is None:
            slot = next(loaded)
        if isinstance(slot, list):
            problems.extend(slot)
        else:
            results.append(slot)
    if problems:
        raise InputError(problems)
    assert reference is not None
    return Project(catalog, tuple(results), reference, digests)


def load_reference(data_dir: Path, shown_dir: str, catalog: cat.Catalog) -> tuple[WorkloadResult, str]:
    """data/reference.yaml, a workload in the scenario format, validated, checked against the catalog
    and evaluated like any scenario's; with the sha256 of the bytes parsed."""
    shown = f"{shown_dir}/{REFERENCE}"
    path = data_dir / REFERENCE
    if not path.exists():
        raise InputError([Problem(shown, 1, 1, "(file)", f"required data file is missing (got no {REFERENCE} in {shown_dir}/)")])
    raw = _read_bytes(path, shown)
    doc = parse(raw, shown)
    problems = limit_problems(doc)
    workload = validate_doc(doc, Workload)
    # check_references locates by scenario path; the file is one workload, so drop ("workloads", 0).
    problems += [doc.problem(loc[2:], msg) for loc, msg in check_references((workload,), catalog)]
    if problems:
        raise InputError(problems)
    return evaluate_workload(workload, catalog), sha256(raw)
