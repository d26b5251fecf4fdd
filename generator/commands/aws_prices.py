"""What AWS's own APIs say about the instances and regions the guide tracks, read with boto3.

Five APIs, each a source of its own: the Price List Query API (on-demand and Reserved Instance
rates), the Savings Plans API (EC2 Instance Savings Plan rates), the EC2 Spot price history (30 days,
summarised as low, median and high), Capacity Block offerings (their upfront fee per instance-hour)
and instance type offerings (the regions each instance is sold in). Nothing here reads or writes
files: `fetch` returns what was seen, `generator/commands/refresh.py` decides what it changes in data/.

Every call goes through `_calling`, which turns botocore's exceptions into one `AwsError` sentence
saying what failed and what to do. Throttling is retried by botocore itself (standard retry mode).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import statistics
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from generator.commands.import_prices import hourly_terms

PRICING_REGIONS = ("us-east-1", "eu-central-1", "ap-south-1")  # where AWS serves the Price List Query API
SPOT_DAYS = 30
# A Capacity Block's length the offerings are asked for: one day, the shortest every family sells.
BLOCK_HOURS = 24
# An EC2 instance type name; UltraServer and unreleased names in data/ (no dot) are not looked up.
INSTANCE_TYPE = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9]+$")
PRODUCT = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used"}
YEAR_SECONDS = {31536000: "commit-1y", 94608000: "commit-3y"}
LEASES = {"1yr": "commit-1y", "3yr": "commit-3y"}

THROTTLED = {"Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequestsException",
             "RequestThrottled", "RequestThrottledException", "SlowDown", "PriorRequestNotComplete"}
EXPIRED = {"ExpiredToken", "ExpiredTokenException", "RequestExpired", "TokenRefreshRequired"}
REJECTED = {"InvalidClientTokenId", "UnrecognizedClientException", "AuthFailure", "SignatureDoesNotMatch",
            "IncompleteSignature", "InvalidAccessKeyId"}
DENIED = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedException",
          "OptInRequired"}
# What DescribeCapacityBlockOfferings answers for an instance type Capacity Blocks do not sell.
NOT_SOLD_AS_BLOCKS = {"InvalidParameterValue", "InvalidParameterCombination", "Unsupported", "InvalidInstanceType"}

# The IAM actions the refresh calls; CONTRIBUTING.md lists the same (a test holds them equal).
ACTIONS = (
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeCapacityBlockOfferings",
    "pricing:GetProducts",
    "savingsplans:DescribeSavingsPlansOfferingRates",
)


class AwsError(Exception):
    """A call failed for good; the message is one sentence saying what and what to do."""


@dataclass(frozen=True)
class Seen:
    """One figure as an API gives it."""

    usd_per_hour: float
    api: str  # which API: a key of generator.commands.refresh.APIS
    low: float | None = None
    high: float | None = None
    note: str | None = None
    reservation: str | None = None


@dataclass
class Observed:
    """Everything one refresh saw, for the instances and regions it asked about."""

    instances: list[str]
    regions: list[str]
    offered: dict[str, list[str]] = field(default_factory=dict)  # instance -> regions it is sold in
    figures: dict[tuple[str, str, str], Seen] = field(default_factory=dict)  # (instance, region, option)


# --- calling ------------------------------------------------------------------------------------


@contextmanager
def _calling(action: str, where: str) -> Iterator[None]:
    """Turns a failed call into an AwsError naming the action, where it was called and what to do."""
    from botocore import exceptions as be

    at = f"{action} in {where}"
    try:
        yield
    except be.ClientError as e:
        err = e.response.get("Error", {})
        code, message = err.get("Code", "?"), err.get("Message", "")
        if code in THROTTLED:
            raise AwsError(f"AWS kept throttling {at} ({code}) after botocore's retries; wait a few minutes and run the refresh again") from None
        if code in EXPIRED:
            raise AwsError(f"the AWS credentials have expired ({code} from {at}); renew them (aws sso login, or assume the role again) and run the refresh again") from None
        if code in REJECTED:
            raise AwsError(f"AWS did not accept the credentials ({code} from {at}); check the access key, session token or profile and run the refresh again") from None
        if code in DENIED:
            raise AwsError(f"the AWS credentials may not call {at} ({code}); give the role every IAM action CONTRIBUTING.md lists for the price refresh and run it again") from None
        raise AwsError(f"{at} failed ({code}: {message or 'no message'}); fix that and run the refresh again") from None
    except be.NoCredentialsError:
        raise AwsError("no AWS credentials were found; set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or assume a role with the IAM actions CONTRIBUTING.md lists, and run the refresh again") from None
    except (be.PartialCredentialsError, be.CredentialRetrievalError) as e:
        raise AwsError(f"the AWS credentials could not be read ({e}); fix the profile or environment and run the refresh again") from None
    except be.TokenRetrievalError as e:
        raise AwsError(f"the AWS SSO token could not be refreshed ({e}); run aws sso login and run the refresh again") from None
    except (be.EndpointConnectionError, be.ConnectionError) as e:
        raise AwsError(f"could not reach AWS for {at} ({e}); check the network and run the refresh again") from None
    except be.BotoCoreError as e:
        raise AwsError(f"{at} failed ({e}); fix that and run the refresh again") from None


# --- reading each API ---------------------------------------------------------------------------


def _offerings(ec2: Any, region: str, instances: list[str]) -> list[str]:
    found = []
    with _calling("ec2:DescribeInstanceTypeOfferings", region):
        pages = ec2.get_paginator("describe_instance_type_offerings").paginate(
            LocationType="region", Filters=[{"Name": "instance-type", "Values": instances}])
        for page in pages:
            found += [o["InstanceType"] for o in page.get("InstanceTypeOfferings", [])]
    return found


def _price_list(pricing: Any, region: str, instance: str) -> Iterator[dict]:
    filters = [{"Type": "TERM_MATCH", "Field": "instanceType", "Value": instance}]
    filters += [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in PRODUCT.items()]
    with _calling("pricing:GetProducts", f"the {region} endpoint, for {instance}"):
        pages = pricing.get_paginator("get_products").paginate(ServiceCode="AmazonEC2", FormatVersion="aws_v1", Filters=filters)
        for page in pages:
            for item in page.get("PriceList", []):
                yield json.loads(item) if isinstance(item, str) else item


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
        if region not in regions or a.get("marketoption", "OnDemand") != "OnDemand":
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
            for rate in page.get("searchResults", []):
                props = {p.get("name"): p.get("value") for p in rate.get("properties", [])}
                option = YEAR_SECONDS.get(rate.get("savingsPlanOffering", {}).get("durationSeconds"))
                usage = rate.get("usageType", "")
                if option is None or "BoxUsage" not in usage or rate.get("unit") != "Hrs":
                    continue
                out[(props.get("instanceType", ""), props.get("region", ""), option)] = Seen(
                    float(rate["rate"]), "savingsplans", note="EC2 Instance Savings Plan, no upfront: no standard Reserved Instance rate is listed.")
            token = page.get("nextToken")
            if not token:
                return out


def _spread(values: list[float]) -> tuple[float, float | None, float | None]:
    # A median of an even count is a mean: rounded to a millionth of a dollar, as AWS lists prices.
    lo, mid, hi = min(values), round(statistics.median(values), 6), max(values)
    return (mid, None, None) if lo == hi else (mid, lo, hi)


def _spot(ec2: Any, region: str, instances: list[str], now: dt.datetime) -> dict[str, Seen]:
    seen: dict[str, list[float]] = {}
    with _calling("ec2:DescribeSpotPriceHistory", region):
        pages = ec2.get_paginator("describe_spot_price_history").paginate(
            InstanceTypes=instances, ProductDescriptions=["Linux/UNIX"],
            StartTime=now - dt.timedelta(days=SPOT_DAYS), EndTime=now)
        for page in pages:
            for p in page.get("SpotPriceHistory", []):
                seen.setdefault(p["InstanceType"], []).append(float(p["SpotPrice"]))
    out = {}
    for instance, values in seen.items():
        mid, lo, hi = _spread(values)
        if lo is None:
            note = f"The Spot price throughout the {SPOT_DAYS} days before the call, in every zone of the region ({len(values)} record(s))."
        else:
            note = (f"Median of the {len(values)} Spot prices recorded over the {SPOT_DAYS} days before the call, in every zone "
                    "of the region; low and high are the least and the most.")
        out[instance] = Seen(mid, "spot", lo, hi, note=note)
    return out


def _blocks(ec2: Any, region: str, instance: str) -> Seen | None:
    from botocore.exceptions import ClientError

    rates = []
    with _calling("ec2:DescribeCapacityBlockOfferings", f"{region}, for {instance}"):
        pages = ec2.get_paginator("describe_capacity_block_offerings").paginate(
            InstanceType=instance, InstanceCount=1, CapacityDurationHours=BLOCK_HOURS)
        try:
            for page in pages:
                for o in page.get("CapacityBlockOfferings", []):
                    if o.get("CurrencyCode", "USD") != "USD":
                        continue
                    hours = o.get("CapacityBlockDurationHours") or BLOCK_HOURS
                    # Rounded to a millionth of a dollar: the fee is given in cents over the whole block.
                    rates.append(round(float(o["UpfrontFee"]) / (hours * (o.get("InstanceCount") or 1)), 6))
        except ClientError as e:
            if e.response.get("Error", {}).get("Code") in NOT_SOLD_AS_BLOCKS:
                return None
            raise
    if not rates:
        return None
    mid, lo, hi = _spread(rates)
    return Seen(mid, "capacity-block", lo, hi, note=(
        f"Upfront fee per instance-hour of the {len(rates)} {BLOCK_HOURS}-hour offerings listed on the day of the call"
        + ("; low and high are the least and most." if lo is not None else ".")))


# --- one refresh --------------------------------------------------------------------------------

ClientFactory = Callable[[str, str], Any]  # (service, region) -> a boto3 client


def fetch(instances: Iterable[str], regions: Iterable[str], client: ClientFactory, now: dt.datetime,
          pricing_region: str = "us-east-1") -> Observed:
    """Asks every API about every tracked instance in every tracked region. Raises AwsError."""
    tracked = sorted(i for i in set(instances) if INSTANCE_TYPE.match(i))
    regions = sorted(set(regions))
    seen = Observed(tracked, regions)
    if not tracked or not regions:
        return seen
    ec2 = {r: client("ec2", r) for r in regions}
    offered: dict[str, set[str]] = {i: set() for i in tracked}
    for region in regions:
        for instance in _offerings(ec2[region], region, tracked):
            if instance in offered:
                offered[instance].add(region)
    seen.offered = {i: sorted(r) for i, r in offered.items()}

    pricing = client("pricing", pricing_region)
    fallback: dict[tuple[str, str, str], Seen] = {}
    for instance in tracked:
        listed, convertible = _list_prices(pricing, pricing_region, instance, offered[instance])
        for (region, option), s in listed.items():
            seen.figures[(instance, region, option)] = s
        for (region, option), s in convertible.items():
            fallback[(instance, region, option)] = s
    plans = _savings_plans(client("savingsplans", "us-east-1"), tracked, regions)
    # A commitment is a standard Reserved Instance where one is listed, else an EC2 Instance Savings
    # Plan, else a convertible reservation: the cheapest kind first, as the engine charges every hour.
    for key, s in [*plans.items(), *fallback.items()]:
        if key[1] in offered.get(key[0], ()) and key not in seen.figures:
            seen.figures[key] = s
    for region in regions:
        here = [i for i in tracked if region in offered[i]]
        if not here:
            continue
        for instance, s in _spot(ec2[region], region, here, now).items():
            if instance in offered and region in offered[instance]:
                seen.figures[(instance, region, "spot")] = s
        for instance in here:
            if (s := _blocks(ec2[region], region, instance)) is not None:
                seen.figures[(instance, region, "capacity-block")] = s
    return seen


def session_clients(pricing_region: str = "us-east-1", max_attempts: int = 8) -> ClientFactory:
    """Clients from the default credential chain, retrying throttled calls in botocore's standard mode.
    Raises AwsError when there are no credentials at all, before anything is called."""
    import boto3
    from botocore.config import Config

    session = boto3.Session()
    with _calling("the credential lookup", "this environment"):
        if session.get_credentials() is None:
            from botocore.exceptions import NoCredentialsError

            raise NoCredentialsError()
    config = Config(retries={"mode": "standard", "total_max_attempts": max_attempts}, user_agent_extra="trainium-or-gpu-guide")
    made: dict[tuple[str, str], Any] = {}

    def client(service: str, region: str) -> Any:
        if (service, region) not in made:
            made[(service, region)] = session.client(service, region_name=region, config=config)
        return made[(service, region)]

    return client
