"""The plugin's options, as `mkdocs.yml` sets them under `plugins: - guide:`.

Each has an environment variable that overrides it, for a one-off build or a test that must not edit
mkdocs.yml (`GUIDE_CACHE_DIR`, `GUIDE_CACHE_MAX_MB`, `GUIDE_TODAY`, `GUIDE_IMAGES`, `GUIDE_INCREMENTAL`). They
are read here (and, for the commands, in `commands/siteconfig.py`) and nowhere else: the layers below
are handed the values (`settings`).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import Abort

from generator.inputs.freshness import today
from generator.inputs.switches import switch
from generator.store.cachefile import CacheDirError, cache_dir

CACHE_DIR_ENV = "GUIDE_CACHE_DIR"
CACHE_MAX_MB_ENV = "GUIDE_CACHE_MAX_MB"
TODAY_ENV = "GUIDE_TODAY"
# Set to 0 (or false, no, off) to build without the static images for one build, 1 to make them.
IMAGES_ENV = "GUIDE_IMAGES"
INCREMENTAL_ENV = "GUIDE_INCREMENTAL"  # 0 (or false, no, off) turns the incremental build off for one build


class GuideConfig(base.Config):
    cache_dir = c.Optional(c.Type(str))
    """Where builds keep what is slow to make, relative to mkdocs.yml; `.cache` when unset. Never
    inside docs/, scenarios/ or data/."""

    cache_max_mb = c.Optional(c.Type(int))
    """The cache's bound in MB after a build that added to it; unset: three times what the build used,
    at least 512 MB."""

    today = c.Optional(c.Type((str, dt.date)))
    """The date prices are judged against (YYYY-MM-DD, quoted or not), for a reproducible build; unset:
    the day of the build."""

    images = c.Type(bool, default=True)
    """Whether the build makes the charts' static images: each chart's SVG and PNG, light and dark,
    and the 1200x630 cards links unfurl to (a chart's, and the site's). Rendering them is most of a
    cold build; a contributor previewing may turn them off. Off, nothing links to an image that is
    not there: pages and embed pages draw their charts live instead of showing an image, the embed
    snippets offer no image snippet or SVG and PNG downloads, and no page, embed page or oEmbed file
    names a card (no og:image, no thumbnail; the Twitter card is a plain summary). A site to publish
    keeps them on."""

    incremental = c.Type(bool, default=True)
    """Whether builds take what earlier builds stored, or left in the site folder, instead of making it
    again (generator/plugin/incremental/). Off, the plugin only generates its files and hands them to
    MkDocs, which builds every page itself: the same site, more slowly; for telling a fault of that
    layer from one of the site."""


@dataclass(frozen=True)
class Settings:
    """The options as a build uses them, each environment variable in place of its option."""
    cache_dir: Path
    cache_max_mb: float | None
    today: dt.date
    images: bool
    incremental: bool


def settings(options: GuideConfig, root: Path) -> Settings:
    """Raises CacheDirError for a cache where it must not or cannot be, ValueError for a day, bound
    or images switch that is none; each in one line, before anything is written."""
    day = None if options.today is None else str(options.today)
    return Settings(
        cache_dir=cache_dir(root, options.cache_dir, _given(CACHE_DIR_ENV)),
        cache_max_mb=cache_max_mb(options.cache_max_mb),
        today=today(day, _given(TODAY_ENV)),
        images=images_wanted(options.images),
        incremental=incremental(options.incremental),
    )


def checked(options: GuideConfig, root: Path) -> Settings:
    """`settings` for a build, read before MkDocs writes anything: a misplaced cache or a bad date
    stops the build in one line."""
    try:
        return settings(options, root)
    except (CacheDirError, ValueError) as e:
        raise Abort(str(e)) from None


def _given(name: str) -> tuple[str, str] | None:
    value = os.environ.get(name)
    return (name, value) if value else None


def cache_max_mb(configured: int | None) -> float | None:
    """GUIDE_CACHE_MAX_MB (a number of megabytes, fractions allowed), else the `cache_max_mb` option."""
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


def images_wanted(configured: bool = True) -> bool:
    """Whether a build makes the charts' static images: GUIDE_IMAGES, else the `images` option."""
    return _switch(IMAGES_ENV, configured)


def incremental(configured: bool = True) -> bool:
    """Whether builds are incremental: GUIDE_INCREMENTAL, else the `incremental` option."""
    return _switch(INCREMENTAL_ENV, configured)


def _switch(name: str, configured: bool) -> bool:
    return switch(name, os.environ.get(name), configured)
