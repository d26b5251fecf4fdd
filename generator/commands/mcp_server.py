"""`guide mcp`: the guide's engine as a Model Context Protocol server over standard input and output, on the
official SDK's low-level server (the `mcp` extra, `pip install -e '.[mcp]'`). Read-only and offline: it loads
scenarios/ and data/ once, as a build does, and answers from them (`answers.Guide`); nothing is written and no
request leaves the machine.

It answers `initialize` before it loads anything: the project is loaded in a thread once the server is up, and
the first request that needs it waits for it. Each tool's input schema comes from the scenario schema's models
(`model/schema.py`), so a client sees the fields, types and bounds a scenario file has, and `guide validate` and
the calculator check the same bounds. The server does not check arguments against the schema itself: the guide
validates them as it validates a scenario, and a bad one comes back as the tool's error, one line per problem
naming the field and the reason.

Each answer is sent once, as compact JSON text. The results the protocol lets a client keep (the tool list, the
resources) carry lifetimes (MCP 2026-07-28) that say how long they hold: until the next weekly price refresh
(`lifetimes`).
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.commands import lifetimes

if TYPE_CHECKING:
    from generator.commands.answers import Guide

_READ_ONLY = {"read_only_hint": True, "destructive_hint": False, "idempotent_hint": True, "open_world_hint": False}
_DETAIL = {"type": "string", "enum": ["summary", "full"],
           "description": "summary (the default): the answer a decision needs; full: also the engine's whole document."}
RESOURCES = {
    "guide://topics": ("topics", "Every topic explain answers about: methodology sections, glossary terms, the engine's codes."),
    "guide://scenarios": ("scenarios", "The first page of the published scenarios, as list_scenarios gives it."),
}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


# A workload's fields that document a scenario file and change no answer: left out of the tool's
# schema (the guide still takes them, as a scenario's).
_DOCUMENTING = ("description", "rationale")


def _plain(schema: Any, names: bool = False) -> Any:
    """A JSON Schema as a model reads it best: without `title` annotations (pydantic gives every
    field its name again as one), and an optional field as its type alone rather than "that type or
    null, null by default" (leaving it out says the same). names: `schema` maps names to schemas
    (`properties`, `$defs`), where a field may be called title."""
    if isinstance(schema, list):
        return [_plain(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if names:
        return {k: _plain(v) for k, v in schema.items()}
    arms = schema.get("anyOf")
    if isinstance(arms, list) and len(arms) == 2 and {"type": "null"} in arms and schema.get("default", None) is None:
        (arm,) = [a for a in arms if a != {"type": "null"}]
        schema = {**{k: v for k, v in schema.items() if k not in ("anyOf", "default")}, **arm}
    return {k: _plain(v, names=k in ("properties", "$defs", "patternProperties"))
            for k, v in schema.items() if not (k == "title" and isinstance(v, str))}


def workload_schema() -> dict[str, Any]:
    """evaluate_workload's input: a workload of a scenario file, bounds and all, and how much to say."""
    from generator.model.schema import Workload

    schema = _plain(Workload.model_json_schema())
    for name in _DOCUMENTING:
        del schema["properties"][name]
    schema["$defs"].pop("Rationale")
    schema["properties"]["detail"] = _DETAIL
    return schema


def tool_specs(guide: Guide) -> list[dict[str, Any]]:
    """Each tool's name, description and input schema, as plain data."""
    from generator.commands.answers import ARCHITECTURES, LIST_LIMIT, MAX_OFFSET
    from generator.model.catalog import OPTIONS
    from generator.model.wording import VERDICT_LABELS

    catalog = guide.catalog
    instances = sorted(catalog.instances)
    side = {s: sorted(i for i, inst in catalog.instances.items() if inst.side == s) for s in ("trainium", "gpu")}
    low, high, default = LIST_LIMIT
    return [
        {"name": "evaluate_workload",
         "description": "Trainium or GPU for one training workload, written as a workload of a scenario file. Returns the "
                        "verdict and the step that decided it, each side's plan with the price record it is bought at, the "
                        "figures used and their sources (each once, by key), the thresholds that flip it, a calculator link "
                        "and until when it holds. relative_throughput is the input most verdicts turn on: call "
                        "throughput_evidence first for what the guide knows about the instance pair.",
         "schema": workload_schema()},
        {"name": "throughput_evidence",
         "description": "What the guide knows about the relative throughput of a Trainium and a GPU instance: each chip's "
                        "measured training throughput and utilisation, vendor claims, the ratio of their peaks, and the values "
                        "the guide's scenarios assume for the pair, each with its source and date. Your own measurement beats them.",
         "schema": _object({"trainium": {"type": "string", "enum": side["trainium"]},
                            "gpu": {"type": "string", "enum": side["gpu"]},
                            "architecture": {"type": "string", "enum": list(ARCHITECTURES),
                                             "description": "The model's porting class, to keep only measurements of such models."}},
                           ["trainium", "gpu"])},
        {"name": "find_prices",
         "description": "Every price the guide holds for an instance (optionally one region and one way of buying), each with "
                        "its source, date and whether it is stale, and the instance's hardware figures.",
         "schema": _object({"instance": {"type": "string", "enum": instances},
                            "region": {"type": "string", "enum": catalog.regions(), "description": "Leave out for all."},
                            "option": {"type": "string", "enum": list(OPTIONS), "description": "Leave out for every way."}},
                           ["instance"])},
        {"name": "list_scenarios",
         "description": "The published scenarios, a page at a time: each one's id, verdict, workloads with their totals and "
                        "its page's address.",
         "schema": _object({"verdict": {"type": "string", "enum": list(VERDICT_LABELS)},
                            "instance": {"type": "string", "enum": instances, "description": "On either side."},
                            "offset": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
                            "limit": {"type": "integer", "minimum": low, "maximum": high, "default": default}}, [])},
        {"name": "get_scenario",
         "description": "One published scenario by its id (from list_scenarios): its verdict, each workload's plans, totals, "
                        "deciding step and thresholds, the figures used and their sources, and its addresses.",
         "schema": _object({"id": {"type": "string", "minLength": 1, "maxLength": 100}, "detail": _DETAIL}, ["id"])},
        {"name": "explain",
         "description": "The guide's own words on a topic: a methodology section, a glossary term, a step or reason code of the "
                        "decision, or the throughput evidence, with figures filled in and links to the site. Leave topic out "
                        "for the list of topics.",
         "schema": _object({"topic": {"type": "string", "maxLength": 200, "description": "A topic's id, or a term."}}, [])},
    ]


def handlers(guide: Guide) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    return {
        "evaluate_workload": guide.evaluate_workload,
        "throughput_evidence": guide.throughput,
        "find_prices": guide.find_prices,
        "list_scenarios": guide.list_scenarios,
        "get_scenario": guide.get_scenario,
        "explain": guide.explain,
    }


def answer(guide: Guide, name: str, arguments: dict[str, Any] | None) -> tuple[bool, str]:
    """(is an error, the text) for one call: what the server sends, MCP-free."""
    from generator.commands.answers import Refused

    tools = handlers(guide)
    if name not in tools:
        return True, f"no tool named '{name[:60]}' (the tools: {', '.join(tools)})"
    try:
        found = tools[name](arguments if arguments is not None else {})
    except Refused as e:
        return True, str(e)
    # Compact: an answer is read by a model, whose context pays for every space.
    return False, json.dumps(found, separators=(",", ":"), ensure_ascii=False, default=str)


def resource_text(guide: Guide, uri: str) -> str | None:
    if uri == "guide://topics":
        return json.dumps(guide.explain({}), separators=(",", ":"), ensure_ascii=False)
    if uri == "guide://scenarios":
        return json.dumps(guide.list_scenarios({}), separators=(",", ":"), ensure_ascii=False)
    return None


class _Loading:
    """The project, loaded in a worker thread once the server is up; every request that needs it waits
    for the one load, and a project that does not load fails each of them with its problems (which go
    to standard error too, where a client keeps the server's log)."""

    def __init__(self, root: Path, done: Any):
        self.root = root
        self.done = done  # an anyio.Event, set once the load is over
        self.guide: Guide | None = None
        self.error: Exception | None = None

    def start(self) -> None:
        """Loads in a daemon thread: a load still under way when the client leaves keeps the process
        from exiting no longer than it takes to notice."""
        from anyio.lowlevel import current_token

        token = current_token()
        threading.Thread(target=self._load, args=(token,), name="guide-mcp-load", daemon=True).start()

    def _load(self, token: Any) -> None:
        import anyio.from_thread

        from generator.commands.answers import guide_for

        try:
            self.guide = guide_for(self.root)
        except Exception as e:  # noqa: BLE001 (handed to each request, and logged)
            self.error = e
            print(f"guide mcp: the project did not load:\n{e}", file=sys.stderr)
        try:
            anyio.from_thread.run_sync(self.done.set, token=token)
        except anyio.RunFinishedError:
            pass  # the server has stopped: nobody waits

    async def get(self) -> Guide:
        await self.done.wait()
        if self.error is not None:
            raise self.error
        assert self.guide is not None
        return self.guide


def serve(root: Path) -> None:
    """Answer on standard input and output until the client closes them."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    schedule = lifetimes.weekly_schedule(root)

    def lifetime() -> dict[str, Any]:
        return {"ttl_ms": lifetimes.ttl_ms(schedule, dt.datetime.now(dt.timezone.utc)), "cache_scope": "public"}

    async def list_tools(ctx, params) -> types.ListToolsResult:
        guide = await loading.get()
        tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["schema"],
                            annotations=types.ToolAnnotations(**_READ_ONLY)) for t in tool_specs(guide)]
        return types.ListToolsResult(tools=tools, **lifetime())

    async def call_tool(ctx, params) -> types.CallToolResult:
        try:
            guide = await loading.get()
        except Exception as e:  # the project did not load: every call says why
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(e))], is_error=True)
        error, text = answer(guide, params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)

    async def list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(uri=uri, name=name, description=about, mime_type="application/json")
                                                    for uri, (name, about) in RESOURCES.items()], **lifetime())

    async def read_resource(ctx, params) -> types.ReadResourceResult:
        guide = await loading.get()
        text = resource_text(guide, str(params.uri))
        if text is None:
            raise ValueError(f"no resource {str(params.uri)[:100]} (the resources: {', '.join(RESOURCES)})")
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=str(params.uri), mime_type="application/json",
                                                                             text=text)], **lifetime())

    server = Server("trainium-or-gpu", version="1", instructions=(
        "Answers 'Trainium or GPU?' for a training workload with the guide's own engine, prices and sources. "
        "Offline and read-only. Answers hold until the next weekly price refresh."),
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources, on_read_resource=read_resource)

    loading: _Loading

    async def run() -> None:
        nonlocal loading
        loading = _Loading(root, anyio.Event())
        loading.start()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
