"""The calculator's inputs, one row each: the one table the form, the URL state and the checks read.

What a value may be (bounds, whole or not, whether it may be left empty, its default, the choices of a
fixed list, its help) is read here from the scenario schema (`generator.model.schema`), so a limit
changed there changes the calculator too; what only the calculator needs (the URL parameter, the
element's id, the label and unit a reader sees, where the field sits) is written here once.
`partials/calculator_form.html.j2` draws the form from `FIELDS`, and `as_json` ships the same rows
to `docs/assets/calculator/wiring.mjs`, which checks the fields and keeps the URL with them.

The calculator's inputs, one row each: bounds, whole or not, may be empty, default and fixed choices
read from `model/schema.py`; URL parameter, id, label and unit written once. Draws the form
(`partials/calculator_form.html.j2`, the calculator page's `{{ calculator_form }}`) and ships with
the calculator's data for `wiring.mjs`; writes a workload as the calculator's URL state
(`link_query`, `wiring.mjs`'s `presetState` and `urlFor` in Python).
"""

from __future__ import annotations

import types
import typing
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

import jinja2
from markupsafe import Markup
from pydantic import BaseModel

from generator.model.catalog import OPTION_LABELS
from generator.model.schema import Workload
from generator.model.wording import EXPERIENCE_LABELS

Kind = Literal["number", "select", "text", "radio", "checks"]


@dataclass(frozen=True)
class Field:
    key: str  # the URL parameter
    id: str  # the form element's id (a radio group's name for its legend only)
    kind: Kind
    group: str  # the fieldset it sits in
    label: str
    unit: str | None  # shown after the label, in brackets
    path: str | None  # where the value goes in a workload, e.g. trainium.count; None: the calculator's own
    mode: str | None  # shown only in this run-size mode
    error: bool  # has a slot for its error message
    choices: tuple[tuple[str, str], ...]  # a fixed list's (value, label); empty where the page fills it from data/
    # From the schema:
    integer: bool
    min: int | float | None  # at least
    above: int | float | None  # more than
    max: int | float | None  # at most
    optional: bool  # may be left empty (the workload leaves it out)
    default: Any
    help: str | None


@dataclass(frozen=True)
class _Row:
    key: str
    id: str
    kind: Kind
    label: str
    unit: str | None = None
    path: str | None = None
    mode: str | None = None
    error: bool = True
    choices: dict[str, str] | None = None  # value -> label; the values must be the schema's own
    required: bool = False  # asked for even where the schema has a default
    default: str | None = None  # the form's value where the schema's default (None) means this


# The run size comes in one of two ways (RunSize._one_way): within the way the reader picked, each
# of its fields is needed, though the schema lets each alone be left out.
_HOURS, _FLOPS = "hours", "flops"

# In the form's order, group by group.
_ROWS: dict[str, tuple[_Row, ...]] = {
    "options": (
        _Row("ti", "calc-trn-instance", "select", "Trainium instance", path="trainium.instance"),
        _Row("tr", "calc-trn-region", "select", "Trainium region", path="trainium.region"),
        _Row("to", "calc-trn-option", "select", "Trainium purchase option", path="trainium.option"),
        # A count emptied by mistake is asked for again rather than read as the default of one.
        _Row("tc", "calc-trn-count", "number", "Trainium instances at once", "count", path="trainium.count", required=True),
        _Row("gi", "calc-gpu-instance", "select", "GPU instance", path="gpu.instance"),
        _Row("gr", "calc-gpu-region", "select", "GPU region", path="gpu.region"),
        _Row("go", "calc-gpu-option", "select", "GPU purchase option", path="gpu.option"),
        _Row("gc", "calc-gpu-count", "number", "GPU instances at once", "count", path="gpu.count", required=True),
        _Row("th", "calc-trn-held", "number", "Trainium reservation already held",
             "months left, commitment options; empty: none", path="trainium.held_months"),
        _Row("gh", "calc-gpu-held", "number", "GPU reservation already held",
             "months left, commitment options; empty: none", path="gpu.held_months"),
        # Leaving `buy` out of a workload accepts on demand beside each named way: the same as this box alone.
        _Row("b", "calc-buy", "checks", "Ways the team would also buy, beside each side's named option", path="buy",
             error=False, choices=dict(OPTION_LABELS), default="on-demand"),
    ),
    "run": (
        _Row("rm", "calc-mode", "radio", "How to give the run size", error=False,
             choices={_HOURS: "GPU instance-hours", _FLOPS: "Parameters, tokens and MFU"}),
        _Row("h", "calc-hours", "number", "Instance-hours per run on the GPU option", "instance-hours",
             path="run_size.gpu_instance_hours", mode=_HOURS, required=True),
        _Row("p", "calc-params", "number", "Parameters", "billions", path="run_size.params_billion", mode=_FLOPS, required=True),
        _Row("k", "calc-tokens", "number", "Tokens per run", "billions", path="run_size.tokens_billion", mode=_FLOPS, required=True),
        _Row("u", "calc-mfu", "number", "MFU on the GPU option", "0 to 1", path="run_size.mfu", mode=_FLOPS, required=True),
        _Row("q", "calc-precision", "select", "Peak rate MFU refers to", path="run_size.precision", mode=_FLOPS, error=False,
             choices={"bf16": "BF16", "fp8": "FP8"}),
    ),
    "plan": (
        _Row("n", "calc-runs", "number", "Runs planned", "runs", path="runs"),
        _Row("a", "calc-rpa", "number", "Runs before the architecture changes", "runs; empty: never", path="runs_per_architecture"),
        _Row("r", "calc-rel", "number", "Relative throughput, Trainium over GPU instance", "ratio; a guess",
             path="relative_throughput.value"),
        _Row("rl", "calc-rel-low", "number", "Relative throughput, low end", "ratio", path="relative_throughput.low"),
        _Row("rh", "calc-rel-high", "number", "Relative throughput, high end", "ratio", path="relative_throughput.high"),
        _Row("pm", "calc-plan-months", "number", "Calendar span of the plan", "months; empty: runs back to back", path="plan_months"),
        _Row("rg", "calc-regions", "text", "Regions the workload may use", "comma-separated; empty: any", path="regions"),
    ),
    "porting": (
        _Row("c", "calc-arch", "select", "Architecture class", path="architecture", error=False),
        _Row("e", "calc-exp", "select", "Team's Neuron experience", path="neuron_experience", error=False,
             choices=EXPERIENCE_LABELS),
        _Row("w", "calc-weeks", "number", "Your own estimate of port effort", "engineer-weeks; empty: class default",
             path="porting.weeks.value"),
        _Row("wl", "calc-weeks-low", "number", "Port effort, low end", "engineer-weeks", path="porting.weeks.low"),
        _Row("wh", "calc-weeks-high", "number", "Port effort, high end", "engineer-weeks", path="porting.weeks.high"),
        _Row("x", "calc-week-usd", "number", "Cost of one engineer-week", "USD", path="porting.engineer_week_usd"),
        _Row("xe", "calc-extra", "number", "Other cost of each port", "USD, e.g. validation compute", path="porting.extra_usd"),
        _Row("pe", "calc-engineers", "number", "Engineers on the port at once", "count; empty: the guide's default",
             path="porting.engineers"),
        _Row("k_", "calc-constraints", "checks", "Hard constraints", path="constraints", error=False),
    ),
    "availability": (
        _Row("ta", "calc-trn-avail", "select", "Trainium capacity", path="availability.trainium", error=False,
             choices={"available": "Available", "constrained": "Constrained", "unavailable": "Unavailable"}),
        _Row("ga", "calc-gpu-avail", "select", "GPU capacity", path="availability.gpu", error=False,
             choices={"available": "Available", "constrained": "Constrained", "unavailable": "Unavailable"}),
        _Row("s", "calc-soon", "number", "Run needed within", "days; empty: not urgent", path="availability.needed_within_days"),
        _Row("fd", "calc-finish", "number", "Whole plan done within", "days, the wait, the port and every run; empty: no finish date",
             path="availability.finish_within_days"),
        _Row("tl", "calc-trn-lead", "number", "Days before Trainium capacity can be had", "days", path="availability.trainium_lead_days"),
        _Row("gl", "calc-gpu-lead", "number", "Days before GPU capacity can be had", "days", path="availability.gpu_lead_days"),
    ),
}


def _unwrap(annotation: Any) -> Any:
    """A field's type without its `| None`."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"the calculator cannot take a field of type {annotation}")
        return args[0]
    return annotation


def _schema_field(root: type[BaseModel], path: str) -> tuple[Any, Any, bool, str | None]:
    """The pydantic field at `path` in a workload, its type, whether the path may be left out of a
    workload at any step, and its description (or the nearest one above it)."""
    model = root
    optional = False
    help_text = None
    parts = path.split(".")
    for n, part in enumerate(parts):
        info = model.model_fields[part]
        optional = optional or not info.is_required()
        help_text = info.description or help_text
        kind = _unwrap(info.annotation)
        if n < len(parts) - 1:
            model = kind
    return info, kind, optional, help_text


def _number(v: int | float) -> int | float:
    # 36.0 and 36 read the same on the page and in an error message.
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _field(root: type[BaseModel], group: str, row: _Row) -> Field:
    low = above = high = None
    integer = optional = False
    default = help_text = None
    choices: tuple[tuple[str, str], ...] = tuple((row.choices or {}).items())
    if row.path is None:
        default = next(iter(row.choices)) if row.choices else None
    else:
        info, kind, optional, help_text = _schema_field(root, row.path)
        integer = kind is int
        # pydantic keeps Field(ge=..., gt=..., le=...) as annotated-types constraints in `metadata`.
        for m in info.metadata:
            if getattr(m, "ge", None) is not None:
                low = _number(m.ge)
            if getattr(m, "gt", None) is not None:
                above = _number(m.gt)
            if getattr(m, "le", None) is not None:
                high = _number(m.le)
            if getattr(m, "lt", None) is not None:
                raise ValueError(f"{row.path}: the calculator has no check for a bound that excludes its maximum (lt)")
        if not info.is_required():
            default = info.get_default(call_default_factory=True)
            if isinstance(default, float):
                default = _number(default)
        if row.choices is not None:
            # A list of choices (checks) takes its values from the list's items.
            one = typing.get_args(kind)[0] if typing.get_origin(kind) is list else kind
            allowed = typing.get_args(one)
            if typing.get_origin(one) is not Literal or tuple(row.choices) != allowed:
                raise ValueError(f"{row.path}: the calculator's choices {tuple(row.choices)} are not the schema's {allowed}")
    if row.default is not None:
        default = row.default
    if isinstance(default, list):
        default = ",".join(default)
    return Field(
        key=row.key, id=row.id, kind=row.kind, group=group, label=row.label, unit=row.unit, path=row.path,
        mode=row.mode, error=row.error, choices=choices, integer=integer, min=low, above=above, max=high,
        optional=optional and not row.required, default=default, help=help_text,
    )


def fields_from(root: type[BaseModel]) -> tuple[Field, ...]:
    """The table, read from `root`: the schema's Workload, or in a test a model derived from it."""
    return tuple(_field(root, group, row) for group, rows in _ROWS.items() for row in rows)


FIELDS: tuple[Field, ...] = fields_from(Workload)


class Form:
    """The table as the form's template reads it."""

    def __init__(self, fields: tuple[Field, ...]):
        self.fields = fields

    def group(self, name: str) -> list[Field]:
        return [f for f in self.fields if f.group == name]

    def __getitem__(self, key: str) -> Field:
        (found,) = [f for f in self.fields if f.key == key]
        return found


def as_json(fields: tuple[Field, ...] = FIELDS) -> list[dict[str, Any]]:
    """What wiring.mjs reads of each field: its URL parameter, id, place in a workload and checks.
    What a field has not (no bound, not whole, no default) is left out: the page carries every byte."""
    keep = ("key", "id", "kind", "path", "mode", "integer", "min", "above", "max", "optional", "default")
    rows = []
    for f in fields:
        row = {k: v for k, v in asdict(f).items() if k in keep and v is not None and v is not False}
        if f.choices:
            row["choices"] = [c for c, _ in f.choices]
        rows.append(row)
    return rows


def form_html(env: jinja2.Environment, fields: tuple[Field, ...] = FIELDS) -> Markup:
    """The form, for the calculator page's `{{ calculator_form }}`."""
    # The page puts the placeholder on a line of its own, which brings its own line end.
    return Markup(env.get_template("partials/calculator_form.html.j2").render(form=Form(fields)).rstrip("\n"))


def _at(workload: dict[str, Any], path: str) -> Any:
    value: Any = workload
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _text(value: Any) -> str:
    """A value as the calculator's URL carries it: JavaScript's String() of it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def _state(workload: dict[str, Any], base: dict[str, str], fields: tuple[Field, ...]) -> dict[str, str]:
    """`presetState` of wiring.mjs: every field's text read at its path in the workload (plain JSON,
    as `model_dump(mode="json")` writes it), its default where the workload leaves it out; the run
    size's other way keeps what `base` has for its fields."""
    state = dict(base)
    mode_field = next(f for f in fields if f.kind == "radio")
    way = "hours" if any(f.mode == "hours" and _at(workload, f.path) is not None for f in fields if f.path) else "flops"
    state[mode_field.key] = way
    for f in fields:
        if not f.path or (f.mode and f.mode != way):
            continue
        value = _at(workload, f.path)
        if isinstance(value, list):
            state[f.key] = ("," if f.kind == "checks" else ", ").join(value)
        else:
            state[f.key] = "" if value is None and f.default is None else _text(f.default if value is None else value)
    return state


def link_query(workload: dict[str, Any], reference: dict[str, Any], engineer_week_usd: float,
               fields: tuple[Field, ...] = FIELDS) -> str:
    """The calculator's URL query that loads `workload` (wiring.mjs `urlFor`): each field whose value
    differs from the page's starting state, the reference workload's (data/reference.yaml).
    engineer_week_usd: the guide's default, which the form shows where a workload names none."""
    from urllib.parse import urlencode

    fields = tuple(replace(f, default=engineer_week_usd) if f.path == "porting.engineer_week_usd" else f for f in fields)
    defaults = {f.key: "" if f.default is None else _text(f.default) for f in fields}
    start = _state(reference, defaults, fields)
    state = _state(workload, start, fields)
    return urlencode([(k, v) for k, v in state.items() if v != start[k]])
