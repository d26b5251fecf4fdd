"""What AWS's own APIs say about the instances and regions the guide tracks, read with boto3.

Five APIs, each a source of its own: the Price List Query API (on-demand and Reserved Instance
rates), the Savings Plans API (EC2 Instance Savings Plan rates), the EC2 Spot price history (30 days,
each zone's prices weighted by how long they held, then across zones the median, least and most),
Capacity Block offerings (their upfront fee per instance-hour of the block's real length, segment by
segment where an offering is made of segments) and instance type offerings (the regions each
instance is sold in), asked in every region the account may use (EC2's DescribeRegions). Besides them, the Spot Instance
Advisor's public data (an S3 object read without credentials): the bucket of interruptions of each
instance in each region, dated by the object's LastModified. Nothing here reads or writes files:
`fetch` returns what was seen, `generator/commands/refresh.py` decides what it changes in data/.

An answer is believed only for what was asked: Linux/UNIX on shared tenancy, the instance type and
region of the question, a Spot record no older than the history AWS keeps and not after the call.
Whatever else an answer holds is left out, never read as a price.

Every call goes through `_calling`, which turns botocore's exceptions into one `AwsError` sentence
saying what failed and what to do. Throttling is retried by botocore itself (standard retry mode).
A region DescribeRegions says the account has not opted into is not asked; one that answers
`OptInRequired` all the same is skipped, and said so, as long as some region answered. Any other
refusal of the credentials (`AuthFailure` among them) is a failure of the credentials, wherever it comes.

What AWS's APIs say, read with boto3 (Price List Query, Savings Plans, Spot price history, Capacity
Block offerings segment by segment, instance type offerings, in every region DescribeRegions says
the account may use, and the Spot Instance Advisor's public S3 object through an unsigned client),
believed only for what was asked (Linux/UNIX, shared tenancy, the type and region asked, Spot
records inside AWS's history; Spot weighted by how long each price held, per zone; blocks by their
real length, fees as Decimal); a region not opted into skipped; each failure (HTML or broken answers
included, `AuthFailure` a failure of the credentials) worded as one sentence saying what to do. No
files.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import statistics
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from generator.commands.import_prices import hourly_terms
from generator.model.catalog import INSTANCE_TYPE

PRICING_REGIONS = ("us-east-1", "eu-central-1", "ap-south-1")  # where AWS serves the Price List Query API
SPOT_DAYS = 30
# DescribeSpotPriceHistory keeps 90 days; an older record is no answer to our question.
SPOT_HISTORY_DAYS = 90
SPOT_PRODUCT = "Linux/UNIX"  # not "Linux/UNIX (Amazon VPC)" nor SUSE or Red Hat
MILLIONTH = Decimal("0.000001")  # AWS lists hourly prices to a millionth of a dollar at most
# A Capacity Block's length the offerings are asked for: one day, the shortest every family sells.
BLOCK_HOURS = 24
# Where EC2 answers DescribeRegions for the refresh: every region, with the account's opt-in status.
REGIONS_FROM = "us-east-1"
ENABLED = {"opt-in-not-required", "opted-in"}
PRODUCT = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used"}
# What a Price List product must also say to be the plain Linux instance the guide prices.
LICENSE = "No License required"
YEAR_SECONDS = {31536000: "commit-1y", 94608000: "commit-3y"}
LEASES = {"1yr": "commit-1y", "3yr": "commit-3y"}

THROTTLED = {"Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequestsException",
             "RequestThrottled", "RequestThrottledException", "SlowDown", "PriorRequestNotComplete"}
EXPIRED = {"ExpiredToken", "ExpiredTokenException", "RequestExpired", "TokenRefreshRequired"}
REJECTED = {"InvalidClientTokenId", "UnrecognizedClientException", "AuthFailure", "SignatureDoesNotMatch",
            "IncompleteSignature", "InvalidAccessKeyId"}
DENIED = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedException",
          "OptInRequired"}
# What DescribeCapacityBlockOfferings answers for an instance type Capacity Blocks do not sell: one
# of these codes with a message that names the type as unsupported. Any other error is an error.
NOT_SOLD_AS_BLOCKS = {"InvalidParameterValue", "Unsupported", "InvalidInstanceType"}
UNSUPPORTED = re.compile(r"\b(not supported|unsupported|not available)\b", re.I)
# What EC2 answers in a region the account has not enabled, when DescribeRegions did not say so first.
NOT_OPTED_IN = {"OptInRequired"}

# The Spot Instance Advisor's data: a public object, read by an unsigned client, so it needs no IAM action.
ADVISOR_BUCKET = "spot-bid-advisor"
ADVISOR_KEY = "spot-advisor-data.json"
ADVISOR_REGION = "us-east-1"
ADVISOR_OS = "Linux"
ADVISOR_AT = f"s3:GetObject of s3://{ADVISOR_BUCKET}/{ADVISOR_KEY}"
# What S3 answers when the object is no longer public or no longer there.
ADVISOR_GONE = DENIED | {"NoSuchKey", "NoSuchBucket", "AllAccessDisabled", "PermanentRedirect"}

# The IAM actions the refresh calls; CONTRIBUTING.md lists the same (a test holds them equal).
ACTIONS = (
    "ec2:DescribeRegions",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeCapacityBlockOfferings",
    "pricing:GetProducts",
    "savingsplans:DescribeSavingsPlansOfferingRates",
)


class AwsError(Exception):
    """A call failed for good; the message is one sentence saying what and what to do."""


class RegionClosed(AwsError):
    """An EC2 call in a region the account may not use (not opted in)."""

    def __init__(self, message: str, region: str, code: str):
        super().__init__(message)
        self.region, self.code = region, code


@dataclass(frozen=True)
class Seen:
    """One figure as an API gives it."""

    usd_per_hour: float
    api: str  # which API: a key of generator.commands.refresh.APIS
    low: float | None = None
    high: float | None = None
    note: str | None = None
    reservation: str | None = None


@dataclass(frozen=True)
class Advisor:
    """The Spot Instance Advisor's data for the tracked instances, Linux."""

    as_of: dt.date  # the object's LastModified: the day the data itself shows
    labels: tuple[str, ...]  # the interruption ranges' labels, as the data names them
    buckets: dict[str, dict[str, str]]  # instance -> region -> label


@dataclass
class Observed:
    """Everything one refresh saw, for the instances and regions it asked about."""

    instances: list[str]
    regions: list[str]  # the regions that answered
    offered: dict[str, list[str]] = field(default_factory=dict)  # instance -> regions it is sold in
    figures: dict[tuple[str, str, str], Seen] = field(default_factory=dict)  # (instance, region, option)
    # Regions data/ names that the account may not use: region -> why (its opt-in status, or the code it answered).
    skipped: dict[str, str] = field(default_factory=dict)
    closed: list[str] = field(default_factory=list)  # every region DescribeRegions says the account has not opted into
    advisor: Advisor | None = None


# --- calling ------------------------------------------------------------------------------------


def _said(message: str) -> str:
    """An error message fit to quote in one sentence: no markup, no line breaks, not too long."""
    if re.search(r"<\s*(!doctype|html|head|body|title|h1|p|div)\b", message, re.I):
        return "an HTML page"
    text = " ".join(message.split())
    return text if len(text) <= 200 else text[:199] + "…"


@contextmanager
def _calling(action: str, where: str, region: str | None = None) -> Iterator[None]:
    """Turns a failed call into an AwsError naming the action, where it was called and what to do.
    region: the region of an EC2 call, whose "not opted in" answer raises RegionClosed."""
    from botocore import exceptions as be
    from botocore.parsers import ResponseParserError

    at = f"{action} in {where}"
    try:
        yield
    except be.ClientError as e:
        err = e.response.get("Error", {})
        code, message = str(err.get("Code", "?")), str(err.get("Message", ""))
        status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if region is not None and code in NOT_OPTED_IN:
            raise RegionClosed(f"{region} answered {code} to {action}: the account may not use the region", region, code) from None
        if code in THROTTLED:
            raise AwsError(f"AWS kept throttling {at} ({code}) after botocore's retries; wait a few minutes and run the refresh again") from None
        if code in EXPIRED:
            raise AwsError(f"the AWS credentials have expired ({code} from {at}); renew them (aws sso login, or assume the role again) and run the refresh again") from None
        if code in REJECTED:
            raise AwsError(f"AWS did not accept the credentials ({code} from {at}); check the access key, session token or profile and run the refresh again") from None
        if code in DENIED:
            raise AwsError(f"the AWS credentials may not call {at} ({code}); give the role every IAM action CONTRIBUTING.md lists for the price refresh and run it again") from None
        if code.isdigit() or _said(message) == "an HTML page":
            raise AwsError(f"{at} answered HTTP {status or code} with no error of the API's own (an HTML page or an empty one, "
                           "perhaps from a proxy or an outage); check the network and AWS's status, and run the refresh again") from None
        raise AwsError(f"{at} failed ({code}: {_said(message) or 'no message'}); fix that and run the refresh again") from None
    except ResponseParserError:
        raise AwsError(f"{at} answered with something that is not the API's answer (an HTML page or a broken document, "
                       "perhaps from a proxy or an outage); check the network and AWS's status, and run the refresh again") from None
    except be.ProfileNotFound as e:
        raise AwsError(f"the AWS profile {e.kwargs.get('profile', '?')!r} (AWS_PROFILE) is in neither ~/.aws/config nor ~/.aws/credentials; "
                       "name a profile that exists, or unset AWS_PROFILE, and run the refresh again") from None
    except be.NoCredentialsError:
        raise AwsError("no AWS credentials were found; set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or assume a role with the IAM actions CONTRIBUTING.md lists, and run the refresh again") from None
    except (be.PartialCredentialsError, be.CredentialRetrievalError) as e:
        raise AwsError(f"the AWS credentials could not be read ({e}); fix the profile or environment and run the refresh again") from None
    except be.TokenRetrievalError as e:
        raise AwsError(f"the AWS SSO token could not be refreshed ({e}); run aws sso login and run the refresh again") from None
    except (be.EndpointConnectionError, be.ConnectionError) as e:
        raise AwsError(f"could not reach AWS for {at} ({e}); check the network and run the refresh again") from None
    except be.BotoCoreError as e:
        raise AwsError(f"{at} failed ({_said(str(e))}); fix that and run the refresh again") from None


# --- reading each API ---------------------------------------------------------------------------


def _regions(ec2: Any) -> tuple[list[str], list[str]]:
    """(the regions the account may use, those it has not opted into), as EC2's DescribeRegions says."""
    with _calling("ec2:DescribeRegions", REGIONS_FROM):
        page = ec2.describe_regions(AllRegions=True)
        _whole(page, "Regions", f"ec2:DescribeRegions in {REGIONS_FROM}")
    enabled, closed = [], []
    for r in page.get("Regions", []):
        name = r.get("RegionName")
        if isinstance(name, str) and name:
            (enabled if r.get("OptInStatus", "opt-in-not-required") in ENABLED else closed).append(name)
    return sorted(enabled), sorted(closed)


def _reads_segments(ec2: Any) -> None:
    """Raises AwsError when the installed botocore does not know that a Capacity Block offering may come
    in segments: it would then read an offering of segments as one uniform offering, without a word."""
    import botocore

    members = ec2.meta.service_model.shape_for("CapacityBlockOffering").members
    if "CapacityBlockOfferingSegments" not in members:
        raise AwsError(f"the installed botocore ({botocore.__version__}) does not know Capacity Block offerings made of segments, "
                       "which AWS answers with since late 2026; run `pip install -U boto3` and run the refresh again")


def _offerings(ec2: Any, region: str, instances: list[str]) -> list[str]:
    found = []
    with _calling("ec2:DescribeInstanceTypeOfferings", region, region=region):
        pages = ec2.get_paginator("describe_instance_type_offerings").paginate(
            LocationType="region", Filters=[{"Name": "instance-type", "Values": instances}])
        for page in pages:
            found += [o["InstanceType"] for o in page.get("InstanceTypeOfferings", [])
                      if o.get("InstanceType") in instances and o.get("Location", region) == region]
    return found


def _price_list(pricing: Any, region: str, instance: str) -> Iterator[dict]:
    filters = [{"Type": "TERM_MATCH", "Field": "instanceType", "Value": instance}]
    filters += [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in PRODUCT.items()]
    with _calling("pricing:GetProducts", f"the {region} endpoint, for {instance}"):
        pages = pricing.get_paginator("get_products").paginate(ServiceCode="AmazonEC2", FormatVersion="aws_v1", Filters=filters)
        for page in pages:
            _whole(page, "PriceList", f"pricing:GetProducts in the {region} endpoint, for {instance}")
            for item in page.get("PriceList", []):
                try:
                    yield json.loads(item) if isinstance(item, str) else item
                except json.JSONDecodeError:
                    raise AwsError(f"pricing:GetProducts in the {region} endpoint, for {instance} answered a product that is "
                                   "not JSON; check AWS's status and run the refresh again") from None


def _whole(page: dict, key: str, at: str) -> None:
    """A JSON answer botocore could not parse comes back as a page without the API's own fields
    (the raw text under `message`): that is a failure, never an empty answer."""
    if key not in page:
        raise AwsError(f"{at} answered with something that is not the API's answer (an HTML page or a broken document, "
                       "perhaps from a proxy or an outage); check the network and AWS's status, and run the refresh again")


def _is_asked_product(a: dict, instance: str) -> bool:
    """The plain Linux, shared-tenancy, on-demand-market product of the instance asked about."""
    return (a.get("instanceType") == instance and all(a.get(k) == v for k, v in PRODUCT.items())
            and a.get("licenseModel", LICENSE) == LICENSE and a.get("marketoption", "OnDemand") == "OnDemand"
            and "BoxUsage" in a.get("usagetype", "BoxUsage"))


def _list_prices(pricing: Any, pricing_region: str, instance: str,
                 regions: set[str]) -> tuple[dict[tuple[str, str], Seen], dict[tuple[str, str], Seen]]:
    """On-demand and standard Reserved Instance (no upfront) rates of one instance in the given
    regions, by (region, option); and the convertible reservations' rates, kept apart."""
    out: dict[tuple[str, str], Seen] = {}
    convertible: dict[tuple[str, str], Seen] = {}
    for item in _price_list(pricing, pricing_region, instance):
        a = (item.get("product") or {}).get("attributes") or {}
        region = a.get("regionCode")
        # Capacity Block and other market options are products of their own; on-demand is "OnDemand".
        if region not in regions or not _is_asked_product(a, instance):
            continue
        terms = item.get("terms") or {}
        for _, usd in hourly_terms(terms.get("OnDemand") or {}):
            out[(region, "on-demand")] = Seen(usd, "pricing")
        for attrs, usd in hourly_terms(terms.get("Reserved") or {}):
            option = LEASES.get(attrs.get("LeaseContractLength", ""))
            if option is None or attrs.get("PurchaseOption") != "No Upfront":
                continue
            kind = attrs.get("OfferingClass")
            if kind == "standard":
                out[(region, option)] = Seen(usd, "pricing", note="Standard Reserved Instance, no upfront.", reservation="standard")
            elif kind == "convertible":
                convertible[(region, option)] = Seen(usd, "pricing", note="Convertible Reserved Instance, no upfront: no standard rate is listed.",
                                                     reservation="convertible")
    return out, convertible


def _savings_plans(sp: Any, instances: list[str], regions: list[str]) -> dict[tuple[str, str, str], Seen]:
    """EC2 Instance Savings Plan rates, no upfront, Linux, shared tenancy."""
    out: dict[tuple[str, str, str], Seen] = {}
    if not regions:
        return out
    args: dict[str, Any] = dict(
        savingsPlanTypes=["EC2Instance"], savingsPlanPaymentOptions=["No Upfront"], products=["EC2"],
        serviceCodes=["AmazonEC2"], operations=["RunInstances"],
        filters=[{"name": "instanceType", "values": instances}, {"name": "region", "values": regions},
                 {"name": "productDescription", "values": ["Linux/UNIX"]}, {"name": "tenancy", "values": ["shared"]}],
    )
    with _calling("savingsplans:DescribeSavingsPlansOfferingRates", "us-east-1"):
        token = None
        while True:
            page = sp.describe_savings_plans_offering_rates(**args, **({"nextToken": token} if token else {}))
            _whole(page, "searchResults", "savingsplans:DescribeSavingsPlansOfferingRates in us-east-1")
            for rate in page.get("searchResults", []):
                props = {p.get("name"): p.get("value") for p in rate.get("properties", [])}
                offering = rate.get("savingsPlanOffering", {})
                option = YEAR_SECONDS.get(offering.get("durationSeconds"))
                usage = rate.get("usageType", "")
                if (option is None or "BoxUsage" not in usage or rate.get("unit") != "Hrs"
                        or offering.get("currency", "USD") != "USD" or props.get("productDescription") != SPOT_PRODUCT
                        or props.get("tenancy") != "shared" or props.get("instanceType") not in instances
                        or props.get("region") not in regions):
                    continue
                usd = _decimal(rate.get("rate"))
                if usd is None:
                    continue
                out[(props["instanceType"], props["region"], option)] = Seen(
                    float(usd), "savingsplans", note="EC2 Instance Savings Plan, no upfront: no standard Reserved Instance rate is listed.")
            token = page.get("nextToken")
            if not token:
                return out


def _decimal(text: Any) -> Decimal | None:
    """A price as AWS writes it, exactly, whatever its precision; None when it is no positive number."""
    try:
        value = Decimal(str(text))
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() and value > 0 else None


def _to_millionth(value: Decimal) -> float:
    return float(value.quantize(MILLIONTH, rounding=ROUND_HALF_EVEN))


def _spread(values: list[float]) -> tuple[float, float | None, float | None]:
    # A median of an even count is a mean: rounded to a millionth of a dollar, as AWS lists prices.
    lo, mid, hi = min(values), round(statistics.median(values), 6), max(values)
    return (mid, None, None) if lo == hi else (mid, lo, hi)


def held_mean(records: list[tuple[dt.datetime, Decimal]], start: dt.datetime, end: dt.datetime) -> Decimal | None:
    """One zone's price over [start, end], each record weighted by how long it held: a record holds
    from its time until the next one. Of the records before the window, only the last counts, for
    the time it held inside the window. None when no record covers any of the window."""
    records = sorted(records)
    before = [r for r in records if r[0] <= start]
    timeline = ([(start, before[-1][1])] if before else []) + [r for r in records if start < r[0] <= end]
    total, weighted = Decimal(0), Decimal(0)
    for i, (at, price) in enumerate(timeline):
        until = timeline[i + 1][0] if i + 1 < len(timeline) else end
        held = Decimal((until - at).total_seconds())
        total += held
        weighted += held * price
    return weighted / total if total > 0 else None


def _when(value: Any) -> dt.datetime | None:
    """A timestamp as botocore parses it (or as a recorded answer writes it), in UTC."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, dt.datetime):
        return None
    return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)


def _spot(ec2: Any, region: str, instances: list[str], now: dt.datetime) -> dict[str, Seen]:
    start = now - dt.timedelta(days=SPOT_DAYS)
    oldest = now - dt.timedelta(days=SPOT_HISTORY_DAYS)
    zones: dict[str, dict[str, list[tuple[dt.datetime, Decimal]]]] = {}
    with _calling("ec2:DescribeSpotPriceHistory", region, region=region):
        pages = ec2.get_paginator("describe_spot_price_history").paginate(
            InstanceTypes=instances, ProductDescriptions=[SPOT_PRODUCT], StartTime=start, EndTime=now)
        for page in pages:
            for p in page.get("SpotPriceHistory", []):
                at, zone, price = _when(p.get("Timestamp")), str(p.get("AvailabilityZone", "")), _decimal(p.get("SpotPrice"))
                if (p.get("ProductDescription") != SPOT_PRODUCT or p.get("InstanceType") not in instances
                        or not zone.startswith(region) or price is None or at is None):
                    continue
                if not oldest <= at <= now:
                    continue
                zones.setdefault(p["InstanceType"], {}).setdefault(zone, []).append((at, price))
    out = {}
    for instance, by_zone in zones.items():
        means = [m for recs in by_zone.values() if (m := held_mean(recs, start, now)) is not None]
        if not means:
            continue
        per_zone = [_to_millionth(m) for m in means]
        mid, lo, hi = _spread(per_zone)
        n = len(per_zone)
        if lo is None:
            note = (f"The Spot price over the {SPOT_DAYS} days before the call, each price weighted by how long it held, "
                    f"the same in the region's {n} zone(s) with records.")
        else:
            note = (f"The Spot price over the {SPOT_DAYS} days before the call, each price weighted by how long it held, "
                    f"per zone; the figure is the median of the region's {n} zones, low and high the cheapest and dearest zone.")
        out[instance] = Seen(mid, "spot", lo, hi, note=note)
    return out


def _block_rates(o: dict, instance: str, region: str) -> list[Decimal]:
    """The rate of each part of one offering: of each of its segments (each with its own zone, type,
    schedule and fee) where AWS answers with segments, else of the offering as a whole."""
    if o.get("Tenancy", "default") != "default":
        return []
    parts = o.get("CapacityBlockOfferingSegments") or [o]
    return [rate for part in parts if (rate := _block_rate(part, instance, region)) is not None]


def _block_rate(o: dict, instance: str, region: str) -> Decimal | None:
    """The upfront fee of one offering (or one segment of one) per instance-hour of its real length, exactly."""
    if (o.get("InstanceType") != instance or o.get("CurrencyCode") != "USD" or o.get("Tenancy", "default") != "default"
            or not str(o.get("AvailabilityZone", region)).startswith(region)):
        return None
    fee = _decimal(o.get("UpfrontFee"))
    hours = Decimal(int(o.get("CapacityBlockDurationHours") or 0)) + Decimal(int(o.get("CapacityBlockDurationMinutes") or 0)) / 60
    count = int(o.get("InstanceCount") or 1)
    if fee is None or hours <= 0 or count <= 0:
        return None
    return fee / (hours * count)


def _blocks(ec2: Any, region: str, instance: str) -> Seen | None:
    """The block rate; None when the answer lists no offering, or AWS answers that it does not sell
    the type as blocks at all."""
    from botocore.exceptions import ClientError

    rates = []
    with _calling("ec2:DescribeCapacityBlockOfferings", f"{region}, for {instance}", region=region):
        pages = ec2.get_paginator("describe_capacity_block_offerings").paginate(
            InstanceType=instance, InstanceCount=1, CapacityDurationHours=BLOCK_HOURS)
        try:
            for page in pages:
                for o in page.get("CapacityBlockOfferings", []):
                    rates += [_to_millionth(rate) for rate in _block_rates(o, instance, region)]
        except ClientError as e:
            err = e.response.get("Error", {})
            if err.get("Code") in NOT_SOLD_AS_BLOCKS and instance in str(err.get("Message", "")) \
                    and UNSUPPORTED.search(str(err.get("Message", ""))):
                return None
            raise
    if not rates:
        return None
    mid, lo, hi = _spread(rates)
    return Seen(mid, "capacity-block", lo, hi, note=(
        f"Upfront fee per instance-hour of the block's length, for the {len(rates)} offerings (or segments of one) of about "
        f"{BLOCK_HOURS} hours listed on the day of the call" + ("; low and high are the least and most." if lo is not None else ".")))


def _not_advisor_data(why: str) -> AwsError:
    return AwsError(f"{ADVISOR_AT} answered with something that is not the Spot Instance Advisor's data ({why}, perhaps a "
                    "proxy's page or an outage); check the network and AWS's status, and run the refresh again")


def _spot_advisor(s3: Any, instances: list[str]) -> Advisor:
    """The buckets the Advisor gives the instances asked about, Linux only; every other entry is left out.
    Raises AwsError when the object cannot be read or is not the Advisor's JSON."""
    from botocore.exceptions import ClientError

    with _calling("s3:GetObject", f"s3://{ADVISOR_BUCKET}/{ADVISOR_KEY}"):
        try:
            answer = s3.get_object(Bucket=ADVISOR_BUCKET, Key=ADVISOR_KEY)
            body = answer["Body"].read()
        except ClientError as e:
            code = str(e.response.get("Error", {}).get("Code", "?"))
            if code in ADVISOR_GONE:
                raise AwsError(f"{ADVISOR_AT} answered {code}: AWS no longer serves the Spot Instance Advisor's data there without "
                               "credentials; find where it moved (CONTRIBUTING.md, \"From AWS's APIs\") and run the refresh again") from None
            raise
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise _not_advisor_data("an HTML page" if _said(body.decode("utf-8", "replace")) == "an HTML page" else "not JSON") from None
    modified = _when(answer.get("LastModified"))
    if modified is None:
        raise _not_advisor_data("no LastModified date")
    ranges, rated = (doc.get("ranges"), doc.get("spot_advisor")) if isinstance(doc, dict) else (None, None)
    if not isinstance(ranges, list) or not isinstance(rated, dict) or not all(
            isinstance(r, dict) and isinstance(r.get("index"), int) and isinstance(r.get("label"), str) for r in ranges):
        raise _not_advisor_data("no list of ranges with an index and a label, or no spot_advisor table")
    label = {r["index"]: r["label"] for r in ranges}
    buckets: dict[str, dict[str, str]] = {}
    for region, systems in rated.items():
        table = systems.get(ADVISOR_OS) if isinstance(systems, dict) else None
        if not isinstance(table, dict):
            continue
        for instance in instances:
            entry = table.get(instance)
            if not isinstance(entry, dict):
                continue
            if entry.get("r") not in label:
                raise _not_advisor_data(f"{instance} in {region} has range {entry.get('r')!r}, which the ranges do not name")
            buckets.setdefault(instance, {})[region] = label[entry["r"]]
    return Advisor(modified.date(), tuple(r["label"] for r in ranges), buckets)


# --- one refresh --------------------------------------------------------------------------------

ClientFactory = Callable[[str, str], Any]  # (service, region) -> a boto3 client


def fetch(instances: Iterable[str], named: Iterable[str], client: ClientFactory, now: dt.datetime,
          pricing_region: str = "us-east-1", known: dict[str, list[str]] | None = None) -> Observed:
    """Asks every API about every tracked instance in every region the account may use (named: the
    regions data/ names, reported where the account may not use them). Raises AwsError.
    known: the regions data/ already lists for each instance, asked about as well as those the
    offerings name, so that one answer that leaves a region out cannot hide its prices."""
    tracked = sorted(i for i in set(instances) if INSTANCE_TYPE.match(i))
    named = sorted(set(named))
    seen = Observed(tracked, [])
    if not tracked:
        return seen
    with _calling("the client setup", "this environment"):
        home = client("ec2", REGIONS_FROM)
    _reads_segments(home)
    regions, seen.closed = _regions(home)
    with _calling("the client setup", "this environment"):
        ec2 = {r: client("ec2", r) for r in regions}
    offered: dict[str, set[str]] = {i: set() for i in tracked}
    answered = []
    closed: list[RegionClosed] = []
    for region in regions:
        try:
            found = _offerings(ec2[region], region, tracked)
        except RegionClosed as e:
            closed.append(e)
            continue
        answered.append(region)
        for instance in found:
            offered[instance].add(region)
    if not answered:
        why = f"{closed[0].code} from {closed[0].region}" if closed else f"DescribeRegions in {REGIONS_FROM} named none the account may use"
        raise AwsError(f"no region let the credentials call ec2:DescribeInstanceTypeOfferings ({why}); "
                       "check the access key, session token or profile and run the refresh again")
    not_enabled = {r: "not opted in" for r in named if r not in regions}
    seen.skipped = {**not_enabled, **{e.region: e.code for e in closed}}
    seen.regions = answered
    seen.offered = {i: sorted(r) for i, r in offered.items()}
    asked = {i: (r | {x for x in (known or {}).get(i, []) if x in answered}) for i, r in offered.items()}

    with _calling("the client setup", "this environment"):
        pricing = client("pricing", pricing_region)
    fallback: dict[tuple[str, str, str], Seen] = {}
    for instance in tracked:
        listed, convertible = _list_prices(pricing, pricing_region, instance, asked[instance])
        for (region, option), s in listed.items():
            seen.figures[(instance, region, option)] = s
        for (region, option), s in convertible.items():
            fallback[(instance, region, option)] = s
    with _calling("the client setup", "this environment"):
        plans_client = client("savingsplans", "us-east-1")
    plans = _savings_plans(plans_client, tracked, sorted(set(named) | {r for rs in asked.values() for r in rs}))
    # A commitment is a standard Reserved Instance where one is listed, else an EC2 Instance Savings
    # Plan, else a convertible reservation: the cheapest kind first, as the engine charges every hour.
    for key, s in [*plans.items(), *fallback.items()]:
        if key[1] in asked.get(key[0], ()) and key not in seen.figures:
            seen.figures[key] = s
    for region in answered:
        here = [i for i in tracked if region in asked[i]]
        if not here:
            continue
        for instance, s in _spot(ec2[region], region, here, now).items():
            seen.figures[(instance, region, "spot")] = s
        for instance in here:
            # "Not sold as blocks" is an absence like an empty list: refresh.py confirms it a week on.
            if (block := _blocks(ec2[region], region, instance)) is not None:
                seen.figures[(instance, region, "capacity-block")] = block
    with _calling("the client setup", "this environment"):
        s3 = client("s3", ADVISOR_REGION)
    seen.advisor = _spot_advisor(s3, tracked)
    return seen


def session_clients(pricing_region: str = "us-east-1", max_attempts: int = 8) -> ClientFactory:
    """Clients from the default credential chain, retrying throttled calls in botocore's standard mode.
    Raises AwsError when there are no credentials at all, before anything is called."""
    import boto3
    from botocore import UNSIGNED
    from botocore.config import Config

    with _calling("the credential lookup", "this environment"):
        session = boto3.Session()
        if session.get_credentials() is None:
            from botocore.exceptions import NoCredentialsError

            raise NoCredentialsError()
    config = Config(retries={"mode": "standard", "total_max_attempts": max_attempts}, user_agent_extra="trainium-or-gpu-guide")
    unsigned = config.merge(Config(signature_version=UNSIGNED))
    made: dict[tuple[str, str], Any] = {}

    def client(service: str, region: str) -> Any:
        if (service, region) not in made:
            # The Advisor's object is public: its client signs nothing.
            made[(service, region)] = session.client(service, region_name=region, config=unsigned if service == "s3" else config)
        return made[(service, region)]

    return client
