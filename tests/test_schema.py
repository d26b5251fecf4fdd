"""The scenario schema file, the modeline of every scenario, and the provenance of every figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from core_support import LIVE_DATA, LIVE_SCENARIOS, REPO
from generator.inputs.loader import REFERENCE, load_catalog
from generator.model.schema import MODELINE, SCHEMA_URL, Scenario, Workload, json_schema_text

SCHEMA_FILE = REPO / "schemas" / "scenario.schema.json"


def test_committed_schema_equals_the_one_generated_from_the_models():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == json_schema_text(), (
        "schemas/scenario.schema.json is out of date: run `guide schema --output schemas/scenario.schema.json`"
    )


def test_schema_declares_its_dialect_and_id_and_describes_the_model():
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == SCHEMA_URL
    assert schema["additionalProperties"] is False  # extra="forbid" reaches editors too
    assert set(schema["required"]) == {n for n, f in Scenario.model_fields.items() if f.is_required()}
    assert set(schema["properties"]) == set(Scenario.model_fields)


SCENARIO_FILES = sorted(LIVE_SCENARIOS.glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[p.stem for p in SCENARIO_FILES])
def test_every_scenario_starts_with_the_schema_modeline(path: Path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/scenario.schema.json"
    assert first == MODELINE
    # The modeline's relative path points at the committed schema.
    assert (path.parent / first.split("$schema=", 1)[1]).resolve() == SCHEMA_FILE.resolve()


def _numbers_without_provenance(node, path: str = ""):
    """Every mapping that holds a number directly must say where the number comes from."""
    if isinstance(node, dict):
        numbers = [k for k, v in node.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if numbers and not ("source" in node and "as_of" in node):
            yield f"{path or '(top)'}: {', '.join(numbers)} without " + " and ".join(
                k for k in ("source", "as_of") if k not in node
            )
        for k, v in node.items():
            yield from _numbers_without_provenance(v, f"{path}.{k}" if path else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _numbers_without_provenance(v, f"{path}.{i}")


# data/reference.yaml is a workload in the scenario format, the guide's own example, not a file of
# sourced figures: it is checked below as a workload whose instances carry sourced figures.
# data/refresh.yaml is `guide refresh-prices`'s record of what it asked and what it holds back for a
# person: no figure in it is shown or used (tests/test_refresh_checks.py checks it).
STATE = "refresh.yaml"
DATA_FILES = sorted(p for p in LIVE_DATA.glob("*.yaml") if p.name not in (REFERENCE, STATE))


@pytest.mark.parametrize("path", DATA_FILES, ids=[p.name for p in DATA_FILES])
def test_every_figure_in_data_has_a_source_and_a_date(path: Path):
    raw = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    missing = list(_numbers_without_provenance(raw))
    assert not missing, "\n".join(missing)


def test_the_reference_workload_names_only_instances_with_sourced_figures():
    assert REFERENCE in {p.name for p in LIVE_DATA.glob("*.yaml")} - {p.name for p in DATA_FILES}
    raw = YAML(typ="safe", pure=True).load((LIVE_DATA / REFERENCE).read_text(encoding="utf-8"))
    workload = Workload.model_validate(raw)
    catalog = load_catalog(LIVE_DATA)
    for side in (workload.trainium, workload.gpu):
        instance = catalog.instances[side.instance]
        cited = [f for f in (instance.chips, instance.accelerator_memory, instance.regions)]
        assert all(f.source in catalog.sources for f in cited), side.instance
        assert side.region in instance.regions.value, side
        (price,) = [p for p in catalog.prices
                    if (p.instance, p.region, p.option) == (side.instance, side.region, side.option)]
        assert price.offered and price.source in catalog.sources, side
        assert catalog.sources[price.source].kind != "assumption", side


def test_the_provenance_walk_finds_a_figure_without_source():
    # The walk above would pass vacuously if it never looked at a number: show it catches one.
    raw = {"prices": [{"usd_per_hour": 1.0, "as_of": "2025-01-01"}, {"value": 2, "source": "X", "as_of": "2025-01-01"}]}
    assert list(_numbers_without_provenance(raw)) == ["prices.0: usd_per_hour without source"]


def test_the_data_files_hold_figures_at_all():
    counted = 0
    for path in DATA_FILES:
        raw = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
        stack = [raw]
        while stack:
            n = stack.pop()
            if isinstance(n, dict):
                counted += sum(isinstance(v, (int, float)) and not isinstance(v, bool) for v in n.values())
                stack.extend(n.values())
            elif isinstance(n, list):
                stack.extend(n)
    assert counted > 100


def _models(model, seen=None):
    """The model and every pydantic model reachable from its fields."""
    import typing

    from pydantic import BaseModel

    seen = seen if seen is not None else []
    if model in seen:
        return seen
    seen.append(model)
    for field in model.model_fields.values():
        stack = [field.annotation]
        while stack:
            t = stack.pop()
            if isinstance(t, type) and issubclass(t, BaseModel):
                _models(t, seen)
            stack.extend(typing.get_args(t))
    return seen


def test_every_number_field_defaults_to_a_value_of_its_own_type():
    # A float field whose default is an int holds 0 when the default is taken and 0.0 when the same
    # value is read back from a cache, and the two can print differently on a page.
    from generator.model import catalog

    wrong = []
    for model in [*_models(Scenario), *_models(catalog.Catalog)]:
        for name, field in model.model_fields.items():
            if field.default is None or not field.annotation or "float" not in str(field.annotation):
                continue
            if isinstance(field.default, (int, float)) and type(field.default) is not float:
                wrong.append(f"{model.__name__}.{name} = {field.default!r}")
    assert wrong == []


def _numbers(schema: dict, node: dict | None = None, path: str = ""):
    """Every number a workload takes, by its dotted path, with its JSON Schema (references and
    `anyOf [type, null]` followed)."""
    node = schema if node is None else node
    if "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
    arms = [a for a in node.get("anyOf", [node]) if a.get("type") != "null"]
    for arm in arms:
        arm = schema["$defs"][arm["$ref"].rsplit("/", 1)[1]] if "$ref" in arm else arm
        if arm.get("type") in ("number", "integer"):
            yield path, {**node, **arm}
        for name, child in arm.get("properties", {}).items():
            yield from _numbers(schema, child, f"{path}.{name}" if path else name)


def test_every_number_a_workload_takes_is_bounded_and_every_entry_point_reads_the_same_bounds():
    """`guide validate`, the calculator's field table and `guide mcp`'s tool all take a workload's
    bounds from the schema: each number has a lowest and a highest value a real team could ask."""
    from generator.commands.mcp_server import workload_schema
    from generator.inputs.loader import InputError, validate_workload, workload_document
    from generator.rendering.calculator.data import workload_json
    from generator.rendering.calculator.fields import FIELDS

    schema = Workload.model_json_schema()
    numbers = dict(_numbers(schema))
    assert len(numbers) > 20
    for path, node in numbers.items():
        assert ("minimum" in node or "exclusiveMinimum" in node) and "maximum" in node, path
    # The calculator: a field for every number, with the schema's bounds.
    fields = {f.path: f for f in FIELDS if f.kind == "number"}
    assert set(fields) == set(numbers)
    for path, node in numbers.items():
        f = fields[path]
        assert (f.min, f.above, f.max) == (node.get("minimum"), node.get("exclusiveMinimum"), node["maximum"]), path
    # The tool: the same numbers under the same bounds.
    tool = workload_schema()
    assert {p: (n.get("minimum"), n.get("exclusiveMinimum"), n["maximum"]) for p, n in _numbers(tool)} == \
        {p: (n.get("minimum"), n.get("exclusiveMinimum"), n["maximum"]) for p, n in numbers.items()}
    # The check itself: past the highest, a workload is refused naming the field.
    catalog = load_catalog(LIVE_DATA)
    reference = workload_json(Workload.model_validate(YAML(typ="safe", pure=True).load((LIVE_DATA / REFERENCE).read_text())))
    for path, node in numbers.items():
        workload = json.loads(json.dumps(reference))
        if path.startswith("run_size.") and path != "run_size.gpu_instance_hours":
            workload["run_size"] = {"params_billion": 7, "tokens_billion": 1000, "mfu": 0.4}
        if path.endswith("held_months"):
            workload[path.split(".")[0]]["option"] = "commit-1y"
        target = workload
        *parents, last = path.split(".")
        for part in parents:
            target = target.setdefault(part, {} if part != "weeks" else {"value": 1, "low": 1, "high": 1})
        target[last] = node["maximum"] * 10
        with pytest.raises(InputError) as e:
            validate_workload(workload_document(workload, "workload"), catalog)
        assert any(p.field == path and "less than or equal to" in p.message for p in e.value.problems), (path, e.value)
