"""`guide refresh-prices` on AWS's answers served offline (tests/refresh_support.py): a normal refresh,
a changed price (history kept, `guide diff` shows it), a vanished offering and its return,
pagination, throttling then success, and the failures that must leave data/ byte-identical: a
permission refused, throttling beyond the retries, an expired token, no credentials at all."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from botocore.awsrequest import AWSResponse

from contrib_support import guide
from core_support import copy_inputs, tree_hashes
from generator.commands import cli
from generator.rendering.published import diff
from generator.commands import refresh
from generator.inputs import datafiles, loader, yamlread
from generator.inputs.loader import load_catalog, load_project
from refresh_support import CALLED_AT, RECORDING, Stubbed, a_week_later, calls, client, cut_after, edit, set_on_demand

# Each test loads and checks a copy of data/ once or more and some run `guide` in a process of its own:
# two to five seconds a test, half the quick subset's time. A change to the refresh runs this file.
pytestmark = pytest.mark.slow

DAY = CALLED_AT.date()
PRICE_LIST = f"AWS-PRICE-LIST-API-{DAY}"
SPOT = f"AWS-SPOT-HISTORY-API-{DAY}"
BLOCKS = f"AWS-CAPACITY-BLOCK-API-{DAY}"
PLANS = f"AWS-SAVINGS-PLANS-API-{DAY}"
OFFERINGS = f"AWS-EC2-OFFERINGS-API-{DAY}"


def _project(tmp_path: Path, scenarios: bool = False) -> Path:
    return copy_inputs(tmp_path / "project", scenarios=scenarios)


def _refresh(root: Path, recorded: list[dict] | None = None, now: dt.datetime = CALLED_AT) -> refresh.Outcome:
    stubbed = Stubbed(calls() if recorded is None else recorded)
    out = refresh.run(root / "data", stubbed, now)
    stubbed.assert_all_called()
    return out


def _history(root: Path) -> list:
    return load_catalog(root / "data").history.prices


def _price(root: Path, instance: str, region: str, option: str):
    return load_catalog(root / "data").price(instance, region, option)


# --- a normal refresh -----------------------------------------------------------------------------


def test_a_normal_refresh_cites_every_tracked_figure_to_the_api_and_day_and_keeps_the_files_readable(tmp_path: Path):
    root = _project(tmp_path)
    before = {n: (root / "data" / n).read_text(encoding="utf-8") for n in ("prices.yaml", "instances.yaml", "sources.yaml")}
    out = _refresh(root)
    catalog = load_catalog(root / "data")
    tracked, regions = refresh.tracked(catalog)
    # Every priced entry of a tracked instance in a tracked region now cites one of the APIs, dated the day of the call,
    # except the ones this answer lacked (kept with their old citation until a week later confirms it) and those
    # recorded as not offered.
    lacked = {(m.instance, m.region, m.option) for m in catalog.refresh.missing}
    assert lacked == {("trn2.48xlarge", "us-east-2", "on-demand")}
    current = [p for p in catalog.prices if p.instance in tracked and p.offered and (p.instance, p.region, p.option) not in lacked]
    assert len(current) > 40
    stale = [(p.instance, p.region, p.option) for p in current
             if not (p.source.startswith("AWS-") and p.source.endswith(str(DAY)) and p.as_of == DAY)]
    assert stale == []
    for key in (PRICE_LIST, SPOT, BLOCKS, PLANS, OFFERINGS):
        src = catalog.sources[key]
        assert (src.kind, src.as_of) == ("primary", DAY) and str(DAY) in src.title and src.url.startswith("https://docs.aws.amazon.com/")
    # The regions lists are what the offerings say: trn1 in three regions, not one.
    assert catalog.instances["trn1.32xlarge"].regions.value == ["us-east-1", "us-east-2", "us-west-2"]
    assert catalog.instances["trn1.32xlarge"].regions.source == OFFERINGS
    assert catalog.instances["p5.48xlarge"].regions.value == ["us-east-1", "us-west-1", "ap-northeast-1", "eu-west-2",
                                                               "ap-southeast-2", "eu-north-1"]  # same set, order kept
    assert catalog.price("trn1.32xlarge", "us-west-2", "on-demand").usd_per_hour == 21.5
    # Spot: a 30-day median with the least and most seen.
    spot = catalog.price("trn2.48xlarge", "us-east-2", "spot")
    assert (spot.usd_per_hour, spot.low, spot.high, spot.source) == (12.0, 11.2, 14.5, SPOT)
    # The unpublished records a price now exists for are gone; the others stay.
    left = {(u.instance, u.region, u.option) for u in catalog.unpublished}
    assert ("trn2.48xlarge", "us-east-2", "spot") not in left and ("trn2.48xlarge", "us-east-2", "commit-1y") not in left
    assert ("trn3-gen1-ultraserver", None, "on-demand") in left
    # A commitment is a standard reservation where one is listed (trn1.32xlarge's Savings Plan rate, 13.5, is not used),
    # else a Savings Plan (trn2), else a convertible reservation (p5, 1 year).
    c = catalog.price("trn1.32xlarge", "us-east-1", "commit-1y")
    assert (c.usd_per_hour, c.reservation, c.source) == (13.22895, "standard", PRICE_LIST)
    c = catalog.price("trn2.48xlarge", "us-east-2", "commit-1y")
    assert (c.usd_per_hour, c.reservation, c.source) == (24.6849, None, PLANS)
    c = catalog.price("p5.48xlarge", "us-east-1", "commit-1y")
    assert (c.usd_per_hour, c.reservation) == (43.344, "convertible")
    # A figure cited to another source that the API confirms keeps that citation first among its alternatives.
    p5 = catalog.price("p5.48xlarge", "us-east-1", "on-demand")
    assert (p5.alternatives[0].source, p5.alternatives[0].usd_per_hour) == ("VAN-2026-01", 55.04)
    # Comments and layout stay: every comment line of each file is still there, and the entries stay one line each.
    for name, text in before.items():
        after = (root / "data" / name).read_text(encoding="utf-8")
        assert [ln for ln in text.splitlines() if ln.lstrip().startswith("#")] == \
            [ln for ln in after.splitlines() if ln.lstrip().startswith("#")], name
    prices_text = (root / "data" / "prices.yaml").read_text(encoding="utf-8")
    assert "  - {instance: trn1.32xlarge, region: us-west-2, option: on-demand, usd_per_hour: 21.5, " \
           f"source: {PRICE_LIST}, as_of: {DAY}}}" in prices_text
    assert out.confirmed > 30 and set(out.texts) == {"prices.yaml", "instances.yaml", "sources.yaml", "history.yaml", "refresh.yaml"}


def test_the_history_records_what_appeared_and_what_vanished_with_the_day_and_the_figures(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    moves = {(m.instance, m.region, m.option): m for m in _history(root)}
    added = moves[("trn1.32xlarge", "us-west-2", "on-demand")]
    assert (added.change, added.date, added.before, added.after.usd_per_hour, added.after.source) == ("added", DAY, None, 21.5, PRICE_LIST)
    # trn2's on-demand figure is not in the Price List (only a Capacity Block product is): one answer lacking it
    # marks nothing; a refresh a week later that lacks it too marks it vanished, never dropped.
    assert ("trn2.48xlarge", "us-east-2", "on-demand") not in moves
    assert _price(root, "trn2.48xlarge", "us-east-2", "on-demand").vanished is None
    week = CALLED_AT + dt.timedelta(days=7)
    _refresh(root, a_week_later(calls(), week), now=week)
    moves = {(m.instance, m.region, m.option): m for m in _history(root)}
    gone = moves[("trn2.48xlarge", "us-east-2", "on-demand")]
    assert (gone.change, gone.date, gone.after, gone.before.usd_per_hour, gone.before.source, gone.source) == \
        ("vanished", week.date(), None, 35.76, "VAN", f"AWS-PRICE-LIST-API-{week.date()}")
    kept = _price(root, "trn2.48xlarge", "us-east-2", "on-demand")
    assert (kept.usd_per_hour, kept.source, kept.vanished) == (35.76, "VAN", week.date())
    regions = {m.instance: m for m in load_catalog(root / "data").history.regions}
    assert (regions["trn1.2xlarge"].before, regions["trn1.2xlarge"].after) == (["us-east-1"], ["us-east-1", "us-east-2", "us-west-2"])
    assert "p5.48xlarge" not in regions  # the same regions in another order are no move


def test_a_second_refresh_with_the_same_answers_records_nothing_new(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    snapshot = tree_hashes(root / "data")
    out = _refresh(root)
    assert out.moves == [] and out.texts == {}
    assert tree_hashes(root / "data") == snapshot


def test_pagination_every_page_of_every_api_is_read(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)  # the stubs fail the test if a queued page is left unread
    catalog = load_catalog(root / "data")
    # p6-b300 and the trn1 types are on the second page of us-east-1's offerings.
    assert "us-east-1" in catalog.instances["trn1n.32xlarge"].regions.value
    # p5's London, N. Virginia and N. California products are on the second page of its get_products answer.
    assert catalog.price("p5.48xlarge", "eu-west-2", "on-demand").source == PRICE_LIST
    # p5's most expensive Spot record is on the second page of us-east-1's history: it is the high.
    assert catalog.price("p5.48xlarge", "us-east-1", "spot").high == 52.08
    # trn1.32xlarge's Savings Plan rate is on the second page; the 3-year trn2 rate on the first.
    assert catalog.price("trn2.48xlarge", "us-east-2", "commit-3y").source == PLANS


# --- a changed price ------------------------------------------------------------------------------


def test_a_changed_price_keeps_its_previous_figure_in_the_history_and_guide_diff_shows_it(tmp_path: Path):
    root = _project(tmp_path, scenarios=True)
    _refresh(root)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first refresh"], cwd=root, check=True)
    week = CALLED_AT + dt.timedelta(days=7)
    recorded = a_week_later(calls(), week)
    edit(recorded, "get_products", "us-east-1", set_on_demand("p5.48xlarge", "us-east-1", 49.536), nth=3)  # p5's second page
    out = _refresh(root, recorded, now=week)
    # trn2's on-demand figure, lacked a week ago and again now, vanishes the same week.
    assert sorted(m.line() for m in out.moves) == ["p5.48xlarge us-east-1 on-demand: changed, 55.04 -> 49.536",
                                                   "trn2.48xlarge us-east-2 on-demand: vanished, 35.76 -> none"]
    moved = [m for m in _history(root) if m.change == "changed"]
    assert len(moved) == 1
    m = moved[0]
    assert (m.date, m.before.usd_per_hour, m.before.source, m.before.as_of) == (week.date(), 55.04, PRICE_LIST, DAY)
    assert (m.after.usd_per_hour, m.after.source, m.after.as_of) == (49.536, f"AWS-PRICE-LIST-API-{week.date()}", week.date())
    # The API's own earlier figure is in the history, not piled up in alternatives.
    assert [a.source for a in _price(root, "p5.48xlarge", "us-east-1", "on-demand").alternatives][0] == "VAN-2026-01"
    r = guide("diff", "HEAD", cwd=root)
    assert r.returncode == 0, r.stderr
    row = [ln for ln in r.stdout.splitlines() if ln.startswith("| p5.48xlarge | us-east-1 | On-demand |")]
    assert len(row) == 1 and "$55.04/h" in row[0] and "$49.536/h" in row[0] and f"AWS-PRICE-LIST-API-{week.date()}" in row[0]


# --- a vanished offering --------------------------------------------------------------------------


def test_a_vanished_offering_is_kept_marked_with_the_day_and_comes_back_as_a_move(tmp_path: Path):
    root = _project(tmp_path, scenarios=True)
    base = load_project(root, check_expect=False)
    def without_trn2_blocks(recorded: list[dict]) -> list[dict]:
        edit(recorded, "describe_capacity_block_offerings", "us-east-2",
             lambda r: r.__setitem__("CapacityBlockOfferings", []), nth=3)  # trn2.48xlarge's, the fourth in us-east-2
        return recorded

    _refresh(root, without_trn2_blocks(calls()))
    # One empty answer marks nothing: the figure stays as it was, lacked since the day.
    cb = _price(root, "trn2.48xlarge", "us-east-2", "capacity-block")
    assert (cb.usd_per_hour, cb.source, cb.vanished) == (35.7608, "CB-2026-07", None)
    assert ("trn2.48xlarge", "us-east-2", "capacity-block", DAY) in {
        (m.instance, m.region, m.option, m.since) for m in load_catalog(root / "data").refresh.missing}
    assert [m for m in _history(root) if m.option == "capacity-block"] == []
    # Six days later, still lacked: not yet a week apart, still nothing.
    six = CALLED_AT + dt.timedelta(days=6)
    _refresh(root, without_trn2_blocks(a_week_later(calls(), six)), now=six)
    assert _price(root, "trn2.48xlarge", "us-east-2", "capacity-block").vanished is None
    week = CALLED_AT + dt.timedelta(days=7)
    _refresh(root, without_trn2_blocks(a_week_later(calls(), week)), now=week)
    DAY_GONE = week.date()
    # The diff report says so, though the figure did not change.
    report = diff.compare(base, load_project(root, check_expect=False))
    (row,) = [c for c in report.prices if (c.instance, c.region, c.option) == ("trn2.48xlarge", "us-east-2", "capacity-block")]
    assert diff.price_text(row.after) == f"$35.7608/h, no longer listed by AWS since {DAY_GONE}"
    cb = _price(root, "trn2.48xlarge", "us-east-2", "capacity-block")
    assert (cb.usd_per_hour, cb.source, cb.vanished) == (35.7608, "CB-2026-07", DAY_GONE)
    (m,) = [m for m in _history(root) if m.option == "capacity-block"]
    assert (m.change, m.instance, m.source, m.before.usd_per_hour) == ("vanished", "trn2.48xlarge", f"AWS-CAPACITY-BLOCK-API-{DAY_GONE}", 35.7608)
    text = (root / "data" / "prices.yaml").read_text(encoding="utf-8")
    assert re.search(r"instance: trn2\.48xlarge, region: us-east-2, option: capacity-block, .*vanished: " + str(DAY_GONE), text)
    # Still usable: scenarios that buy it keep evaluating at the last figure seen.
    load_project(root, check_expect=False)
    later = CALLED_AT + dt.timedelta(days=14)
    _refresh(root, a_week_later(calls(), later), now=later)
    cb = _price(root, "trn2.48xlarge", "us-east-2", "capacity-block")
    assert (cb.vanished, cb.source) == (None, f"AWS-CAPACITY-BLOCK-API-{later.date()}")
    assert [m.change for m in _history(root) if m.option == "capacity-block"] == ["vanished", "returned"]


# --- failures: nothing written, one sentence ------------------------------------------------------


def _fails(tmp_path: Path, recorded: list[dict], capsys) -> str:
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    code = cli.main(["--root", str(root), "refresh-prices"], aws_client=Stubbed(recorded, exact_times=False))
    err = capsys.readouterr()
    assert code == 1 and err.out == ""
    assert tree_hashes(root / "data") == snapshot  # byte-identical, no file added
    assert "Traceback" not in err.err and err.err.count("\n") == 1
    return err.err


def test_a_permission_error_halfway_writes_nothing_and_names_the_action_to_grant(tmp_path: Path, capsys):
    denied = {"code": "UnauthorizedOperation", "message": "You are not authorized to perform this operation.", "status": 403}
    err = _fails(tmp_path, cut_after(calls(), "describe_spot_price_history", "us-east-2", denied), capsys)
    assert err.startswith("guide refresh-prices: the AWS credentials may not call ec2:DescribeSpotPriceHistory in us-east-2 (UnauthorizedOperation)")
    assert "CONTRIBUTING.md" in err and err.rstrip().endswith("data/ was left as it was.")


def test_an_expired_token_writes_nothing_and_says_to_renew_it(tmp_path: Path, capsys):
    expired = {"code": "ExpiredTokenException", "message": "The security token included in the request is expired", "status": 400}
    err = _fails(tmp_path, cut_after(calls(), "get_products", "us-east-1", expired), capsys)
    assert "have expired (ExpiredTokenException from pricing:GetProducts" in err and "renew them" in err


def test_capacity_blocks_not_sold_for_a_type_are_no_failure(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    # trn1.2xlarge answers InvalidParameterValue: no block price, and the refresh went on.
    assert _price(root, "trn1.2xlarge", "us-east-1", "capacity-block") is None


class JsonReplay:
    """HTTP answers for a JSON-protocol client, handed to botocore in place of the network ('before-send'),
    so its retry handler sees each one as it would a real answer."""

    def __init__(self, answers: list[tuple[int, dict]]):
        self.answers = list(answers)
        self.sent = 0

    def __call__(self, request, **_):
        self.sent += 1
        status, body = self.answers.pop(0)
        return AWSResponse(request.url, status, {"Content-Type": "application/x-amz-json-1.1"}, _Raw(json.dumps(body).encode()))


class _Raw:
    def __init__(self, data: bytes):
        self.data = data

    def stream(self, **_):
        yield self.data


THROTTLED = (400, {"__type": "ThrottlingException", "message": "Rate exceeded"})


def _pricing_replay(extra_first: list[tuple[int, dict]]) -> tuple[Stubbed, JsonReplay, object]:
    """Every client stubbed but pricing's, whose recorded pages come back over botocore's HTTP path
    after the given answers."""
    recorded = calls()
    pages = [(200, c["response"]) for c in recorded if c["service"] == "pricing"]
    stubbed = Stubbed([c for c in recorded if c["service"] != "pricing"], exact_times=False)
    pricing = client("pricing", "us-east-1", attempts=3)
    replay = JsonReplay(extra_first + pages)
    pricing.meta.events.register("before-send.pricing.GetProducts", replay)

    def factory(service: str, region: str):
        return pricing if service == "pricing" else stubbed(service, region)
    return stubbed, replay, factory


def test_throttling_is_retried_by_botocore_and_the_refresh_then_succeeds(tmp_path: Path):
    root = _project(tmp_path)
    stubbed, replay, factory = _pricing_replay([THROTTLED])
    out = refresh.run(root / "data", factory, CALLED_AT)
    stubbed.assert_all_called()
    pages = sum(1 for c in RECORDING["calls"] if c["service"] == "pricing")
    assert replay.sent == pages + 1 and replay.answers == []  # the throttled call was sent again
    assert _price(root, "trn1.32xlarge", "us-west-2", "on-demand").source == PRICE_LIST
    assert out.texts


def test_throttling_beyond_the_retries_writes_nothing_and_says_to_wait(tmp_path: Path, capsys):
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    _, replay, factory = _pricing_replay([THROTTLED] * 3)
    code = cli.main(["--root", str(root), "refresh-prices"], aws_client=factory)
    err = capsys.readouterr().err
    assert code == 1 and replay.sent == 3
    assert tree_hashes(root / "data") == snapshot
    assert err.startswith("guide refresh-prices: AWS kept throttling pricing:GetProducts") and "wait a few minutes" in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_with_no_credentials_it_says_what_it_needs_and_writes_nothing(tmp_path: Path):
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(tmp_path), AWS_CONFIG_FILE=str(tmp_path / "none"), AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
               AWS_EC2_METADATA_DISABLED="true", PYTHONIOENCODING="utf-8")
    r = subprocess.run([os.sys.executable, "-m", "generator", "refresh-prices"], cwd=root, env=env,
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("guide refresh-prices: no AWS credentials were found; set AWS_PROFILE")
    assert "CONTRIBUTING.md" in r.stderr and "Traceback" not in r.stderr and r.stderr.count("\n") == 1
    assert tree_hashes(root / "data") == snapshot


def test_the_history_file_is_checked_like_any_data_file(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    path = root / "data" / "history.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(f"source: {PRICE_LIST}, after", "source: NO-SUCH-KEY, after", 1),
                    encoding="utf-8")
    r = guide("validate", cwd=root)
    assert r.returncode == 1
    line = next(n for n, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "NO-SUCH-KEY" in ln)
    assert re.search(rf"^data/history\.yaml:{line}:\d+: prices\.\d+\.source: unknown source key", r.stderr, re.M), r.stderr


def test_a_dry_run_prints_the_moves_and_writes_nothing(tmp_path: Path, capsys):
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    code = cli.main(["--root", str(root), "refresh-prices", "--dry-run"], aws_client=Stubbed(calls(), exact_times=False))
    out = capsys.readouterr().out
    assert code == 0 and tree_hashes(root / "data") == snapshot
    assert out.startswith("data/: would write history.yaml, instances.yaml, prices.yaml, refresh.yaml, sources.yaml: 10 price move(s)")
    assert "  lacked by this answer, kept until a refresh a week later lacks it too: trn2.48xlarge/us-east-2/on-demand (lacked since " in out
    assert "  regions trn1.32xlarge: [us-east-1] -> [us-east-1, us-east-2, us-west-2]\n" in out



def test_a_refresh_parses_each_version_of_a_data_file_once_and_each_scenario_once_per_catalog(tmp_path: Path, monkeypatch):
    root = _project(tmp_path, scenarios=True)
    _refresh(root)  # the first refresh cites every figure to the APIs and writes its state file
    parsed: list[str] = []
    real = yamlread.parse

    def counted(raw: bytes, shown: str):
        parsed.append(shown)
        return real(raw, shown)

    for module in (datafiles, loader):
        monkeypatch.setattr(module, "parse", counted)
    datafiles._checked_file.cache_clear()  # as in a new process
    week = CALLED_AT + dt.timedelta(days=7)
    recorded = a_week_later(calls(), week)
    edit(recorded, "get_products", "us-east-1", set_on_demand("p5.48xlarge", "us-east-1", 49.536), nth=3)
    out = _refresh(root, recorded, now=week)
    assert {"prices.yaml", "history.yaml"} <= set(out.texts)
    # Each data file as it was, and the files the refresh changed as they will be: once each.
    assert sorted(s for s in parsed if s.startswith("data/")) == sorted(
        [f"data/{n}" for n in (*datafiles.DATA_FILES, *datafiles.OPTIONAL_FILES)] + [f"data/{n}" for n in out.texts])
    # Each scenario is evaluated on the data before and after, once on each.
    scenarios = sorted(f"scenarios/{p.name}" for p in (root / "scenarios").glob("*.yaml"))
    assert Counter(s for s in parsed if s.startswith("scenarios/")) == dict.fromkeys(scenarios, 2)


def test_a_first_refresh_says_how_many_rows_it_re_cited_and_why_apart_from_the_moves(tmp_path: Path):
    root = _project(tmp_path)
    before = load_catalog(root / "data")
    out = _refresh(root)
    after = load_catalog(root / "data")
    # Every row whose figure the APIs gave as data/ held it, cited to another source until now.
    expected = sorted(((p.instance, p.region, p.option), p.source) for p in before.prices
                      if (q := after.price(p.instance, p.region, p.option)) is not None and q.usd_per_hour == p.usd_per_hour
                      and q.low == p.low and q.source != p.source and not p.source.startswith("AWS-"))
    assert len(expected) > 20 and sorted((r.key, r.was) for r in out.recited) == expected
    header = refresh.report_lines(out, "data", False)[0]
    assert f"{len(out.moves)} price move(s), {len(expected)} row(s) re-cited to the APIs with the same figure" in header
    body = refresh.report_markdown(out)
    section = body[body.index("### Rows re-cited to AWS's APIs"):]
    assert f"{len(expected)} row(s) held a figure from another source that AWS's APIs gave as well" in section
    assert "No figure changed" in section and "first among its `alternatives`" in section
    for source in {s for _, s in expected}:
        assert f"- {sum(1 for _, s in expected if s == source)} cited to `{source}` until now" in section
    # A second refresh re-cites nothing: those rows now cite the APIs.
    assert _refresh(root).recited == []


def test_every_region_the_account_may_use_is_asked_and_a_spot_pool_without_a_price_is_recorded_as_not_priced(tmp_path: Path):
    root = _project(tmp_path)
    out = _refresh(root)  # the stubs fail the test on a call the recording lacks (me-south-1) or one it has left unasked (ca-west-1)
    assert out.closed == ["me-south-1"]
    assert "  not asked, as the account has not opted into them: me-south-1" in refresh.report_lines(out, "data", False)
    catalog = load_catalog(root / "data")
    spot = {(u.instance, u.region): u for u in catalog.unpublished if u.option == "spot"}
    for name in refresh.tracked(catalog)[0]:
        for region in catalog.instances[name].regions.value:
            priced = catalog.price(name, region, "spot")
            assert (priced is not None) != ((name, region) in spot or (name, None) in spot), (name, region)
    # p4d in Tokyo is sold there, and the Spot price history had no price for it: said so, cited to the call.
    u = spot[("p4d.24xlarge", "ap-northeast-1")]
    assert (u.source, u.as_of, u.note) == (SPOT, DAY, refresh.NOT_PRICED)
    assert ("p4d.24xlarge", "ap-northeast-1", "spot") in out.unpriced
    # trn2's us-east-2 pool, recorded by hand as unpublished, is priced now: the record is gone.
    assert catalog.price("trn2.48xlarge", "us-east-2", "spot") is not None and ("trn2.48xlarge", "us-east-2") not in spot
