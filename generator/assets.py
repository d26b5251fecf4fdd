"""Static assets the site ships that come from packages rather than from docs/.

The Vega runtime comes from vl-convert, which carries it inside the Python wheel: the site serves
it itself, so a reader behind a firewall still sees every chart. Charts are compiled from
Vega-Lite to Vega at build time, so the browser only runs Vega, and only once a reader reaches for
a live chart. Building the bundle takes seconds, so it is cached by vl-convert version.
"""

from __future__ import annotations

import os
from pathlib import Path

import vl_convert as vlc

BUNDLE_PATH = "assets/vendor/vega.js"


def cache_dir(root: Path) -> Path:
    """Where builds keep what is slow to make. GUIDE_CACHE_DIR moves it (tests share one across
    their temporary copies); it is never inside docs/, scenarios/ or data/."""
    return Path(os.environ.get("GUIDE_CACHE_DIR") or root / ".cache")


def vega_bundle(root: Path) -> str:
    cache = cache_dir(root) / f"vega-embed-bundle-{vlc.__version__}.js"
    try:
        return cache.read_text(encoding="utf-8")
    except OSError:
        pass
    # vl-convert's bundler reaches Vega only through vega-embed (its `vega` default import is
    # null), so the bundle carries Vega-Lite too; pages hand vega-embed compiled Vega specs.
    text = vlc.javascript_bundle()
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(cache)
    except OSError:
        pass  # a read-only checkout only costs the seconds it takes to rebuild the bundle
    return text


def site_assets(root: Path) -> dict[str, str]:
    return {BUNDLE_PATH: vega_bundle(root)}
