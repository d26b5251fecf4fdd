"""The built site in headless Chromium (Debian's), driven by Playwright.

Charts draw marks, follow the dark palette, come back after instant navigation; no page logs an
error or asks anything of a host other than 127.0.0.1. Screenshots of each page type in light and
dark go to $GUIDE_SCREENSHOTS (or the test's tmp folder) for a person to look at. How pages lay out
on a phone and a wide screen is test_layout.py's.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urljoin

import pytest
from browser_support import PAGES, TIMEOUT_MS, expected_charts
from site_support import PAYLOADS, UNTRUSTED_ID, BuiltSite

@pytest.mark.parametrize("name", ["home", "scenario", "prices"])
def test_charts_draw_and_follow_dark_mode(name: str, open_tab, served_site: str, built_site: BuiltSite):
    url = PAGES[name]
    count = expected_charts(built_site.site, url)
    assert count >= 1, f"the {name} page has no chart"
    tab = open_tab(served_site)
    tab.goto(url)
    assert tab.scheme() == "default"
    light = tab.charts_drawn("light", expect=count)

    tab.toggle_to("slate")
    dark = tab.charts_drawn("dark", expect=count)
    for before, after in zip(light, dark):
        assert after["id"] == before["id"]
        assert after["textFills"] != before["textFills"], f"{after['id']}: the chart's text did not change colour"
    tab.recorder.assert_clean()


STATIC_STATE = """() => [...document.querySelectorAll('.guide-chart__view')].map(v => {
  const shown = [...v.querySelectorAll('img.guide-chart__static')].filter(i => getComputedStyle(i).display !== 'none');
  return { id: v.dataset.chart, shown: shown.map(i => i.getAttribute('src')), loaded: shown.every(i => i.complete && i.naturalWidth > 0) };
})"""


@pytest.mark.parametrize("name", ["home", "scenario"])
def test_charts_paint_as_static_images_before_any_script_runtime(name: str, open_tab, served_site: str, built_site: BuiltSite):
    tab = open_tab(served_site)
    requested: list[str] = []
    tab.page.on("request", lambda r: requested.append(r.url))
    tab.goto(PAGES[name])
    # Images load lazily as the reader scrolls to them.
    views = tab.page.locator(".guide-chart__view")
    for i in range(views.count()):
        views.nth(i).scroll_into_view_if_needed()
    tab.page.wait_for_function("() => [...document.images].filter(i => getComputedStyle(i).display !== 'none').every(i => i.complete)")
    state = tab.page.evaluate(STATIC_STATE)
    assert len(state) == expected_charts(built_site.site, PAGES[name])
    for c in state:
        assert len(c["shown"]) == 1 and c["shown"][0].endswith(f"/{c['id']}.svg") and c["loaded"], c
    # The runtime is not part of the first paint.
    assert not [u for u in requested if u.endswith("/assets/vendor/vega.js")]
    assert tab.page.evaluate("() => typeof window.vega") == "undefined"
    # The dark images take over with the palette, still without the runtime.
    tab.toggle_to("slate")
    for c in tab.page.evaluate(STATIC_STATE):
        assert len(c["shown"]) == 1 and c["shown"][0].endswith(f"/{c['id']}-dark.svg"), c
    tab.page.locator(".guide-chart__view").first.scroll_into_view_if_needed()
    tab.page.wait_for_function("() => { const i = document.querySelector('img.guide-chart__static--dark'); return i.complete && i.naturalWidth > 0; }")
    assert tab.page.evaluate("() => typeof window.vega") == "undefined"
    tab.recorder.assert_clean()


PARSE_ALL = """async (urls) => {
  await window.GuideCharts.loadRuntime();
  const out = { specs: 0, failed: [], vegaLite: typeof window.vegaLite, vegaEmbed: typeof window.vegaEmbed };
  for (const url of urls) {
    const doc = new DOMParser().parseFromString(await (await fetch(url)).text(), "text/html");
    for (const t of doc.querySelectorAll("template.guide-chart__spec, template#spec, template#guide-calc-data")) {
      let spec = JSON.parse(t.content.textContent);
      if (t.id === "guide-calc-data") spec = spec.chart;
      out.specs += 1;
      try {
        const view = new vega.View(vega.parse(spec), { renderer: "none" });
        await view.runAsync();
        view.finalize();
      } catch (err) {
        out.failed.push(url + " " + (t.dataset.chart || t.id) + ": " + err);
      }
    }
  }
  return out;
}"""


def test_the_runtime_is_vega_alone_and_runs_every_chart_the_site_builds(open_tab, served_site: str, built_site: BuiltSite):
    """The slim runtime leaves out Vega-Lite, Vega-Embed and the Vega packages no chart uses; a chart
    that needs one of those (an unknown transform, say) must fail here rather than on a reader's page."""
    pages = sorted(
        p.relative_to(built_site.site).parent.as_posix() + "/"
        for p in built_site.site.rglob("index.html")
        if any(m in p.read_text(encoding="utf-8") for m in ('class="guide-chart__spec"', 'id="spec"', 'id="guide-calc-data"'))
    )
    tab = open_tab(served_site)
    tab.goto(PAGES["home"])
    found = tab.page.evaluate(PARSE_ALL, [served_site + ("" if p == "./" else p) for p in pages])
    assert found["vegaLite"] == found["vegaEmbed"] == "undefined"
    assert found["specs"] >= len(pages) > 10
    assert not found["failed"], found["failed"]
    tab.recorder.assert_clean()


TOOLTIP = "() => { const t = document.getElementById('vg-tooltip-element'); return t && t.classList.contains('visible') ? { cls: t.className, text: t.innerText } : null; }"


# Points on the chart's data marks, in page coordinates: the middle of each bar or point, and both
# ends of each line (Vega shows a line's tooltip only within a stroke's width of one of its data
# points, and a straight stretch of the cost line holds data points at its ends alone).
MARK_POINTS = """el => {
  const at = (p, len) => { const q = p.getPointAtLength(len), m = p.getScreenCTM(); return [q.x * m.a + q.y * m.c + m.e, q.x * m.b + q.y * m.d + m.f]; };
  return [...el.querySelectorAll('svg g.mark-line path, svg g.mark-rect path, svg g.mark-symbol path')].flatMap(p =>
    p.closest('g.mark-line') ? [at(p, 0), at(p, p.getTotalLength())] : [at(p, p.getTotalLength() / 2)]);
}"""


def point_for_tooltip(page, chart) -> dict | None:
    """Point at the chart's data marks in turn until a tooltip shows; what it shows."""
    for x, y in chart.evaluate(MARK_POINTS):
        page.mouse.move(x - 3, y - 3)
        page.mouse.move(x, y, steps=3)
        shown = page.evaluate(TOOLTIP)
        if shown:
            return shown
    return None


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_live_charts_show_tooltips_in_the_readers_theme(scheme: str, open_tab, served_site: str):
    tab = open_tab(served_site, color_scheme=scheme)
    tab.goto(PAGES["scenario"])
    chart = tab.page.locator('.guide-chart__view[data-chart$="-cumulative"]').first
    chart.scroll_into_view_if_needed()
    chart.hover()
    chart.locator("svg").wait_for()
    assert chart.get_attribute("data-drawn") == "true"
    shown = point_for_tooltip(tab.page, chart)
    assert shown, "no tooltip anywhere on the chart"
    assert f"{scheme}-theme" in shown["cls"].split()
    assert "cost" in shown["text"] and "$" in shown["text"], shown
    tab.recorder.assert_clean()


# Resolves once the page has neither scrolled nor been resized for 300 ms.
STILL = """() => new Promise((done) => {
  let timer;
  const moved = () => { clearTimeout(timer); timer = setTimeout(still, 300); };
  const still = () => { removeEventListener("scroll", moved); removeEventListener("resize", moved); done(true); };
  addEventListener("scroll", moved, { passive: true });
  addEventListener("resize", moved);
  moved();
})"""


def test_instant_navigation_keeps_the_page_and_redraws_charts(open_tab, served_site: str, built_site: BuiltSite):
    tab = open_tab(served_site)
    page = tab.page
    # Material takes over links only once it has read sitemap.xml: a click before is a plain visit.
    with page.expect_response(lambda r: r.url == served_site + "sitemap.xml"):
        tab.goto(PAGES["home"])
    tab.charts_drawn("light")
    page.evaluate("() => { window.__guideMarker = 'still here'; }")

    def swapped(action) -> None:
        """Run action, then wait until instant navigation has put a new article in place."""
        page.evaluate("() => { window.__guideOld = document.querySelector('article.md-content__inner'); }")
        action()
        page.wait_for_function(
            "() => { const a = document.querySelector('article.md-content__inner'); return a && a !== window.__guideOld; }",
            timeout=TIMEOUT_MS,
        )
        assert page.evaluate("() => window.__guideMarker") == "still here", "the page fully reloaded"

    def follow(link) -> None:
        target = urljoin(page.url, link.get_attribute("href"))
        # A reader stops scrolling before clicking. Material's navigation.tracking writes the anchor
        # of the section in view into the address 250 ms after the page last scrolled, and a swap
        # within those 250 ms writes the old page's anchor onto the new page's address (which
        # guide.js then takes off: test_the_address_keeps_no_anchor_the_page_lacks).
        page.evaluate(STILL)
        swapped(link.click)
        assert page.url == target

    nav = page.locator("nav.md-nav--primary")
    follow(nav.locator('a.md-nav__link[href$="prices/"]').first)
    tab.charts_drawn("light", expect=expected_charts(built_site.site, PAGES["prices"]))
    assert page.locator("h1").first.inner_text().startswith("Prices and hardware")

    # Charts on the next page are drawn in the scheme the reader chose on this one.
    tab.toggle_to("slate")
    tab.charts_drawn("dark")
    follow(nav.locator('a.md-nav__link[href$="scenarios/"]').first)
    page.wait_for_selector('tr[data-scenario="one-off-run"] a')
    follow(page.locator('tr[data-scenario="one-off-run"] a'))
    tab.charts_drawn("dark", expect=expected_charts(built_site.site, PAGES["scenario"]))
    assert tab.scheme() == "slate"

    # And back through history: still the same document, charts drawn again.
    swapped(page.go_back)
    assert page.url == served_site + PAGES["scenarios-index"]
    swapped(page.go_back)
    # Without its fragment: pointing at the chart scrolled the page into a section, and Material's
    # navigation.tracking may have written that section's anchor into this history entry.
    assert page.url.split("#")[0] == served_site + PAGES["prices"]
    tab.charts_drawn("dark", expect=expected_charts(built_site.site, PAGES["prices"]))
    assert page.evaluate("() => window.__guideMarker") == "still here"
    tab.recorder.assert_clean()


def test_the_address_keeps_no_anchor_the_page_lacks(open_tab, served_site: str):
    tab = open_tab(served_site)
    page = tab.page
    # Followed at once after the page scrolled to its charts: Material then writes the home page's
    # section into the new page's address (see STILL).
    page.goto(served_site, wait_until="networkidle")
    tab.charts_drawn("light")
    page.evaluate("() => { window.__guideMarker = 'still here'; window.__guideOld = document.querySelector('article.md-content__inner'); }")
    # Material writes the new address before the new page has answered, and swaps its article in
    # once it has: until then the home page's article, its headings and its drawn charts, is in place.
    # A slow answer (as on a phone's network) holds that state open for the whole of its wait.
    network = page.context.new_cdp_session(page)
    network.send("Network.enable")
    network.send("Network.emulateNetworkConditions", {"offline": False, "latency": 600, "downloadThroughput": -1, "uploadThroughput": -1})
    page.locator('nav.md-nav--primary a.md-nav__link[href$="prices/"]').first.click()
    page.wait_for_function("""() => { const a = document.querySelector('article.md-content__inner');
      return location.pathname.endsWith('/prices/') && a && a !== window.__guideOld && a.querySelector('.guide-chart__view[data-ready]'); }""")
    network.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    page.evaluate("() => new Promise((done) => setTimeout(done))")  # the task after the swap, where guide.js looks again
    assert page.evaluate("() => window.__guideMarker") == "still here", "the page fully reloaded"
    assert page.url == served_site + PAGES["prices"]
    # On a page loaded afresh from a link made elsewhere, an anchor the page lacks is dropped and one
    # it has is kept. Read once the page is still: Material's tracking writes the section in view
    # 250 ms after the last scroll, and the jump to the anchor is one.
    kept = page.evaluate("() => document.querySelector('.md-content h2[id]').id")
    tab.goto(PAGES["scenarios-index"] + "#no-such-section")
    page.wait_for_function("() => location.hash === ''")
    assert page.url == served_site + PAGES["scenarios-index"]
    tab.goto(f"{PAGES['prices']}#{kept}")
    page.evaluate(STILL)
    assert page.url == served_site + PAGES["prices"] + "#" + kept
    tab.recorder.assert_clean()


def test_sortable_index_table(open_tab, served_site: str, project):
    tab = open_tab(served_site)
    tab.goto(PAGES["scenarios-index"])
    page = tab.page
    page.wait_for_selector('table[data-sort-ready="true"] button.guide-sort')
    page.locator("table[data-sortable] thead th", has_text="Saving per run").locator("button").click()
    shown = page.eval_on_selector_all("table[data-sortable] tbody tr", "rows => rows.map(r => r.dataset.scenario)")
    assert shown == [r.id for r in sorted(project.results, key=lambda r: r.saving_per_run)]
    tab.recorder.assert_clean()


def screenshot_dir(tmp_path: Path) -> Path:
    folder = Path(os.environ["GUIDE_SCREENSHOTS"]) if os.environ.get("GUIDE_SCREENSHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots(scheme: str, open_tab, served_site: str, tmp_path: Path):
    # The reader's system preference picks the palette (the first palette follows it).
    folder = screenshot_dir(tmp_path)
    tab = open_tab(served_site, color_scheme=scheme)
    for name, url in PAGES.items():
        tab.goto(url)
        assert tab.scheme() == ("slate" if scheme == "dark" else "default")
        if tab.page.locator(".guide-chart__view").count():
            tab.charts_drawn(scheme)
        path = folder / f"{name}-{scheme}.png"
        tab.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
    tab.recorder.assert_clean()


def test_untrusted_text_stays_inert_in_the_browser(open_tab, serve, untrusted_site: BuiltSite):
    tab = open_tab(serve(untrusted_site.site))
    page = tab.page
    tab.goto(f"scenarios/{UNTRUSTED_ID}/")
    charts = tab.charts_drawn("light", expect=expected_charts(untrusted_site.site, f"scenarios/{UNTRUSTED_ID}/"))
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    assert page.locator('img[src="x"]').count() == 0
    # The scenario's title is drawn as text in the chart titles, not run.
    assert any(PAYLOADS["script"] in c["text"] for c in charts), [c["text"][:300] for c in charts]
    assert PAYLOADS["script"] in page.locator("h1").first.inner_text()

    # Search shows the hostile title as text too.
    page.locator("input.md-search__input").click()
    page.keyboard.type("Hostile")
    result = page.locator(".md-search-result__item").first
    result.wait_for(timeout=TIMEOUT_MS)
    assert "window.__pwned=1" in result.inner_text()
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    assert page.locator('img[src="x"]').count() == 0

    # Redrawing (dark mode) does not bring a payload to life either.
    page.keyboard.press("Escape")
    tab.toggle_to("slate")
    tab.charts_drawn("dark")
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    tab.recorder.assert_clean()


# --- a phone ------------------------------------------------------------------------------------
