"""The guide's options as a build or a command uses them (`settings`): what mkdocs.yml sets under
`plugins: - guide:`, each overridden for one build or command by its `GUIDE_*` variable, an on/off one written
as a person writes it (1/0, true/false, yes/no, on/off). This is the one reader of those variables and the one
place an option's value is worked out (`tests/test_options.py`), for the plugin (`plugin/config.py` declares the
options to MkDocs) and the commands (`commands/siteconfig.py` reads mkdocs.yml without MkDocs); the layers below
are handed the values."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path

from generator.inputs import freshness
from generator.store import cachefile

CACHE_DIR_ENV = "GUIDE_CACHE_DIR"
CACHE_MAX_MB_ENV = "GUIDE_CACHE_MAX_MB"
TODAY_ENV = "GUIDE_TODAY"
IMAGES_ENV = "GUIDE_IMAGES"  # 0 (or false, no, off): no static images for one build; 1: make them
INCREMENTAL_ENV = "GUIDE_INCREMENTAL"  # 0 (or false, no, off): the incremental layer off for one build
# An on/off setting as a person writes it.
ON, OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass(frozen=True)
class Settings:
    """The options as a build or a command uses them, each variable in place of its option."""
    cache_dir: Path
    cache_max_mb: float | None
    today: dt.date
    images: bool
    incremental: bool


@dataclass(frozen=True)
class Written:
    """The options as mkdocs.yml writes them: unset, None or the switches on."""
    cache_dir: str | None = None
    cache_max_mb: int | None = None
    today: str | dt.date | None = None
    images: bool = True
    incremental: bool = True


def settings(root: Path, written: Written) -> Settings:
    """written, each variable in place of its option. Raises CacheDirError for a cache where it must
    not or cannot be, ValueError for a day, bound or switch that is none; each in one line, before
    anything is written."""
    return Settings(cache_dir(root, written.cache_dir), cache_max_mb(written.cache_max_mb), today(written.today),
                    images(written.images), incremental(written.incremental))


def cache_dir(root: Path, configured: str | None = None) -> Path:
    """The build cache: GUIDE_CACHE_DIR, else the `cache_dir` option (relative to the project), else
    .cache/. Raises CacheDirError."""
    return cachefile.cache_dir(root, configured, _given(CACHE_DIR_ENV))


def cache_max_mb(configured: int | None = None) -> float | None:
    """The cache's bound: GUIDE_CACHE_MAX_MB (a number of megabytes, fractions allowed), else the
    `cache_max_mb` option. Raises ValueError."""
    value = os.environ.get(CACHE_MAX_MB_ENV, "").strip()
    if not value:
        return configured
    try:
        mb = float(value)
    except ValueError:
        mb = -1.0
    if not mb >= 0 or mb == float("inf"):
        raise ValueError(f"{CACHE_MAX_MB_ENV} must be a number of megabytes, 0 or more (got {value!r})")
    return mb


def today(configured: str | dt.date | None = None) -> dt.date:
    """The day prices are judged against: GUIDE_TODAY, else the `today` option, else the calendar's.
    Raises ValueError for one that is not a date."""
    return freshness.today(None if configured is None else str(configured), _given(TODAY_ENV))


def images(configured: bool = True) -> bool:
    """Whether charts get their static images: GUIDE_IMAGES, else the `images` option. Raises ValueError."""
    return switch(IMAGES_ENV, os.environ.get(IMAGES_ENV), configured)


def incremental(configured: bool = True) -> bool:
    """Whether builds are incremental: GUIDE_INCREMENTAL, else the `incremental` option. Raises ValueError."""
    return switch(INCREMENTAL_ENV, os.environ.get(INCREMENTAL_ENV), configured)


def switch(name: str, value: str | None, configured: bool) -> bool:
    """value (the variable `name`'s, if set) when it says on or off, else configured. Raises ValueError
    for a value that says neither."""
    value = (value or "").strip().lower()
    if not value:
        return configured
    if value in ON + OFF:
        return value in ON
    raise ValueError(f"{name} must be 1 or 0 (got {value!r})")


def _given(name: str) -> tuple[str, str] | None:
    value = os.environ.get(name)
    return (name, value) if value else None
