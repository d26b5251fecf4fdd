"""The `guide` command: validate, evaluate and export the schema. Exit 0 ok, 1 invalid input, 2 usage."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from generator.loader import InputError, load_project
from generator.results import to_dict
from generator.schema import json_schema_text


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="guide", description="Trainium or GPU: validate and evaluate scenarios.")
    p.add_argument("--root", default=".", help="project folder holding scenarios/ and data/ (default: .)")
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("validate", help="check scenarios/ and data/ (or the given files) and report every problem")
    v.add_argument("paths", nargs="*", metavar="PATH")

    e = sub.add_parser("evaluate", help="evaluate scenarios and print verdicts with every computed number")
    e.add_argument("paths", nargs="*", metavar="PATH")
    e.add_argument("--format", choices=("table", "json"), default="table")

    s = sub.add_parser("schema", help="print the scenario JSON Schema")
    s.add_argument("--output", metavar="FILE", help="write it to FILE instead of standard output")
    return p


def _table(results) -> str:
    rows = [("scenario", "verdict", "expect", "saving/run $", "break-even runs", "robust")]
    for r in results:
        be = [w.outcome.break_even_runs for w in r.workloads]
        be_text = ", ".join("-" if b is None else f"{b:.1f}" for b in be)
        rows.append((r.id, r.verdict, r.scenario.expect, f"{r.saving_per_run:,.0f}", be_text, "yes" if r.robust else "flips"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    root = Path(args.root)
    if args.command == "schema":
        text = json_schema_text()
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    try:
        project = load_project(root, args.paths)
    except InputError as e:
        for problem in e.problems:
            print(problem, file=sys.stderr)
        print(f"{len(e.problems)} problem(s) found.", file=sys.stderr)
        return 1
    if args.command == "validate":
        print(f"ok: data/ and {len(project.results)} scenario(s) are valid.")
        return 0
    if args.format == "json":
        json.dump([to_dict(r) for r in project.results], sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        print(_table(project.results))
    return 0
