"""`guide refresh-prices` believes nothing it cannot check: answers outside the question, moves
beyond refresh_bounds, one answer's absences, wrong block lengths, and every failure, through a
real HTTP server on 127.0.0.1 where a failure is an answer botocore parses. Each test is a way to
mislead it, on the frozen project of tests/fixtures/project."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest

from contrib_support import guide
from core_support import copy_inputs, tree_hashes
from generator.commands import cli, refresh
from generator.inputs.freshness import Freshness
from generator.inputs.loader import load_catalog, load_project
from refresh_support import (
    CALLED_AT,
    HTML,
    HTML_PAGE,
    XML,
    AnswerServer,
    Stubbed,
    a_week_later,
    calls,
    cut_after,
    ec2_error,
    edit,
    json_error,
    served,
)

# Each test copies and loads the project once or more (two to ten seconds).
pytestmark = pytest.mark.slow

DAY = CALLED_AT.date()
WEEK = CALLED_AT + dt.timedelta(days=7)


def _project(tmp_path: Path, scenarios: bool = False) -> Path:
    return copy_inputs(tmp_path / "project", scenarios=scenarios)


def _refresh(root: Path, recorded: list[dict] | None = None, now: dt.datetime = CALLED_AT, accept=frozenset()) -> refresh.Outcome:
    stubbed = Stubbed(calls() if recorded is None else recorded)
    out = refresh.run(root / "data", stubbed, now, accept=accept)
    stubbed.assert_all_called()
    return out


def _price(root: Path, instance: str, region: str, option: str):
    return load_catalog(root / "data").price(instance, region, option)


def _spot_rows(recorded: list[dict], region: str, rows: list[dict], nth: int = 0) -> None:
    """The Spot history of region answered as rows (on its first page)."""
    edit(recorded, "describe_spot_price_history", region, lambda r: r.__setitem__("SpotPriceHistory", rows), nth)


def _row(instance: str, zone: str, price: str, when: str, product: str = "Linux/UNIX") -> dict:
    return {"AvailabilityZone": zone, "InstanceType": instance, "ProductDescription": product, "SpotPrice": price, "Timestamp": when}


# --- 1. answers outside the question, and moves beyond the bounds ----------------------------------


def test_spot_records_of_another_product_or_outside_the_history_are_not_prices(tmp_path: Path):
    # What moto answers for p5 (a "(Amazon VPC)" product, a 2006 timestamp, $0.00001), beside the real record.
    root = _project(tmp_path)
    recorded = calls()
    first = recorded_page(recorded, "describe_spot_price_history", "us-east-1")
    first["SpotPriceHistory"] = [r for r in first["SpotPriceHistory"] if r["InstanceType"] != "p5.48xlarge"] + [
        _row("p5.48xlarge", "us-east-1a", "0.000010", "2026-11-12T06:00:00+00:00", "Linux/UNIX (Amazon VPC)"),
        _row("p5.48xlarge", "us-east-1b", "0.000010", "2006-01-02T15:04:05+00:00"),
        _row("p5.48xlarge", "us-east-1c", "0.000010", "2026-11-26T06:00:00+00:00"),  # after the call
        _row("p5.48xlarge", "us-west-2a", "0.000010", "2026-11-12T06:00:00+00:00"),  # another region's zone
        _row("p5.48xlarge", "us-east-1a", "28.110000", "2026-11-10T06:00:00+00:00"),
    ]
    edit(recorded, "describe_spot_price_history", "us-east-1", lambda r: r.__setitem__("SpotPriceHistory", [
        _row("p5.48xlarge", "us-east-1c", "52.080000", "2026-11-11T06:00:00+00:00", "SUSE Linux")]), nth=1)
    _refresh(root, recorded)
    spot = _price(root, "p5.48xlarge", "us-east-1", "spot")
    # The one record that answers the question: 28.11 in us-east-1a throughout its time in the window.
    assert (spot.usd_per_hour, spot.low, spot.high) == (28.11, None, None)


def recorded_page(recorded: list[dict], operation: str, region: str, nth: int = 0) -> dict:
    return [c for c in recorded if c["operation"] == operation and c["region"] == region][nth]["response"]


def test_price_list_products_other_than_plain_linux_in_the_region_asked_are_left_out(tmp_path: Path):
    root = _project(tmp_path)
    recorded = calls()

    def add_decoys(response: dict) -> None:
        items = [json.loads(i) for i in response["PriceList"]]
        base = next(i for i in items if i["product"]["attributes"]["regionCode"] == "us-east-1")
        for attrs in ({"tenancy": "Dedicated"}, {"operatingSystem": "Windows"}, {"preInstalledSw": "SQL Std"},
                      {"licenseModel": "Bring your own license"}, {"instanceType": "p5e.48xlarge"}):
            decoy = json.loads(json.dumps(base))
            decoy["product"]["attributes"].update(attrs)
            for term in decoy["terms"]["OnDemand"].values():
                for dim in term["priceDimensions"].values():
                    dim["pricePerUnit"]["USD"] = "0.0100000000"
            items.insert(0, decoy)
        response["PriceList"] = [json.dumps(i) for i in items]

    edit(recorded, "get_products", "us-east-1", add_decoys, nth=3)  # p5's second page holds us-east-1
    _refresh(root, recorded)
    assert _price(root, "p5.48xlarge", "us-east-1", "on-demand").usd_per_hour == 55.04
    assert load_catalog(root / "data").refresh.held == []


def test_a_move_beyond_the_bounds_is_held_reported_and_written_only_once_accepted(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    settled = tree_hashes(root / "data")

    def p5_spot_line() -> str:
        text = (root / "data" / "prices.yaml").read_text(encoding="utf-8")
        (line,) = [ln for ln in text.splitlines() if "instance: p5.48xlarge, region: us-east-1, option: spot," in ln]
        return line
    line_before = p5_spot_line()

    def absurd(recorded: list[dict]) -> list[dict]:
        page = recorded_page(recorded, "describe_spot_price_history", "us-east-1", nth=1)
        page["SpotPriceHistory"] = []
        first = recorded_page(recorded, "describe_spot_price_history", "us-east-1")
        first["SpotPriceHistory"] = [r for r in first["SpotPriceHistory"] if r["InstanceType"] != "p5.48xlarge"] + [
            _row("p5.48xlarge", "us-east-1a", "0.000010", "2026-11-30T06:00:00+00:00")]
        return recorded

    out = refresh.run(root / "data", Stubbed(absurd(a_week_later(calls(), WEEK))), WEEK)
    # prices.yaml keeps the figure, its row untouched; the move waits in data/refresh.yaml and the report, with the command.
    assert p5_spot_line() == line_before
    assert _price(root, "p5.48xlarge", "us-east-1", "spot").usd_per_hour == 28.11
    (held,) = load_catalog(root / "data").refresh.held
    assert (held.instance, held.region, held.option, held.before, held.after) == ("p5.48xlarge", "us-east-1", "spot", 28.11, 0.00001)
    lines = refresh.report_lines(out, "data", False)
    assert any(f"held for a person: p5.48xlarge/us-east-1/spot: 28.11 -> 0.00001 held since {WEEK.date()} (moved 100.0 %" in ln
               and "`guide refresh-prices --accept p5.48xlarge/us-east-1/spot=0.00001`" in ln for ln in lines), lines
    body = refresh.report_markdown(out)
    assert "### Held for a person" in body and "`guide refresh-prices --accept p5.48xlarge/us-east-1/spot=0.00001`" in body
    assert settled != tree_hashes(root / "data")  # the hold itself is recorded, for the pull request
    # The same answer the next day holds the same move again, first held the week before, and raises it again:
    # the published hold says so (a pull request exists while a move waits), and nothing else is written.
    next_day = WEEK + dt.timedelta(days=1)
    held_again = refresh.run(root / "data", Stubbed(absurd(a_week_later(calls(), next_day))), next_day)
    assert [(h.key, h.seen) for h in held_again.held] == [(("p5.48xlarge", "us-east-1", "spot"), WEEK.date())]
    assert set(held_again.texts) == {"refresh.yaml"}
    (held,) = load_catalog(root / "data").refresh.held
    assert (held.seen, held.raised, held.refused) == (WEEK.date(), next_day.date(), None)
    # A person accepts it: the same answer, the command the report gave.
    out = refresh.run(root / "data", Stubbed(absurd(a_week_later(calls(), WEEK))), WEEK,
                      accept={("p5.48xlarge", "us-east-1", "spot"): 0.00001})
    assert _price(root, "p5.48xlarge", "us-east-1", "spot").usd_per_hour == 0.00001
    assert load_catalog(root / "data").refresh.held == []
    assert [m.line() for m in out.moves if m.option == "spot"] == ["p5.48xlarge us-east-1 spot: changed, 28.11 -> 0.00001"]


def test_a_new_figure_far_from_the_on_demand_rate_is_held(tmp_path: Path):
    root = _project(tmp_path)
    recorded = calls()
    first = recorded_page(recorded, "describe_spot_price_history", "us-east-2")
    for r in first["SpotPriceHistory"]:
        if r["InstanceType"] == "trn2.48xlarge":
            r["SpotPrice"] = "0.000010"
    out = _refresh(root, recorded)
    assert _price(root, "trn2.48xlarge", "us-east-2", "spot") is None
    assert [(h.key, h.before) for h in out.held] == [(("trn2.48xlarge", "us-east-2", "spot"), None)]
    assert "times the instance's on-demand rate" in out.held[0].why


def test_accept_takes_instance_region_option_and_the_figure_checked(tmp_path: Path, capsys):
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    for given in ("p5.48xlarge-us-east-1-spot=28.11", "p5.48xlarge/us-east-1/spot", "p5.48xlarge/us-east-1/spot=nan"):
        code = cli.main(["--root", str(root), "refresh-prices", "--accept", given], aws_client=Stubbed(calls(), exact_times=False))
        err = capsys.readouterr().err
        assert code == 1 and err.startswith("guide refresh-prices: --accept takes INSTANCE/REGION/OPTION=FIGURE") and err.count("\n") == 1
    assert tree_hashes(root / "data") == snapshot


# --- 2. absence confirmed, never inferred from one answer ----------------------------------------


def _without_trn1_in_us_east_1(recorded: list[dict]) -> list[dict]:
    page = recorded_page(recorded, "describe_instance_type_offerings", "us-east-1", nth=1)
    page["InstanceTypeOfferings"] = [o for o in page["InstanceTypeOfferings"] if not o["InstanceType"].startswith("trn1")]
    return recorded


def test_one_offerings_answer_without_an_instance_shrinks_no_region_and_drops_no_price(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    before = load_catalog(root / "data")
    # The offerings leave trn1 out of us-east-1; every other API still prices it there.
    out = _refresh(root, _without_trn1_in_us_east_1(a_week_later(calls(), WEEK)), now=WEEK)
    after = load_catalog(root / "data")
    assert out.moves == [m for m in out.moves if not m.instance.startswith("trn1")]
    for name in ("trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge"):
        assert after.instances[name].regions.value == before.instances[name].regions.value
        assert "us-east-1" in after.instances[name].regions.value
    assert {(m.instance, m.option, m.since) for m in after.refresh.missing if m.option == "region"} == {
        ("trn1.2xlarge", "region", WEEK.date()), ("trn1.32xlarge", "region", WEEK.date()), ("trn1n.32xlarge", "region", WEEK.date())}
    # A week later, lacked again, but the prices still come: the answers disagree, and the region stays.
    later = WEEK + dt.timedelta(days=7)
    out = _refresh(root, _without_trn1_in_us_east_1(a_week_later(calls(), later)), now=later)
    assert "us-east-1" in load_catalog(root / "data").instances["trn1n.32xlarge"].regions.value and out.regions == []


def test_an_empty_price_list_answer_marks_nothing_vanished(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    recorded = a_week_later(calls(), WEEK)
    for nth in (2, 3):  # p5.48xlarge's two pages
        edit(recorded, "get_products", "us-east-1", lambda r: r.__setitem__("PriceList", []), nth=nth)
    out = _refresh(root, recorded, now=WEEK)
    assert [m for m in out.moves if m.instance == "p5.48xlarge"] == []
    catalog = load_catalog(root / "data")
    assert all(p.vanished is None for p in catalog.prices if p.instance == "p5.48xlarge")
    assert len([m for m in catalog.refresh.missing if m.instance == "p5.48xlarge"]) >= 8


def test_a_capacity_block_error_that_is_not_a_documented_not_sold_answer_is_an_error(tmp_path: Path, capsys):
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    other = {"code": "InvalidParameterValue", "message": "The value for CapacityDurationHours is not valid.", "status": 400}
    recorded = cut_after(calls(), "describe_capacity_block_offerings", "us-east-1", other)
    code = cli.main(["--root", str(root), "refresh-prices"], aws_client=Stubbed(recorded, exact_times=False))
    err = capsys.readouterr().err
    assert code == 1 and tree_hashes(root / "data") == snapshot
    assert "ec2:DescribeCapacityBlockOfferings in us-east-1, for p4d.24xlarge failed (InvalidParameterValue" in err


def test_an_opt_in_region_the_account_cannot_use_is_skipped_and_its_figures_kept(tmp_path: Path, capsys):
    root = _project(tmp_path)
    recorded = [c for c in calls() if not (c["region"] == "eu-north-1" and c["service"] == "ec2")]
    at = next(i for i, c in enumerate(recorded) if c["region"] == "eu-west-1")
    offerings = next(c for c in calls() if c["operation"] == "describe_instance_type_offerings")
    recorded.insert(at, {"service": "ec2", "region": "eu-north-1", "operation": "describe_instance_type_offerings",
                         "params": {**offerings["params"]},
                         "error": {"code": "OptInRequired", "message": "You are not subscribed to this service.", "status": 401}})
    before = {(p.instance, p.option): p for p in load_catalog(root / "data").prices if p.region == "eu-north-1"}
    code = cli.main(["--root", str(root), "refresh-prices"], aws_client=Stubbed(recorded, exact_times=False))
    out = capsys.readouterr().out
    assert code == 0
    assert "  skipped eu-north-1: it answered OptInRequired (the account may not use it); its figures are kept\n" in out
    after = {(p.instance, p.option): p for p in load_catalog(root / "data").prices if p.region == "eu-north-1"}
    assert after == before and before


# --- 3. blocks by their real length, the fee exactly ---------------------------------------------


def test_a_block_is_priced_by_its_hours_and_minutes_and_its_fee_read_exactly(tmp_path: Path):
    root = _project(tmp_path)
    recorded = calls()

    def twenty_hours_35(response: dict) -> None:
        for o in response["CapacityBlockOfferings"]:
            o["CapacityBlockDurationHours"], o["CapacityBlockDurationMinutes"] = 20, 35
            # 41.528 an hour over 20 h 35 min, to more places than a float carries.
            o["UpfrontFee"] = "854.784666666666666667"
    edit(recorded, "describe_capacity_block_offerings", "us-east-1", twenty_hours_35, nth=2)  # p5.48xlarge's
    _refresh(root, recorded)
    assert _price(root, "p5.48xlarge", "us-east-1", "capacity-block").usd_per_hour == 41.528  # not 42.739 (the fee / 20)


# --- 4. one sentence for every failure, data/ byte-identical --------------------------------------


def _fails_through(tmp_path: Path, capsys, service: str, *answers, attempts: int = 1) -> tuple[str, AnswerServer]:
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    with AnswerServer(*answers) as server:
        code = cli.main(["--root", str(root), "refresh-prices"], aws_client=served(server, service, attempts))
    err = capsys.readouterr()
    assert code == 1 and err.out == ""
    assert tree_hashes(root / "data") == snapshot
    assert "Traceback" not in err.err and "<" not in err.err and err.err.count("\n") == 1, err.err
    assert err.err.startswith("guide refresh-prices: ") and err.err.rstrip().endswith("data/ was left as it was.")
    return err.err, server


def test_an_html_page_from_ec2_is_one_sentence(tmp_path: Path, capsys):
    err, server = _fails_through(tmp_path, capsys, "ec2", (200, HTML, HTML_PAGE))
    assert "ec2:DescribeRegions in us-east-1 answered with something that is not the API's answer" in err
    assert len(server.requests) == 1


def test_an_html_error_page_from_the_price_list_api_is_one_sentence_without_the_page(tmp_path: Path, capsys):
    err, _ = _fails_through(tmp_path, capsys, "pricing", (503, HTML, HTML_PAGE))
    assert "pricing:GetProducts in the us-east-1 endpoint, for p4d.24xlarge" in err and "Bad Gateway" not in err


def test_a_broken_json_answer_from_the_price_list_api_is_one_sentence(tmp_path: Path, capsys):
    err, _ = _fails_through(tmp_path, capsys, "pricing", (200, {"Content-Type": "application/x-amz-json-1.1"}, '{"PriceList": ['))
    assert "pricing:GetProducts in the us-east-1 endpoint, for p4d.24xlarge answered with something that is not the API's answer" in err


def test_an_expired_token_from_ec2_is_one_sentence(tmp_path: Path, capsys):
    err, _ = _fails_through(tmp_path, capsys, "ec2", (400, XML, ec2_error("RequestExpired", "Request has expired.")))
    assert "the AWS credentials have expired (RequestExpired from ec2:DescribeRegions in us-east-1)" in err


def test_an_auth_failure_partway_is_the_credentials_not_the_region(tmp_path: Path, capsys):
    # DescribeRegions said us-west-2 is enabled: an AuthFailure there is a refusal of the credentials.
    failure = {"code": "AuthFailure", "message": "AWS was not able to validate the provided access credentials", "status": 401}
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    recorded = cut_after(calls(), "describe_spot_price_history", "us-west-2", failure)
    code = cli.main(["--root", str(root), "refresh-prices"], aws_client=Stubbed(recorded, exact_times=False))
    err = capsys.readouterr().err
    assert code == 1 and tree_hashes(root / "data") == snapshot and err.count("\n") == 1
    assert err.startswith("guide refresh-prices: AWS did not accept the credentials (AuthFailure from ec2:DescribeSpotPriceHistory "
                          "in us-west-2); check the access key, session token or profile"), err
    assert "may not use the region" not in err


def test_access_denied_by_savings_plans_is_one_sentence(tmp_path: Path, capsys):
    err, _ = _fails_through(tmp_path, capsys, "savingsplans", (403, *json_error("AccessDeniedException", "User is not authorized")))
    assert "may not call savingsplans:DescribeSavingsPlansOfferingRates in us-east-1 (AccessDeniedException)" in err


def test_throttling_beyond_the_retries_through_http_is_one_sentence(tmp_path: Path, capsys):
    err, server = _fails_through(tmp_path, capsys, "pricing", (400, *json_error("ThrottlingException", "Rate exceeded")), attempts=2)
    assert err.startswith("guide refresh-prices: AWS kept throttling pricing:GetProducts") and len(server.requests) == 2


def test_a_profile_that_does_not_exist_is_one_sentence(tmp_path: Path):
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    (tmp_path / "config").write_text("[profile other]\nregion = us-east-1\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(tmp_path), AWS_CONFIG_FILE=str(tmp_path / "config"), AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
               AWS_PROFILE="no-such-profile", AWS_EC2_METADATA_DISABLED="true", PYTHONIOENCODING="utf-8")
    r = subprocess.run([os.sys.executable, "-m", "generator", "refresh-prices"], cwd=root, env=env,
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("guide refresh-prices: the AWS profile 'no-such-profile' (AWS_PROFILE) is in neither")
    assert tree_hashes(root / "data") == snapshot


# --- 5. Spot weighted by how long each price held, per zone --------------------------------------


def test_spot_is_each_zones_time_weighted_price_then_the_median_of_the_zones(tmp_path: Path):
    root = _project(tmp_path)
    recorded = calls()
    start = CALLED_AT - dt.timedelta(days=30)
    at = lambda days: (start + dt.timedelta(days=days)).isoformat()  # noqa: E731
    _spot_rows(recorded, "us-east-2", [
        # zone a: 10 from before the window (it held for the window's first 20 days), then 16 for the last 10.
        _row("trn2.48xlarge", "us-east-2a", "99.000000", at(-20)),  # superseded before the window began: no weight
        _row("trn2.48xlarge", "us-east-2a", "10.000000", at(-5)),
        _row("trn2.48xlarge", "us-east-2a", "16.000000", at(20)),
        # zone b: 13 throughout; zone c: 11 for 27 days then 41 for 3.
        _row("trn2.48xlarge", "us-east-2b", "13.000000", at(-1)),
        _row("trn2.48xlarge", "us-east-2c", "11.000000", at(0)),
        _row("trn2.48xlarge", "us-east-2c", "41.000000", at(27)),
    ])
    _refresh(root, recorded)
    spot = _price(root, "trn2.48xlarge", "us-east-2", "spot")
    # a: (10 x 20 + 16 x 10) / 30 = 12; b: 13; c: (11 x 27 + 41 x 3) / 30 = 14. An untimed median of the
    # five prices in the window would say 13 with 10 and 41 as its range.
    assert (spot.usd_per_hour, spot.low, spot.high) == (13.0, 12.0, 14.0)


# --- 6. no churn ----------------------------------------------------------------------------------


def test_a_week_with_no_move_writes_nothing_and_a_confirmed_figure_counts_as_fresh(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    _refresh(root, a_week_later(calls(), WEEK), now=WEEK)  # trn2's on-demand figure, lacked twice, vanishes
    snapshot = tree_hashes(root / "data")
    sources = set(load_catalog(root / "data").sources)
    later = WEEK + dt.timedelta(days=7)
    out = _refresh(root, a_week_later(calls(), later), now=later)
    assert out.texts == {} and out.moves == [] and tree_hashes(root / "data") == snapshot
    assert set(load_catalog(root / "data").sources) == sources
    # Long after, the asked days are renewed (and only they): figures the APIs still give stay fresh.
    far = CALLED_AT + dt.timedelta(days=100)
    out = _refresh(root, a_week_later(calls(), far), now=far)
    assert set(out.texts) == {"refresh.yaml"}
    catalog = load_catalog(root / "data")
    p5 = catalog.price("p5.48xlarge", "us-east-1", "on-demand")
    assert p5.as_of == DAY  # the row is not re-dated
    on = far.date() + dt.timedelta(days=120)  # 220 days after the row's date, 120 after the API last gave it
    fresh = Freshness.of(catalog, on)
    assert fresh.known_on(p5) == far.date() and not fresh.is_stale(p5)
    vanished = catalog.price("trn2.48xlarge", "us-east-2", "on-demand")
    assert fresh.known_on(vanished) == vanished.as_of and fresh.is_stale(vanished)


def test_a_hand_written_note_on_a_regions_list_survives_a_refresh_that_changes_it(tmp_path: Path):
    root = _project(tmp_path)
    path = root / "data" / "instances.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("regions: {value: [us-east-1], source: VAN, as_of: 2025-11-30}",
                                 'regions: {value: [us-east-1], source: VAN, as_of: 2025-11-30, note: "Written by hand."}', 1),
                    encoding="utf-8")
    _refresh(root)
    regions = load_catalog(root / "data").instances["trn1.2xlarge"].regions
    assert (regions.value, regions.note) == (["us-east-1", "us-east-2", "us-west-2"], "Written by hand.")


# --- 7. a week that moves a verdict ---------------------------------------------------------------


def _verdict_moving_week() -> list[dict]:
    """A week later: dearer trn2 blocks and cheaper p5 blocks, which turn large-run-gpus-constrained to GPUs."""
    recorded = a_week_later(calls(), WEEK)

    def set_blocks(usd: float):
        def change(response: dict) -> None:
            for o in response["CapacityBlockOfferings"]:
                o["UpfrontFee"] = f"{usd * 24:.4f}"
        return change
    edit(recorded, "describe_capacity_block_offerings", "us-east-2", set_blocks(44.70), nth=3)  # trn2.48xlarge
    edit(recorded, "describe_capacity_block_offerings", "us-east-1", set_blocks(35.0), nth=2)  # p5.48xlarge
    return recorded


def _refreshed_with_a_quoted_block_rate(tmp_path: Path) -> tuple[Path, Path]:
    """The project after a first refresh, the scenario the verdict-moving week flips quoting p5's block rate as digits."""
    root = _project(tmp_path, scenarios=True)
    _refresh(root)
    flipping = root / "scenarios" / "large-run-gpus-constrained.yaml"
    flipping.write_text(flipping.read_text(encoding="utf-8").replace(
        "  three\" is that case.\n", "  three\" is that case. The P5 block costs 41.528 an hour.\n", 1), encoding="utf-8")
    return root, flipping


def test_a_week_that_moves_a_verdict_updates_its_expect_and_names_the_notes_to_reread(tmp_path: Path):
    root, flipping = _refreshed_with_a_quoted_block_rate(tmp_path)
    scenario_bytes = {p.name: p.read_bytes() for p in (root / "scenarios").glob("*.yaml")}
    base = {r.path: r.verdict for r in load_project(root).results}  # every expect holds
    out = _refresh(root, _verdict_moving_week(), now=WEEK)
    lines = [m.line() for m in out.moves]
    assert "trn2.48xlarge us-east-2 capacity-block: changed, 35.7608 -> 44.7" in lines
    assert "p5.48xlarge us-east-1 capacity-block: changed, 41.528 -> 35" in lines
    flips = {f.path: (f.before, f.after) for f in out.scenarios.flips}
    # Cheaper H100 blocks turn the large run that buys them to GPUs.
    assert flips == {"scenarios/large-run-gpus-constrained.yaml": ("trainium", "gpu")}
    after = {r.path: r.verdict for r in load_project(root).results}  # validates: every expect holds again
    for path, (was, now) in flips.items():
        assert (base[path], after[path]) == (was, now) and was != now
        name = Path(path).name
        new = (root / "scenarios" / name).read_text(encoding="utf-8")
        old = scenario_bytes[name].decode("utf-8")
        # Only the expect line changed.
        assert [ln for ln in old.splitlines() if not ln.startswith("expect:")] == \
            [ln for ln in new.splitlines() if not ln.startswith("expect:")]
        assert f"expect: {now}" in new.splitlines()
    unchanged = [n for n in scenario_bytes if f"scenarios/{n}" not in flips]
    assert all((root / "scenarios" / n).read_bytes() == scenario_bytes[n] for n in unchanged)
    body = refresh.report_markdown(out)
    assert "### Notes to reread before merging" in body and all(f"- [ ] `{p}`: its verdict moved" in body for p in flips)
    (quote,) = [q for q in out.scenarios.quotes if q.figure == "41.528" and q.path == "scenarios/large-run-gpus-constrained.yaml"]
    assert (quote.path, quote.field, quote.excerpt) == ("scenarios/large-run-gpus-constrained.yaml", "notes",
                                                        "The P5 block costs 41.528 an hour.")
    assert '- [ ] `scenarios/large-run-gpus-constrained.yaml` (notes) quotes 41.528, a figure that moved: "The P5 block costs 41.528 an hour."' in body


def test_a_withdrawn_rate_is_marked_on_the_prices_page_and_every_scenario_page_that_still_uses_it(tmp_path: Path):
    from generator.rendering.pages.renderer import Renderer

    root = _project(tmp_path, scenarios=True)

    def without_p5_blocks(recorded: list[dict]) -> list[dict]:
        edit(recorded, "describe_capacity_block_offerings", "us-east-1",
             lambda r: r.__setitem__("CapacityBlockOfferings", []), nth=2)  # p5.48xlarge's
        return recorded
    _refresh(root, without_p5_blocks(calls()))
    _refresh(root, without_p5_blocks(a_week_later(calls(), WEEK)), now=WEEK)
    assert _price(root, "p5.48xlarge", "us-east-1", "capacity-block").vanished == WEEK.date()
    site = Renderer(load_project(root), today=WEEK.date()).render()
    prices = site.pages["prices.md"]
    row = prices.split('data-instance="p5.48xlarge" data-region="us-east-1" data-option="capacity-block"', 1)[1].split("</tr>", 1)[0]
    assert '<strong class="guide-withdrawn">withdrawn: no longer listed since' in row
    users = [n for n, text in site.pages.items() if n.startswith("scenarios/") and "p5.48xlarge, us-east-1, Capacity Block at" in text]
    assert users
    for name in users:
        assert '<strong class="guide-withdrawn" data-withdrawn="gpu">no longer listed by AWS since' in site.pages[name], name


def test_the_report_file_is_the_pull_requests_part_and_says_what_a_person_must_reread(tmp_path: Path, capsys):
    root = _project(tmp_path, scenarios=True)
    body = tmp_path / "refresh-report.md"
    code = cli.main(["--root", str(root), "refresh-prices", "--report", str(body)], aws_client=Stubbed(calls(), exact_times=False))
    out = capsys.readouterr().out
    assert code == 0
    text = body.read_text(encoding="utf-8")
    assert text.startswith("## Price refresh of ") and "### What the APIs said" in text
    # The report's lines, as printed, are in the body.
    assert all(line in text for line in out.splitlines())
    assert "### Held for a person" not in text  # nothing moved beyond the bounds


def test_a_moved_verdicts_notes_fail_guide_reread_until_edited_or_marked_as_reread(tmp_path: Path):
    # A note quoting the p5 block rate as a number, and another scenario quoting it through a placeholder.
    root, flipping = _refreshed_with_a_quoted_block_rate(tmp_path)
    other = next(p for p in sorted((root / "scenarios").glob("*.yaml")) if p != flipping and "\nnotes: >-\n" in p.read_text(encoding="utf-8"))
    other.write_text(other.read_text(encoding="utf-8").replace(
        "\nnotes: >-\n", "\nnotes: >-\n  A P5 block is {price:p5.48xlarge/us-east-1/capacity-block} an hour today.\n", 1), encoding="utf-8")
    assert guide("reread", cwd=root).returncode == 0
    out = _refresh(root, _verdict_moving_week(), now=WEEK)
    assert [f.path for f in out.scenarios.flips] == ["scenarios/large-run-gpus-constrained.yaml"]

    entries = load_catalog(root / "data").refresh.reread
    assert {(e.scenario, e.field) for e in entries} >= {("scenarios/large-run-gpus-constrained.yaml", None),
                                                         ("scenarios/large-run-gpus-constrained.yaml", "notes")}
    assert all(e.scenario != f"scenarios/{other.name}" for e in entries)  # a placeholder quotes today's price by itself
    r = guide("reread", cwd=root)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    located = [ln for ln in r.stderr.splitlines() if ln.startswith("data/refresh.yaml:")]
    assert len(located) == len(entries)
    assert any("scenarios/large-run-gpus-constrained.yaml's prose: its verdict moved from trainium to gpu in the price refresh of "
               f"{WEEK.date()}, and the text is as it was then" in ln for ln in located), located
    # The verdict's notes edited: both of its entries are done; the other entries, deleted from data/refresh.yaml, say
    # a person reread them and they still hold.
    flipping.write_text(flipping.read_text(encoding="utf-8").replace("The P5 block costs 41.528 an hour.",
                                                                     "Cheaper P5 blocks now make the GPUs the cheaper side.", 1),
                        encoding="utf-8")
    left = [e for e in entries if e.scenario != "scenarios/large-run-gpus-constrained.yaml"]
    r = guide("reread", cwd=root)
    assert r.returncode == (1 if left else 0), r.stderr
    if left:
        state = root / "data" / "refresh.yaml"
        text = state.read_text(encoding="utf-8")
        for e in left:
            text = "\n".join(ln for ln in text.splitlines() if not (ln.lstrip().startswith("- {scenario: " + e.scenario)
                                                                   and (e.field is None or f"field: {e.field}," in ln))) + "\n"
        state.write_text(text, encoding="utf-8")
    r = guide("reread", cwd=root)
    assert r.returncode == 0 and r.stdout.startswith("ok: nothing a price refresh listed is waiting to be reread"), r.stderr
    # The next refresh drops what was done.
    later = WEEK + dt.timedelta(days=7)
    recorded = _verdict_moving_week()
    a_week_later(recorded, later)
    _refresh(root, recorded, now=later)
    assert [e for e in load_catalog(root / "data").refresh.reread if e.scenario == "scenarios/large-run-gpus-constrained.yaml"] == []
