"""The plugin's typed options (`cache_dir`, `cache_max_mb`, `today`, `images`, `incremental`), as `mkdocs.yml`
sets them under `plugins: - guide:`, declared to MkDocs (`GuideConfig`). What each comes to, with its `GUIDE_*`
variable in its place, is worked out in `inputs/options.py` (`settings`), the one reader the plugin shares with
the commands, and the layers below are handed the values; `checked` stops a build on a bad one in one line,
before MkDocs writes anything. `images: false` (`GUIDE_IMAGES=0`), for a quicker preview, makes no chart image
or card, and then nothing names one: chart blocks and embed pages draw the live chart, snippets offer no image,
pages no `og:image`, oEmbed files no thumbnail. `incremental: false` (`GUIDE_INCREMENTAL=0`) leaves the
incremental build out: MkDocs builds every page itself, and the site is the same (`tests/test_incremental.py`)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import Abort

from generator.inputs import options
from generator.inputs.options import Settings
from generator.store.cachefile import CacheDirError


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


def settings(config: GuideConfig, root: Path) -> Settings:
    """The options as a build uses them (`options.settings`). Raises CacheDirError and ValueError."""
    return options.settings(root, options.Written(config.cache_dir, config.cache_max_mb, config.today, config.images,
                                                  config.incremental))


def checked(config: GuideConfig, root: Path) -> Settings:
    """`settings` for a build, read before MkDocs writes anything: a misplaced cache or a bad date
    stops the build in one line."""
    try:
        return settings(config, root)
    except (CacheDirError, ValueError) as e:
        raise Abort(str(e)) from None
