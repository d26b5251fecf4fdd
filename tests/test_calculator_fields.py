"""The calculator's field table (generator/rendering/calculator/fields.py): its bounds are the scenario
schema's, and a bound changed in the schema reaches the form's attributes and the JavaScript check."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pydantic import Field as SchemaField

from core_support import FROZEN, learned_env
from generator.inputs.loader import load_project
from generator.model.schema import Compute, Scenario, Workload
from generator.rendering.calculator import fields as cf
from generator.rendering.pages.renderer import Renderer

WIRING = Path(__file__).resolve().parent.parent / "docs" / "assets" / "calculator" / "wiring.mjs"
SCHEMA = Scenario.model_json_schema()

# Fields the calculator asks for though a workload may leave them out: a count (the schema's default
# is one instance) and, within the run-size way the reader picked, each of its figures.
ASKED_FOR = {"tc", "gc", "h", "p", "k", "u"}


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _exported(path: str) -> tuple[dict, bool]:
    """The exported JSON Schema (schemas/scenario.schema.json) of a workload's field, without its null
    branch, and whether a workload may leave it or any field above it out."""
    node, optional = _resolve(SCHEMA["$defs"]["Workload"]), False
    for part in path.split("."):
        optional = optional or part not in node.get("required", [])
        (node,) = [b for b in node["properties"][part].get("anyOf", [node["properties"][part]]) if b.get("type") != "null"]
        node = _resolve(node)
    return node, optional


@pytest.mark.parametrize("field", [f for f in cf.FIELDS if f.path], ids=lambda f: f.key)
def test_every_bound_in_the_table_is_the_schemas(field: cf.Field):
    node, optional = _exported(field.path)
    assert (field.min, field.above, field.max) == (node.get("minimum"), node.get("exclusiveMinimum"), node.get("maximum"))
    assert "exclusiveMaximum" not in node
    assert field.integer == (node.get("type") == "integer")
    assert field.optional == (optional and field.key not in ASKED_FOR)
    if field.choices:
        # A group of boxes (checks) takes its choices from the list's items.
        items = _resolve(node["items"]) if node.get("type") == "array" else node
        assert [value for value, _ in field.choices] == items["enum"]


def test_the_tables_keys_ids_and_paths_are_each_used_once():
    for name in ("key", "id", "path"):
        values = [getattr(f, name) for f in cf.FIELDS if getattr(f, name)]
        assert len(values) == len(set(values)), name
    numbers = [f for f in cf.FIELDS if f.kind == "number"]
    # Every figure the calculator takes is a count, a size, a price or a span, bounded below by the
    # schema; a table that lost its link to the schema would have no bounds at all.
    assert all(f.min is not None or f.above is not None for f in numbers)
    assert any(f.max is not None for f in numbers)


def test_choices_that_are_not_the_schemas_stop_the_table():
    bad = cf._Row("e", "calc-exp", "select", "Team's Neuron experience", path="neuron_experience",
                  choices={"none": "None", "lots": "Lots"})
    with pytest.raises(ValueError, match="neuron_experience"):
        cf._field(Workload, "porting", bad)


class _Inputs(HTMLParser):
    """Each element with an id in the form, by id, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, dict[str, str | None]] = {}
        self.label_for: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.by_id[a["id"]] = {"tag": tag, **a}
        if tag == "label" and a.get("for"):
            self.label_for.append(a["for"])


def _parse(html: str) -> _Inputs:
    p = _Inputs()
    p.feed(html)
    return p


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(load_project(FROZEN))


def test_the_form_is_drawn_from_the_table(renderer: Renderer):
    form = _parse(str(renderer.calculator_form))
    for f in cf.FIELDS:
        if f.kind in ("radio", "checks"):
            continue
        el = form.by_id[f.id]
        assert el["name"] == f.key and f.id in form.label_for, f.key
        if f.kind == "number":
            # A bound the value must exceed ("more than 0") has no attribute: min would allow the bound itself.
            assert el.get("min") == (None if f.min is None else str(f.min)), f.key
            assert el.get("max") == (None if f.max is None else str(f.max)), f.key
            assert el["step"] == ("1" if f.integer else "any"), f.key
        if f.error:
            assert form.by_id[f"{f.id}-error"]["role"] == "alert", f.key
    radios = [el for el in form.by_id.values() if el.get("type") == "radio"]
    assert [(r["name"], r["value"]) for r in radios] == [("rm", "hours"), ("rm", "flops")]
    assert form.by_id["calc-constraints"]["tag"] == "fieldset"


class _TightCompute(Compute):
    count: int = SchemaField(1, ge=1, le=64)


class _Tight(Workload):
    runs: int = SchemaField(ge=2, le=5)
    trainium: _TightCompute


def _js_checks(rows: list[dict], cases: list[tuple[str, str]]) -> list[list]:
    """wiring.mjs's own check of each (field id, typed text) under the shipped rows, run in Node."""
    script = """
import { pathToFileURL } from "node:url";
const [file, rows, cases] = [process.argv[1], JSON.parse(process.argv[2]), JSON.parse(process.argv[3])];
const { checkNumber } = await import(pathToFileURL(file).href);
// The messages are the calculator data's, as the page's setup teaches them.
const say = await import(new URL("./wording.mjs", pathToFileURL(file)).href);
say.learn(JSON.parse(process.env.GUIDE_WORDS), JSON.parse(process.env.GUIDE_MESSAGES));
const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
console.log(JSON.stringify(cases.map(([id, text]) => checkNumber(text, byId[id]))));
"""
    out = subprocess.run(["node", "--input-type=module", "-e", script, str(WIRING), json.dumps(rows), json.dumps(cases)],
                         capture_output=True, text=True, check=True, timeout=60, env=learned_env())
    return json.loads(out.stdout)


def test_a_bound_changed_in_the_schema_reaches_the_form_and_the_check(renderer: Renderer):
    tight = cf.fields_from(_Tight)
    runs, count = (next(f for f in tight if f.key == k) for k in ("n", "tc"))
    assert (runs.min, runs.max, count.max) == (2, 5, 64)

    shipped = _parse(str(renderer.calculator_form)).by_id
    form = _parse(str(cf.form_html(renderer.env, tight))).by_id
    assert (shipped["calc-runs"]["min"], shipped["calc-runs"]["max"]) == ("1", "1000000")
    assert (form["calc-runs"]["min"], form["calc-runs"]["max"], form["calc-trn-count"]["max"]) == ("2", "5", "64")

    cases = [("calc-runs", "6"), ("calc-runs", "5"), ("calc-runs", "1"), ("calc-trn-count", "65"), ("calc-gpu-count", "65")]
    assert _js_checks(cf.as_json(tight), cases) == [
        [None, "Must be at most 5."], [5, ""], [None, "Must be at least 2."], [None, "Must be at most 64."], [65, ""],
    ]
    assert _js_checks(cf.as_json(), cases) == [[6, ""], [5, ""], [1, ""], [65, ""], [65, ""]]
    # The shipped bound as a reader reads a figure: grouped by thousands.
    assert _js_checks(cf.as_json(), [("calc-runs", "1000001"), ("calc-trn-count", "100001")]) == [
        [None, "Must be at most 1,000,000."], [None, "Must be at most 100,000."],
    ]


def test_a_table_changed_by_hand_reaches_the_form(renderer: Renderer):
    edited = tuple(replace(f, max=7) if f.key == "pe" else f for f in cf.FIELDS)
    assert _parse(str(cf.form_html(renderer.env, edited))).by_id["calc-engineers"]["max"] == "7"


def test_the_shipped_rows_carry_what_the_checks_read():
    rows = {r["key"]: r for r in cf.as_json()}
    assert rows["n"] == {"key": "n", "id": "calc-runs", "kind": "number", "path": "runs", "integer": True, "min": 1, "max": 1_000_000}
    assert rows["pm"] == {"key": "pm", "id": "calc-plan-months", "kind": "number", "path": "plan_months", "above": 0, "max": 600,
                          "optional": True}
    assert rows["rm"]["choices"] == ["hours", "flops"] and rows["rm"]["default"] == "hours"


def test_the_calculator_data_joined_from_stored_preset_texts_is_what_writing_it_whole_gives():
    from generator.rendering.calculator.data import data_json
    from generator.rendering.embeds.folders import compact_json

    presets = [{"id": "a/1", "label": "A <b>", "workload": {"runs": 3, "name": "x"}}, {"id": "b/1", "label": "B", "workload": {}}]
    parts = {"reference": {"z": 1, "a": [1.5, None]}, "chart": {"k": "v"}, "presets2": 1, "data": {"n": "é"}}
    assert data_json(parts, [compact_json(p) for p in presets]) == compact_json(parts | {"presets": presets})
    assert data_json({}, []) == compact_json({"presets": []})
