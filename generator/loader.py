"""Reading scenarios/ and data/: YAML 1.2 with positions, validation, and located error messages.

Every problem becomes one line `path:line:col: field.path: what is wrong (got X)`, and every problem
in every file is collected before anything stops, so a contributor fixes them all in one pass.
This module reads files and never writes any.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import io
import math
import multiprocessing
import os
import re
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
)
from ruamel.yaml.reader import ReaderError

from generator import catalog as cat
from generator.cachefile import write_atomically
from generator.resolve import check_references
from generator.results import ScenarioResult, evaluate_scenario, mismatch_message
from generator.schema import MODELINE, Compute, ConstraintName, Scenario

MAX_BYTES = 1024 * 1024
# Deeper than any file here needs (scenarios and data go five levels down); a guard against nesting bombs.
MAX_DEPTH = 32
# Explicit tags a file may use: the YAML 1.2 core schema's own, plus timestamps (data/ dates).
ALLOWED_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp")}
DATA_FILES: dict[str, type[BaseModel]] = {
    "sources.yaml": cat.SourcesFile,
    "chips.yaml": cat.ChipsFile,
    "instances.yaml": cat.InstancesFile,
    "prices.yaml": cat.PricesFile,
    "assumptions.yaml": cat.Assumptions,
}
SCENARIO_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
# What `guide new-scenario` writes where only the contributor knows the value. A placeholder is
# reported as such, in place of whatever else its field would be blamed for, and it is reported even
# where it would pass as text (a title), so a half-filled file never validates.
PLACEHOLDER = "FILL-IN"

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
        # A list item has no key: its own position stands for it either way.
        primary, secondary = (self.keys, self.values) if key else (self.values, self.keys)
        while loc:
            if loc in primary:
                return primary[loc]
            if loc in secondary:
                return secondary[loc]
            loc = loc[:-1]
        return self.values.get((), (1, 1))

    def problem(self, loc: Loc, message: str, *, key: bool = False) -> Problem:
        line, col = self.where(loc, key=key)
        return Problem(self.path, line, col, dotted(loc), message)


def dotted(loc: Loc) -> str:
    return ".".join(str(p) for p in loc) if loc else "(document)"


def describe(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping" if value else "an empty mapping"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
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


@dataclass
class _Level:
    """One open mapping or sequence while scanning events: what its current child is called."""

    mapping: bool
    children: int = 0
    key: str = ""
    seen: dict[str, int] = field(default_factory=dict)

    def index(self) -> str | int:
        return self.key if self.mapping else self.children - 1


def _tag_as_written(tag: str) -> str:
    prefix = "tag:yaml.org,2002:"
    return "!!" + tag[len(prefix) :] if tag.startswith(prefix) else tag


class _TooDeep(Exception):
    pass


class _EventChecks:
    """Watches the parser's events as the loader consumes them (one pass over the file) for what YAML
    allows and these files must not use: aliases (a few lines can expand into an "alias bomb"), tags,
    merge keys, keys that are not plain scalars, duplicate keys and runaway nesting."""

    def __init__(self, shown: str):
        self.shown = shown
        self.problems: list[Problem] = []
        self.stack: list[_Level] = []
        self.aliases: list[tuple[int, int, str, str]] = []
        self.last_scalar: ScalarEvent | None = None

    def _path(self, levels: list[_Level]) -> str:
        return dotted(tuple(level.index() for level in levels))

    def _add(self, line: int, col: int, where: str, message: str) -> None:
        self.problems.append(Problem(self.shown, line, col, where, message))

    def feed(self, event: Any) -> None:
        if isinstance(event, CollectionEndEvent):
            self.stack.pop()
            return
        if not isinstance(event, NodeEvent):
            return
        stack = self.stack
        top = stack[-1] if stack else None
        is_key = top is not None and top.mapping and top.children % 2 == 0
        if top is not None:
            top.children += 1
        line, col = event.start_mark.line + 1, event.start_mark.column + 1
        if isinstance(event, ScalarEvent):
            self.last_scalar = event
        if isinstance(event, AliasEvent):
            self.aliases.append((line, col, self._path(stack), str(event.anchor)))
            return
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!" and str(tag) not in ALLOWED_TAGS:
            self._add(line, col, self._path(stack), f"YAML tags are not allowed in these files; write the plain value (got {_tag_as_written(str(tag))})")
        if is_key:
            assert top is not None
            if not isinstance(event, ScalarEvent):
                kind = "a mapping" if isinstance(event, MappingStartEvent) else "a list"
                top.key = "?"
                self._add(line, col, self._path(stack[:-1]), f"a key must be a plain name (got {kind})")
            else:
                key = str(event.value)
                top.key = key
                if key == "<<" and event.style is None:
                    self._add(line, col, self._path(stack), "merge keys (<<) are not allowed in these files; write the fields out (got <<)")
                elif key in top.seen:
                    self._add(line, col, self._path(stack), f"duplicate key; each key may appear once in a mapping (got '{key}' again; first at line {top.seen[key]})")
                else:
                    top.seen[key] = line
        if isinstance(event, CollectionStartEvent):
            if len(stack) == MAX_DEPTH:
                outer = self._path(stack[:2]) + "..."
                self._add(line, col, outer, f"nesting is too deep; these files need at most {MAX_DEPTH} levels (got more)")
                raise _TooDeep()
            stack.append(_Level(mapping=isinstance(event, MappingStartEvent)))

    def all_problems(self) -> list[Problem]:
        problems = list(self.problems)
        if self.aliases:
            line, col, where, anchor = self.aliases[0]
            more = f", the first of {len(self.aliases)} aliases" if len(self.aliases) > 1 else ""
            problems.append(Problem(self.shown, line, col, where, f"aliases are not allowed in these files; write the value out (got *{anchor}{more})"))
        return problems


def _load_checked(text: str, checks: _EventChecks) -> Any:
    """Load with ruamel's round-trip loader (positions for every node) while `checks` sees each event."""
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = True  # reported by the checks, with both lines
    constructor, parser = yaml.get_constructor_parser(io.StringIO(text))
    consume = parser.get_event

    def get_event() -> Any:
        event = consume()
        checks.feed(event)
        return event

    parser.get_event = get_event
    try:
        return constructor.get_single_data()
    finally:
        parser.dispose()


# ruamel's names for what the parser expected or found, in words.
_TOKEN_WORDS = {
    "'<block end>'": "the end of the block",
    "<block end>": "the end of the block",
    "'<block mapping start>'": "a new mapping",
    "'<block sequence start>'": "a new list",
    "'<block entry>'": "a list item ('- ')",
    "'<scalar>'": "more text",
    "'<document start>'": "a new document ('---')",
}


def _syntax_problem(e: MarkedYAMLError, text: str, shown: str, last_scalar: ScalarEvent | None) -> Problem:
    mark = e.problem_mark or e.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    problem = (e.problem or "").strip()
    for token, words in _TOKEN_WORDS.items():
        problem = problem.replace(token, words)
    what = problem or "cannot be parsed"
    cm = e.context_mark
    context = (e.context or "").strip()
    if context and not context.startswith("while "):
        what = f"{context} {what}"
    elif context and cm is not None and (cm.line, cm.column) != (line - 1, col - 1):
        thing = re.sub(r"^while (parsing|scanning) (an? )?", "", context)
        what += f", in the {thing} that starts at line {cm.line + 1}, column {cm.column + 1}"
    if "\t" in problem or "'\\t'" in problem:
        what = "found a tab character; indent with spaces, not tabs"
    elif (
        last_scalar is not None
        and last_scalar.style in ("'", '"')
        and last_scalar.start_mark.line < last_scalar.end_mark.line
        and last_scalar.end_mark.line == line - 1
    ):
        sm = last_scalar.start_mark
        what += f"; the quoted text that starts at line {sm.line + 1}, column {sm.column + 1} runs on to here: is a closing quote missing?"
    elif "the end of the block" in problem:
        what += "; check the indentation"
    elif problem.startswith("mapping values are not allowed here"):
        what += "; put text that contains ': ' in quotes"
    what = what.replace("quoted scalar", "quoted text").replace("simple key", "key")
    lines = text.splitlines()
    got = describe(lines[line - 1].rstrip()) if 0 < line <= len(lines) else "the end of the file"
    return Problem(shown, line, col, "(yaml)", f"invalid YAML: {what} (got {got})")


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
    if not text.strip():
        raise fail(1, 1, "(document)", "file is empty; expected a mapping (got nothing)")
    if all(not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()):
        raise fail(1, 1, "(document)", "file holds only comments; expected a mapping (got nothing)")

    checks = _EventChecks(shown)
    try:
        node = _load_checked(text, checks)
    except _TooDeep:
        raise InputError(checks.all_problems()) from None
    except ReaderError as e:
        before = text[: e.position]
        line = before.count("\n") + 1
        col = len(before) - (before.rfind("\n") + 1) + 1
        raise fail(line, col, "(file)", f"file holds a control character YAML does not allow (got U+{e.character:04X})") from None
    except MarkedYAMLError as e:
        if checks.all_problems():
            # e.g. an alias to an undefined anchor: the checks already say what is wrong.
            raise InputError(checks.all_problems()) from None
        raise InputError([_syntax_problem(e, text, shown, checks.last_scalar)]) from None
    except YAMLError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise fail(1, 1, "(yaml)", f"invalid YAML: {first} (got {describe(text.splitlines()[0])})") from None
    except RecursionError:
        raise fail(1, 1, "(yaml)", "nesting is too deep (got more levels than the parser can hold)") from None

    if checks.all_problems():
        raise InputError(checks.all_problems())
    doc = Document(shown, text, None)
    doc.data = _plain(node, (), doc)
    # The top node's own place (after any comments): where a missing top-level field is reported.
    lc = getattr(node, "lc", None)
    if lc is not None and lc.line is not None:
        doc.values[()] = (lc.line + 1, lc.col + 1)
    else:
        first = next(i for i, ln in enumerate(text.splitlines()) if ln.strip() and not ln.lstrip().startswith("#"))
        doc.values[()] = (first + 1, 1)
    if not isinstance(doc.data, dict):
        line, col = doc.values[()]
        raise fail(line, col, "(document)", f"expected a mapping at the top of the file (got {describe(doc.data)})")
    return doc


def _model_at(model: type[BaseModel], loc: Loc) -> Any:
    """The model class that validates the node at `loc` inside `model`, or None."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return None
        current = _model_of(fields[part].annotation)
    return current if hasattr(current, "model_fields") else None


def _known_fields(model: type[BaseModel], loc: Loc) -> list[str]:
    """Field names valid at `loc` inside `model`, for 'did you mean' hints."""
    current = _model_at(model, loc)
    return list(current.model_fields) if current is not None else []


def _required_fields(model: type[BaseModel], loc: Loc) -> list[str]:
    current = _model_at(model, loc)
    return [n for n, f in current.model_fields.items() if f.is_required()] if current is not None else []


def _model_of(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return describe(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def _describe_mapping(value: dict, message: str) -> str:
    """A mapping a cross-field rule rejected, shown by the fields the message names (all of them if short)."""
    named = [k for k in value if re.search(rf"\b{re.escape(k)}\b", message)]
    shown = named or list(value)
    text = ", ".join(f"{k}: {_scalar_text(value[k])}" for k in shown)
    if len(text) > 100:
        return describe(value)
    return text or describe(value)


_YAML11_BOOLEANS = {"yes", "no", "on", "off", "y", "n", "true", "false"}


def _type_hint(kind: str, value: Any) -> str:
    if kind in ("int_type", "float_type", "int_parsing", "float_parsing") and isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return ""
        return "; remove the quotes to make it a number"
    if kind in ("date_type", "date_parsing", "date_from_datetime_parsing") and isinstance(value, str):
        return "; write it as YYYY-MM-DD, without quotes"
    if kind == "bool_type" and isinstance(value, str) and value.lower() in _YAML11_BOOLEANS:
        return "; YAML 1.2 reads only true and false as booleans, write one of them"
    return ""


def _duplicate_workloads(doc: Document) -> list[Problem]:
    problems = []
    first: dict[str, int] = {}
    workloads = doc.data.get("workloads") if isinstance(doc.data, dict) else None
    for i, w in enumerate(workloads if isinstance(workloads, list) else []):
        name = w.get("name") if isinstance(w, dict) else None
        if not isinstance(name, str):
            continue
        if name in first:
            line = doc.where(("workloads", first[name], "name"))[0]
            problems.append(doc.problem(
                ("workloads", i, "name"),
                f"workload names must be unique (got '{name}' again; first at line {line})",
            ))
        else:
            first.setdefault(name, i)
    return problems


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
        if msg.startswith("workload names must be unique") and (dupes := _duplicate_workloads(doc)):
            problems.extend(dupes)
            continue
        msg = re.sub(r"^(list should have at least \d+ items?) after validation, not \d+$", r"\1", msg)
        if kind == "literal_error" and isinstance(value, str):
            expected = re.findall(r"'([^']*)'", e["msg"])
            hint = difflib.get_close_matches(value, expected, n=1, cutoff=0.5)
            if hint:
                msg += f"; did you mean '{hint[0]}'?"
        if kind in ("model_type", "model_attributes_type", "dict_type"):
            required = _required_fields(model, loc)
            msg = "expected a mapping" + (f" with {_and(required)}" if required else "")
        msg += _type_hint(kind, value)
        if re.search(r"\(got [^()]*\)$", msg):
            got = ""  # the rule's own message already shows what it got
        elif isinstance(value, dict) and value:
            got = f" (got {_describe_mapping(value, msg)})"
        else:
            got = f" (got {describe(value)})"
        problems.append(doc.problem(loc, msg + got, key=isinstance(value, dict)))
    return problems


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


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
    seen: dict[tuple[str, str, str], int] = {}
    for i, p in enumerate(prices):
        if p.instance not in instances:
            problems.append(pdoc.problem(("prices", i, "instance"), f"unknown instance{_hint(p.instance, instances)} (got '{p.instance}')"))
        key3 = (p.instance, p.region, p.option)
        if key3 in seen:
            first_line = pdoc.where(("prices", seen[key3]))[0]
            problems.append(pdoc.problem(
                ("prices", i),
                f"a second price for {p.instance} in {p.region}, {p.option}; keep one entry and list the others "
                f"as alternatives (got prices.{seen[key3]} at line {first_line} as well)",
            ))
        else:
            seen[key3] = i
    for i, p in enumerate(prices):
        inst = instances.get(p.instance)
        if inst is not None and p.offered and p.region not in inst.regions.value:
            problems.append(pdoc.problem(
                ("prices", i, "region"),
                f"{p.instance} is priced in {p.region} but its regions in data/instances.yaml do not list it (got '{p.region}')",
            ))
    for i, u in enumerate(parsed["prices.yaml"].unpublished):
        if u.instance not in instances:
            problems.append(pdoc.problem(("unpublished", i, "instance"), f"unknown instance{_hint(u.instance, instances)} (got '{u.instance}')"))
        if (u.instance, u.region, u.option) in seen:
            problems.append(pdoc.problem(("unpublished", i), (
                f"{u.instance} {u.region} {u.option} has a price in prices; an option is either priced or "
                f"recorded as not published (got both)")))
    adoc = docs["assumptions.yaml"]
    for cname, pc in assumptions.porting_classes.items():
        for inc in pc.includes:
            if inc not in assumptions.constraints:
                problems.append(adoc.problem(("porting_classes", cname, "includes"), f"unknown constraint{_hint(inc, assumptions.constraints)} (got '{inc}')"))
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
    return cat.Catalog(sources=sources, chips=chips, instances=instances, prices=prices, assumptions=assumptions,
                       unpublished=parsed["prices.yaml"].unpublished)


def _hint(word: str, choices: Iterable[str]) -> str:
    hint = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return f"; did you mean '{hint[0]}'?" if hint else ""


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


def _placeholder_locs(data: Any, loc: Loc) -> Iterable[Loc]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _placeholder_locs(v, loc + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _placeholder_locs(v, loc + (i,))
    elif isinstance(data, str) and data.strip() == PLACEHOLDER:
        yield loc


def _with_placeholders(doc: Document, problems: list[Problem]) -> list[Problem]:
    holes = {dotted(loc): loc for loc in _placeholder_locs(doc.data, ())}
    if not holes:
        return problems
    kept = [p for p in problems if not (p.path == doc.path and p.field in holes)]
    return kept + [doc.problem(loc, f"placeholder from guide new-scenario; write your value here (got '{PLACEHOLDER}')")
                   for loc in holes.values()]


class KnownScenarios:
    """Scenarios that passed validation before, on disk by the hash of their text and of the code
    that validated them. Parsing YAML with the position of every node is most of what loading a
    thousand unchanged scenarios costs; a known text skips it. Only a file with no problem at all is
    remembered, and any doubt (a changed catalog reference, a verdict off its `expect`, an
    unreadable entry) falls back to the full path, which locates every problem."""

    _code = hashlib.sha256(Path(__file__).read_bytes() + Path(__file__).with_name("schema.py").read_bytes()).hexdigest()

    def __init__(self, directory: Path):
        self.directory = directory

    def _path(self, text: str) -> Path:
        return self.directory / (hashlib.sha256(f"{self._code}\0{text}".encode("utf-8")).hexdigest() + ".json")

    def get(self, text: str) -> Scenario | None:
        try:
            return Scenario.model_validate_json(self._path(text).read_bytes())
        except (OSError, ValueError):
            return None

    def put(self, text: str, scenario: Scenario) -> None:
        try:
            write_atomically(self._path(text), scenario.model_dump_json())
        except OSError:
            pass  # a read-only cache only costs time


def _load_known(path: Path, shown: str, catalog: cat.Catalog, check_expect: bool, known: KnownScenarios) -> ScenarioResult | None:
    try:
        text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return None
    if not SCENARIO_ID.match(path.stem) or path.suffix != ".yaml" or text.partition("\n")[0].strip() != MODELINE:
        return None
    scenario = known.get(text)
    if scenario is None or next(iter(check_references(scenario.workloads, catalog)), None) is not None:
        return None
    result = evaluate_scenario(path.stem, shown, scenario, catalog)
    if check_expect and not result.matches_expectation:
        return None
    return result


def load_scenario(path: Path, shown: str, catalog: cat.Catalog, *, check_expect: bool = True,
                  known: KnownScenarios | None = None) -> ScenarioResult:
    """Validate and evaluate one scenario. With check_expect=False a verdict that differs from the
    file's `expect` is not a problem (`guide diff` reports it instead of stopping)."""
    if known is not None:
        result = _load_known(path, shown, catalog, check_expect, known)
        if result is not None:
            return result
    return _parse_scenario(path, shown, catalog, check_expect, known)


def _parse_scenario(path: Path, shown: str, catalog: cat.Catalog, check_expect: bool,
                    known: KnownScenarios | None) -> ScenarioResult:
    """The full path: parse with positions, validate, locate every problem; remember a clean file."""
    problems = []
    if not SCENARIO_ID.match(path.stem) or path.suffix != ".yaml":
        problems.append(Problem(shown, 1, 1, "(file)", f"file name must be lower-case letters, digits and dashes, ending .yaml (got '{path.name}')"))
    try:
        doc = read(path, shown)
    except InputError as e:
        raise InputError(problems + e.problems) from None
    first = doc.text.splitlines()[0] if doc.text else ""
    if first.strip() != MODELINE:
        problems.append(Problem(shown, 1, 1, "(file)", f"the first line must be the schema modeline '{MODELINE}' (got {describe(first)})"))
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
        known.put(doc.text, scenario)
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


# Scenario files to parse before a second process pays for its start (about a second, against
# some 10 ms of YAML parsing a file). Below it, or on one core, everything is parsed here.
PARALLEL_AT = 200


def _load_some(items: list[tuple[Path, str]], catalog: cat.Catalog, check_expect: bool,
               known: KnownScenarios | None) -> list[ScenarioResult | list[Problem]]:
    out: list[ScenarioResult | list[Problem]] = []
    for path, shown in items:
        try:
            out.append(_parse_scenario(path, shown, catalog, check_expect, known))
        except InputError as e:
            out.append(e.problems)
    return out


def _load_all(items: list[tuple[Path, str]], catalog: cat.Catalog, check_expect: bool,
              known: KnownScenarios | None) -> list[ScenarioResult | list[Problem]]:
    """Each file's result or problems, in order, from the full path (none of them is known).
    Parsing YAML with positions is slow and every file is separate work, so many files are shared
    out between processes."""
    cpus = os.cpu_count() or 1
    if len(items) < PARALLEL_AT or cpus < 2:
        return _load_some(items, catalog, check_expect, known)
    chunks = [items[i::cpus * 4] for i in range(cpus * 4)]
    # spawn, not fork: the parent may already run vl-convert, which must not be forked.
    with ProcessPoolExecutor(max_workers=cpus, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_load_some, chunk, catalog, check_expect, known) for chunk in chunks[1:]]
        # This process takes a share too, while the others start.
        done = [_load_some(chunks[0], catalog, check_expect, known)] + [f.result() for f in futures]
    out: list[ScenarioResult | list[Problem]] = [[] for _ in items]
    for i, chunk_out in enumerate(done):
        out[i::cpus * 4] = chunk_out
    return out


def load_project(
    root: Path, paths: Iterable[str] = (), data_dir: Path | None = None, *, check_expect: bool = True,
    known: KnownScenarios | None = None,
) -> Project:
    """Load data/ and the chosen scenarios (all of scenarios/ by default); all problems at once.
    check_expect=False accepts verdicts that differ from their `expect` (see load_scenario)."""
    data_dir = data_dir or root / "data"
    catalog = load_catalog(data_dir, shown_path(data_dir, root))
    problems: list[Problem] = []
    data_resolved = data_dir.resolve()
    # Scenarios known from an earlier load take a millisecond each; only the others are parsed.
    slots: list[ScenarioResult | list[Problem] | None] = []
    todo: list[tuple[Path, str]] = []
    for path in scenario_files(root, paths):
        shown = shown_path(path, root)
        if path.resolve().parent == data_resolved:
            continue  # data files were validated as the catalog above
        if not path.exists():
            slots.append([Problem(shown, 1, 1, "(file)", f"no such file (got {shown})")])
            continue
        result = _load_known(path, shown, catalog, check_expect, known) if known is not None else None
        slots.append(result)
        if result is None:
            todo.append((path, shown))
    loaded = iter(_load_all(todo, catalog, check_expect, known))
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
    return Project(catalog, tuple(results))
