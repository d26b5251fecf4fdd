"""How the built site's pages lay out in headless Chromium, on phones (320, 360 and 390 px) and on a
wide screen: nothing cut or wider than the screen, text and targets large enough, the answer in the
first screens, key columns in view.
"""

from __future__ import annotations

import json

import pytest
from browser_support import TIMEOUT_MS, Tab, phone
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from site_support import BuiltSite

PHONE = phone(360)
PHONE_PAGES = {
    "home": "", "scenarios-index": "scenarios/", "scenario": "scenarios/one-off-run/", "calculator": "calculator/",
    "prices": "prices/", "sources": "sources/", "methodology": "methodology/", "embed-gallery": "embed/",
    "embed-page": "embed/decision-map/", "axes": "axes/", "axis-price-performance": "axes/price-performance/",
    "axis-availability": "axes/availability/", "axis-porting": "axes/porting/", "axis-ecosystem": "axes/ecosystem/",
}
WITH_CHARTS = {"home", "scenario", "calculator", "prices", "methodology", "embed-gallery", "embed-page", "axis-porting"}
# Every chart a reader can see: live views carry data-drawn once Vega has drawn them.
CHARTS = ".guide-chart__view, #chart"
# The smallest text of every visible chart, in CSS px as drawn: live SVG text at its font size times
# the SVG's scale on screen; a static image's smallest font size in its file times the image's scale.
SMALLEST_CHART_TEXT = """async () => {
  const seen = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const out = [];
  for (const svg of document.querySelectorAll('.guide-chart__view svg, #chart svg')) {
    if (!seen(svg)) continue;
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || !seen(t)) continue;
      out.push({what: 'live ' + t.textContent.slice(0, 30), px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b)});
    }
  }
  for (const img of document.querySelectorAll('img')) {
    const src = img.currentSrc || img.src;  // a <picture>'s narrow image where it is the one on show
    if (!seen(img) || !/[.]svg$/.test(new URL(src).pathname)) continue;
    const doc = new DOMParser().parseFromString(await (await fetch(src)).text(), 'image/svg+xml');
    const root = doc.documentElement;
    const sizes = [...doc.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size'))).filter(n => n > 0);
    if (!sizes.length) continue;
    out.push({what: 'image ' + src, px: Math.min(...sizes) * img.getBoundingClientRect().width / parseFloat(root.getAttribute('width'))});
  }
  return out;
}"""


def _scroll_to_every_chart(tab: Tab, name: str) -> None:
    """Scroll to each chart: each is then drawn live, but for a scenario's chart, whose narrow image
    is on show (loaded before it is measured) where the column is wide enough for its text."""
    page = tab.page
    views = page.locator(CHARTS)
    for i in range(views.count()):
        view = views.nth(i)
        if not view.is_visible():
            continue
        view.scroll_into_view_if_needed()
        try:
            page.wait_for_function("(e) => e.dataset.drawn === 'true' || [...e.querySelectorAll('img')].some((i) =>"
                                   " i.getClientRects().length && i.complete && i.naturalWidth && /-narrow(-dark)?[.]svg$/.test(i.currentSrc)"
                                   " && e.clientWidth >= 0.9 * e.querySelector('picture source').getAttribute('width'))",
                                   arg=view.element_handle(), timeout=TIMEOUT_MS)
        except PlaywrightTimeout:
            pytest.fail(f"chart {i} of {name} was not drawn; errors: {tab.recorder.errors}")


@pytest.mark.parametrize("name", PHONE_PAGES)
def test_every_page_type_fits_a_phone_with_legible_charts(name: str, open_tab, served_site: str):
    tab = open_tab(served_site, **PHONE)
    page = tab.page
    tab.goto(PHONE_PAGES[name])
    # The calculator's answer is filled in by its module, which may arrive after the load event and
    # then pushes the chart down by a screen or more: a reader scrolls on to it, so the test waits
    # for the answer rather than scroll to where the chart was.
    page.wait_for_function("() => !document.getElementById('guide-calc') || document.querySelector('#guide-calc[data-ready]')")
    # Scroll to each chart, as a reader would (no pointer, no touch): each one is then drawn live,
    # but for a scenario's chart, whose narrow image is on show (loaded before it is measured).
    _scroll_to_every_chart(tab, name)
    width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width == [360, 360], f"{name} is {width[0]} px wide on a 360 px screen"
    texts = page.evaluate(SMALLEST_CHART_TEXT)
    assert bool(texts) == (name in WITH_CHARTS), f"chart text measured on {name}: {len(texts)}"
    small = [t for t in texts if t["px"] < 9]
    assert not small, f"chart text under 9 px on {name}: {small[:5]}"
    tab.recorder.assert_clean()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_embed_gallery_shows_images_in_the_readers_scheme(scheme: str, open_tab, served_site: str):
    tab = open_tab(served_site, color_scheme=scheme)
    tab.goto("embed/")
    # Each scenario's chart is folded under its title: opened, it shows as the others do.
    tab.page.eval_on_selector_all("details.guide-gallery__fold", "ds => ds.forEach(d => { d.open = true; })")
    sections = tab.page.locator("section.guide-gallery").count()
    shown = tab.page.eval_on_selector_all(
        "section.guide-gallery img", "imgs => imgs.filter(i => i.getClientRects().length).map(i => new URL(i.src).pathname)")
    assert sections > 0 and len(shown) == sections
    assert all(p.endswith("-dark.svg") == (scheme == "dark") for p in shown), shown
    tab.recorder.assert_clean()


def test_on_a_desktop_every_gallery_image_fits_its_column(open_tab, served_site: str):
    tab = open_tab(served_site)
    tab.goto("embed/")
    tab.page.eval_on_selector_all("details.guide-gallery__fold", "ds => ds.forEach(d => { d.open = true; })")
    boxes = tab.page.eval_on_selector_all("section.guide-gallery .guide-chart__view", """views => views.map(v => {
      const img = [...v.querySelectorAll('img')].find(i => i.getClientRects().length);
      return img.getBoundingClientRect().width <= v.clientWidth;
    })""")
    assert boxes and all(boxes), boxes
    tab.recorder.assert_clean()


VERDICT_COLUMNS = """() => [...document.querySelectorAll('table')].filter(t => t.tHead && /Verdict/.test(t.tHead.textContent)).map(t => {
  const th = [...t.tHead.querySelectorAll('th')].find(h => h.textContent === 'Verdict');
  return th.getBoundingClientRect().right - (t.closest('.md-typeset__scrollwrap') || t).getBoundingClientRect().right;
})"""


@pytest.mark.parametrize("url", ["scenarios/one-off-run/", "calculator/"])
def test_on_a_phone_the_verdict_column_of_does_the_verdict_hold_is_in_view(url: str, open_tab, served_site: str):
    tab = open_tab(served_site, **PHONE)
    tab.goto(url)
    tab.page.wait_for_function("() => !document.getElementById('guide-calc') || document.querySelector('#guide-calc[data-ready]')")
    overhang = tab.page.evaluate(VERDICT_COLUMNS)
    # Px the column reaches past its table's box: none, before the reader scrolls the table.
    assert overhang and all(px <= 0 for px in overhang), overhang
    tab.recorder.assert_clean()


# --- reading a decision on a phone --------------------------------------------------------------

NARROW = [360, 390]


# The part of an element the viewport shows, as a share of its area; and where it sits.
IN_VIEW = """(el) => {
  const r = el.getBoundingClientRect();
  const w = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0));
  const h = Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
  return {share: r.width * r.height ? (w * h) / (r.width * r.height) : 0, top: r.top, bottom: r.bottom, left: r.left, right: r.right};
}"""


def calculator_ready(tab: Tab) -> None:
    tab.goto("calculator/")
    tab.page.wait_for_selector("#guide-calc[data-ready]")


@pytest.mark.parametrize("width", NARROW)
def test_on_a_phone_the_answer_stays_in_view_while_a_field_changes(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    calculator_ready(tab)
    page = tab.page
    glance = page.locator("#calc-glance")
    for selector, value in (("#calc-runs", "3"), ("#calc-rel", "0.5"), ("#calc-weeks", "20")):
        before = glance.inner_text()
        page.locator(selector).scroll_into_view_if_needed()
        page.locator(selector).fill(value)
        # The summary follows the inputs as they change...
        page.wait_for_function("(t) => document.getElementById('calc-glance').innerText !== t", arg=before)
        # ...and is on the screen, whole, below the selector being edited.
        where = page.evaluate(IN_VIEW, glance.element_handle())
        assert where["share"] == 1, (selector, where)
        edited = page.evaluate(IN_VIEW, page.locator(selector).element_handle())
        assert edited["share"] == 1 and edited["bottom"] <= where["top"], (selector, edited, where)
    assert glance.locator("#calc-glance-verdict").inner_text() in ("Trainium", "GPU")
    assert glance.locator("#calc-glance-saving").inner_text().endswith("less over the plan, ports included.")
    assert glance.locator("#calc-glance-reason").inner_text().startswith("Decided by ")
    tab.recorder.assert_clean()


def test_on_a_wide_screen_the_answer_sits_beside_the_inputs(open_tab, served_site: str):
    tab = open_tab(served_site)
    calculator_ready(tab)
    page = tab.page
    page.locator("#calc-rel").scroll_into_view_if_needed()
    page.locator("#calc-rel").fill("0.9")
    page.wait_for_function("() => document.getElementById('calc-rel').value === '0.9'")
    form = page.locator("#guide-calc form").bounding_box()
    where = page.evaluate(IN_VIEW, page.locator("#calc-glance").element_handle())
    assert where["share"] == 1 and where["left"] >= form["x"] + form["width"], (where, form)
    tab.recorder.assert_clean()


@pytest.mark.parametrize("width", NARROW)
def test_relative_throughput_reads_as_a_guess_and_a_value_outside_its_range_is_taken(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    calculator_ready(tab)
    page = tab.page
    guess = page.locator("#calc-guess")
    assert "A guess, not a measurement." in guess.inner_text()
    flip = page.locator("#calc-guess-flip")
    assert flip.inner_text().startswith(("The verdict flips at ", "Both sides cost the same at ", "No value flips", "Where the verdict flips"))
    page.locator("#calc-rel").fill("0.5")
    page.wait_for_function("() => document.getElementById('calc-rel-low').value === '0.5'")
    assert page.locator("#calc-rel-error").inner_text() == ""
    assert page.get_attribute("#guide-calc", "data-state") == "ok"
    assert "rl=0.5" in page.url
    # An end the reader types stays as typed, and a value outside it is still an error to fix.
    page.locator("#calc-rel-high").fill("0.4")
    page.wait_for_function("() => document.getElementById('calc-rel-high').getAttribute('aria-invalid') === 'true'")
    assert page.input_value("#calc-rel") == "0.5"
    tab.recorder.assert_clean()


def test_a_conflicted_price_carries_which_end_it_is_and_the_other_ends_verdict(open_tab, served_site: str):
    tab = open_tab(served_site)
    calculator_ready(tab)
    page = tab.page
    # The reference case buys trn2.48xlarge on demand, whose sources disagree.
    mark = page.locator("#calc-prices [data-price-mark^='trainium:']")
    assert mark.count() == 1
    assert "of the sources' figures" in mark.inner_text() and " end: " in mark.inner_text()
    exact = page.locator("#calc-prices span[title]").first.get_attribute("title")
    assert exact.startswith("$") and exact.endswith("/h")
    # Named by title and date, never by a key.
    assert "VAN" not in page.inner_text("#calc-prices")
    tab.recorder.assert_clean()


# Every table cell the viewport does not show whole: the box that cuts it must say it scrolls.
CLIPPED = """() => {
  const out = [];
  for (const cell of document.querySelectorAll('.md-content td, .md-content th')) {
    if (!cell.getClientRects().length || cell.closest('details:not([open])')) continue;
    const r = cell.getBoundingClientRect();
    let box = cell.parentElement;
    while (box && box !== document.body && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
    // A header kept for screen readers only (a 1-px box) is not shown, so not cut off.
    if (box && box !== document.body && box.getBoundingClientRect().width <= 1) continue;
    const edge = box && box !== document.body ? box.getBoundingClientRect().right : document.documentElement.clientWidth;
    if (r.right <= edge + 1) continue;
    const sign = box && box.closest('[data-scrolls]');
    const said = !!sign && getComputedStyle(sign, '::before').content !== 'none';
    if (!said) out.push({text: cell.textContent.trim().slice(0, 40), right: Math.round(r.right), edge: Math.round(edge)});
  }
  return out;
}"""
KEY_CELLS = """() => [...document.querySelectorAll(
  'td[data-label="Verdict"], td[data-label="Holds?"], td[data-label="Saving per run"], td[data-label="Break-even runs"], ' +
  'td[data-label="GPU total minus Trainium total"], td[data-label="Trainium"], td[data-label="GPU"]')].map(c => {
  const r = c.getBoundingClientRect();
  return {label: c.dataset.label, left: r.left, right: r.right, text: c.textContent.trim().slice(0, 30)};
}).filter(c => c.left < 0 || c.right > document.documentElement.clientWidth)"""
TABLE_PAGES = ["scenarios/", "scenarios/one-off-run/", "scenarios/mainstream-pretraining/", "calculator/", "prices/", "sources/", "methodology/", ""]


@pytest.mark.parametrize("width", NARROW)
@pytest.mark.parametrize("url", TABLE_PAGES)
def test_no_table_cell_is_cut_off_without_a_sign_and_key_columns_stay_in_view(url: str, width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    tab.goto(url)
    page = tab.page
    page.wait_for_function("() => !document.getElementById('guide-calc') || document.querySelector('#guide-calc[data-ready]')")
    page.wait_for_function("() => [...document.querySelectorAll('.md-typeset__scrollwrap')].every(b => b.dataset.signReady)")
    clipped = page.evaluate(CLIPPED)
    assert not clipped, f"cells cut off without a sign on {url or 'home'} at {width} px: {clipped[:5]}"
    cut = page.evaluate(KEY_CELLS)
    assert not cut, f"verdict, holds or money out of view on {url or 'home'} at {width} px: {cut[:5]}"
    tab.recorder.assert_clean()


def test_links_in_prose_are_underlined_and_the_home_page_cards_are_not(open_tab, served_site: str):
    tab = open_tab(served_site)
    tab.goto("")
    lines = tab.page.evaluate("""() => ({
      cards: [...document.querySelectorAll('.guide-ways a')].map(a => getComputedStyle(a).textDecorationLine),
      prose: [...document.querySelectorAll('.md-typeset p a:not(.md-button)')].filter(a => !a.closest('.guide-ways'))
        .map(a => getComputedStyle(a).textDecorationLine)})""")
    # A card is a bordered box with its title in the link colour: underlining its whole text only
    # makes it harder to read. A link in a sentence is told from the text around it by more than colour.
    assert lines["cards"] and set(lines["cards"]) == {"none"}, lines["cards"]
    assert lines["prose"] and set(lines["prose"]) == {"underline"}, lines["prose"]
    tab.recorder.assert_clean()


@pytest.mark.parametrize("width", NARROW)
def test_the_wider_than_the_screen_sign_starts_where_its_table_does(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    tab.goto("prices/")
    page = tab.page
    page.wait_for_function("() => [...document.querySelectorAll('.md-typeset__scrollwrap')].every(b => b.dataset.signReady)")
    # Opened, the tables inside a details box (a chart's numbers) are measured too.
    page.eval_on_selector_all("details", "ds => ds.forEach(d => { d.open = true; })")
    page.wait_for_function("() => [...document.querySelectorAll('.md-typeset__scrollwrap')].every(b => b.dataset.signReady)")
    starts = page.eval_on_selector_all(".md-typeset__scrollwrap[data-scrolls]", """ws => ws.map(w => ({
      sign: w.getBoundingClientRect().left + parseFloat(getComputedStyle(w, '::before').paddingLeft),
      table: w.querySelector('table').getBoundingClientRect().left,
      boxed: !!w.closest('details, .admonition')}))""")
    assert any(s["boxed"] for s in starts) and any(not s["boxed"] for s in starts), starts
    off = [s for s in starts if abs(s["sign"] - s["table"]) > 1]
    assert not off, off
    tab.recorder.assert_clean()


# Each stacked cell's own content, every line box of it, measured against the column its label
# takes; and how many of those cells mix text with elements (code, a note), the case a layout that
# lays out each child apart gets wrong.
STACKED_CELLS = """() => {
  const out = [], mixed = [];
  for (const td of document.querySelectorAll('table[data-table] td[data-label]')) {
    const before = getComputedStyle(td, '::before');
    if (before.content === 'none' || !td.textContent.trim()) continue;
    const nodes = [...td.childNodes].filter(n => n.textContent.trim());
    if (nodes.length > 1 && nodes.some(n => n.nodeType === Node.TEXT_NODE)) mixed.push(td.dataset.label);
    const column = td.getBoundingClientRect().left + parseFloat(before.width);
    const range = document.createRange();
    range.selectNodeContents(td);
    const lefts = [...range.getClientRects()].filter(r => r.width > 0).map(r => r.left);
    if (lefts.some(left => left < column - 1)) out.push({label: td.dataset.label, text: td.textContent.trim().slice(0, 40)});
  }
  return {out, mixed: mixed.length};
}"""


@pytest.mark.parametrize("width", NARROW)
def test_a_stacked_cell_reads_as_one_line_of_text_beside_its_column_name(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    mixed = 0
    for url in ("scenarios/", "scenarios/mainstream-pretraining/", "calculator/"):
        tab.goto(url)
        tab.page.wait_for_function("() => !document.getElementById('guide-calc') || document.querySelector('#guide-calc[data-ready]')")
        found = tab.page.evaluate(STACKED_CELLS)
        assert not found["out"], f"stacked cell content under its column name on {url} at {width} px: {found['out'][:5]}"
        mixed += found["mixed"]
    # The Trainium3 table's UltraServer cell (code, then its chip count) and its per-chip cell (a
    # figure, then a note) are among them.
    assert mixed >= 2
    tab.recorder.assert_clean()


# Pairs of shown axis labels of one axis whose boxes cross (Vega hides some labels with opacity 0
# where it thins them out itself).
CROSSING_LABELS = """(view) => {
  const out = [];
  for (const axis of view.querySelectorAll('g.role-axis')) {
    const boxes = [...axis.querySelectorAll('.role-axis-label text')]
      .filter(t => getComputedStyle(t).opacity !== '0' && t.getAttribute('opacity') !== '0')
      .map(t => ({text: t.textContent, r: t.getBoundingClientRect()}));
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) out.push([boxes[i].text, boxes[j].text]);
    }
  }
  return out;
}"""


# The plot's own box (the root frame's background), without title, axes or legend.
PLOT_HEIGHTS = """() => [...document.querySelectorAll('.guide-chart__view')].map(v => {
  const frame = v.querySelector('g.role-frame.root > g > path.background');
  return frame ? Math.round(frame.getBBox().height) : null;
})"""


@pytest.mark.parametrize("url", ["", "prices/"])
def test_a_chart_drawn_on_a_phone_keeps_its_plot_and_its_name(url: str, open_tab, served_site: str):
    wide = open_tab(served_site)
    wide.goto(url)
    wide.charts_drawn()
    designed = wide.page.evaluate(PLOT_HEIGHTS)
    assert designed and all(designed), designed
    for width in NARROW:
        tab = open_tab(served_site, **phone(width))
        tab.goto(url)
        named = tab.page.eval_on_selector_all(".guide-chart__view", "vs => vs.map(v => [v.getAttribute('role'), v.getAttribute('aria-label')])")
        tab.charts_drawn()
        # The title takes more lines in a phone's column; the plot below it keeps its height, so
        # the rows of the price chart's instance axis do not run into each other.
        assert tab.page.evaluate(PLOT_HEIGHTS) == designed, (width, designed)
        views = tab.page.locator(".guide-chart__view")
        for i in range(views.count()):
            crossing = views.nth(i).evaluate(CROSSING_LABELS)
            assert not crossing, f"chart {i} on {url or 'home'} at {width} px: axis labels overlap: {crossing[:4]}"
        # Vega's "Vega visualization" does not replace what the page says the chart shows.
        drawn = tab.page.eval_on_selector_all(".guide-chart__view", "vs => vs.map(v => [v.getAttribute('role'), v.getAttribute('aria-label')])")
        assert drawn == named and all(role == "img" and label for role, label in drawn), drawn
        tab.recorder.assert_clean()
    wide.recorder.assert_clean()


@pytest.mark.parametrize("width", NARROW)
def test_gallery_charts_fit_a_phone_with_their_legends_in_view_and_name_their_scenario(width: int, open_tab, served_site: str, project):
    tab = open_tab(served_site, **phone(width))
    tab.goto("embed/")
    page = tab.page
    page.eval_on_selector_all("details.guide-gallery__fold", "ds => ds.forEach(d => { d.open = true; })")
    views = page.locator("section.guide-gallery .guide-chart__view")
    assert views.count() > 0
    for i in range(views.count()):
        view = views.nth(i)
        view.scroll_into_view_if_needed()
        page.wait_for_function("(e) => e.dataset.drawn === 'true'", arg=view.element_handle())
        drawn = view.evaluate("""(v) => {
          const svg = v.querySelector('svg').getBoundingClientRect();
          const legends = [...v.querySelectorAll('svg g.role-legend')].map(l => l.getBoundingClientRect());
          return {svg: [svg.left, svg.right], legends: legends.map(r => [r.left, r.right]), width: innerWidth};
        }""")
        assert drawn["svg"][0] >= 0 and drawn["svg"][1] <= width, (i, drawn)
        assert all(0 <= left and right <= width for left, right in drawn["legends"]), (i, drawn)
    headings = dict(page.eval_on_selector_all("section.guide-gallery", "s => s.map(x => [x.id, x.querySelector('h2').textContent])"))
    for r in project.results:
        for n in range(len(r.workloads)):
            assert r.scenario.title in headings[f"{r.id}-{n + 1}-cumulative"]
    tab.recorder.assert_clean()


def test_charts_and_captions_name_sources_by_title_never_by_key(built_site: BuiltSite, project):
    import re

    keys = [k for k in project.catalog.sources if k != "GUIDE"]
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, keys)) + r")(?![\w-])")
    for spec in (built_site.site / "embed").glob("*/*.vl.json"):
        title = json.loads(spec.read_text(encoding="utf-8"))["title"]
        assert not pattern.search(" ".join(title["subtitle"])), (spec.name, title["subtitle"])
        assert "prices" in " ".join(title["subtitle"]) or spec.parent.name.startswith("reference"), spec.name


# How far a page title's box reaches below its text: a line's height when its hidden permalink wraps.
TITLE_OVERHANG = """() => {
  const h = document.querySelector('.md-typeset h1'), link = h.querySelector('.headerlink'), text = document.createRange();
  text.setStart(h, 0);
  if (link) text.setEndBefore(link); else text.setEnd(h, h.childNodes.length);
  return h.getBoundingClientRect().bottom - text.getBoundingClientRect().bottom;
}"""


@pytest.mark.parametrize("width", NARROW)
def test_on_a_phone_a_long_page_title_ends_on_its_last_line_of_text(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    for stem in ("case-series-a-startup", "case-continuous-pretraining-trn1n", "large-run-gpus-constrained", "mainstream-pretraining", "new-architecture-every-three-runs"):
        tab.goto(f"scenarios/{stem}/")
        assert tab.page.evaluate(TITLE_OVERHANG) < 4, stem
    tab.recorder.assert_clean()


# --- a buyer reading on a phone -------------------------------------------------------------------

PHONE_WIDTHS = [320, 360, 390]
PHONE_PASS_PAGES = ["", "scenarios/", "scenarios/one-off-run/", "scenarios/case-series-a-startup/", "calculator/", "prices/",
                    "sources/", "methodology/", "embed/", "embed/decision-map/", "axes/porting/", "axes/price-performance/",
                    "trainium3/", "faq/", "glossary/", "throughput/", "changes/", "contributing/", "reference/schema/"]

# What a page shows a phone that a reader cannot use: text under 12 px outside the charts, chart text
# cut at its chart's edge or drawn under 10 px (a static image's under 9, the guide's rule for them),
# and targets under 24 px. A target passes as WCAG 2.2 (2.5.8) has it: 24 by 24 px, or a link inside
# a sentence, or far enough from every other target that a 24 px circle on it touches none.
PHONE_PASS = """async () => {
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden' && !e.closest('details:not([open])');
  const out = {width: [document.documentElement.scrollWidth, document.documentElement.clientWidth], small: [], chart: [], cut: [], targets: []};
  const root = document.querySelector('.md-container') || document.body;  // an embed page has no theme around it
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement;
    if (!walk.currentNode.textContent.trim() || !el || el.closest('svg, .md-sidebar, .md-search, [hidden]') || !shown(el)) continue;
    const style = getComputedStyle(el);
    if (style.position === 'absolute' && parseFloat(style.width) <= 1) continue;  // for screen readers only
    if (parseFloat(style.fontSize) < 12) out.small.push([parseFloat(style.fontSize), walk.currentNode.textContent.trim().slice(0, 30)]);
  }
  for (const svg of document.querySelectorAll('.guide-chart__view svg, #chart svg')) {
    if (!shown(svg)) continue;
    const box = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || !shown(t) || t.closest('[opacity="0"]') || getComputedStyle(t).opacity === '0') continue;
      const m = t.getScreenCTM(), r = t.getBoundingClientRect();
      const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (px < 10) out.chart.push(['live', px, t.textContent.slice(0, 30)]);
      if (r.left < Math.max(box.left, 0) - 1 || r.right > Math.min(box.right, innerWidth) + 1) out.cut.push(t.textContent.slice(0, 30));
    }
  }
  for (const img of root.querySelectorAll('img')) {
    const src = img.currentSrc || img.src;
    if (!shown(img) || !/[.]svg$/.test(new URL(src).pathname)) continue;
    const doc = new DOMParser().parseFromString(await (await fetch(src)).text(), 'image/svg+xml');
    const sizes = [...doc.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size'))).filter(n => n > 0);
    const px = sizes.length ? Math.min(...sizes) * img.getBoundingClientRect().width / parseFloat(doc.documentElement.getAttribute('width')) : 99;
    if (px < 9) out.chart.push(['image', px, src]);
  }
  const targets = [...root.querySelectorAll('a[href], button, input, select, summary')]
    .filter(t => shown(t) && !t.closest('.md-sidebar, .md-search') && t.getBoundingClientRect().width > 0);
  const boxes = targets.map(t => t.getBoundingClientRect());
  const near = (a, b) => {  // the 24 px circle on a's centre reaches b's box
    const cx = (a.left + a.right) / 2, cy = (a.top + a.bottom) / 2;
    const dx = Math.max(b.left - cx, 0, cx - b.right), dy = Math.max(b.top - cy, 0, cy - b.bottom);
    return Math.hypot(dx, dy) < 12;
  };
  targets.forEach((t, i) => {
    const r = boxes[i];
    if (r.width >= 24 && r.height >= 24) return;
    const block = t.tagName === 'A' && t.closest('p, li, td, dd, th, figcaption');
    if (block) {
      const rest = block.cloneNode(true);
      rest.querySelectorAll('a, button').forEach(x => x.remove());
      if (rest.textContent.trim()) return;  // inside a sentence
    }
    if (boxes.every((b, j) => j === i || !near(r, b))) return;
    out.targets.push([t.tagName, Math.round(r.width), Math.round(r.height), (t.textContent || t.value || '').trim().slice(0, 30)]);
  });
  return out;
}"""


def _open_every_chart(tab: Tab, name: str) -> None:
    """Open every fold, and scroll to each chart, as a reader would."""
    page = tab.page
    page.wait_for_function("() => !document.getElementById('guide-calc') || document.querySelector('#guide-calc[data-ready]')")
    page.eval_on_selector_all("details", "ds => ds.forEach(d => { d.open = true; })")
    _scroll_to_every_chart(tab, name)
    page.wait_for_function("() => [...document.querySelectorAll('.md-typeset__scrollwrap')].every(b => b.dataset.signReady)")


# Every width in light; sizes and cuts do not change with the palette, so dark once, where charts redraw
# for it at the narrowest width a chart was once seen cut.
@pytest.mark.parametrize(("width", "scheme"), [(w, "light") for w in PHONE_WIDTHS] + [(360, "dark")])
def test_the_phone_pass_finds_no_cut_chart_no_small_text_and_no_small_target(width: int, scheme: str, open_tab, served_site: str):
    tab = open_tab(served_site, color_scheme=scheme, **phone(width))
    found = {}
    for url in PHONE_PASS_PAGES:
        tab.goto(url)
        _open_every_chart(tab, url or "home")
        got = tab.page.evaluate(PHONE_PASS)
        bad = {k: v[:4] for k, v in got.items() if k != "width" and v}
        if got["width"] != [width, width]:
            bad["width"] = got["width"]
        if bad:
            found[url or "home"] = bad
    assert not found, found
    tab.recorder.assert_clean()


# Each table's first column, what its rows are about, as far as the screen shows it: at the table's
# start, and once a table wider than its box is scrolled to its end.
KEY_COLUMNS = """() => {
  const out = [];
  for (const table of document.querySelectorAll('.md-content table')) {
    if (!table.getClientRects().length || table.closest('details:not([open])')) continue;
    const scroller = [table, table.closest('.md-typeset__scrollwrap')].find(e => e && e.scrollWidth > e.clientWidth + 1);
    for (const end of scroller ? [0, scroller.scrollWidth] : [0]) {
      if (scroller) scroller.scrollLeft = end;
      for (const row of table.rows) {
        const cell = row.cells[0];
        if (!cell || !cell.getClientRects().length || !cell.textContent.trim()) continue;
        const r = cell.getBoundingClientRect();
        const x = Math.min(Math.max((r.left + r.right) / 2, 0), innerWidth - 1), y = (r.top + r.bottom) / 2;
        const seen = r.left >= -1 && r.right <= innerWidth + 1 && (y < 0 || y > innerHeight || cell.contains(document.elementFromPoint(x, y)));
        if (!seen) out.push({end, text: cell.textContent.trim().slice(0, 30), left: Math.round(r.left), right: Math.round(r.right)});
      }
    }
    if (scroller) scroller.scrollLeft = 0;
  }
  return out;
}"""


@pytest.mark.parametrize("width", PHONE_WIDTHS)
def test_no_table_on_a_phone_leaves_its_key_column_off_screen(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    found = {}
    for url in PHONE_PASS_PAGES:
        tab.goto(url)
        tab.page.wait_for_function("() => !document.getElementById('guide-calc') || document.querySelector('#guide-calc[data-ready]')")
        tab.page.eval_on_selector_all("details", "ds => ds.forEach(d => { d.open = true; })")
        tab.page.wait_for_function("() => [...document.querySelectorAll('.md-typeset__scrollwrap')].every(b => b.dataset.signReady)")
        off = tab.page.evaluate(KEY_COLUMNS)
        if off:
            found[url or "home"] = off[:4]
    assert not found, found
    tab.recorder.assert_clean()


@pytest.mark.parametrize("width", PHONE_WIDTHS)
def test_on_a_phone_the_prices_table_shows_an_on_demand_price_on_the_first_screen_width(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    tab.goto("prices/")
    head = tab.page.locator("table[data-table=prices] thead th", has_text="On-demand $/hour")
    box = head.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    price = tab.page.locator("table[data-table=prices] td[data-key=on_demand]").first.bounding_box()
    assert price["x"] + price["width"] <= width, price
    tab.recorder.assert_clean()


@pytest.mark.parametrize("width", PHONE_WIDTHS)
@pytest.mark.parametrize("url", ["methodology/", "embed/"])
def test_the_sensitivity_chart_is_whole_on_a_phone(url: str, width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    tab.goto(url)
    view = tab.page.locator(".guide-chart__view[data-chart=reference-sensitivity]")
    view.scroll_into_view_if_needed()
    tab.page.wait_for_function("(e) => e.dataset.drawn === 'true'", arg=view.element_handle())
    texts = view.evaluate("""(v) => {
      const box = v.querySelector('svg').getBoundingClientRect();
      return [...v.querySelectorAll('svg text')].filter(t => t.textContent.trim() && !t.closest('[opacity="0"]')).map(t => {
        const r = t.getBoundingClientRect(), m = t.getScreenCTM();
        return {text: t.textContent, inside: r.left >= Math.max(box.left, 0) - 1 && r.right <= Math.min(box.right, innerWidth) + 1,
                px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)};
      });
    }""")
    shown = " ".join(t["text"] for t in texts)
    assert "Sensitivity" in shown and "favours Trainium" in shown, shown
    assert all(t["inside"] for t in texts), [t["text"] for t in texts if not t["inside"]]
    assert min(t["px"] for t in texts) >= 10, texts
    tab.recorder.assert_clean()


def test_counts_and_savings_read_as_a_buyer_says_them(open_tab, served_site: str, project):
    tab = open_tab(served_site)
    tab.goto("scenarios/")
    hybrid = sum(r.verdict == "hybrid" for r in project.results)
    assert hybrid == 1
    lead = tab.page.locator("article p", has_text="Of ").first.inner_text()
    assert "1 is hybrid" in lead and "are hybrid" not in lead, lead
    # A scenario Trainium cannot run says so where the index gives what Trainium saves.
    for r in project.results:
        cell = tab.page.locator(f'tr[data-scenario="{r.id}"] td[data-label="Saving per run"]').inner_text()
        if not any(w.outcome.trainium.feasible for w in r.workloads):
            assert cell == "Trainium cannot run", (r.id, cell)
        else:
            assert cell.startswith(("Trainium saves $", "Trainium costs $")), (r.id, cell)
    tab.goto("scenarios/data-residency-london/")
    row = tab.page.locator('td[data-key="saving_per_run"]').inner_text()
    assert row == "Trainium cannot run, so cost is not compared.", row
    engineers = tab.page.locator('td[data-key="port_calendar_days"]').inner_text()
    assert "(range 1 to 3 engineers;" in engineers, engineers
    tab.goto("")
    flips = tab.page.locator("article p", has_text="of these verdicts").inner_text()
    assert " 0 more" not in flips and "1 more change " not in flips, flips
    tab.recorder.assert_clean()


@pytest.mark.parametrize("width", [360, 390])
def test_the_trainium3_pages_answer_per_situation_is_in_the_first_two_screens_without_empty_figures(width: int, open_tab, served_site: str, project):
    tab = open_tab(served_site, **phone(width))
    tab.goto("trainium3/")
    rows = tab.page.eval_on_selector_all("table[data-table=trn3-situations] tbody tr", """rows => rows.map(r => ({
      top: r.getBoundingClientRect().top + scrollY,
      cells: [...r.cells].filter(c => c.getClientRects().length && getComputedStyle(c).display !== 'none').map(c => c.textContent.trim()),
    }))""")
    assert len(rows) == sum(len(r.workloads) for r in project.results)
    assert rows[0]["top"] < 2 * 740, rows[0]["top"]
    empty = [c for row in rows for c in row["cells"] if c in ("none", "n/a", "")]
    assert not empty, empty
    # A situation no price decides reads in a few lines, not a card of empty prices.
    unpriced = [row["cells"] for row in rows if "none at any price" in row["cells"]]
    assert unpriced and all(len(cells) == 4 for cells in unpriced), unpriced
    tab.recorder.assert_clean()


def test_a_price_aws_confirmed_since_its_date_says_when_it_was_last_checked(open_tab, serve, confirmed_site: BuiltSite):
    from conftest import CONFIRMED_ON

    tab = open_tab(serve(confirmed_site.site), **phone(390))
    said = f"last checked {CONFIRMED_ON}"
    tab.goto("prices/")
    cell = tab.page.locator('tr[data-instance="p5.48xlarge"] td[data-key="on_demand"]').inner_text()
    assert "2026-01-21" in cell and said in cell, cell
    detail = tab.page.locator('table[data-table="prices-detail"] tr[data-instance="p5.48xlarge"][data-region="us-east-1"][data-option="on-demand"]')
    assert said in detail.inner_text()
    # Only the figure the API gave again says so.
    assert tab.page.locator(".guide-checked").count() == 2
    # Where a scenario and the calculator use it, beside its source and date.
    tab.goto("scenarios/one-off-run/")
    assert said in tab.page.locator("table[data-table=inputs]").inner_text()
    tab.goto("calculator/")
    tab.page.wait_for_selector("#guide-calc[data-ready]")
    assert said in tab.page.inner_text("#calc-prices")
    tab.recorder.assert_clean()


@pytest.mark.parametrize("url", ["scenarios/one-off-run/", "calculator/", "scenarios/"])
def test_beside_each_verdict_the_page_says_what_the_verdict_leaves_out(url: str, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(390))
    tab.goto(url)
    note = tab.page.locator(".guide-leaves-out")
    assert note.count() == 1
    text = note.inner_text()
    assert text.startswith("Not counted:") and "storing data" in text and "CUDA and a Neuron" in text and "serving the trained model" in text, text
    if url.startswith("scenarios/one-off-run"):
        assert tab.page.locator(".guide-verdict .guide-leaves-out").count() == 1  # in the verdict's own box
    link = note.locator("a")
    assert link.get_attribute("href").endswith("methodology/#what-is-not-modelled")
    # Images above the note load late on a slow machine and move it: click once the page has loaded.
    tab.page.wait_for_load_state("load")
    link.click()
    # Under a full suite's load the methodology page (the site's largest) can take a while to arrive.
    tab.page.wait_for_function("() => location.pathname.endsWith('/methodology/')", timeout=90_000)
    tab.page.wait_for_selector("#what-is-not-modelled", timeout=90_000)
    assert "Inference" in tab.page.locator("#what-is-not-modelled ~ ul").first.inner_text()
    tab.recorder.assert_clean()


# Where each page's answer is: the verdict, the price, the first situation's figure.
ANSWERS = {
    "": ".guide-lead", "scenarios/": "table[data-table=index] td[data-verdict]",
    "scenarios/one-off-run/": ".guide-verdict__label", "scenarios/case-series-a-startup/": ".guide-verdict__label",
    "calculator/": "#calc-glance-verdict", "prices/": "table[data-table=prices] td[data-key=on_demand]",
    "trainium3/": "table[data-table=trn3-situations] td[data-label=Value]", "embed/decision-map/": "#chart",
}


@pytest.mark.parametrize("width", PHONE_WIDTHS)
def test_every_page_a_phone_reader_opens_has_its_answer_in_the_first_two_screens(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    found = {}
    for url, answer in ANSWERS.items():
        tab.goto(url)
        tab.page.wait_for_function("() => !document.getElementById('guide-calc') || document.querySelector('#guide-calc[data-ready]')")
        where = tab.page.locator(answer).first.evaluate("e => { const r = e.getBoundingClientRect(); return [r.top + scrollY, r.bottom + scrollY, innerHeight]; }")
        if not (where[1] > 0 and where[0] < 2 * where[2]):
            found[url or "home"] = where
    assert not found, found
    tab.recorder.assert_clean()


@pytest.mark.parametrize("width", [360, 390])
def test_full_answer_and_citation_links_are_24_px_targets_and_code_in_tables_12_px(width: int, open_tab, served_site: str):
    tab = open_tab(served_site, **phone(width))
    tab.goto("calculator/")
    tab.page.wait_for_selector("#calc-glance:not([hidden])")
    full = tab.page.locator(".guide-calc__glance-more a").bounding_box()
    assert full["height"] >= 24 and full["width"] >= 24, full
    tab.goto("prices/")
    cites = tab.page.eval_on_selector_all(".guide-cite a", "as => as.map(a => a.getBoundingClientRect().height)")
    assert len(cites) > 100 and min(cites) >= 24, min(cites)
    tab.goto("scenarios/one-off-run/")
    code = tab.page.eval_on_selector_all("td code", "cs => cs.map(c => parseFloat(getComputedStyle(c).fontSize))")
    assert code and min(code) >= 12, code
    tab.recorder.assert_clean()
