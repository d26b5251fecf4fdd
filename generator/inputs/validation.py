"""Pydantic's validation errors as located problems in a contributor's words: which field, where
it is in the file, what was expected, and a hint where one helps (a near field name, quotes that
make a number text, a YAML 1.1 boolean)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from generator.inputs.problems import InputError, Loc, Problem, describe, dotted, excerpt
from generator.inputs.yamlread import Document
from generator.model.suggest import did_you_mean
from generator.model.wording import listed


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


def _duplicate_constraints(doc: Document, loc: Loc) -> list[Problem]:
    problems = []
    workload = doc.data
    for part in loc:
        workload = workload[part]
    first: dict[str, int] = {}
    for j, name in enumerate(workload.get("constraints") or []):
        if name in first:
            line = doc.where(loc + ("constraints", first[name]))[0]
            problems.append(doc.problem(loc + ("constraints", j),
                                        f"constraints must not repeat (got '{name}' again; first at line {line})"))
        else:
            first[name] = j
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
            suggestion = did_you_mean(excerpt(str(loc[-1]), 100), _known_fields(model, loc[:-1]))
            problems.append(doc.problem(loc, f"unknown field{suggestion} (got {describe(str(loc[-1]))})", key=True))
            continue
        msg = e["msg"]
        msg = msg[0].lower() + msg[1:]
        if msg.startswith("value error, "):
            msg = msg[len("value error, ") :]
        if msg.startswith("workload names must be unique") and (dupes := _duplicate_workloads(doc)):
            problems.extend(dupes)
            continue
        if msg.startswith("constraints must not repeat") and (dupes := _duplicate_constraints(doc, loc)):
            problems.extend(dupes)
            continue
        msg = re.sub(r"^(list should have at least \d+ items?) after validation, not \d+$", r"\1", msg)
        if kind == "literal_error" and isinstance(value, str):
            expected = re.findall(r"'([^']*)'", e["msg"])
            msg += did_you_mean(value, expected)
        if kind in ("model_type", "model_attributes_type", "dict_type"):
            required = _required_fields(model, loc)
            msg = "expected a mapping" + (f" with {listed(required)}" if required else "")
        msg += _type_hint(kind, value)
        if re.search(r"\(got [^()]*\)$", msg):
            got = ""  # the rule's own message already shows what it got
        elif isinstance(value, dict) and value:
            got = f" (got {_describe_mapping(value, msg)})"
        else:
            got = f" (got {describe(value)})"
        problems.append(doc.problem(loc, msg + got, key=isinstance(value, dict)))
    return problems


def validate_doc(doc: Document, model: type[BaseModel]) -> Any:
    try:
        return model.model_validate(doc.data)
    except ValidationError as err:
        raise InputError(validation_problems(doc, model, err)) from None

