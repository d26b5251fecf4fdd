"""What the refresh asks AWS with (generator/commands/aws_prices.py): its clients, the actions it
calls, and the recorded answers the refresh tests replay, held to the APIs' own shapes."""

from __future__ import annotations

import re

from core_support import REPO
from refresh_support import Stubbed, calls

from generator.commands import aws_prices


def test_the_clients_use_botocores_standard_retry_mode(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-a-secret")
    made = aws_prices.session_clients("ap-south-1")("pricing", "ap-south-1")
    assert made.meta.config.retries == {"mode": "standard", "total_max_attempts": 8}
    assert made.meta.endpoint_url == "https://api.pricing.ap-south-1.amazonaws.com"


def test_every_action_the_refresh_calls_is_listed_in_contributing():
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text[text.index("### From AWS's APIs"):]
    listed = set(re.findall(r"`((?:ec2|pricing|savingsplans):[A-Za-z]+)`", section))
    assert listed == set(aws_prices.ACTIONS)


def test_every_recorded_answer_has_the_shape_of_the_api_reference():
    # Stubber checks each response against botocore's service model when it is queued.
    Stubbed(calls())
