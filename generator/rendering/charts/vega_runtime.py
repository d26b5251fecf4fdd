"""Static assets the site ships that come from packages rather than from docs/.

The chart runtime comes from vl-convert, which carries Vega's sources inside the Python wheel: the
site serves it itself, so a reader behind a firewall still sees every chart. Charts are compiled
from Vega-Lite to Vega at build time, so the browser needs neither Vega-Lite nor Vega-Embed; the
bundle holds only the Vega packages that parse and draw a compiled spec, and vega-tooltip.
Building it takes a second or two, so it is cached by the recipe, the code and the library versions
(vl-convert's among them, `Cache.names`).
"""

from __future__ import annotations

import logging

import vl_convert as vlc

from generator.rendering.charts.js_engine import IN_PROCESS, JsEngine
from generator.store.cachefile import Cache

BUNDLE_PATH = "assets/vendor/vega.js"
log = logging.getLogger("mkdocs.plugins.guide")

# vl-convert resolves these module specifiers from the sources inside its wheel; nothing is fetched.
CDN = "https://cdn.jsdelivr.net/npm/"

# The packages `vega` itself imports, at the versions its module for each Vega release names
# (vl-convert embeds exactly those). Only what a compiled Vega-Lite chart needs: the view, the
# parser, the data transforms (filter, formula, stack, aggregate, ...), the mark encoders (axes,
# legends) and the layout transforms. Left out, with their d3 dependencies: geo, force, hierarchy,
# label, regression, voronoi, wordcloud, crossfilter. A chart that needs one fails to parse
# ("Unrecognized transform type"), and tests/test_browser.py parses every chart the site builds.
PACKAGES = {
    "6.2.0": {
        "vega-util": "2.1.0",
        "vega-dataflow": "6.1.0",
        "vega-transforms": "5.1.0",
        "vega-view-transforms": "5.1.0",
        "vega-encode": "5.1.0",
        "vega-view": "6.1.0",
        "vega-parser": "7.1.0",
        "vega-tooltip": "1.0.0",
    },
}


def slim_snippet(vega_version: str, versions: dict[str, str]) -> str:
    """The bundle's entry module: window.vega with what charts.js uses."""
    url = {name: f"{CDN}{name}@{v}/+esm" for name, v in versions.items()}
    return f"""import {{extend}} from "{url['vega-util']}";
import {{transforms}} from "{url['vega-dataflow']}";
import * as tx from "{url['vega-transforms']}";
import * as vtx from "{url['vega-view-transforms']}";
import * as encode from "{url['vega-encode']}";
import {{View}} from "{url['vega-view']}";
import {{parse}} from "{url['vega-parser']}";
import {{Handler}} from "{url['vega-tooltip']}";
extend(transforms, tx, vtx, encode);
window.vega = {{View, parse, transforms, version: "{vega_version}", Tooltip: Handler}};
"""


def full_snippet(vega_version: str) -> str:
    """All of Vega, for a vl-convert whose Vega release PACKAGES does not know yet (no tooltips
    beyond the browser's own)."""
    return f'import * as V from "{CDN}vega@{vega_version}/+esm";\nwindow.vega = V;\n'


def vega_bundle(cache: Cache, engine: JsEngine = IN_PROCESS) -> str:
    vega_version = vlc.get_vega_version()
    versions = PACKAGES.get(vega_version)
    if versions:
        snippet = slim_snippet(vega_version, versions)
    else:
        log.warning("guide: no slim Vega runtime recipe for Vega %s (vl-convert %s): shipping all of Vega. "
                    "Add its package versions to PACKAGES in generator/rendering/charts/vega_runtime.py.", vega_version, vlc.__version__)
        snippet = full_snippet(vega_version)
    key = cache.names("assets").digest({"snippet": snippet})[:16]
    path = cache.folder("assets") / f"vega-runtime-{vega_version}-{key}.js"
    body = cache.read_checked(path)  # a truncated runtime would break every live chart
    if body is not None:
        return body.decode("utf-8")
    text = engine.javascript_bundle(snippet)
    cache.store(path, text)  # a read-only cache only costs the seconds it takes to bundle it again
    return text


def site_assets(cache: Cache, engine: JsEngine = IN_PROCESS) -> dict[str, str]:
    return {BUNDLE_PATH: vega_bundle(cache, engine)}
