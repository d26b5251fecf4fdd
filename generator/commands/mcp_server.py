"""`guide mcp`: the guide's engine as a Model Context Protocol server over standard input and output,
on the official SDK (`pip install -e '.[mcp]'`). Read-only and offline: it loads scenarios/ and
data/ once, as a build does, and answers from them (`answers.Guide`); nothing is written and no
request leaves the machine.

Each tool's input schema comes from the scenario schema's models, so a client sees the fields, types
and bounds a scenario file has. The server does not check arguments against the schema itself: the
guide validates them as it validates a scenario, and a bad one comes back as the tool's error, one
line per problem naming the field and the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.commands.answers import Guide, Refused
from generator.model.catalog import OPTIONS
from generator.model.schema import Workload

_READ_ONLY = {"read_only_hint": True, "destructive_hint": False, "idempotent_hint": True, "open_world_hint": False}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def tool_specs(guide: Guide) -> list[dict[str, Any]]:
    """Each tool's name, description and input schema, as plain data."""
    instances = sorted(guide.catalog.instances)
    regions = sorted({p.region for p in guide.catalog.prices})
    return [
        {"name": "evaluate_workload",
         "description": "Trainium or GPU for one training workload, written as a workload of a scenario file "
                        "(scenarios/*.yaml). Returns the verdict, both plans' totals, the step that decided, every "
                        "reason, the thresholds that would flip it, the break-even, a calculator link with the same "
                        "inputs, the source and date of every figure used, and the engine's whole result as "
                        "`guide evaluate --format json` writes it.",
         "schema": Workload.model_json_schema()},
        {"name": "find_prices",
         "description": "Every price the guide holds for an instance (optionally one region and one way of buying), "
                        "each with its source, title, address, as-of date and whether it is stale, and the "
                        "instance's hardware figures with theirs.",
         "schema": _object({"instance": {"type": "string", "enum": instances, "description": "EC2 instance type."},
                            "region": {"type": "string", "enum": regions, "description": "AWS region; leave out for all."},
                            "option": {"type": "string", "enum": list(OPTIONS),
                                       "description": "How the instance is bought; leave out for every way."}},
                           ["instance"])},
        {"name": "list_scenarios",
         "description": "The published scenarios: each one's verdict, workloads with their totals, and the addresses "
                        "of its page, its Markdown and its full result as JSON.",
         "schema": _object({}, [])},
        {"name": "get_scenario",
         "description": "One published scenario's full result, as `guide evaluate --format json` writes it, and each "
                        "workload's verdict, totals, deciding step, thresholds, break-even and sources.",
         "schema": _object({"id": {"type": "string", "enum": sorted(guide.by_id), "description": "The scenario's id."}},
                           ["id"])},
        {"name": "explain",
         "description": "The section of the guide's methodology behind a step of the decision (feasibility, cost, "
                        "deadline, capacity) or a term (break-even, robustness, commitment, spot, ...), with the "
                        "guide's figures filled in and its address.",
         "schema": _object({"topic": {"type": "string", "minLength": 1, "description": "A step or a term."}}, ["topic"])},
    ]


def handlers(guide: Guide) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    return {
        "evaluate_workload": guide.evaluate_workload,
        "find_prices": guide.find_prices,
        "list_scenarios": lambda arguments: guide.list_scenarios(),
        "get_scenario": guide.get_scenario,
        "explain": guide.explain,
    }


def answer(guide: Guide, name: str, arguments: dict[str, Any] | None) -> tuple[bool, str, dict[str, Any] | None]:
    """(is an error, the text, the answer as data) for one call: what the server sends, MCP-free."""
    tools = handlers(guide)
    if name not in tools:
        return True, f"no tool named '{name}' (the tools: {', '.join(tools)})", None
    try:
        found = tools[name](arguments or {})
    except Refused as e:
        return True, str(e), None
    # As `guide evaluate --format json` writes its numbers.
    return False, json.dumps(found, indent=1, default=str), json.loads(json.dumps(found, default=str))


def serve(root: Path) -> None:
    """Answer on standard input and output until the client closes them."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from generator.commands.answers import guide_for

    guide = guide_for(root)
    tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["schema"],
                        annotations=types.ToolAnnotations(**_READ_ONLY)) for t in tool_specs(guide)]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params) -> types.CallToolResult:
        error, text, data = answer(guide, params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error,
                                    structured_content=data)

    server = Server("trainium-or-gpu", version="1", instructions=(
        "Answers 'Trainium or GPU?' for a training workload with the guide's own engine, prices and sources. "
        "Offline and read-only."), on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
