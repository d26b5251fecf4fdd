"""The refresh's readers of AWS's answers held to independent readings of the APIs: moto's
DescribeRegions, DescribeInstanceTypeOfferings, DescribeSpotPriceHistory and S3 (a whole refresh
runs against them, twice, a week apart), and botocore's service models for every field the refresh
reads of the APIs moto does not implement (the Price List, Savings Plans and Capacity Blocks, whose
recorded answers Stubber checks against the same models, tests/test_refresh_prices.py). A change in
botocore's models or in moto's answers fails here, in CI, before a weekly refresh meets it."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import botocore.session
import pytest

from generator.commands import aws_prices

NOW = dt.datetime(2026, 11, 25, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def ec2():
    import boto3
    from moto import mock_aws

    # moto makes its EC2 backend on the first call (several seconds): the moto tests are marked slow.
    with mock_aws():
        yield boto3.client("ec2", region_name="us-east-1", aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="not-a-secret")


@pytest.mark.slow
def test_moto_offerings_are_read_for_the_types_asked_in_the_region_asked(ec2):
    found = aws_prices._offerings(ec2, "us-east-1", ["p5.48xlarge", "trn1.32xlarge", "no-such.type"])
    assert sorted(found) == ["p5.48xlarge", "trn1.32xlarge"]
    # The fields the reader relies on are the ones moto answers with.
    page = ec2.describe_instance_type_offerings(LocationType="region", Filters=[{"Name": "instance-type", "Values": ["p5.48xlarge"]}])
    assert page["InstanceTypeOfferings"] == [{"InstanceType": "p5.48xlarge", "LocationType": "region", "Location": "us-east-1"}]


@pytest.mark.slow
def test_moto_spot_answers_are_no_spot_price(ec2):
    # moto answers a "Linux/UNIX (Amazon VPC)" product at $0.00001 from 2006 for whatever is asked.
    page = ec2.describe_spot_price_history(InstanceTypes=["p5.48xlarge"], ProductDescriptions=["Linux/UNIX"],
                                           StartTime=NOW - dt.timedelta(days=30), EndTime=NOW)
    rows = page["SpotPriceHistory"]
    assert rows and {r["ProductDescription"] for r in rows} == {"Linux/UNIX (Amazon VPC)"}
    assert all(isinstance(r["Timestamp"], dt.datetime) and r["AvailabilityZone"].startswith("us-east-1") for r in rows)
    assert aws_prices._spot(ec2, "us-east-1", ["p5.48xlarge"], NOW) == {}


def _members(service: str, shape: str) -> set[str]:
    return set(botocore.session.get_session().get_service_model(service).shape_for(shape).members)


def test_every_field_the_refresh_reads_is_in_botocores_models():
    assert {"RegionName", "OptInStatus"} <= _members("ec2", "Region")
    assert {"InstanceType", "Location"} <= _members("ec2", "InstanceTypeOffering")
    assert {"AvailabilityZone", "InstanceType", "ProductDescription", "SpotPrice", "Timestamp"} <= _members("ec2", "SpotPrice")
    assert {"InstanceType", "AvailabilityZone", "InstanceCount", "CapacityBlockDurationHours", "CapacityBlockDurationMinutes",
            "UpfrontFee", "CurrencyCode", "Tenancy"} <= _members("ec2", "CapacityBlockOffering")
    # Late 2026: offerings made of segments, each with its own zone, type, schedule and fee; a search by several types.
    assert "CapacityBlockOfferingSegments" in _members("ec2", "CapacityBlockOffering")
    assert {"InstanceType", "AvailabilityZone", "InstanceCount", "CapacityBlockDurationHours", "CapacityBlockDurationMinutes",
            "UpfrontFee", "CurrencyCode", "StartDate", "EndDate"} <= _members("ec2", "CapacityBlockOfferingSegment")
    assert "InstanceTypePreferences" in _members("ec2", "DescribeCapacityBlockOfferingsRequest")
    assert {"PriceList", "FormatVersion", "NextToken"} <= _members("pricing", "GetProductsResponse")
    assert {"savingsPlanOffering", "rate", "unit", "usageType", "properties"} <= _members("savingsplans", "SavingsPlanOfferingRate")
    assert {"durationSeconds", "currency"} <= _members("savingsplans", "ParentSavingsPlanOffering")


def _at(days: float) -> dt.datetime:
    return NOW - dt.timedelta(days=30) + dt.timedelta(days=days)


def test_a_zones_price_is_weighted_by_how_long_each_record_held_inside_the_window():
    start = _at(0)
    records = [(_at(-40), Decimal("99")), (_at(-2), Decimal("10")), (_at(15), Decimal("20"))]
    # 10 holds from the window's start for 15 days, 20 for the last 15; 99 was superseded before the window.
    assert aws_prices.held_mean(records, start, NOW) == Decimal(15)
    assert aws_prices.held_mean([(_at(29), Decimal("8"))], start, NOW) == Decimal(8)
    assert aws_prices.held_mean([], start, NOW) is None


def test_a_block_rate_is_its_fee_over_its_real_length_exactly():
    o = {"InstanceType": "p5.48xlarge", "AvailabilityZone": "us-east-1a", "InstanceCount": 2, "CapacityBlockDurationHours": 20,
         "CapacityBlockDurationMinutes": 35, "UpfrontFee": "1709.569333333333333333", "CurrencyCode": "USD", "Tenancy": "default"}
    rate = aws_prices._block_rate(o, "p5.48xlarge", "us-east-1")
    assert rate.quantize(Decimal("0.000001")) == Decimal("41.528000")
    for other in ({"CurrencyCode": "EUR"}, {"Tenancy": "dedicated"}, {"InstanceType": "p5e.48xlarge"},
                  {"AvailabilityZone": "us-west-2a"}, {"UpfrontFee": "n/a"},
                  {"CapacityBlockDurationHours": 0, "CapacityBlockDurationMinutes": 0}):
        assert aws_prices._block_rate({**o, **other}, "p5.48xlarge", "us-east-1") is None, other


def test_an_offering_of_segments_is_read_segment_by_segment():
    segment = {"InstanceType": "p5.48xlarge", "AvailabilityZone": "us-east-1a", "InstanceCount": 1, "CapacityBlockDurationHours": 24,
               "CapacityBlockDurationMinutes": 0, "UpfrontFee": "996.672", "CurrencyCode": "USD"}
    offering = {"InstanceType": "p5.48xlarge", "AvailabilityZone": "us-east-1a", "InstanceCount": 3, "CapacityBlockDurationHours": 24,
                "UpfrontFee": "3097.392", "CurrencyCode": "USD", "Tenancy": "default", "CapacityBlockOfferingSegments": [
                    segment,  # 41.528 an hour
                    {**segment, "AvailabilityZone": "us-east-1b", "CapacityBlockDurationHours": 12, "UpfrontFee": "453.12"},  # 37.76
                    {**segment, "InstanceType": "p5en.48xlarge", "UpfrontFee": "1647.6"},  # another type: not this price
                    {**segment, "AvailabilityZone": "us-west-2a", "UpfrontFee": "1.0"}]}  # another region's zone
    rates = aws_prices._block_rates(offering, "p5.48xlarge", "us-east-1")
    assert [r.quantize(Decimal("0.000001")) for r in rates] == [Decimal("41.528000"), Decimal("37.760000")]
    # Read as one uniform offering, the p5en segment's fee would be p5's: 3,097.392 / 72 = 43.02.
    assert aws_prices._block_rates({**offering, "CapacityBlockOfferingSegments": []}, "p5.48xlarge", "us-east-1") == [
        Decimal("3097.392") / 72]
    assert aws_prices._block_rates({**offering, "Tenancy": "dedicated"}, "p5.48xlarge", "us-east-1") == []


def test_a_botocore_that_does_not_know_segments_stops_the_refresh_before_it_asks_anything():
    from types import SimpleNamespace

    old_model = SimpleNamespace(shape_for=lambda name: SimpleNamespace(members={"InstanceType": None, "UpfrontFee": None}))
    with pytest.raises(aws_prices.AwsError, match=r"does not know Capacity Block offerings made of segments.*pip install -U boto3"):
        aws_prices._reads_segments(SimpleNamespace(meta=SimpleNamespace(service_model=old_model)))
    import boto3
    aws_prices._reads_segments(boto3.client("ec2", region_name="us-east-1", aws_access_key_id="AKIDEXAMPLE",
                                            aws_secret_access_key="not-a-secret"))  # the installed botocore does


@pytest.mark.slow
def test_a_whole_refresh_against_moto_twice_a_week_apart(tmp_path):
    """What moto implements answers as moto does; what it does not, from the recording."""
    from moto import mock_aws

    from core_support import copy_inputs
    from generator.commands import refresh
    from generator.inputs.loader import load_catalog, load_project
    from refresh_support import calls, moto_aws

    root = copy_inputs(tmp_path / "project", scenarios=True)
    instances = root / "data" / "instances.yaml"  # p5 rated by hand, so that the Advisor's data has a rating to follow
    text = instances.read_text(encoding="utf-8")
    at = text.index("\n    regions:", text.index("\n  p5.48xlarge:\n"))
    instances.write_text(text[:at] + '\n    spot_interruption: {value: {us-east-1: "<5%"}, source: VAN, as_of: 2025-11-30}' + text[at:],
                         encoding="utf-8")
    before = load_catalog(root / "data")
    now = dt.datetime.now(dt.timezone.utc)
    with mock_aws():
        factory, blocks = moto_aws(calls())
        out = refresh.run(root / "data", factory, now)
        later = now + dt.timedelta(days=7)
        week = refresh.run(root / "data", moto_aws(calls())[0], later)
    catalog = load_catalog(root / "data")
    load_project(root)  # data/ and every scenario's expect still hold
    # moto's DescribeRegions: every region it says the account may use was asked, none it says is not.
    assert out.closed and not set(out.closed) & {r for _, r in blocks.asked}
    # moto's offerings: each instance's regions now hold every region moto sells it in.
    p5 = catalog.instances["p5.48xlarge"].regions.value
    assert set(before.instances["p5.48xlarge"].regions.value) < set(p5)
    # moto's Spot answers are a "(Amazon VPC)" product at $0.00001 from 2006: no Spot price. The rows data/ had are
    # lacked, and a week later withdrawn at their last figure, never replaced by moto's; every pool without one says
    # it is not priced.
    spot = catalog.price("p5.48xlarge", "us-east-1", "spot")
    assert (spot.usd_per_hour, spot.vanished) == (28.11, later.date())
    assert out.unpriced and all(catalog.price(*k) is None and any((u.instance, u.region, u.option) == k for u in catalog.unpublished)
                                for k in out.unpriced)
    # moto's S3: the Advisor's public object, read with an unsigned client and dated by moto's LastModified (today);
    # the hand rating it replaces stays among the alternatives.
    rating = catalog.instances["p5.48xlarge"].spot_interruption
    assert rating.value["us-east-1"] == "10-15%" and rating.source.startswith("SPOT-ADV-20") and rating.as_of <= now.date()
    assert [(a.source, a.value) for a in rating.alternatives] == [("VAN", {"us-east-1": "<5%"})]
    # The recorded answers for the rest: the Price List, Savings Plans and Capacity Blocks, the latter segment by segment.
    assert catalog.price("trn1.32xlarge", "us-west-2", "on-demand").source.startswith("AWS-PRICE-LIST-API-")
    assert catalog.price("trn2.48xlarge", "us-east-2", "commit-1y").source.startswith("AWS-SAVINGS-PLANS-API-")
    p5en = catalog.price("p5en.48xlarge", "us-east-1", "capacity-block")
    assert (p5en.usd_per_hour, p5en.low, p5en.high) == (54.92, None, None)
    assert [m.change for m in week.moves if m.option == "spot"] and {m.change for m in week.moves if m.option == "spot"} == {"vanished"}


def test_an_error_message_is_quoted_without_markup_or_line_breaks():
    assert aws_prices._said("<!DOCTYPE html><html><body><h1>502</h1></body></html>") == "an HTML page"
    assert aws_prices._said("Rate\n  exceeded") == "Rate exceeded"
    assert len(aws_prices._said("x" * 500)) == 200


def _advisor_answer(doc: dict) -> dict:
    from refresh_support import Stubbed, advisor_call

    s3 = Stubbed([advisor_call(doc)])("s3", "us-east-1")
    return aws_prices._spot_advisor(s3, ["trn1.32xlarge", "p5.48xlarge", "trn2.48xlarge", "no-such.type"])


def test_the_advisors_object_is_read_for_the_tracked_instances_on_linux_dated_by_its_last_modified():
    from refresh_support import ADVISOR

    got = _advisor_answer(ADVISOR)
    assert got.as_of == dt.date(2026, 11, 24) and got.labels == ("<5%", "5-10%", "10-15%", "15-20%", ">20%")
    # Windows rates each of them ">20%", and m5.large is not tracked: neither is read.
    assert got.buckets == {"trn1.32xlarge": {"us-east-1": "<5%", "us-east-2": "10-15%", "us-west-2": "5-10%"},
                           "p5.48xlarge": {"us-east-1": "10-15%", "us-west-2": ">20%"}, "trn2.48xlarge": {"us-east-2": "15-20%"}}
    assert {"Bucket", "Key"} <= _members("s3", "GetObjectRequest") and {"Body", "LastModified"} <= _members("s3", "GetObjectOutput")


def test_an_advisor_rating_with_a_range_the_ranges_do_not_name_is_refused():
    import copy

    from refresh_support import ADVISOR

    doc = copy.deepcopy(ADVISOR)
    doc["spot_advisor"]["us-east-1"]["Linux"]["p5.48xlarge"]["r"] = 7
    with pytest.raises(aws_prices.AwsError, match=r"p5\.48xlarge in us-east-1 has range 7, which the ranges do not name"):
        _advisor_answer(doc)
