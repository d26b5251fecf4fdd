"""axe-core (bundled with axe-playwright-python) on every page type, on a phone and a wide screen, light
and dark: no serious or critical violation, a main landmark and an h1 on every page. And the text
drawn in charts, live and in the static images, at least 4.5:1 against what it is drawn on."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from site_support import BuiltSite

PAGES = {
    "home": "",
    "scenario": "scenarios/case-series-a-startup/",  # two workloads, wide tables
    "scenarios index": "scenarios/",
    "calculator": "calculator/",
    "prices": "prices/",
    "changes": "changes/",
    "sources": "sources/",
    "methodology": "methodology/",  # formulas
    "axis": "axes/porting/",
    "glossary": "glossary/",  # links in definition lists
    "contributing": "contributing/",  # highlighted code
    "schema reference": "reference/schema/",
    "embed gallery": "embed/",
    "embed page": "embed/one-off-run-1-cumulative/",
}
CHARTS = ".guide-chart__view, #chart"


def _draw_every_chart(page) -> None:
    """Scroll to each chart as a reader would; on a phone each is then drawn live."""
    page.wait_for_function("() => !document.getElementById('guide-calc') || document.querySelector('#guide-calc[data-ready]')")
    # Scrolling fades the header's page title in, a moment after the scroll: axe reads colours as they
    # are, and mid-fade they would be neither the page's nor the title's. Without transitions every
    # colour is one a reader sees once the page is still.
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
    views = page.locator(CHARTS)
    for i in range(views.count()):
        view = views.nth(i)
        if view.is_visible():
            view.scroll_into_view_if_needed()
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_or_critical_violations(scheme: str, width: int, browser, served_site: str):
    axe = Axe()
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 844})
    try:
        found = {}
        for name, url in PAGES.items():
            page = context.new_page()
            # "load", not "networkidle": what a page imports after it has loaded, the calculator's
            # modules, _draw_every_chart waits for (data-ready); networkidle would add its half
            # second of quiet to each of the 56 pages.
            page.goto(served_site + url, wait_until="load")
            _draw_every_chart(page)
            if name == "calculator":
                page.wait_for_selector("#calc-chart[data-drawn] svg")
            result = axe.run(page)
            bad = [
                (v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
                for v in result.response["violations"]
                # A main landmark and one h1 are only "moderate" to axe; every page has them here.
                if v["impact"] in ("serious", "critical") or v["id"] in ("landmark-one-main", "page-has-heading-one")
            ]
            if bad:
                found[name] = bad
            page.close()
        assert not found, found
    finally:
        context.close()


def _contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two CSS colours given as rgb(...) or #rrggbb / #rgb."""
    def channels(c: str) -> list[float]:
        c = c.strip()
        if c.startswith("#"):
            h = c[1:] if len(c) == 7 else "".join(ch * 2 for ch in c[1:4])
            return [int(h[i:i + 2], 16) for i in (0, 2, 4)]
        return [float(x) for x in re.findall(r"[\d.]+", c)[:3]]

    def luminance(c: str) -> float:
        lin = [(x / 255) / 12.92 if x / 255 <= 0.03928 else ((x / 255 + 0.055) / 1.055) ** 2.4 for x in channels(c)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_is_measured_as_wcag_does():
    assert round(_contrast("#888", "#fff"), 2) == 3.54
    assert round(_contrast("rgb(0, 0, 0)", "#ffffff"), 1) == 21.0


# Each text of an SVG document with the fill the browser paints it in (its own stylesheet applied),
# and the fill of the background rectangle Vega draws first. Labels Vega hid (opacity 0, where they
# would overlap) are not drawn, so not measured.
SVG_TEXTS = """() => {
  const root = document.documentElement;
  const background = root.querySelector('rect');
  return {
    background: background ? getComputedStyle(background).fill : null,
    texts: [...root.querySelectorAll('text')].filter(t => t.textContent.trim() && getComputedStyle(t).opacity !== '0')
      .map(t => ({text: t.textContent.slice(0, 40), fill: getComputedStyle(t).fill, opacity: getComputedStyle(t).opacity})),
  };
}"""


def test_the_text_of_every_chart_image_stands_out_from_its_background(browser, served_site: str, built_site: BuiltSite):
    folders = sorted(p for p in (built_site.site / "embed").iterdir() if p.is_dir())
    assert len(folders) > 10
    page = browser.new_page()
    low = []
    try:
        for folder in folders:
            for svg in (f"{folder.name}.svg", f"{folder.name}-dark.svg"):
                page.goto(f"{served_site}embed/{folder.name}/{svg}")
                drawn = page.evaluate(SVG_TEXTS)
                assert drawn["background"] and drawn["texts"], svg
                low += [(svg, t["text"], t["fill"], round(_contrast(t["fill"], drawn["background"]), 2))
                        for t in drawn["texts"] if _contrast(t["fill"], drawn["background"]) < 4.5 or t["opacity"] != "1"]
    finally:
        page.close()
    assert low == []


# Each text of every live chart on the page (but those Vega hid), with its fill, and the page's own
# background colour (live charts are drawn on a transparent background).
LIVE_TEXTS = """() => ({
  background: getComputedStyle(document.body).backgroundColor,
  texts: [...document.querySelectorAll('.guide-chart__view svg text, #calc-chart svg text')]
    .filter(t => t.textContent.trim() && getComputedStyle(t).opacity !== '0')
    .map(t => ({text: t.textContent.slice(0, 40), fill: getComputedStyle(t).fill, opacity: getComputedStyle(t).opacity})),
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_text_of_every_live_chart_stands_out_from_the_page(scheme: str, browser, served_site: str):
    context = browser.new_context(color_scheme=scheme, viewport={"width": 390, "height": 844})
    low, measured = [], 0
    try:
        for url in ("scenarios/one-off-run/", "", "calculator/", "prices/"):
            page = context.new_page()
            page.goto(served_site + url, wait_until="networkidle")
            _draw_every_chart(page)
            # A scenario's chart keeps its narrow image on a phone: its text is the static images'
            # (images.DARK_CSS in dark), not a live chart's.
            page.wait_for_function("() => [...document.querySelectorAll('.guide-chart__view, #calc-chart')]"
                                   ".filter(e => e.getClientRects().length && !e.querySelector('picture'))"
                                   ".every(e => e.dataset.drawn === 'true')")
            drawn = page.evaluate(LIVE_TEXTS)
            measured += len(drawn["texts"])
            low += [(url, t["text"], t["fill"], drawn["background"], round(_contrast(t["fill"], drawn["background"]), 2))
                    for t in drawn["texts"] if _contrast(t["fill"], drawn["background"]) < 4.5 or t["opacity"] != "1"]
            page.close()
    finally:
        context.close()
    assert measured > 50
    assert low == []


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_formulas_and_code_that_scroll_are_reachable_by_keyboard_before_any_script_runs(scheme: str, width: int, browser, served_site: str):
    """axe on the pages with formulas and code, read as the HTML arrives (the site's scripts refused,
    as on a slow phone before they run): a block that scrolls sideways takes keyboard focus without
    waiting for guide.js or Material to give it."""
    axe = Axe()
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 844})
    context.route(lambda url: url.endswith((".js", ".mjs")), lambda route: route.abort())
    try:
        found = {}
        # The pages with formulas and code blocks. (Before scripts run, a table wider than the screen
        # is still Material's own scroll box, focusable once Material wraps it; not asked of here.)
        for url in ("methodology/", "contributing/"):
            page = context.new_page()
            page.goto(served_site + url, wait_until="load")
            scrolling = page.eval_on_selector_all(".guide-math, pre > code", "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).length")
            result = axe.run(page)
            bad = [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in result.response["violations"] if v["id"] == "scrollable-region-focusable"]
            if bad:
                found[url] = (scrolling, bad)
            page.close()
        assert not found, found
    finally:
        context.close()
