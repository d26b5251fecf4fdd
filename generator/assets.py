"""Static assets the site ships that come from packages rather than from docs/.

The Vega, Vega-Lite and Vega-Embed bundle comes from vl-convert, which carries it inside the
Python wheel: the site serves it itself, so a reader behind a firewall still sees every chart.
Building the bundle takes seconds, so it is cached under .cache/ by vl-convert version.
"""

from __future__ import annotations

import os
from pathlib import Path

import vl_convert as vlc

# The newest Vega-Lite vl-convert carries: its output targets the Vega in the same bundle, so
# the browser compiles specs without a version warning. Altair 5 specs are valid Vega-Lite 6.
VEGA_LITE_VERSION = vlc.get_vegalite_versions()[-1]
BUNDLE_PATH = "assets/vendor/vega-bundle.js"


def cache_dir(root: Path) -> Path:
    """Where builds keep what is slow to make. GUIDE_CACHE_DIR moves it (tests share one across
    their temporary copies); it is never inside docs/, scenarios/ or data/."""
    return Path(os.environ.get("GUIDE_CACHE_DIR") or root / ".cache")


def vega_bundle(root: Path) -> str:
    cache = cache_dir(root) / f"vega-bundle-{vlc.__version__}-{VEGA_LITE_VERSION}.js"
    try:
        return cache.read_text(encoding="utf-8")
    except OSError:
        pass
    text = vlc.javascript_bundle(vl_version=VEGA_LITE_VERSION)
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
