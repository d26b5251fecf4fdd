"""How long `guide mcp`'s answers hold (generator/commands/lifetimes.py): until the next weekly price
refresh, on the schedule the refresh workflow gives."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from core_support import REPO

from generator.commands import lifetimes

UTC = dt.timezone.utc


def _root(tmp_path: Path, cron: str) -> Path:
    workflow = tmp_path / lifetimes.WORKFLOW
    workflow.parent.mkdir(parents=True)
    workflow.write_text(f"on:\n  schedule:\n    - cron: \"{cron}\"\n  workflow_dispatch:\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("now", "then"), [
    (dt.datetime(2026, 12, 2, 12, 0, tzinfo=UTC), dt.datetime(2026, 12, 7, 6, 23, tzinfo=UTC)),  # a Wednesday
    (dt.datetime(2026, 12, 7, 6, 0, tzinfo=UTC), dt.datetime(2026, 12, 7, 6, 23, tzinfo=UTC)),  # Monday, before it
    (dt.datetime(2026, 12, 7, 6, 23, tzinfo=UTC), dt.datetime(2026, 12, 14, 6, 23, tzinfo=UTC)),  # as it starts
])
def test_answers_hold_until_the_next_weekly_refresh(tmp_path: Path, now, then):
    schedule = lifetimes.weekly_schedule(_root(tmp_path, "23 6 * * 1"))
    assert lifetimes.next_refresh(schedule, now) == then
    assert lifetimes.ttl_ms(schedule, now) == int((then - now).total_seconds() * 1000)


def test_sunday_is_day_0_or_7_as_cron_counts(tmp_path: Path):
    for day in ("0", "7"):
        schedule = lifetimes.weekly_schedule(_root(tmp_path / day, f"0 3 * * {day}"))
        assert lifetimes.next_refresh(schedule, dt.datetime(2026, 12, 2, tzinfo=UTC)) == dt.datetime(2026, 12, 6, 3, 0, tzinfo=UTC)


def test_without_a_weekly_schedule_nothing_is_promised(tmp_path: Path):
    assert lifetimes.weekly_schedule(tmp_path) is None
    hourly = lifetimes.weekly_schedule(_root(tmp_path, "0 * * * *"))
    assert hourly is None and lifetimes.ttl_ms(hourly, dt.datetime.now(UTC)) == 0


def test_the_projects_refresh_has_a_weekly_schedule():
    assert lifetimes.weekly_schedule(REPO) is not None
