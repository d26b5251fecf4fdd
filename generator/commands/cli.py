"""The `guide` command. Exit 0 ok, 1 invalid input (or a file that exists), 2 usage, 3 a verdict
changed (`guide diff --fail-on-verdict-change`). Each command's work lives in its own module.

The `guide` command and its subcommands (`guide reread`: the prose a price refresh asks a person to
reread, exit 1 while any is as it was)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
from pathlib import Path

from generator.commands import gitbase, import_prices, scaffold, siteconfig
from generator.inputs import freshness, provenance
from generator.inputs.loader import InputError, Problem, load_project
from generator.model import formatting as fmt
from generator.model import wording
from generator.model.results import present_workload, to_dict
from generator.model.schema import json_schema_text
from generator.rendering.published import diff


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="guide", description="Trainium or GPU: validate and evaluate scenarios.")
    p.add_argument("--root", default=".", help="project folder holding scenarios/ and data/ (default: .)")
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("validate", help="check scenarios/ and data/ (or the given files) and report every problem")
    v.add_argument("paths", nargs="*", metavar="PATH")
    v.add_argument("--strict", action="store_true",
                   help="also refuse prices a refresh could confirm that are older than stale_days (data/assumptions.yaml, default 180)")

    sub.add_parser("reread", help="list the scenario prose a price refresh asks a person to reread (data/refresh.yaml); "
                                  "exit 1 while any is as it was")

    e = sub.add_parser("evaluate", help="evaluate scenarios and print verdicts with every computed number",
                       epilog=EVALUATE_LEGEND, formatter_class=argparse.RawDescriptionHelpFormatter)
    e.add_argument("paths", nargs="*", metavar="PATH")
    e.add_argument("--format", choices=("table", "json"), default="table")

    s = sub.add_parser("schema", help="print the scenario JSON Schema")
    s.add_argument("--output", metavar="FILE", help="write it to FILE instead of standard output")

    n = sub.add_parser("new-scenario", help="write scenarios/NAME.yaml to fill in (never replaces a file)")
    n.add_argument("name", metavar="NAME", type=_scenario_name, help="lower-case letters, digits and dashes")

    d = sub.add_parser("diff", help="Markdown report of what changed against BASE: verdicts, savings, prices")
    d.add_argument("base", nargs="?", metavar="BASE", help="a git commit or branch (default: the merge base with main)")
    d.add_argument("--threshold", type=_percent, default=diff.DEFAULT_THRESHOLD, metavar="PERCENT",
                   help="report savings and break-even runs that move by more than this (default: 5)")
    d.add_argument("--fail-on-verdict-change", action="store_true", help="exit 3 when any verdict changed")

    i = sub.add_parser("import-prices", help="update on-demand prices in data/prices.yaml from an AWS Price List file")
    i.add_argument("file", metavar="FILE", help="EC2 offer file or `aws pricing get-products` output (- for stdin)")
    i.add_argument("--as-of", type=_date, metavar="YYYY-MM-DD", help="date of the prices (default: the file's publicationDate)")
    i.add_argument("--source", metavar="KEY", help="source key to cite (default: AWS-PRICE-LIST-YYYY-MM)")
    i.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")

    rp = sub.add_parser("refresh-prices", help="update data/ from AWS's pricing, Spot, Capacity Block and offerings APIs and the Spot Instance Advisor's data (boto3)")
    rp.add_argument("--pricing-region", choices=("us-east-1", "eu-central-1", "ap-south-1"), default="us-east-1",
                    help="endpoint of the Price List Query API (default: us-east-1)")
    rp.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    rp.add_argument("--accept", action="append", default=[], metavar="INSTANCE/REGION/OPTION=FIGURE",
                    help="write a held move the report named, if AWS still gives the figure you checked (within 1 %%); repeatable")
    rp.add_argument("--refuse", action="append", default=[], metavar="INSTANCE/REGION/OPTION=FIGURE",
                    help="keep data/'s figure and raise a held move no more while AWS gives the figure you checked; repeatable")
    rp.add_argument("--memory", metavar="FILE", type=Path,
                    help="what the refresh remembers between runs (default: .refresh/memory.yaml; the weekly workflow "
                         "keeps it on the branch refresh-memory)")
    rp.add_argument("--report", metavar="FILE", type=Path,
                    help="also write the report as Markdown to FILE (the weekly pull request's body)")

    sub.add_parser("mcp", help="serve the engine to an assistant over the Model Context Protocol (stdio; needs the mcp extra)")

    c = sub.add_parser("cache", help="manage the build cache (.cache/ or GUIDE_CACHE_DIR)")
    c_sub = c.add_subparsers(dest="cache_command", required=True)
    pr = c_sub.add_parser("prune", help="remove every cached file the current tree does not use")
    pr.add_argument("--site-url", metavar="URL", help="the site URL builds use (default: site_url in mkdocs.yml)")

    g = sub.add_parser("generate", help="write the whole docs tree and an mkdocs.yml without the guide plugin into DIR")
    g.add_argument("dir", metavar="DIR", type=Path, help="a new or empty folder, or one guide generate wrote before")
    g.add_argument("--for", dest="engine", choices=("mkdocs", "zensical"), default="mkdocs",
                   help="the builder the tree is for (default: mkdocs); Zensical reads raw HTML links from the source file")
    return p


def _scenario_name(text: str) -> str:
    try:
        return scaffold.check_name(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"a percentage of 0 or more (got {text!r})")
    return value


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a date written YYYY-MM-DD (got {text!r})") from None


def _problems(problems: list[Problem], heading: str | None = None) -> int:
    if heading:
        print(heading, file=sys.stderr)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(problems)} problem(s) found.", file=sys.stderr)
    return 1


# What the table's columns mean, under it and in `guide evaluate --help`.
EVALUATE_LEGEND = """\
columns:
  expect           the verdict the scenario file says it expects (validate fails where it differs)
  saving/run $     what one run costs less on Trainium than on the GPU, ports left out, whatever the
                   verdict: negative where Trainium costs more a run (a GPU verdict often has a
                   positive one, where the port or another rule outweighs it); a hybrid counts the
                   workloads that go to Trainium
  break-even runs  per workload, the shortest plan that costs less on Trainium, ports included ("N runs";
                   under a commitment, paid by the term, the shortest whole plan); "not within N years
                   at this pace" where it lies past the horizon (data/assumptions.yaml, never shorter
                   than the plan); "never" where Trainium never costs less, or where each
                   architecture's runs are too few to repay its port
  robustness       robust: no input moved across its own range changes the verdict; flips: one input
                   alone changes it somewhere inside its range; joint: only several inputs at their
                   worst at once do"""


def _table(results) -> str:
    rows = [("scenario", "verdict", "expect", "saving/run $", "break-even runs", "robustness")]
    for r in results:
        # In the words and figures the scenarios index shows.
        row = wording.scenario_row(r, [present_workload(w) for w in r.workloads])
        rows.append((r.id, r.verdict, r.scenario.expect, fmt.count(r.saving_per_run), ", ".join(row["break_even"]), row["state"]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)


def _new_scenario(root: Path, name: str) -> int:
    try:
        path = scaffold.write_new_scenario(root, name)
    except scaffold.ScenarioExists as e:
        print(f"guide new-scenario: {e.args[0]} already exists; pick another NAME or edit that file", file=sys.stderr)
        return 1
    shown = f"scenarios/{path.name}"
    print(f"wrote {shown}: replace every {scaffold.PLACEHOLDER} in it, then run `guide validate {shown}`")
    return 0


def _diff(root: Path, args: argparse.Namespace) -> int:
    try:
        commit, label = gitbase.resolve(root, args.base)
        with tempfile.TemporaryDirectory(prefix="guide-diff-") as tmp:
            base_root = gitbase.materialise(root, commit, Path(tmp))
            try:
                base = load_project(base_root, check_expect=False)
            except InputError as e:
                return _problems(e.problems, f"at {label} ({commit[:12]}), the base side:")
    except gitbase.BaseNotFound as e:
        print(f"guide diff: {e}", file=sys.stderr)
        return 2
    try:
        head = load_project(root, check_expect=False)
    except InputError as e:
        return _problems(e.problems, "in the working tree:")
    report = diff.compare(base, head, args.threshold)
    sys.stdout.write(diff.markdown(report, label, commit))
    return 3 if args.fail_on_verdict_change and report.verdicts else 0


def _import_prices(root: Path, args: argparse.Namespace) -> int:
    name = "standard input" if args.file == "-" else args.file
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except OSError as e:
        print(f"{name}: cannot read it ({e.strerror})", file=sys.stderr)
        return 1
    try:
        plan, written = import_prices.run(root / "data", text, args.as_of, args.source, args.dry_run, on=siteconfig.today())
    except import_prices.OfferError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    except ValueError as e:  # GUIDE_TODAY is not a date
        print(f"guide import-prices: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"data/: cannot write the updated files, both left as they were ({e.strerror}: {e.filename})", file=sys.stderr)
        return 1
    except InputError as e:
        return _problems(e.problems)
    print("\n".join(import_prices.report_lines(plan, written, "data", args.dry_run)))
    return 0


def _refresh_prices(root: Path, args: argparse.Namespace, client=None) -> int:
    """`client` is a (service, region) -> boto3 client factory; None: the default credential chain."""
    from generator.commands import aws_prices, refresh

    try:
        accept = dict(refresh.parse_decision(k, "--accept") for k in args.accept)
        refuse = dict(refresh.parse_decision(k, "--refuse") for k in args.refuse)
        if both := sorted(set(accept) & set(refuse)):
            raise refresh.RefreshError(f"{refresh.key_text(both[0])} is both accepted and refused; say one of them")
        if client is None:
            client = aws_prices.session_clients(args.pricing_region)
        out = refresh.run(root / "data", client, dt.datetime.now(dt.timezone.utc), args.pricing_region, args.dry_run,
                          accept, refuse, args.memory)
    except refresh.RefreshError as e:
        print(f"guide refresh-prices: {e}; data/ was left as it was.", file=sys.stderr)
        return 1
    except ImportError:
        print("guide refresh-prices: boto3 is not installed; run `pip install -e '.[aws]'` and try again", file=sys.stderr)
        return 1
    except aws_prices.AwsError as e:
        print(f"guide refresh-prices: {e}; data/ was left as it was.", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"data/: cannot write the refreshed files, all left as they were ({e.strerror}: {e.filename})", file=sys.stderr)
        return 1
    except InputError as e:
        return _problems(e.problems, "guide refresh-prices: data/ would not validate, so nothing was written:")
    print("\n".join(refresh.report_lines(out, "data", args.dry_run)))
    if args.report is not None:
        try:
            args.report.write_text(refresh.report_markdown(out), encoding="utf-8")
        except OSError as e:
            print(f"guide refresh-prices: cannot write the report ({e.strerror}: {e.filename})", file=sys.stderr)
            return 1
    return 0


def _reread(root: Path) -> int:
    from generator.inputs import reread
    from generator.inputs.loader import load_catalog

    try:
        entries = load_catalog(root / "data").refresh.reread
        reread.check(root, entries)
    except InputError as e:
        return _problems(e.problems, "guide reread: a price refresh asks a person to reread these before merging:")
    print(f"ok: nothing a price refresh listed is waiting to be reread ({len(entries)} entr{'y' if len(entries) == 1 else 'ies'} "
          "already edited or gone)." if entries else "ok: no price refresh asks for anything to be reread.")
    return 0


def _cache(root: Path, args: argparse.Namespace) -> int:
    from generator.commands.prune import prune
    from generator.store.cachefile import CacheDirError

    try:
        count, size = prune(root, args.site_url)
    except CacheDirError as e:
        print(e, file=sys.stderr)
        return 2
    except ValueError as e:  # the date prices are judged against is not a date
        print(f"guide cache prune: {e}", file=sys.stderr)
        return 2
    except InputError as e:
        return _problems(e.problems)
    print(f"removed {count} file(s), {fmt.num(size / 1e6, 1)} MB, that the current tree does not use")
    return 0


def _generate(root: Path, dest: Path, engine: str) -> int:
    from generator.commands import generate
    from generator.store.cachefile import CacheDirError

    try:
        written = generate.run(root, dest, engine)
    except generate.PageError as e:
        print(e, file=sys.stderr)
        return 1
    except (generate.GenerateError, CacheDirError) as e:
        print(e, file=sys.stderr)
        return 2
    except ValueError as e:  # the date prices are judged against, or GUIDE_IMAGES, is not what it must be
        print(f"guide generate: {e}", file=sys.stderr)
        return 2
    except InputError as e:
        return _problems(e.problems)
    except OSError as e:
        print(f"guide generate: cannot write {dest} ({e.strerror}: {e.filename})", file=sys.stderr)
        return 1
    print(f"wrote {dest}: {written.pages} pages and {written.files} files under {generate.DOCS}/, an mkdocs.yml without "
          f"the guide plugin; {written.extra} files in {generate.EXTRA}/ to copy into the built site")
    return 0


def _mcp(root: Path) -> int:
    try:
        from generator.commands import mcp_server
        import mcp  # noqa: F401
    except ImportError:
        print("guide mcp: the MCP SDK is not installed; run `pip install -e '.[mcp]'` and try again", file=sys.stderr)
        return 1
    try:
        mcp_server.serve(root)
    except InputError as e:
        return _problems(e.problems)
    except ValueError as e:  # the date prices are judged against is not a date
        print(f"guide mcp: {e}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None, aws_client=None) -> int:
    """The command, with standard output closed early (`guide ... | head`) ending quietly.
    `aws_client` stands in for boto3's clients (tests hand in stubbed ones)."""
    try:
        code = _main(argv, aws_client)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python flushes stdout once more at exit; point it at nothing so that raises no second time.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


def _main(argv: list[str] | None = None, aws_client=None) -> int:
    args = _parser().parse_args(argv)
    root = Path(args.root)
    if args.command == "schema":
        text = json_schema_text()
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    if args.command == "new-scenario":
        return _new_scenario(root, args.name)
    if args.command == "diff":
        return _diff(root, args)
    if args.command == "import-prices":
        return _import_prices(root, args)
    if args.command == "refresh-prices":
        return _refresh_prices(root, args, aws_client)
    if args.command == "cache":
        return _cache(root, args)
    if args.command == "mcp":
        return _mcp(root)
    if args.command == "generate":
        return _generate(root, args.dir, args.engine)
    if args.command == "reread":
        return _reread(root)
    try:
        project = load_project(root, args.paths)
    except InputError as e:
        return _problems(e.problems)
    if args.command == "validate":
        try:
            on = siteconfig.today(siteconfig.read(root).today)
        except ValueError as e:
            print(f"guide validate: {e}", file=sys.stderr)
            return 2
        found = provenance.future_problems(root / "data", on)
        committed = provenance.committed_prices(root)
        if committed is not None:
            found += provenance.unsourced_change_problems(project.catalog, committed, root / "data")
        if args.strict:
            found += freshness.stale_problems(project.catalog, root / "data", on=on)
        if found:
            return _problems(sorted(found))
        print(f"ok: data/ and {len(project.results)} scenario(s) are valid.")
        # The one place the stale prices are summed up: builds and `mkdocs serve` stay quiet about
        # them (the pages carry the note), since a price goes stale with the calendar, not with an edit.
        stale = freshness.stale_summary(project.catalog, on=on)
        if stale:
            print(f"note: {stale}")
        return 0
    if args.format == "json":
        try:
            on = siteconfig.today(siteconfig.read(root).today)
        except ValueError as e:
            print(f"guide evaluate: {e}", file=sys.stderr)
            return 1
        # Each price the plans buy at says whether it is stale today, as the pages do.
        fresh = freshness.Freshness.of(project.catalog, on)
        json.dump([to_dict(r, fresh) for r in project.results], sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        print(_table(project.results))
        print()
        print(EVALUATE_LEGEND)
    return 0
