"""What the commands (`guide validate`, `guide generate`, `guide cache prune`, `guide mcp`) need of
mkdocs.yml without MkDocs: the site URL and name and the guide plugin's options as written, which
`inputs/options.py`, the plugin's reader too, turns into what a build would use (`settings`), each
`GUIDE_*` variable in place of its option. `today` and `cache_dir` are that module's, for a command
that needs one option alone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from generator.inputs import options
from generator.inputs.options import Settings, cache_dir, today

__all__ = ["SiteConfig", "Settings", "cache_dir", "read", "settings", "today"]


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
    images: bool = True
    incremental: bool = True

    @property
    def written(self) -> options.Written:
        """The plugin's options as mkdocs.yml writes them."""
        return options.Written(self.cache_dir, self.cache_max_mb, self.today, self.images, self.incremental)


def read(root: Path) -> SiteConfig:
    """mkdocs.yml's site URL (ending in "/", as MkDocs reads it), its site name and the options under `plugins: -
    guide:`; defaults where the file or an option is missing, unreadable or not of its type (a build
    stops on the last)."""
    try:
        doc = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, yaml.YAMLError):
        return SiteConfig()
    if not isinstance(doc, dict):
        return SiteConfig()
    url = doc.get("site_url") or ""
    url = url if not isinstance(url, str) or not url or url.endswith("/") else url + "/"
    written: dict = {}
    for item in doc.get("plugins") or ():
        if isinstance(item, dict) and isinstance(item.get("guide"), dict):
            written = item["guide"]
    return SiteConfig(
        site_url=url if isinstance(url, str) else "",
        site_name=_text(doc.get("site_name")) or "",
        cache_dir=_text(written.get("cache_dir")),
        cache_max_mb=_typed(written, "cache_max_mb", int, None),
        today=_text(written.get("today")),
        images=_typed(written, "images", bool, True),
        incremental=_typed(written, "incremental", bool, True),
    )


def settings(root: Path, config: SiteConfig | None = None) -> Settings:
    """The plugin's options as a build with this mkdocs.yml (config: as `read` found it) would use
    them. Raises CacheDirError and ValueError."""
    return options.settings(root, (config or read(root)).written)


def _typed(written: dict, name: str, kind: type, default):
    value = written.get(name)
    # bool is an int to Python, not to the plugin's options.
    return value if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)) else default


def _text(value) -> str | None:
    return None if value is None else str(value)
