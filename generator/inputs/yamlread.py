"""YAML 1.2 files turned into plain Python values with the line and column of every node, refusing
what these files must not use (aliases, tags, merge keys, duplicate keys, deep nesting, impossible
dates) and saying where a syntax error is, in words."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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

from generator.inputs.problems import InputError, Loc, Problem, describe, dotted

MAX_BYTES = 1024 * 1024
# Deeper than any file here needs (scenarios and data go five levels down); a guard against nesting bombs.
MAX_DEPTH = 32
# Explicit tags a file may use: the YAML 1.2 core schema's own, plus timestamps (data/ dates).
ALLOWED_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp")}


@dataclass
class Document:
    """A YAML file turned into plain Python values, with the position of every node."""

    path: str
    text: str
    data: Any
    digest: str = ""  # sha256 of the bytes the text was decoded from
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



def strings(data: Any, loc: Loc = ()) -> Iterable[tuple[Loc, str]]:
    """Every string in a parsed file's data, with its place."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from strings(v, loc + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from strings(v, loc + (i,))
    elif isinstance(data, str):
        yield loc, data


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


# A plain scalar YAML reads as a timestamp (ruamel's own pattern, date part).
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+).*)?")


def _impossible_date(value: str) -> str | None:
    """Why a plain scalar that YAML reads as a date is no date at all, or None."""
    m = _TIMESTAMP.fullmatch(value)
    if m is None:
        return None
    try:
        dt.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError as e:
        return f"not a date that exists: {e}; write a real date as YYYY-MM-DD, or quote it to make it text (got {value})"
    return None


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
            if event.style is None and (problem := _impossible_date(str(event.value))):
                where = self._path(stack) if not is_key else self._path(stack[:-1])
                self._add(line, col, where, problem)
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


def read_bytes(path: Path, shown: str) -> bytes:
    """A file's bytes, or InputError saying why it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as e:
        raise InputError([Problem(shown, 1, 1, "(file)", f"cannot be read: {e.strerror} (got {shown})")]) from None


def read(path: Path, shown: str) -> Document:
    """Read and parse one YAML file. Raises InputError with located problems; never a traceback."""
    return parse(read_bytes(path, shown), shown)


def parse(raw: bytes, shown: str) -> Document:
    """Parse the bytes of one YAML file, shown as `shown` in problems. Raises InputError."""

    def fail(line: int, col: int, fld: str, msg: str) -> InputError:
        return InputError([Problem(shown, line, col, fld, msg)])

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
    except ValueError as e:
        # What the checks did not foresee in a value ruamel could not construct.
        if checks.all_problems():
            raise InputError(checks.all_problems()) from None
        raise fail(1, 1, "(yaml)", f"a value cannot be read: {e} (got {describe(text.splitlines()[0])})") from None

    if checks.all_problems():
        raise InputError(checks.all_problems())
    doc = Document(shown, text, None, hashlib.sha256(raw).hexdigest())
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

