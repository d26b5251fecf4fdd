"""The plugin's options, as `mkdocs.yml` sets them under `plugins: - guide:`.

Each has an environment variable that overrides it, for a one-off build or a test that must not edit
mkdocs.yml (`GUIDE_CACHE_DIR`, `GUIDE_CACHE_MAX_MB`, `GUIDE_TODAY`, `GUIDE_IMAGES`, `GUIDE_INCREMENTAL`).
"""

from __future__ import annotations

import datetime as dt
import os

from mkdocs.config import base
from mkdocs.config import config_options as c


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


INCREMENTAL_ENV = "GUIDE_INCREMENTAL"  # 0 (or false, no, off) turns the incremental build off for one build
_ON, _OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def incremental(configured: bool = True) -> bool:
    """Whether the build is incremental: GUIDE_INCREMENTAL, else the `incremental` option. Raises
    ValueError for a GUIDE_INCREMENTAL that says neither."""
    value = os.environ.get(INCREMENTAL_ENV, "").strip().lower()
    if not value:
        return configured
    if value in _ON + _OFF:
        return value in _ON
    raise ValueError(f"{INCREMENTAL_ENV} must be 1 or 0 (got {value!r})")
