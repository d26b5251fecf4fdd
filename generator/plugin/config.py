"""The plugin's options, as `mkdocs.yml` sets them under `plugins: - guide:`.

Each has an environment variable that overrides it, for a one-off build or a test that must not edit
mkdocs.yml (`GUIDE_CACHE_DIR`, `GUIDE_CACHE_MAX_MB`, `GUIDE_TODAY`).
"""

from __future__ import annotations

import datetime as dt

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
