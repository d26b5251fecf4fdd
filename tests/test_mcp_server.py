"""`guide mcp` as an assistant meets it: started as a real process and spoken to with the MCP SDK's
own stdio client. Every answer is checked against `guide evaluate --format json` run at the same
time on the same project, never against numbers written here, so an engine or price change moves
both sides alike. Three users' sessions are driven as an assistant would drive them, each answer
held to its tool's size budget, its sources and its links."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest
from core_support import REPO

pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.client import Client  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from generator.commands import lifetimes, siteconfig  # noqa: E402
from generator.model.schema import MODELINE  # noqa: E402

pytestmark = pytest.mark.slow
TODAY = "2026-11-27"  # both processes judge staleness on one day
SITE = siteconfig.read(REPO).site_url
# Each tool's default answer at most this many characters, as the server sends it.
BUDGETS = {"evaluate_workload": 6000, "get_scenario": 8000, "list_scenarios": 10000, "find_prices": 9000,
           "explain": 8000, "throughput_evidence": 6000}

# A startup pricing a 7B model on 1T tokens in us-east-1.
STARTUP = {"name": "7B on 1T tokens", "architecture": "mainstream",
           "run_size": {"params_billion": 7, "tokens_billion": 1000, "mfu": 0.4}, "runs": 6,
           "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1", "count": 4},
           "gpu": {"instance": "p5.48xlarge", "region": "us-east-1", "count": 4},
           "relative_throughput": {"value": 0.6, "low": 0.45, "high": 0.8}}
# A European team with data residency and a custom CUDA kernel.
EUROPE = {"name": "resident training", "architecture": "heavy-custom-cuda", "run_size": {"gpu_instance_hours": 2000},
          "runs": 12, "regions": ["eu-north-1", "eu-west-2"], "constraints": ["custom-cuda-kernels"],
          "trainium": {"instance": "trn1.32xlarge", "region": "eu-north-1", "option": "capacity-block", "count": 8},
          "gpu": {"instance": "p5.48xlarge", "region": "eu-west-2", "count": 8},
          "relative_throughput": {"value": 0.5, "low": 0.4, "high": 0.7}}
# What a reader meets who asks why a verdict is "neither".
NEITHER = {"name": "TensorFlow, no GPUs to be had", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 500},
           "runs": 4, "constraints": ["tensorflow"], "availability": {"gpu": "unavailable"},
           "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1"},
           "gpu": {"instance": "p5.48xlarge", "region": "us-east-1"},
           "relative_throughput": {"value": 1.0, "low": 0.8, "high": 1.2}}
USERS = {
    "startup": [("throughput_evidence", {"trainium": "trn1.32xlarge", "gpu": "p5.48xlarge"}),
                ("explain", {"topic": "relative throughput"}),
                ("evaluate_workload", STARTUP)],
    "europe": [("find_prices", {"instance": "p5.48xlarge", "region": "eu-west-2"}),
               ("throughput_evidence", {"trainium": "trn1.32xlarge", "gpu": "p5.48xlarge", "architecture": "heavy-custom-cuda"}),
               ("explain", {"topic": "hard constraint"}),
               ("evaluate_workload", EUROPE)],
    "reader": [("find_prices", {"instance": "p5.48xlarge"}),
               ("list_scenarios", {}),
               ("evaluate_workload", NEITHER),
               ("explain", {"topic": "why neither"}),
               ("explain", {"topic": "neither-can-run"})],
}


def _env() -> dict[str, str]:
    return dict(os.environ, GUIDE_TODAY=TODAY)


def _engine(*paths: Path) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "generator", "--root", str(REPO), "evaluate", "--format", "json",
                          *map(str, paths)], capture_output=True, text=True, timeout=300, check=True, env=_env())
    return json.loads(out.stdout)


def _server(root: Path = REPO) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "generator", "--root", str(root), "mcp"],
                                 env={"GUIDE_TODAY": TODAY})


async def _session_calls(calls: list[tuple[str, dict]]) -> tuple[list, list]:
    async with stdio_client(_server()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


def _in_thread(fn, *args):
    # On a thread of its own: a test run before this one (Playwright's) may leave an event loop running on this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, fn, *args).result(timeout=600)


@pytest.fixture(scope="module")
def live_results() -> list[dict]:
    return _engine()


@pytest.fixture(scope="module")
def talk(live_results):
    """Every call the tests below make, in one session with one server process."""
    calls = [("list_scenarios", {})]
    for s in live_results:
        calls.append(("get_scenario", {"id": s["id"], "detail": "full"}))
        calls += [("evaluate_workload", {**w, "detail": "full"}) for w in s["scenario"]["workloads"]]
    calls += [
        ("find_prices", {"instance": "p5.48xlarge", "region": "us-east-1"}),
        ("explain", {"topic": "break-even"}),
        ("explain", {"topic": "deadline"}),
        # Arguments the guide refuses.
        ("evaluate_workload", {**live_results[0]["scenario"]["workloads"][0], "runs": "12"}),
        ("evaluate_workload", {**live_results[0]["scenario"]["workloads"][0], "trainium": {"instance": "trn9.48xlarge", "region": "us-east-1"}}),
        ("evaluate_workload", {**live_results[0]["scenario"]["workloads"][0], "colour": "blue"}),
        ("evaluate_workload", {**live_results[0]["scenario"]["workloads"][0], "run_size": {"gpu_instance_hours": 1e300}}),
        ("get_scenario", {"id": "no-such-scenario"}),
        ("find_prices", {"instance": "p5.48xlarg"}),
        ("explain", {"topic": "x" * 100_000}),
    ]
    tools, results = _in_thread(_session_calls, calls)
    answers = {}
    for (name, arguments), r in zip(calls, results, strict=True):
        answers.setdefault(name, []).append((arguments, r))
    return tools, answers


def _data(result) -> dict:
    assert not result.is_error, result.content[0].text
    (content,) = result.content  # sent once, as text: no second copy as structured content
    assert result.structured_content is None
    return json.loads(content.text)


def test_the_tools_are_listed_with_the_scenario_schemas_fields_and_bounds(talk):
    tools, _ = talk
    by_name = {t.name: t for t in tools}
    assert set(by_name) == {"evaluate_workload", "throughput_evidence", "find_prices", "list_scenarios", "get_scenario", "explain"}
    schema = by_name["evaluate_workload"].input_schema
    from generator.model.schema import Workload

    # Every field that changes an answer, and how much to say; a file's own notes (description, rationale) aside.
    assert set(schema["properties"]) == set(Workload.model_fields) - {"description", "rationale"} | {"detail"}
    assert schema["properties"]["runs"] == {"description": Workload.model_fields["runs"].description, "maximum": 1000000,
                                            "minimum": 1, "type": "integer"}
    assert "throughput_evidence" in by_name["evaluate_workload"].description
    assert "instance" in by_name["find_prices"].input_schema["required"]
    assert all(t.annotations.read_only_hint for t in tools)
    assert len(json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools], separators=(",", ":"))) < 13000


def test_every_shipped_workload_gets_the_document_of_guide_evaluate(talk, live_results):
    _, answers = talk
    evaluated = [_data(r) for arguments, r in answers["evaluate_workload"] if not r.is_error]
    expected = [w for s in live_results for w in s["workloads"]]
    assert len(evaluated) == len(expected) > 0
    for got, want in zip(evaluated, expected, strict=True):
        assert got["result"] == {**want, "name": got["name"]}  # the engine's whole document, number for number
        assert got["verdict"] == want["outcome"]["verdict"]
        assert {side: got["plans"][side]["total"] for side in ("trainium", "gpu")} == \
            {side: want["outcome"][side]["total"] for side in ("trainium", "gpu")}
        assert got["break_even_runs"] == want["outcome"]["break_even_runs"]
        assert got["decided_by"]["rule"] == want["outcome"]["decided_by"]
        flips = {k: v for k, v in want["thresholds"].items() if k != "break_even" and v is not None}
        assert got["thresholds"] == flips
        # Each side's plan cites the price record it is bought at; each source once, with its date.
        for side in ("trainium", "gpu"):
            price = got["plans"][side]["price"]
            assert (price["source"], price["as_of"]) == (want["prices"][side]["source"], want["prices"][side]["as_of"])
            assert isinstance(price["stale"], bool) and price["source"] in got["sources"]
        assert all(s["name"] and s["as_of"] for s in got["sources"].values())


def test_the_calculator_link_carries_the_workload(talk, live_results):
    _, answers = talk
    arguments, r = answers["evaluate_workload"][0]
    _link_carries(_data(r)["calculator_url"], live_results[0]["scenario"]["workloads"][0])


def _link_carries(link: str, w: dict) -> None:
    from generator.rendering.calculator.fields import FIELDS

    url = urlsplit(link)
    assert link.startswith(SITE) and url.path.endswith("/calculator/")
    state = parse_qs(url.query)
    for f in FIELDS:
        if f.key in state and f.path and not f.path.endswith(("regions", "constraints", "buy")):
            value = w
            for part in f.path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                assert float(state[f.key][0]) == float(value), f.key
            elif value is not None:
                assert state[f.key][0] == value, f.key
    for many, key in (("regions", "rg"), ("constraints", "k_")):
        if w.get(many):
            assert [v.strip() for v in state[key][0].split(",")] == w[many], key


def test_scenarios_are_listed_and_given_as_guide_evaluate_gives_them(talk, live_results):
    _, answers = talk
    listed = _data(answers["list_scenarios"][0][1])
    assert [(s["id"], s["verdict"]) for s in listed["scenarios"]] == [(s["id"], s["verdict"]) for s in live_results][:len(listed["scenarios"])]
    assert listed["count"] == len(live_results)
    for s, want in zip(listed["scenarios"], live_results, strict=False):
        assert [w["totals"]["gpu"] for w in s["workloads"]] == [w["outcome"]["gpu"]["total"] for w in want["workloads"]]
        assert s["page_url"] == f"{SITE}scenarios/{want['id']}/"
    got = [_data(r) for arguments, r in answers["get_scenario"] if not r.is_error]
    assert [g["result"] for g in got] == live_results
    assert all(g["result_url"] == f"{SITE}scenarios/{g['id']}/result.json" for g in got)


def test_prices_come_with_source_date_and_staleness(talk):
    _, answers = talk
    found = _data(answers["find_prices"][0][1])
    from generator.inputs.loader import load_project

    catalog = load_project(REPO).catalog
    want = [p for p in catalog.prices if p.instance == "p5.48xlarge" and p.region == "us-east-1"]
    assert [(r["option"], r.get("usd_per_hour"), r["source"], r["as_of"]) for r in found["prices"]] == \
        [(p.option, p.usd_per_hour, p.source, p.as_of.isoformat()) for p in want]
    for key, s in found["sources"].items():
        assert s["name"] == catalog.sources[key].name and s.get("url") == catalog.sources[key].url
    assert {r["source"] for r in found["prices"] + found["other_figures"] + found["instance_figures"]} == set(found["sources"])
    assert all(isinstance(r["stale"], bool) for r in found["prices"])
    assert found["instance_figures"] and all(f["figure"] for f in found["instance_figures"])


def test_explain_gives_the_guides_own_words_with_absolute_links(talk):
    _, answers = talk
    break_even, deadline = (_data(r) for _, r in answers["explain"][:2])
    assert break_even["id"] == "break-even-runs" and break_even["url"] == f"{SITE}glossary/"
    assert "ports-and-break-even" in [s["id"] for s in break_even["see_also"]]
    assert deadline["title"] == "The decision" and deadline["url"] == f"{SITE}methodology/#the-decision"
    assert "{{ " not in deadline["markdown"]
    _markdown_alone(deadline["markdown"])


def _markdown_alone(markdown: str) -> None:
    """Markdown with no HTML tag outside code, and every link absolute."""
    prose = re.sub(r"(`+).+?\1", "", re.sub(r"^(```+).*?^\1$", "", markdown, flags=re.S | re.M), flags=re.S)
    assert not re.findall(r"(?<!\\)</?[a-zA-Z][^>\n]*>", prose)
    links = re.findall(r"\]\(([^()\s]+)\)", markdown)
    assert all(re.match(r"[a-z]+:", link) for link in links), links


@pytest.mark.parametrize(("tool", "index", "says"), [
    ("evaluate_workload", -4, "runs: input should be a valid integer; remove the quotes to make it a number (got '12')"),
    ("evaluate_workload", -3, "trainium.instance: "),
    ("evaluate_workload", -2, "colour: unknown field"),
    ("evaluate_workload", -1, "run_size.gpu_instance_hours: input should be less than or equal to 10000000"),
    ("get_scenario", -1, "id: not in data/"),
    ("find_prices", -1, "instance: not in data/; did you mean 'p5.48xlarge'? (got 'p5.48xlarg')"),
    ("explain", -1, "topic: no topic matches it"),
])
def test_bad_arguments_come_back_as_short_tool_errors_naming_the_field(talk, tool, index, says):
    _, answers = talk
    result = answers[tool][index][1]
    assert result.is_error
    assert says in result.content[0].text and len(result.content[0].text) < 400


def _sources_cited(answer) -> set[str]:
    """Every source key an answer names, wherever in it."""
    found: set[str] = set()
    if isinstance(answer, dict):
        for k, v in answer.items():
            if k == "source" and isinstance(v, str):
                found.add(v)
            elif k in ("sources", "price_sources") and isinstance(v, list):
                found.update(v)
            elif k != "sources":
                found |= _sources_cited(v)
    elif isinstance(answer, list):
        for v in answer:
            found |= _sources_cited(v)
    return found


@pytest.fixture(scope="module")
def sessions():
    """Each user's calls, in a session of their own, each answer with its text's size."""
    async def run() -> dict:
        out = {}
        for user, calls in USERS.items():
            async with stdio_client(_server()) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                out[user] = [(name, arguments, await session.call_tool(name, arguments)) for name, arguments in calls]
        return out
    return _in_thread(run)


def _scenario_file(tmp_path: Path, workload: dict, expect: str) -> Path:
    path = tmp_path / "scenarios" / f"{expect}-{len(list(tmp_path.glob('scenarios/*')))}.yaml"
    path.parent.mkdir(exist_ok=True)
    doc = {"title": workload["name"], "summary": "An assistant's session.", "expect": expect, "sources": ["The session."],
           "workloads": [workload]}
    path.write_text(MODELINE + "\n" + json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("user", list(USERS))
def test_each_users_session_gets_answers_within_budget_with_sources_and_links(sessions, user, tmp_path: Path):
    for name, arguments, result in sessions[user]:
        text = result.content[0].text
        assert not result.is_error, (name, text)
        assert len(text) < BUDGETS[name], (name, len(text))
        answer = _data(result)
        assert answer["holds_until"] and answer["data_as_of"]
        # Every source an answer names is among its sources, each given once with its title and date.
        if name != "explain":
            assert _sources_cited(answer) <= set(answer["sources"]) != set(), name
            assert all(s["name"] and s["kind"] and "as_of" in s for s in answer["sources"].values())
        if name == "evaluate_workload":
            _link_carries(answer["calculator_url"], arguments)
            # The verdict and every figure are `guide evaluate`'s for the same workload in a scenario file,
            # which refuses the file should the verdict not be what the tool said.
            (want,) = _engine(_scenario_file(tmp_path, arguments, answer["verdict"]))
            (document,) = want["workloads"]
            full = json.loads(_in_thread(_one_call, name, {**arguments, "detail": "full"}))
            assert full["result"] == document
        elif name == "explain":
            assert answer["url"].startswith(SITE)
            _markdown_alone(answer["markdown"])
        elif name == "throughput_evidence":
            assert answer["page_url"] == f"{SITE}throughput/" and answer["advice"]
        elif name == "list_scenarios":
            assert all(s["page_url"].startswith(SITE) for s in answer["scenarios"])
        elif name == "find_prices":
            assert all(d.startswith(SITE) for d in answer["downloads"])


async def _one_call(name: str, arguments: dict) -> str:
    async with stdio_client(_server()) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return (await session.call_tool(name, arguments)).content[0].text


def test_the_users_are_told_what_they_asked(sessions):
    startup = {name: _data(r) for name, _, r in sessions["startup"]}
    assert startup["throughput_evidence"]["measured"]["trainium"]  # trn1 has measurements of its own
    assert startup["explain"]["id"] == "relative-throughput"
    europe = {name: _data(r) for name, _, r in sessions["europe"]}
    assert {p["region"] for p in europe["find_prices"]["prices"]} == {"eu-west-2"}
    assert "class_note" in europe["throughput_evidence"]
    assert "constraints.custom-cuda-kernels" in europe["evaluate_workload"]["figures"]
    reader = [(name, _data(r)) for name, _, r in sessions["reader"]]
    neither = dict(reader[2:3])["evaluate_workload"]
    assert neither["verdict"] == "neither" and neither["decided_by"]["code"] == "neither-can-run"
    assert reader[3][1]["id"] == "neither" and reader[4][1]["id"] == neither["decided_by"]["code"]


def test_the_tool_list_and_resources_hold_until_the_next_weekly_refresh():
    """On MCP 2026-07-28, where results carry lifetimes: the ones the protocol lets a client keep."""
    async def run():
        async with Client(_server(), cache=None) as client:
            before = dt.datetime.now(dt.timezone.utc)
            tools = await client.list_tools()
            listed = await client.list_resources()
            topics = await client.read_resource("guide://topics")
            return client.protocol_version, before, tools, listed, topics

    version, before, tools, listed, topics = _in_thread(run)
    assert version == "2026-07-28"
    refresh = lifetimes.next_refresh(lifetimes.weekly_schedule(REPO), before)
    assert refresh is not None
    for result in (tools, listed, topics):
        assert result.cache_scope == "public"
        # What is left of the week, give or take the time the calls took.
        assert 0 <= (refresh - before).total_seconds() * 1000 - result.ttl_ms < 60_000
    assert {str(r.uri) for r in listed.resources} == {"guide://topics", "guide://scenarios"}
    assert json.loads(topics.contents[0].text)["topics"]


def test_initialize_is_answered_before_the_project_is_loaded(tmp_path: Path):
    """The handshake waits for nothing: here the project's data can never be read (a pipe no one
    writes to), and `initialize` still comes back at once."""
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    (root / "scenarios").mkdir()
    os.mkfifo(root / "data" / "sources.yaml")

    async def run() -> float:
        async with stdio_client(_server(root)) as (read, write), ClientSession(read, write) as session:
            started = time.perf_counter()
            with anyio.fail_after(60):
                await session.initialize()
            return time.perf_counter() - started

    assert _in_thread(run) < 60

