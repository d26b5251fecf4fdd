"""The `guide` command as a user runs it: exit codes, the JSON and table reports, the schema, and
that nothing is ever written into scenarios/ or data/."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from core_support import SCENARIOS, copy_inputs, run_guide, tree_hashes
from generator.model import wording
from generator.model.engine import Inputs, Outcome, Robustness, Side, Step, Thresholds
from generator.model.resolve import Bought
from generator.model.schema import json_schema_text

SCENARIO_IDS = sorted(p.stem for p in SCENARIOS.glob("*.yaml"))


def _strict_json(text: str):
    def refuse(name: str):
        raise AssertionError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """validate, evaluate (table and JSON) and schema, run once each on a scratch copy of the
    inputs, with every file of the copy hashed before and after."""
    root = copy_inputs(tmp_path_factory.mktemp("project"))
    before = tree_hashes(root / "data", root / "scenarios")
    commands = {
        "validate": ["validate"],
        "table": ["evaluate"],
        "json": ["evaluate", "--format", "json"],
        "schema": ["schema"],
    }
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:  # separate processes, side by side
        futures = {name: pool.submit(run_guide, *args, cwd=root, root=root) for name, args in commands.items()}
        out: dict = {name: f.result() for name, f in futures.items()}
    after = tree_hashes(root / "data", root / "scenarios")
    out.update(root=root, before=before, after=after, entries=sorted(p.name for p in root.iterdir()))
    return out


def test_validate_succeeds_on_the_repository(runs):
    r = runs["validate"]
    assert (r.returncode, r.stderr) == (0, "")
    ok, *notes = r.stdout.splitlines()
    assert ok == f"ok: data/ and {len(SCENARIO_IDS)} scenario(s) are valid."
    assert len(notes) <= 1 and all(n.startswith("note: ") and "are older than" in n for n in notes), notes  # stale prices, by date


def test_nothing_is_written_into_scenarios_or_data(runs):
    assert runs["before"], "nothing was hashed"
    assert runs["after"] == runs["before"]
    assert runs["entries"] == ["data", "scenarios"]  # no cache or output file next to them either


def test_invalid_input_exits_1_and_names_every_file(tmp_path: Path):
    root = copy_inputs(tmp_path)
    broken = root / "scenarios" / "one-off-run.yaml"
    broken.write_text(broken.read_text(encoding="utf-8").replace("runs: 1\n", "runs: 0\n"), encoding="utf-8")
    for command in (["validate"], ["evaluate", "--format", "json"]):
        r = run_guide(*command, "scenarios/one-off-run.yaml", "scenarios/does-not-exist.yaml", cwd=root, root=root)
        assert r.returncode == 1, command
        assert r.stdout == ""
        lines = r.stderr.splitlines()
        assert lines[-1] == "2 problem(s) found."
        assert lines[0].startswith("scenarios/does-not-exist.yaml:1:1: (file): no such file")
        assert lines[1].startswith("scenarios/one-off-run.yaml:") and ": workloads.0.runs: " in lines[1]
        assert "Traceback" not in r.stderr


def test_a_wrong_expect_exits_1_with_both_verdicts(tmp_path: Path):
    root = copy_inputs(tmp_path)
    f = root / "scenarios" / "one-off-run.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("expect: gpu\n", "expect: trainium\n"), encoding="utf-8")
    r = run_guide("validate", cwd=root, root=root)
    assert r.returncode == 1
    (problem, summary) = r.stderr.splitlines()
    assert problem.startswith("scenarios/one-off-run.yaml:")
    assert ": expect: the engine's verdict is gpu but expect says trainium: " in problem
    assert summary == "1 problem(s) found."


@pytest.mark.parametrize(
    "args, says",
    [
        ([], "the following arguments are required: command"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["evaluate", "--format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_usage_errors_exit_2(args, says, tmp_path: Path):
    r = run_guide(*args, cwd=tmp_path)
    assert r.returncode == 2
    assert says in r.stderr and "usage: guide" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_the_console_script_is_guide():
    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "guide"]
    assert ep.value == "generator.commands.cli:main"


def test_schema_prints_the_scenario_schema(runs, tmp_path: Path):
    assert runs["schema"].returncode == 0
    assert runs["schema"].stdout == json_schema_text()
    out = tmp_path / "schema.json"
    r = run_guide("schema", "--output", str(out), cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == ""
    assert out.read_text(encoding="utf-8") == json_schema_text()


# --- evaluate --format json -----------------------------------------------------------------------


def _fields_in_order(cls) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def _as_json(value):
    """The engine's value in the shape JSON carries it: its tuples (reasons, options) arrive as arrays."""
    if isinstance(value, tuple):
        return [_as_json(v) for v in value]
    return value


def test_json_has_one_object_per_scenario_with_everything_computed(runs):
    r = runs["json"]
    assert r.returncode == 0 and r.stderr == ""
    report = _strict_json(r.stdout)  # no NaN or Infinity: a worst case's nan value becomes null
    assert [s["id"] for s in report] == SCENARIO_IDS
    for s in report:
        assert {"id", "path", "title", "expect", "verdict", "matches_expectation", "robust", "scenario", "workloads"} <= set(s)
        assert s["path"] == f"scenarios/{s['id']}.yaml"
        assert s["matches_expectation"] is True and s["verdict"] == s["expect"]
        verdicts = {w["outcome"]["verdict"] for w in s["workloads"]}
        # Hybrid only when workloads go both ways; a workload neither side can run leaves the others' lean.
        leans = verdicts - {"neither"}
        assert s["verdict"] == ("hybrid" if len(leans) == 2 else leans.pop() if leans else "neither")
        # Robust as the page says it: no input alone, nor all at their worst or best at once, flips a workload.
        assert s["robust"] == all(w["robustness"]["holds"] and not w["robustness"]["joint_flip"] for w in s["workloads"])
        assert [w["name"] for w in s["workloads"]] == [w["name"] for w in s["scenario"]["workloads"]]
        for w in s["workloads"]:
            assert set(w) == {"name", "inputs", "outcome", "robustness", "thresholds", "single_blocks", "prices",
                              "hourly_prices", "spot_pools", "neuron_pin", "break_even_statement"}
            assert set(w["inputs"]) == _fields(Inputs)
            assert set(w["outcome"]) == _fields(Outcome)
            for side in ("trainium", "gpu"):
                assert set(w["outcome"][side]) == _fields(Side)
                assert set(w["prices"][side]) == _fields(Bought) | {"stale", "age_days"}
                # The record the plan buys at: the way and region the engine chose.
                assert (w["prices"][side]["region"], w["prices"][side]["option"]) == (
                    w["outcome"][side]["plan_region"], w["outcome"][side]["plan_option"])
                assert w["prices"][side]["point"] == w["outcome"][side]["usd_per_hour"]
                assert isinstance(w["prices"][side]["stale"], bool) and isinstance(w["prices"][side]["age_days"], int)
                dt.date.fromisoformat(w["prices"][side]["as_of"])
            assert w["outcome"]["trace"], "an empty trace"
            for step in w["outcome"]["trace"]:
                # The step's code is published as its sentence, where the code would be.
                assert list(step) == ["text" if f == "code" else f for f in _fields_in_order(Step)]
            assert set(w["robustness"]) == _fields(Robustness)
            assert set(w["thresholds"]) == _fields(Thresholds)
            for end in w["robustness"]["ends"] + [w["robustness"]["worst_case"], w["robustness"]["best_case"]]:
                assert set(end) == {"input", "end", "value", "verdict", "total_difference"}


def test_json_numbers_are_the_engines(runs, project):
    report = {s["id"]: s for s in _strict_json(runs["json"].stdout)}
    for result in project.results:
        s = report[result.id]
        for w, computed in zip(s["workloads"], result.workloads):
            o = computed.outcome
            got = w["outcome"]
            assert got["verdict"] == o.verdict
            for key in ("saving_per_run", "saving_pct", "port_cost", "ports", "break_even_runs", "total_difference"):
                assert got[key] == getattr(o, key), key
            for side in ("trainium", "gpu"):
                for key in _fields(Side) - {"reasons"}:
                    assert got[side][key] == _as_json(getattr(getattr(o, side), key)), (side, key)
                # Each reason a side cannot run is published as its sentence.
                assert got[side]["reasons"] == [wording.reason_text(r) for r in getattr(o, side).reasons], side
            assert [(st["rule"], st["verdict"]) for st in got["trace"]] == [(st.rule, st.verdict) for st in o.trace]
            assert w["inputs"]["gpu_hours"] == computed.inputs.gpu_hours
            assert w["inputs"]["relative_throughput"] == dataclasses.asdict(computed.inputs.relative_throughput)
            assert w["thresholds"] == dataclasses.asdict(computed.thresholds)
            assert w["robustness"]["flips_on"] == list(computed.robustness.flips_on)
            assert w["robustness"]["worst_case"]["value"] is None  # nan in Python, null in JSON
            assert math.isnan(computed.robustness.worst_case.value)


def test_evaluate_given_paths_reports_only_those(tmp_path: Path):
    root = copy_inputs(tmp_path)
    r = run_guide("evaluate", "--format", "json", "scenarios/one-off-run.yaml", "scenarios/mainstream-pretraining.yaml",
                  cwd=root, root=root)
    assert r.returncode == 0
    assert [s["id"] for s in _strict_json(r.stdout)] == ["one-off-run", "mainstream-pretraining"]


# --- evaluate (table) -----------------------------------------------------------------------------


def test_table_lists_every_scenario_with_its_verdict(runs, project):
    r = runs["table"]
    assert r.returncode == 0 and r.stderr == ""
    table, legend = r.stdout.split("\n\n", 1)
    header, *rows = table.splitlines()
    assert header.split() == ["scenario", "verdict", "expect", "saving/run", "$", "break-even", "runs", "robustness"]
    # Under the table, what each column and word means.
    assert legend.startswith("columns:\n")
    for said in ("saving/run $", "negative where Trainium costs more a run", "joint:", "flips:", "robust:", '"never"',
                 '"not within N years'):
        assert said in legend, said
    by_id = {row.split()[0]: row.split() for row in rows}
    assert sorted(by_id) == SCENARIO_IDS
    for result in project.results:
        cells = by_id[result.id]
        assert cells[1:3] == [result.verdict, result.scenario.expect]
        assert cells[3] == f"{result.saving_per_run:,.0f}"
    # The words the scenario pages use: a verdict that turns only when several inputs are at their
    # worst at once is not called robust, nor said to flip.
    assert by_id["cuda-native-modest-volume"][-1] == "joint"
    assert by_id["spot-job-on-64-instances"][-1] == "flips"
    assert by_id["one-off-run"][-1] == "robust"
    # Break-even is the shortest whole plan that costs less on Trainium. Named on 3-year terms but
    # accepting on demand, both sides of stable-architecture-growing-bill buy no term: the GPU 2,000 h x
    # 21.957642 = 43,915 a run, Trainium 2,000 / 1.1 x 21.5 = 39,091, so 4,824 a run repays the 15,000
    # port in 3.1 runs: the shortest plan that costs less is 4 runs. A port that recurs before it is
    # repaid, and a Trainium that never costs less, have none.
    assert by_id["stable-architecture-growing-bill"][-3:-1] == ["4", "runs"]
    assert by_id["new-architecture-every-three-runs"][-2] == "never"
    assert by_id["spot-job-on-64-instances"][-2] == "never"
    # A hybrid's two workloads: production repays its port in 1.2 runs (2 runs), research never.
    assert by_id["case-series-a-startup"][4:-1] == ["2", "runs,", "never"]


def test_evaluate_help_explains_the_tables_columns(tmp_path: Path):
    r = run_guide("evaluate", "--help", cwd=tmp_path)
    assert r.returncode == 0
    for said in ("saving/run $", "negative where Trainium costs more a run", "joint:", "flips:"):
        assert said in r.stdout, said


def test_a_root_without_data_exits_1_naming_each_missing_file(tmp_path: Path):
    r = run_guide("validate", cwd=tmp_path, root=tmp_path)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        f"data/{name}.yaml:1:1: (file): required data file is missing (got no {name}.yaml in data/)"
        for name in ("assumptions", "chips", "instances", "prices", "sources")
    ] + ["5 problem(s) found."]
