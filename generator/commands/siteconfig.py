"""What the commands (`guide validate`, `guide cache prune`) need of mkdocs.yml without MkDocs: the site
URL and name and the guide plugin's options, so a command judges prices on the day and uses the cache a build
would. As for a build (`plugin/config.py`), GUIDE_TODAY and GUIDE_CACHE_DIR override the options; they are
read here for the commands (and GUIDE_IMAGES for `guide generate`), and handed on as values."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from generator.inputs import freshness
from generator.inputs.switches import switch
from generator.store import cachefile

TODAY_ENV = "GUIDE_TODAY"
CACHE_DIR_ENV = "GUIDE_CACHE_DIR"
IMAGES_ENV = "GUIDE_IMAGES"


class _Loader(yaml.SafeLoader):
    """mkdocs.yml may carry tags only MkDocs resolves (`!!python/name:`, `!ENV`); none of them is
    an option read here."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


@dataclass(frozen=True)
class SiteConfig:
    site_url: str = ""
    cache_dir: str | None = None
    cache_max_mb: int | None = None
    today: str | None = None
    site_name: str = ""


def read(root: Path) -> SiteConfig:
    """mkdocs.yml's site URL (ending in "/", as MkDocs reads it), its site name and the options under `plugins: -
    guide:`; defaults where the file or an option is missing or unreadable."""
    try:
        doc = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, yaml.YAMLError):
        return SiteConfig()
    if not isinstance(doc, dict):
        return SiteConfig()
    url = doc.get("site_url") or ""
    url = url if not isinstance(url, str) or not url or url.endswith("/") else url + "/"
    options: dict = {}
    for item in doc.get("plugins") or ():
        if isinstance(item, dict) and isinstance(item.get("guide"), dict):
            options = item["guide"]
    return SiteConfig(
        site_url=url if isinstance(url, str) else "",
        site_name=_text(doc.get("site_name")) or "",
        cache_dir=_text(options.get("cache_dir")),
        cache_max_mb=options.get("cache_max_mb") if isinstance(options.get("cache_max_mb"), int) else None,
        today=_text(options.get("today")),
    )


def today(configured: str | None = None) -> dt.date:
    """The day prices are judged against: GUIDE_TODAY, else configured (the `today` option), else
    the calendar's. Raises ValueError for one that is not a date."""
    return freshness.today(configured, _given(TODAY_ENV))


def cache_dir(root: Path, configured: str | None = None) -> Path:
    """The build cache a build would use: GUIDE_CACHE_DIR, else configured (the `cache_dir` option),
    else .cache/. Raises CacheDirError."""
    return cachefile.cache_dir(root, configured, _given(CACHE_DIR_ENV))


def images(configured: bool = True) -> bool:
    """Whether charts get their static images: GUIDE_IMAGES, else configured. Raises ValueError for
    a GUIDE_IMAGES that says neither on nor off."""
    return switch(IMAGES_ENV, os.environ.get(IMAGES_ENV), configured)


def _given(name: str) -> tuple[str, str] | None:
    value = os.environ.get(name)
    return (name, value) if value else None


def _text(value) -> str | None:
    return None if value is None else str(value)
