"""How long an answer of `guide mcp` holds: until the next weekly price refresh, on the schedule its
workflow gives (`.github/workflows/refresh-prices.yml`), read from there so the two never disagree.
A project without that workflow, or with a schedule other than once a week, gives no lifetime."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

WORKFLOW = Path(".github/workflows/refresh-prices.yml")
# Minute, hour and day of the week of a weekly schedule ("23 6 * * 1": Mondays at 06:23 UTC).
_WEEKLY = re.compile(r"""^\s*-\s*cron:\s*["']?(\d{1,2})\s+(\d{1,2})\s+\*\s+\*\s+([0-7])["']?\s*$""", re.M)


def weekly_schedule(root: Path) -> tuple[int, int, int] | None:
    """(weekday as Python counts it, Monday 0; hour; minute) of the refresh, or None."""
    try:
        text = (root / WORKFLOW).read_text(encoding="utf-8")
    except OSError:
        return None
    m = _WEEKLY.search(text)
    if m is None:
        return None
    minute, hour, cron_day = int(m[1]), int(m[2]), int(m[3])
    return (cron_day - 1) % 7, hour, minute  # cron counts from Sunday, 0 or 7


def next_refresh(schedule: tuple[int, int, int] | None, now: dt.datetime) -> dt.datetime | None:
    """The first refresh after `now` (aware, UTC), or None without a schedule."""
    if schedule is None:
        return None
    weekday, hour, minute = schedule
    day = now.date() + dt.timedelta(days=(weekday - now.weekday()) % 7)
    at = dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.timezone.utc)
    return at if at > now else at + dt.timedelta(days=7)


def ttl_ms(schedule: tuple[int, int, int] | None, now: dt.datetime) -> int:
    """Milliseconds from `now` to the next refresh: how long a cacheable result may be kept; 0 without
    a schedule (immediately stale, as the protocol reads it)."""
    at = next_refresh(schedule, now)
    return 0 if at is None else int((at - now).total_seconds() * 1000)
