"""AWS's answers to `guide refresh-prices`, served offline: real boto3 clients with botocore's
Stubber activated, each queued with the responses of tests/fixtures/aws-refresh/responses.json that
its service and region get (see write_responses.py there for how they were made)."""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.stub import ANY, Stubber

RESPONSES = Path(__file__).parent / "fixtures" / "aws-refresh" / "responses.json"
RECORDING = json.loads(RESPONSES.read_text(encoding="utf-8"))
CALLED_AT = dt.datetime.fromisoformat(RECORDING["called_at"])
TIMES = ("StartTime", "EndTime")


def calls() -> list[dict]:
    """A fresh copy of the recorded calls, to edit for one test."""
    return copy.deepcopy(RECORDING["calls"])


def client(service: str, region: str, attempts: int = 3) -> Any:
    # Made-up keys: a stubbed client signs nothing that leaves the process.
    return boto3.client(service, region_name=region, aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="not-a-secret",
                        config=Config(retries={"mode": "standard", "total_max_attempts": attempts}))


class Stubbed:
    """A (service, region) -> client factory serving the given calls, in order per client."""

    def __init__(self, recorded: list[dict], exact_times: bool = True):
        """exact_times=False: any Spot window is accepted (the command asks for the 30 days before now)."""
        self.clients: dict[tuple[str, str], tuple[Any, Stubber]] = {}
        for c in recorded:
            key = (c["service"], c["region"])
            if key not in self.clients:
                made = client(*key)
                self.clients[key] = (made, Stubber(made))
            stub = self.clients[key][1]
            params = dict(c["params"])
            for name in TIMES:
                if name in params:
                    params[name] = dt.datetime.fromisoformat(params[name]) if exact_times else ANY
            if "error" in c:
                stub.add_client_error(c["operation"], service_error_code=c["error"]["code"],
                                      service_message=c["error"]["message"], http_status_code=c["error"].get("status", 400),
                                      expected_params=params)
            else:
                stub.add_response(c["operation"], c["response"], params)
        for _, stub in self.clients.values():
            stub.activate()

    def __call__(self, service: str, region: str) -> Any:
        return self.clients[(service, region)][0]

    def assert_all_called(self) -> None:
        for _, stub in self.clients.values():
            stub.assert_no_pending_responses()


def a_week_later(recorded: list[dict], now: dt.datetime) -> list[dict]:
    """The same answers asked on another day: the Spot window moves with the call."""
    for c in recorded:
        if c["operation"] == "describe_spot_price_history":
            c["params"]["StartTime"] = (now - dt.timedelta(days=30)).isoformat()
            c["params"]["EndTime"] = now.isoformat()
    return recorded


def edit(recorded: list[dict], operation: str, region: str, change: Callable[[dict], None], nth: int = 0) -> None:
    """Apply change to the response of the nth call of operation in region."""
    found = [c for c in recorded if c["operation"] == operation and c["region"] == region]
    change(found[nth]["response"])


def cut_after(recorded: list[dict], operation: str, region: str, error: dict) -> list[dict]:
    """The calls up to the first call of operation in region, which answers with the error instead;
    the calls after it on any client are never reached, so they are left out."""
    out = []
    for c in recorded:
        if c["operation"] == operation and c["region"] == region:
            out.append({**c, "error": error})
            return out
        out.append(c)
    raise AssertionError(f"no {operation} in {region}")
