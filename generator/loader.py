"""Reading scenarios/ and data/: YAML 1.2 with positions, validation, and located error messages.

Every problem becomes one line `path:line:col: field.path: what is wrong (got X)`, and every problem
in every file is collected before anything stops, so a contributor fixes them all in one pass.
This module reads files and never writes any.
"""

from __future__ import annotations

import datetime as dt
import difflib
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent

from generator import catalog as cat
from generator.resolve import check_references
from generator.results import ScenarioResult, evaluate_scenario, mismatch_message
from generator.schema import MODELINE, ConstraintName, Scenario

MAX_BYTES = 1024 * 1024
DATA_FILES: dict[str, type[BaseModel]] = {
    "sources.yaml": cat.SourcesFile,
    "chips.yaml": cat.ChipsFile,
    "instances.yaml": cat.InstancesFile,
    "prices.yaml": cat.PricesFile,
    "assumptions.yaml": cat.Assumptions,
}
SCENARIO_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")

Loc = tuple[str | int, ...]


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    col: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.field}: {self.message}"


class InputError(Exception):
    def __init__(self, problems: Iterable[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass
class Document:
    """A YAML file turned into plain Python values, with the position of every node."""

    path: str
    text: str
    data: Any
    values: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Loc, tuple[int, int]] = field(default_factory=dict)

    def where(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        """1-based line and column of a node, falling back to its nearest located ancestor."""
        table = self.keys if key else self.values
        while loc:
            if loc in table:
                return table[loc]
            if loc in self.keys:
                return self.keys[loc]
            loc = loc[:-1]
        return (1, 1)

    def problem(self, loc: Loc, message: str, *, key: bool = False) -> Problem:
        line, col = self.where(loc, key=key)
        return Problem(self.path, line, col, dotted(loc), message)


def dotted(loc: Loc) -> str:
    return ".".join(str(p) for p in loc) if loc else "(document)"


def describe(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return repr(shown)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return repr(value)


def _plain(node: Any, loc: Loc, doc: Document) -> Any:
    """Copy ruamel's round-trip nodes into plain Python values, recording positions on the way."""
    if isinstance(node, dict):
        out = {}
        for k in node:
            sub = loc + (str(k),)
            kl, kc = node.lc.key(k)
            vl, vc = node.lc.value(k)
            doc.keys[sub] = (kl + 1, kc + 1)
            doc.values[sub] = (vl + 1, vc + 1)
            out[str(k)] = _plain(node[k], sub, doc)
        return out
    if isinstance(node, list):
        out_list = []
        for i, item in enumerate(node):
            sub = loc + (i,)
            il, ic = node.lc.item(i)
            doc.values[sub] = (il + 1, ic + 1)
            out_list.append(_plain(item, sub, doc))
        return out_list
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, (dt.date, dt.datetime)):
        return node
    # Tagged or exotic scalars (e.g. !!binary, custom tags) stay as they are; validation rejects them.
    return node


def read(path: Path, shown: str) -> Document:
    """Parse one YAML file. Raises InputError with located problems; never a traceback."""

    def fail(line: int, col: int, fld: str, msg: str) -> InputError:
        return InputError([Problem(shown, line, col, fld, msg)])

    try:
        raw = path.read_bytes()
    except OSError as e:
        raise fail(1, 1, "(file)", f"cannot be read: {e.strerror} (got {shown})") from None
    if len(raw) > MAX_BYTES:
        raise fail(1, 1, "(file)", f"file is larger than 1 MiB (got {len(raw)} bytes)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        before = raw[: e.start]
        line = before.count(b"\n") + 1
        col = len(before) - (before.rfind(b"\n") + 1) + 1
        raise fail(line, col, "(file)", f"file is not valid UTF-8 (got byte 0x{raw[e.start]:02x})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip() or all(not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()):
        raise fail(1, 1, "(document)", "file is empty; expected a mapping (got nothing)")

    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        # Aliases let a small file expand into a huge tree (an "alias bomb"); these files never need them.
        for event in yaml.parse(io.StringIO(text)):
            if isinstance(event, AliasEvent):
                m = event.start_mark
                raise fail(m.line + 1, m.column + 1, "(yaml)", f"aliases are not allowed in these files (got *{event.anchor})")
        node = yaml.load(text)
    except InputError:
        raise
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        dup = re.match(r'found duplicate key "(.*?)" with value "(.*?)"', e.problem or "")
        if dup:
            raise fail(line, col, dup.group(1), f"duplicate key; each key may appear once in a mapping (got '{dup.group(1)}' again)") from None
        what = " ".join(p for p in (e.context, e.problem) if p)
        raise fail(line, col, "(yaml)", f"invalid YAML: {what}") from None
    except YAMLError as e:
        raise fail(1, 1, "(yaml)", f"invalid YAML: {e}") from None
    except RecursionError:
        raise fail(1, 1, "(yaml)", "nesting is too deep (got more levels than the parser can hold)") from None

    doc = Document(shown, text, None)
    doc.data = _plain(node, (), doc)
    if not isinstance(doc.data, dict):
        raise fail(1, 1, "(document)", f"expected a mapping at the top of the file (got {describe(doc.data)})")
    return doc


def _known_fields(model: type[BaseModel], loc: Loc) -> list[str]:
    """Field names valid at `loc` inside `model`, for 'did you mean' hints."""
    current: Any = model
    for part in loc:
        if isinstance(part, int) or current is None:
            continue
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            current = None
            continue
        current = _model_of(fields[part].annotation)
    if current is None or not hasattr(current, "model_fields"):
        return []
    return list(current.model_fields)


def _model_of(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def validation_problems(doc: Document, model: type[BaseModel], err: ValidationError) -> list[Problem]:
    problems = []
    for e in err.errors(include_url=False):
        loc: Loc = tuple(p for p in e["loc"])
        kind = e["type"]
        value = e.get("input")
        if kind == "missing":
            line, col = doc.where(loc[:-1], key=True)
            problems.append(Problem(doc.path, line, col, dotted(loc), f"missing required field (got no '{loc[-1]}')"))
            continue
        if kind == "extra_forbidden":
            hint = difflib.get_close_matches(str(loc[-1]), _known_fields(model, loc[:-1]), n=1, cutoff=0.5)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            problems.append(doc.problem(loc, f"unknown field{suggestion} (got '{loc[-1]}')", key=True))
            continue
        msg = e["msg"]
        msg = msg[0].lower() + msg[1:]
        if msg.startswith("value error, "):
            msg = msg[len("value error, ") :]
        if kind == "literal_error" and isinstance(value, str):
            expected = re.findall(r"'([^']*)'", e["msg"])
            hint = difflib.get_close_matches(value, expected, n=1, cutoff=0.5)
            if hint:
                msg += f"; did you mean '{hint[0]}'?"
        if kind in ("model_type", "model_attributes_type", "dict_type"):
            msg = "expected a mapping"
        problems.append(doc.problem(loc, f"{msg} (got {describe(value)})", key=isinstance(value, dict)))
    return problems


def validate_doc(doc: Document, model: type[BaseModel]) -> Any:
    try:
        return model.model_validate(doc.data)
    except ValidationError as err:
        raise InputError(validation_problems(doc, model, err)) from None


def _walk_sources(data: Any, loc: Loc) -> Iterable[tuple[Loc, str]]:
    if isinstance(data, dict):
        for k, v in data.items():
            if k == "source" and isinstance(v, str):
                yield loc + (k,), v
            else:
                yield from _walk_sources(v, loc + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _walk_sources(v, loc + (i,))


def load_catalog(data_dir: Path, shown_dir: str = "data") -> cat.Catalog:
    problems: list[Problem] = []
    docs: dict[str, Document] = {}
    parsed: dict[str, Any] = {}
    for name, model in DATA_FILES.items():
        shown = f"{shown_dir}/{name}"
        path = data_dir / name
        if not path.exists():
            problems.append(Problem(shown, 1, 1, "(file)", f"required data file is missing (got no {name} in {shown_dir}/)"))
            continue
        try:
            doc = read(path, shown)
            docs[name] = doc
            parsed[name] = validate_doc(doc, model)
        except InputError as e:
            problems.extend(e.problems)
    if problems:
        raise InputError(problems)

    sources = parsed["sources.yaml"].sources
    chips = parsed["chips.yaml"].chips
    instances = parsed["instances.yaml"].instances
    prices = parsed["prices.yaml"].prices
    assumptions = parsed["assumptions.yaml"]
    for name, doc in docs.items():
        for loc, key in _walk_sources(doc.data, ()):
            if key not in sources:
                hint = difflib.get_close_matches(key, list(sources), n=1, cutoff=0.5)
                sug = f"; did you mean '{hint[0]}'?" if hint else ""
                problems.append(doc.problem(loc, f"unknown source key, add it to data/sources.yaml{sug} (got '{key}')"))
    idoc = docs["instances.yaml"]
    for iid, inst in instances.items():
        if inst.chip not in chips:
            problems.append(idoc.problem(("instances", iid, "chip"), f"unknown chip{_hint(inst.chip, chips)} (got '{inst.chip}')"))
    pdoc = docs["prices.yaml"]
    seen: set[tuple[str, str, str]] = set()
    for i, p in enumerate(prices):
        if p.instance not in instances:
            problems.append(pdoc.problem(("prices", i, "instance"), f"unknown instance{_hint(p.instance, instances)} (got '{p.instance}')"))
        key3 = (p.instance, p.region, p.option)
        if key3 in seen:
            problems.append(pdoc.problem(("prices", i), f"a second price for {p.instance} in {p.region}, {p.option}; keep one entry and list the others as alternatives (got a duplicate)"))
        seen.add(key3)
    adoc = docs["assumptions.yaml"]
    for name in ("mainstream", "moderate-custom", "heavy-custom-cuda", "novel"):
        if name not in assumptions.porting_classes:
            problems.append(adoc.problem(("porting_classes",), f"missing porting class '{name}' (got {', '.join(assumptions.porting_classes)})"))
    for name in ConstraintName.__args__:  # type: ignore[attr-defined]
        if name not in assumptions.constraints:
            problems.append(adoc.problem(("constraints",), f"missing constraint '{name}' (got {', '.join(assumptions.constraints)})"))
    for name in ("none", "some", "experienced"):
        if name not in assumptions.neuron_experience:
            problems.append(adoc.problem(("neuron_experience",), f"missing experience level '{name}' (got {', '.join(assumptions.neuron_experience)})"))
    if problems:
        raise InputError(problems)
    return cat.Catalog(sources=sources, chips=chips, instances=instances, prices=prices, assumptions=assumptions)


def _hint(word: str, choices: Iterable[str]) -> str:
    hint = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return f"; did you mean '{hint[0]}'?" if hint else ""


def load_scenario(path: Path, shown: str, catalog: cat.Catalog) -> ScenarioResult:
    doc = read(path, shown)
    sid = path.stem
    problems = []
    if not SCENARIO_ID.match(sid):
        problems.append(Problem(shown, 1, 1, "(file)", f"file name must be lower-case letters, digits and dashes, ending .yaml (got '{path.name}')"))
    first = doc.text.splitlines()[0] if doc.text else ""
    if first.strip() != MODELINE:
        problems.append(Problem(shown, 1, 1, "(file)", f"the first line must be the schema modeline '{MODELINE}' (got {describe(first)})"))
    try:
        scenario = validate_doc(doc, Scenario)
    except InputError as e:
        raise InputError(problems + e.problems) from None
    for loc, msg in check_references(scenario.workloads, catalog):
        problems.append(doc.problem(loc, msg))
    if problems:
        raise InputError(problems)
    result = evaluate_scenario(sid, shown, scenario, catalog)
    if not result.matches_expectation:
        raise InputError([doc.problem(("expect",), mismatch_message(result))])
    return result


@dataclass(frozen=True)
class Project:
    catalog: cat.Catalog
    results: tuple[ScenarioResult, ...]


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
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def load_project(root: Path, paths: Iterable[str] = (), data_dir: Path | None = None) -> Project:
    """Load data/ and the chosen scenarios (all of scenarios/ by default); all problems at once."""
    data_dir = data_dir or root / "data"
    catalog = load_catalog(data_dir, shown_path(data_dir, root))
    problems: list[Problem] = []
    results = []
    data_resolved = data_dir.resolve()
    for path in scenario_files(root, paths):
        shown = shown_path(path, root)
        if path.resolve().parent == data_resolved:
            continue  # data files were validated as the catalog above
        if not path.exists():
            problems.append(Problem(shown, 1, 1, "(file)", f"no such file (got {shown})"))
            continue
        try:
            results.append(load_scenario(path, shown, catalog))
        except InputError as e:
            problems.extend(e.problems)
    if problems:
        raise InputError(problems)
    return Project(catalog, tuple(results))
