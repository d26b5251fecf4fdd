"""`guide mcp` as an assistant meets it: started as a real process and spoken to with the MCP SDK's
own stdio client. Every answer is checked against `guide evaluate --format json` run at the same
time on the same project, never against numbers written here, so an engine or price change moves
both sides alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest
from core_support import REPO

pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

pytestmark = pytest.mark.slow
TODAY = "2026-11-27"  # both processes judge staleness on one day


def _engine() -> list[dict]:
    env = dict(os.environ, GUIDE_TODAY=TODAY)
    out = subprocess.run([sys.executable, "-m", "generator", "--root", str(REPO), "evaluate", "--format", "json"],
                         capture_output=True, text=True, timeout=300, check=True, env=env)
    return json.loads(out.stdout)


async def _session_calls(calls: list[tuple[str, dict]]) -> tuple[list, list]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "generator", "--root", str(REPO), "mcp"],
                                   env={"GUIDE_TODAY": TODAY})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


@pytest.fixture(scope="module")
def engine() -> list[dict]:
    return _engine()


@pytest.fixture(scope="module")
def talk(engine):
    """Every call the tests below make, in one session with one server process."""
    calls = [("list_scenarios", {})]
    for s in engine:
        calls.append(("get_scenario", {"id": s["id"]}))
        calls += [("evaluate_workload", w) for w in s["scenario"]["workloads"]]
    calls += [
        ("find_prices", {"instance": "p5.48xlarge", "region": "us-east-1"}),
        ("explain", {"topic": "break-even"}),
        ("explain", {"topic": "deadline"}),
        # Arguments the guide refuses.
        ("evaluate_workload", {**engine[0]["scenario"]["workloads"][0], "runs": "12"}),
        ("evaluate_workload", {**engine[0]["scenario"]["workloads"][0], "trainium": {"instance": "trn9.48xlarge", "region": "us-east-1"}}),
        ("evaluate_workload", {**engine[0]["scenario"]["workloads"][0], "colour": "blue"}),
        ("get_scenario", {"id": "no-such-scenario"}),
        ("find_prices", {"instance": "p5.48xlarg"}),
        ("explain", {"topic": ""}),
    ]
    # On a thread of its own: a test run before this one (Playwright's) may leave an event loop running on this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        tools, results = pool.submit(anyio.run, _session_calls, calls).result(timeout=600)
    answers = {}
    for (name, arguments), r in zip(calls, results, strict=True):
        answers.setdefault(name, []).append((arguments, r))
    return tools, answers


def _data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_the_tools_are_listed_with_the_scenario_schemas_fields(talk):
    tools, _ = talk
    by_name = {t.name: t for t in tools}
    assert set(by_name) == {"evaluate_workload", "find_prices", "list_scenarios", "get_scenario", "explain"}
    schema = by_name["evaluate_workload"].input_schema
    from generator.model.schema import Workload

    assert schema["properties"].keys() == Workload.model_json_schema()["properties"].keys()
    assert schema["properties"]["runs"] == {"description": Workload.model_fields["runs"].description, "maximum": 1000000,
                                            "minimum": 1, "title": "Runs", "type": "integer"}
    assert "instance" in by_name["find_prices"].input_schema["required"]
    assert all(t.annotations.read_only_hint for t in tools)


def test_every_shipped_workload_gets_the_verdict_and_totals_of_guide_evaluate(talk, engine):
    _, answers = talk
    evaluated = [_data(r) for arguments, r in answers["evaluate_workload"] if not r.is_error]
    expected = [w for s in engine for w in s["workloads"]]
    assert len(evaluated) == len(expected) > 0
    for got, want in zip(evaluated, expected, strict=True):
        assert got["verdict"] == want["outcome"]["verdict"]
        assert got["totals"] == {"trainium": want["outcome"]["trainium"]["total"], "gpu": want["outcome"]["gpu"]["total"]}
        assert got["break_even_runs"] == want["outcome"]["break_even_runs"]
        assert got["result"] == {**want, "name": got["name"]}  # the engine's whole document, number for number
        assert got["deciding_step"]["rule"] == want["outcome"]["decided_by"]
        flips = {k: v for k, v in want["thresholds"].items() if k != "break_even" and v is not None}
        assert got["thresholds"] == flips
        # The figures used, each with its source and date: both prices first.
        for side in ("trainium", "gpu"):
            (price,) = [s for s in got["sources"] if s.get("side") == side]
            assert (price["source"], price["as_of"]) == (want["prices"][side]["source"], want["prices"][side]["as_of"])
            assert isinstance(price["stale"], bool)
        assert all(s["as_of"] and s["title"] for s in got["sources"])


def test_the_calculator_link_carries_the_workload(talk, engine):
    _, answers = talk
    arguments, r = answers["evaluate_workload"][0]
    url = urlsplit(_data(r)["calculator_url"])
    assert url.path.endswith("/calculator/")
    state = parse_qs(url.query)
    w = engine[0]["scenario"]["workloads"][0]
    assert state.get("ti", [None])[0] in (w["trainium"]["instance"], None)
    # Every value the link carries is the workload's at the field's path.
    from generator.rendering.calculator_fields import FIELDS

    for f in FIELDS:
        if f.key in state and f.path and not f.path.endswith(("regions", "constraints")):
            value = w
            for part in f.path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            assert value is not None and float(state[f.key][0]) == float(value) if isinstance(value, (int, float)) \
                else state[f.key][0] == value, f.key


def test_scenarios_are_listed_and_given_as_guide_evaluate_gives_them(talk, engine):
    _, answers = talk
    listed = _data(answers["list_scenarios"][0][1])["scenarios"]
    assert [(s["id"], s["verdict"]) for s in listed] == [(s["id"], s["verdict"]) for s in engine]
    for s, want in zip(listed, engine, strict=True):
        assert [w["totals"]["gpu"] for w in s["workloads"]] == [w["outcome"]["gpu"]["total"] for w in want["workloads"]]
        assert s["result_url"].endswith(f"scenarios/{want['id']}/result.json")
    got = [_data(r) for arguments, r in answers["get_scenario"] if not r.is_error]
    assert [g["result"] for g in got] == engine


def test_prices_come_with_source_date_and_staleness(talk):
    _, answers = talk
    found = _data(answers["find_prices"][0][1])
    from generator.inputs.loader import load_project

    catalog = load_project(REPO).catalog
    want = [p for p in catalog.prices if p.instance == "p5.48xlarge" and p.region == "us-east-1"]
    rows = [r for r in found["prices"] if r["status"] != "older or other figure"]
    assert [(r["option"], r["usd_per_hour"], r["source"], r["as_of"]) for r in rows] == \
        [(p.option, p.usd_per_hour, p.source, p.as_of.isoformat()) for p in want]
    for r in found["prices"]:
        assert r["source_title"] == catalog.sources[r["source"]].title and r["source_url"] == catalog.sources[r["source"]].url
    assert all(isinstance(r["stale"], bool) for r in rows)
    assert found["instance_figures"] and all(f["instance"] == "p5.48xlarge" for f in found["instance_figures"])


def test_explain_gives_the_methodology_section_with_its_address(talk):
    _, answers = talk
    break_even, deadline = (_data(r) for _, r in answers["explain"][:2])
    assert break_even["title"] == "Ports and break-even" and break_even["url"].endswith("/methodology/#ports-and-break-even")
    assert break_even["markdown"].startswith("## Ports and break-even") and "{{" not in break_even["markdown"]
    assert deadline["title"] == "The decision" and deadline["url"].endswith("#the-decision")


@pytest.mark.parametrize(("tool", "index", "says"), [
    ("evaluate_workload", -3, "runs: input should be a valid integer; remove the quotes to make it a number (got '12')"),
    ("evaluate_workload", -2, "trainium.instance: "),
    ("evaluate_workload", -1, "colour: unknown field"),
    ("get_scenario", -1, "id: not in data/"),
    ("find_prices", -1, "instance: not in data/; did you mean 'p5.48xlarge'? (got 'p5.48xlarg')"),
    ("explain", -1, "topic: expected a step of the decision or a term"),
])
def test_bad_arguments_come_back_as_tool_errors_naming_the_field(talk, tool, index, says):
    _, answers = talk
    result = answers[tool][index][1]
    assert result.is_error
    assert says in result.content[0].text
