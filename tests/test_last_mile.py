"""What a phone, a pasted link and a first edit trip on, checked on the built site and in
headless Chromium: one copy button per snippet, legible snippet code, snippets and the oEmbed answer
that fit any column, link discovery in every head that needs it, the home page's title said once,
tables and controls that fit a phone, and the answer first."""

from __future__ import annotations

import html
import json
import math
import multiprocessing
import re
import xml.etree.ElementTree as ET
from concurrent.futures import ProcessPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_support import BuiltSite

WIDTHS = [360, 390, 1280]
SCHEMES = ["light", "dark"]
TIMEOUT_MS = 30_000


def context_options(width: int, scheme: str) -> dict:
    mobile = width < 600
    return {"viewport": {"width": width, "height": 844 if mobile else 900}, "is_mobile": mobile, "has_touch": mobile,
            "color_scheme": scheme, "service_workers": "block"}


@pytest.fixture
def open_page(browser):
    """open_page(url, width, scheme) -> a Playwright page at that size and scheme, nothing leaving 127.0.0.1."""
    contexts = []

    def make(url: str, width: int = 390, scheme: str = "light"):
        context = browser.new_context(**context_options(width, scheme))
        contexts.append(context)
        context.route(lambda u: not u.startswith("http://127.0.0.1"), lambda route: route.abort())
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(f"console: {m.text} ({(m.location or {}).get('url', '')})") if m.type == "error" else None)
        page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.errors = errors
        if url:
            page.goto(url, wait_until="load")
        return page

    yield make
    for context in contexts:
        context.close()


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: list[str] = []
        self.links: list[dict[str, str]] = []
        self.meta: dict[str, str] = {}
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "title":
            self._in_title = True
        elif tag == "link":
            self.links.append(a)
        elif tag == "meta" and "property" in a:
            self.meta[a["property"]] = a.get("content", "")

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title.append(data)


def head(path: Path) -> _Head:
    parser = _Head()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


# --- 1. one copy button per snippet, code that can be read --------------------------------------

SNIPPET_BUTTONS = """() => [...document.querySelectorAll('details.guide-embed[open] pre')].map(pre => {
  const shown = [...pre.querySelectorAll('button')].filter(b => b.getClientRects().length && getComputedStyle(b).visibility !== 'hidden' && getComputedStyle(b).opacity !== '0');
  const boxes = shown.map(b => b.getBoundingClientRect());
  const overlaps = boxes.some((a, i) => boxes.some((b, j) => j > i && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom));
  const code = pre.querySelector('code');
  return {buttons: shown.map(b => b.className), overlaps, codePx: parseFloat(getComputedStyle(code).fontSize)};
})"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_each_embed_snippet_has_one_copy_button_and_code_of_at_least_12px(width: int, scheme: str, open_page, served_site: str):
    page = open_page(served_site + "scenarios/one-off-run/", width, scheme)
    block = page.locator("details.guide-embed").first
    block.locator("summary").click()
    pre = block.locator("pre").first
    pre.scroll_into_view_if_needed()
    if width > 600:
        pre.hover()  # Material shows its own button on hover
    found = page.evaluate(SNIPPET_BUTTONS)
    assert len(found) == 2, found
    for snippet in found:
        assert snippet["buttons"] == ["guide-copy md-button"], snippet
        assert not snippet["overlaps"], snippet
        assert snippet["codePx"] >= 12, snippet
    assert not page.errors


# --- 7. the home page's title ---------------------------------------------------------------------


def test_no_page_title_says_the_site_name_twice(built_site: BuiltSite):
    name = "Trainium or GPU?"
    home = "".join(head(built_site.site / "index.html").title)
    assert home.startswith(name) and home.count(name) == 1, home
    for path in built_site.site.rglob("index.html"):
        if path.relative_to(built_site.site).parts[0] == "embed":
            continue
        title = "".join(head(path).title)
        assert title.count(name) <= 1, (path, title)


# --- 8. links and embeds ------------------------------------------------------------------------


def test_scenario_pages_name_their_charts_oembed_file_and_it_exists(built_site: BuiltSite):
    site_url = "https://trainium-or-gpu.github.io/guide/"
    pages = sorted((built_site.site / "scenarios").glob("*/index.html"))
    assert pages
    for path in pages:
        found = [link for link in head(path).links if link.get("type") == "application/json+oembed"]
        assert len(found) == 1 and "alternate" in found[0]["rel"].split(), path
        href = found[0]["href"]
        assert href.startswith(site_url + "embed/") and href.endswith("/oembed.json"), href
        answer = json.loads((built_site.site / href[len(site_url):]).read_text(encoding="utf-8"))
        assert path.parent.name in answer["html"], (path, answer["html"])


def test_an_embed_pages_canonical_address_is_its_og_url(built_site: BuiltSite):
    for path in sorted((built_site.site / "embed").glob("*/index.html")):
        h = head(path)
        canonical = [link["href"] for link in h.links if link.get("rel") == "canonical"]
        assert canonical == [h.meta["og:url"]], path
        assert canonical[0].endswith(f"/embed/{path.parent.name}/")


def test_every_page_lets_a_feed_reader_find_the_what_changed_feed(built_site: BuiltSite):
    for rel in ("changes/index.html", "index.html", "scenarios/one-off-run/index.html"):
        path = built_site.site / rel
        feeds = [link for link in head(path).links if "alternate" in link.get("rel", "").split() and link.get("type") == "application/atom+xml"]
        assert len(feeds) == 1, rel
        target = (path.parent / feeds[0]["href"]).resolve()
        assert target == (built_site.site / "changes" / "atom.xml").resolve() and target.is_file()
        assert feeds[0].get("title")


def _snippets(site: Path, chart: str) -> list[str]:
    """The iframe and image snippets a page offers for a chart, as pasted, and the oEmbed html."""
    page = (site / "scenarios" / "one-off-run" / "index.html").read_text(encoding="utf-8")
    block = re.search(rf'<details class="guide-embed" data-embed="{re.escape(chart)}".*?</details>', page, re.S)[0]
    pasted = [html.unescape(code) for code in re.findall(r"<pre[^>]*><code>(.*?)</code></pre>", block, re.S)]
    assert len(pasted) == 2 and pasted[0].startswith("<iframe") and "<img" in pasted[1], pasted
    oembed = json.loads((site / "embed" / chart / "oembed.json").read_text(encoding="utf-8"))
    return [*pasted, oembed["html"]]


@pytest.mark.parametrize("width", [320, 390])
def test_every_snippet_and_the_oembed_html_fit_a_narrow_blog_column(width: int, open_page, served_site: str, built_site: BuiltSite):
    chart = "one-off-run-1-cumulative"
    # The served site's snippets point at the served site: the frame and image load for real.
    page = open_page(served_site + "scenarios/one-off-run/", width)
    served = page.evaluate("""(chart) => [...document.querySelectorAll(`details.guide-embed[data-embed="${chart}"] pre code`)].map(c => c.textContent)""", chart)
    oembed = page.evaluate("async (url) => (await (await fetch(url)).json()).html", served_site + f"embed/{chart}/oembed.json")
    assert len(served) == 2
    # The published build's are the same markup but for the address.
    published = _snippets(built_site.site, chart)
    assert [re.sub(r'https?://[^"]*?/(embed|scenarios)/', r'\1/', s) for s in published] == \
        [re.sub(r'https?://[^"]*?/(embed|scenarios)/', r'\1/', s) for s in [*served, oembed]]
    body = "".join(f"<p>Some text of the post.</p>{s}" for s in [*served, oembed])
    page.set_content(f'<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head>'
                     f'<body style="margin:8px">{body}</body></html>', wait_until="load")
    page.wait_for_function("() => [...document.images].every(i => i.complete)")
    sizes = page.evaluate("""() => ({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
      frames: [...document.querySelectorAll('iframe')].map(f => f.getBoundingClientRect().width),
      images: [...document.images].map(i => [i.getBoundingClientRect().width, i.naturalWidth])})""")
    assert sizes["scroll"] == sizes["client"] == width, sizes
    assert len(sizes["frames"]) == 2 and all(0 < w <= width - 16 for w in sizes["frames"]), sizes
    assert sizes["images"] and all(0 < w <= width - 16 and natural > 0 for w, natural in sizes["images"]), sizes


def test_on_a_wide_blog_column_the_image_and_oembed_frame_keep_their_natural_width(open_page, served_site: str):
    chart = "one-off-run-1-cumulative"
    page = open_page(served_site + "scenarios/one-off-run/", 1280)
    image = page.evaluate("""(chart) => document.querySelectorAll(`details.guide-embed[data-embed="${chart}"] pre code`)[1].textContent""", chart)
    oembed = page.evaluate("async (url) => (await (await fetch(url)).json())", served_site + f"embed/{chart}/oembed.json")
    page.set_content(f"<!doctype html><body>{image}{oembed['html']}</body>", wait_until="load")
    page.wait_for_function("() => [...document.images].every(i => i.complete)")
    widths = page.evaluate("() => [document.images[0].getBoundingClientRect().width, document.querySelector('iframe').getBoundingClientRect().width]")
    assert widths == [640, oembed["width"]], widths


# --- 2. the Trainium3 page on a phone ---------------------------------------------------------

TABLE_FIT = """() => ({
  scroll: document.documentElement.scrollWidth,
  tables: [...document.querySelectorAll('.md-content table')].filter(t => t.getClientRects().length).map(t => {
    const box = (t.closest('.md-typeset__scrollwrap') || t.parentElement).getBoundingClientRect();
    const cells = [...t.querySelectorAll('td')].filter(c => c.getClientRects().length).map(c => c.getBoundingClientRect());
    return {right: Math.max(...cells.map(r => r.right)) - box.right, tallest: Math.max(...cells.map(r => r.height))};
  }),
  scrolls: document.querySelectorAll('.md-typeset__scrollwrap[data-scrolls]').length,
})"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", [360, 390])
def test_the_trainium3_tables_fit_a_phone_without_scrolling_sideways(width: int, scheme: str, open_page, served_site: str):
    page = open_page(served_site + "trainium3/", width, scheme)
    page.wait_for_function("() => [...document.querySelectorAll('.md-typeset__scrollwrap')].every(b => b.dataset.signReady)")
    fit = page.evaluate(TABLE_FIT)
    assert fit["scroll"] == width, fit
    assert len(fit["tables"]) >= 3, fit
    # Every cell inside its table's box, and no row a screen tall for a squeezed column.
    assert all(t["right"] <= 1 for t in fit["tables"]), fit
    assert all(t["tallest"] < 400 for t in fit["tables"]), fit
    assert fit["scrolls"] == 0, fit
    value = page.locator('td[data-label="Value"]').first
    assert value.is_visible()
    box = value.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert not page.errors


# --- 3. the scenarios index on a phone ----------------------------------------------------------


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_index_can_be_sorted_by_buttons_a_reader_sees(width: int, scheme: str, open_page, served_site: str, project):
    page = open_page(served_site + "scenarios/", width, scheme)
    page.wait_for_selector('table[data-sort-ready="true"] button.guide-sort')
    buttons = page.eval_on_selector_all("table[data-table=index] thead button.guide-sort", """bs => bs.map(b => {
      const r = b.getBoundingClientRect(); return {text: b.textContent, width: r.width, height: r.height, left: r.left, right: r.right}; })""")
    assert len(buttons) == 5, buttons
    assert all(b["width"] >= 24 and b["height"] >= 24 and b["left"] >= 0 and b["right"] <= width for b in buttons), buttons
    page.locator("table[data-table=index] thead button.guide-sort", has_text="Saving per run").click()
    shown = page.eval_on_selector_all("table[data-table=index] tbody tr", "rows => rows.map(r => r.dataset.scenario)")
    assert shown == [r.id for r in sorted(project.results, key=lambda r: r.saving_per_run)]
    assert not page.errors


def test_the_index_says_whose_saving_each_row_shows(built_site: BuiltSite, project):
    page = (built_site.site / "scenarios" / "index.html").read_text(encoding="utf-8")
    assert "<th>Saving per run on Trainium</th>" in page
    cells = dict(re.findall(r'<tr data-scenario="([^"]+)">.*?<td data-label="Saving per run" data-sort="[^"]*">(.*?)</td>', page, re.S))
    assert len(cells) == len(project.results)
    from generator.model import formatting as fmt

    for r in project.results:
        said = html.unescape(cells[r.id])
        if not any(w.outcome.trainium.feasible for w in r.workloads):
            assert said == "Trainium cannot run", said  # no saving a buyer could have
        elif r.saving_per_run < 0:
            assert said == f"Trainium costs {fmt.money(-r.saving_per_run)} more", said
        else:
            assert said == f"Trainium saves {fmt.money(r.saving_per_run)}", said
    assert any(r.saving_per_run < 0 and r.verdict == "gpu" for r in project.results)


# --- 4. the calculator's controls on a phone ----------------------------------------------------

CONTROLS = """() => ({
  fonts: [...document.querySelectorAll('#guide-calc input:not([type=radio]):not([type=checkbox]), #guide-calc select')]
    .filter(e => e.getClientRects().length).map(e => [e.id, parseFloat(getComputedStyle(e).fontSize)]),
  targets: [...document.querySelectorAll('#guide-calc input[type=radio], #guide-calc input[type=checkbox]')]
    .filter(e => e.getClientRects().length).map(e => { const r = e.getBoundingClientRect(); return [e.id || e.value, r.width, r.height]; }),
})"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_calculator_inputs_are_16px_and_its_radios_and_boxes_24px_targets(width: int, scheme: str, open_page, served_site: str):
    page = open_page(served_site + "calculator/", width, scheme)
    page.wait_for_selector("#guide-calc[data-ready]")
    found = page.evaluate(CONTROLS)
    assert len(found["fonts"]) > 10 and len(found["targets"]) >= 3, found
    small = [f for f in found["fonts"] if f[1] < 16]
    assert not small, small
    tiny = [t for t in found["targets"] if t[1] < 24 or t[2] < 24]
    assert not tiny, tiny
    assert not page.errors


@pytest.mark.parametrize("field, message", [("#calc-hours", "Must be more than 0."), ("#calc-runs", "Must be at least 1.")])
def test_a_refused_value_gets_a_message_the_fields_bounds_agree_with_and_stays_out_of_the_link(field: str, message: str, open_page, served_site: str):
    page = open_page(served_site + "calculator/", 390)
    page.wait_for_selector("#guide-calc[data-ready]")
    page.fill("#calc-rel", "0.8")  # a valid change first: the link carries it
    page.wait_for_function("() => location.search.includes('r=0.8')")
    page.fill(field, "-5")
    page.wait_for_function("(f) => document.querySelector(f).getAttribute('aria-invalid') === 'true'", arg=field)
    assert page.inner_text(f"{field}-error") == message
    # The browser is told the same bound as the reader: an inclusive min only where "at least" is said.
    low = page.get_attribute(field, "min")
    if message.startswith("Must be at least"):
        assert low == message.removeprefix("Must be at least ").rstrip(".")
    else:
        assert low is None
    assert page.evaluate(f"() => document.querySelector('{field}').checkValidity()") == message.startswith("Must be more than")
    assert "-5" not in page.url and "r=0.8" in page.url, page.url
    page.fill(field, "13")
    page.wait_for_function("() => location.search.includes('=13')")
    assert not page.errors


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", [360, 390])
def test_on_a_phone_the_pinned_summary_steps_aside_once_the_full_answer_shows(width: int, scheme: str, open_page, served_site: str):
    page = open_page(served_site + "calculator/", width, scheme)
    page.wait_for_selector("#guide-calc[data-ready]")
    shown = "() => { const g = document.getElementById('calc-glance'); const r = g.getBoundingClientRect(); return getComputedStyle(g).visibility === 'visible' && r.bottom <= innerHeight && r.top >= 0; }"
    page.locator("#calc-runs").scroll_into_view_if_needed()
    page.wait_for_function(shown)
    # The answer's own verdict box on the screen: the summary is not drawn beside it.
    page.locator("#calc-output").scroll_into_view_if_needed()
    page.wait_for_function(f"() => !({shown})()")
    verdict = page.locator("#calc-output").bounding_box()
    assert verdict["y"] < page.viewport_size["height"]
    # Stepping aside, it leaves no empty band of its height between the form and the answer.
    gap = page.evaluate("""() => {
        const form = document.querySelector('#guide-calc form').getBoundingClientRect();
        const answer = [...document.querySelectorAll('h2')].find((h) => h.textContent.startsWith('The answer'));
        return [answer.getBoundingClientRect().top - form.bottom, document.getElementById('calc-glance').offsetHeight];
    }""")
    assert gap[0] < gap[1], gap
    # Back up in the form, it is pinned again.
    page.locator("#calc-runs").scroll_into_view_if_needed()
    page.wait_for_function(shown)
    assert not page.errors


# --- 5. the answer first on a phone -------------------------------------------------------------


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_home_page_shows_its_short_answer_and_the_calculator_on_the_first_screen(scheme: str, open_page, served_site: str):
    page = open_page(served_site, 390, scheme)
    first = page.evaluate("""() => {
      const lead = document.querySelector('.md-content .guide-lead');
      const calc = [...document.querySelectorAll('.md-content a')].find(a => /calculator\\/$/.test(a.getAttribute('href') || '') && a.getClientRects().length);
      const box = (e) => e && e.getBoundingClientRect();
      return {lead: lead && lead.textContent.trim().slice(0, 60), leadBottom: lead && box(lead).bottom, calcBottom: calc && box(calc).bottom, calcText: calc && calc.textContent};
    }""")
    assert first["lead"] and first["lead"].startswith("It depends on how many runs"), first
    assert first["calcBottom"] is not None and first["calcBottom"] <= 844, first
    assert first["leadBottom"] <= 844, first
    assert not page.errors


@pytest.mark.parametrize("width", WIDTHS)
def test_a_scenario_page_leads_with_its_verdict_saving_and_chart(width: int, open_page, served_site: str, project):
    page = open_page(served_site + "scenarios/mainstream-pretraining/", width)
    order = page.evaluate("""() => {
      const top = (e) => e ? e.getBoundingClientRect().top + scrollY : null;
      const h3 = (t) => [...document.querySelectorAll('.md-content h3')].find(h => h.textContent.startsWith(t));
      return {verdict: top(document.querySelector('.guide-verdict')), saving: top(document.querySelector('.guide-verdict__saving')),
              chart: top(document.querySelector('.md-content figure.guide-chart')), inputs: top(h3('Inputs')),
              trn3: top(h3('Trainium3')), saving_text: document.querySelector('.guide-verdict__saving').textContent};
    }""")
    assert order["verdict"] < order["saving"] < order["chart"] < order["inputs"] < order["trn3"], order
    r = next(r for r in project.results if r.id == "mainstream-pretraining")
    from generator.model import formatting as fmt

    assert fmt.money(abs(r.total_difference)) in order["saving_text"] and "Trainium costs" in order["saving_text"], order
    assert not page.errors


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", [360, 390])
def test_on_a_phone_a_scenarios_chart_paints_from_its_narrow_image_and_loads_no_vega_runtime(width: int, scheme: str, open_page,
                                                                                           served_site: str):
    # The chart is in the first screen: a live chart there would load the runtime with the page,
    # some 200-300 ms of blocking time on Lighthouse's phone (benchmarks/README.md).
    page = open_page("", width, scheme)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(served_site + "scenarios/repeated-fine-tuning/", wait_until="load")
    chart = "repeated-fine-tuning-1-cumulative"
    shown = """() => { const v = document.querySelector('.guide-chart__view');
      const img = [...v.querySelectorAll('img.guide-chart__static')].find(i => i.offsetWidth > 0);
      return img && img.complete && img.naturalWidth > 0 ? {src: img.currentSrc, drawn: img.offsetWidth, natural: img.naturalWidth,
        scheme: document.body.getAttribute('data-md-color-scheme'), top: v.getBoundingClientRect().top} : null; }"""
    page.wait_for_function(shown)
    image = page.evaluate(shown)
    dark = "-dark" if image["scheme"] == "slate" else ""
    assert image["scheme"] == ("slate" if scheme == "dark" else "default"), image
    assert image["src"].endswith(f"/embed/{chart}/{chart}-narrow{dark}.svg"), image
    # Legible: the SVG's smallest text, scaled to the width it is drawn at, is 9 px or more.
    svg = page.evaluate("(u) => fetch(u).then(r => r.text())", image["src"])
    smallest = min(float(size) for size in re.findall(r'font-size="([0-9.]+)px"', svg))
    assert image["natural"] <= 400 and smallest * image["drawn"] / image["natural"] >= 9, (image, smallest)
    # At load, and with the chart on the screen: once guide.js's observer has had its turn (one
    # registered after it, on the same chart, fires in the same frame or later), it has decided.
    for _ in ("at load", "in view"):
        page.evaluate("""() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
          const seen = new IntersectionObserver(() => { seen.disconnect(); requestAnimationFrame(() => setTimeout(done)); });
          seen.observe(document.querySelector('.guide-chart__view')); })))""")
        assert page.evaluate("document.querySelector('.guide-chart__view').getAttribute('data-live')") is None
        assert not [u for u in requested if u.endswith("/vega.js")], requested
        page.locator(".guide-chart__view").first.scroll_into_view_if_needed()
    # Every line of it (the title and source rewrapped for the width) inside the image.
    outside = page.evaluate("""(u) => fetch(u).then(r => r.text()).then((text) => {
      const box = document.createElement('div'); box.innerHTML = text; document.body.append(box);
      const svg = box.querySelector('svg').getBoundingClientRect();
      const out = [...box.querySelectorAll('svg text')].filter((t) => { const b = t.getBoundingClientRect();
        return b.width > 0 && (b.left < svg.left - 0.5 || b.right > svg.right + 0.5); }).map((t) => t.textContent);
      box.remove(); return out; })""", image["src"])
    assert outside == []
    assert not page.errors


def test_a_scenario_charts_narrow_images_are_the_size_its_page_gives_them(built_site: BuiltSite):
    folder = built_site.site / "scenarios" / "mainstream-pretraining"
    page = (folder / "index.html").read_text(encoding="utf-8")
    sources = re.findall(r'<source media="[^"]+" srcset="([^"]+)" width="([0-9]+)" height="([0-9]+)">', page)
    assert [Path(src).name for src, _, _ in sources] == ["mainstream-pretraining-1-cumulative-narrow.svg",
                                                         "mainstream-pretraining-1-cumulative-narrow-dark.svg"]
    for src, width, height in sources:
        svg = (folder / src).resolve().read_text(encoding="utf-8")
        assert re.match(r'<svg [^>]*\bwidth="([0-9]+)" height="([0-9]+)"', svg).groups() == (width, height)
        assert int(width) <= 400


def test_where_a_cheaper_way_to_buy_is_shown_the_page_says_it_is_not_the_verdicts_number(built_site: BuiltSite, project):
    with_cheaper = [r for r in project.results if any(w.outcome.trainium.cheaper_by > 0 or w.outcome.gpu.cheaper_by > 0 for w in r.workloads)]
    without = [r for r in project.results if r not in with_cheaper]
    assert with_cheaper and without
    for r in project.results:
        page = (built_site.site / "scenarios" / r.id / "index.html").read_text(encoding="utf-8")
        has_note = "data-cheapest-note" in page
        assert has_note == (r in with_cheaper), r.id
        if has_note:
            assert "The cheapest-way row does not answer the question" in page


# --- 6. the embed gallery and the decision map's axes ---------------------------------------------


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_embed_gallery_is_a_few_screens_and_names_pages_by_title(width: int, scheme: str, open_page, served_site: str):
    page = open_page(served_site + "embed/", width, scheme)
    found = page.evaluate("""() => ({
      height: document.documentElement.scrollHeight, screen: innerHeight,
      sections: document.querySelectorAll('section.guide-gallery').length,
      folded: document.querySelectorAll('details.guide-gallery__fold:not([open]) section.guide-gallery').length,
      links: [...document.querySelectorAll('section.guide-gallery .guide-meta a:first-of-type')].map(a => [a.textContent, a.getAttribute('href')]),
    })""")
    assert found["sections"] > 15 and found["folded"] == found["sections"] - 5, found
    assert found["height"] <= 7 * found["screen"], found
    assert found["links"] and not [t for t, _ in found["links"] if t.endswith(".md") or "/" in t], found["links"]
    # A folded chart opens to its image or live chart and its snippets.
    fold = page.locator("details.guide-gallery__fold").first
    fold.locator(":scope > summary").click()
    view = fold.locator(".guide-chart__view")
    view.scroll_into_view_if_needed()
    assert view.is_visible() and fold.locator("details.guide-embed").count() == 1
    assert not page.errors


def test_the_gallery_links_read_as_the_titles_of_their_pages(built_site: BuiltSite):
    gallery = (built_site.site / "embed" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<p class="guide-meta">Chart id <code>[^<]*</code> · from <a href="\.\./([^"]*)">([^<]*)</a>', gallery)
    assert len(links) > 15
    # A hand-written page by its name in the site's navigation, a scenario's by its heading.
    nav = {html.unescape(t) for t in re.findall(r'class="md-nav__link[^"]*">\s*<span class="md-ellipsis">\s*(.*?)\s*</span>', gallery, re.S)}
    for href, text in links:
        if href.startswith("scenarios/"):
            target = (built_site.site / href / "index.html").read_text(encoding="utf-8")
            h1 = html.unescape(re.sub(r"<[^>]+>", "", re.search(r"<h1[^>]*>(.*?)</h1>", target, re.S)[1])).replace("¶", "").strip()
            assert html.unescape(text) == h1, (href, text, h1)
        else:
            assert html.unescape(text) in nav, (href, text, sorted(nav))


SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("chart", ["decision-map", "decision-map-porting"])
def test_the_decision_maps_label_their_axes_on_round_evenly_spaced_values(chart: str, built_site: BuiltSite):
    root = ET.parse(built_site.site / "embed" / chart / f"{chart}.svg").getroot()
    axes = [g for g in root.iter(SVG_NS + "g") if "role-axis" in (g.get("class") or "").split()]
    labelled = []
    for axis in axes:
        labels = [t for g in axis.iter(SVG_NS + "g") if "role-axis-label" in (g.get("class") or "").split() for t in g.iter(SVG_NS + "text")]
        shown = [float(t.text) for t in labels if t.text and t.get("opacity", "1") != "0"]
        if not shown:
            continue
        labelled.append(shown)
        gaps = {round(abs(b - a), 6) for a, b in zip(shown, shown[1:])}
        assert len(shown) >= 3 and len(gaps) == 1, shown
        (gap,) = gaps
        mantissa = gap / 10 ** math.floor(math.log10(gap))
        assert round(mantissa, 6) in (1, 2, 2.5, 5), shown
        assert all(abs(v / gap - round(v / gap)) < 1e-6 for v in shown), shown
    assert len(labelled) == 2


# --- 9. a save that does not build, shown in the page ------------------------------------------


@pytest.mark.slow
def test_under_serve_a_save_that_fails_validation_shows_its_located_error_in_the_page_until_fixed(two_scenario_project: Path, tmp_path: Path, browser,
                                                                                                 seed_cache):
    from site_support import READY, Served

    root = two_scenario_project
    edited = sorted((root / "scenarios").glob("*.yaml"))[0]
    original = edited.read_text(encoding="utf-8")
    broken, count = re.subn(r"^(\s*)runs: *\d+", r"\g<1>runs: -4", original, count=1, flags=re.M)
    assert count == 1
    line = original[: re.search(r"^\s*runs: *\d+", original, re.M).start()].count("\n") + 1
    served = Served(root, seed_cache(tmp_path / "cache"))
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        base = served.wait_for(READY)[1]
        page = context.new_page()
        page.goto(f"{base}scenarios/{edited.stem}/", wait_until="load")
        title = page.locator("h1").first.inner_text()
        assert page.locator("#guide-build-error").count() == 0
        edited.write_text(broken, encoding="utf-8")
        # The browser reloads by itself and the page says what is wrong, and where.
        banner = page.locator("#guide-build-error")
        banner.wait_for(timeout=120_000)
        said = banner.inner_text()
        assert f"scenarios/{edited.name}:{line}:" in said and "runs" in said, said
        assert "did not build" in said
        assert page.locator("h1").first.inner_text() == title  # the last good page, under the banner
        box = banner.bounding_box()
        assert box["y"] == 0 and box["width"] == 390
        # Fixed, the page comes back without it.
        edited.write_text(original, encoding="utf-8")
        banner.wait_for(state="detached", timeout=120_000)
        assert page.locator("h1").first.inner_text() == title
    finally:
        context.close()
        served.stop()


# --- the social card carries the answer -----------------------------------------------------------


def _og(path: Path) -> dict[str, str]:
    return head(path).meta


def _card_png(svg: str, heading: tuple[str, ...]) -> bytes:
    import vl_convert as vlc

    from generator.rendering.charts.images import card_svg, drawable_svg

    return vlc.svg_to_png(drawable_svg(card_svg(svg, heading)))


def _holds(built_site: BuiltSite, scenario: str) -> str:
    """What a scenario's page says of whether its verdict holds, in its badge."""
    page = (built_site.site / "scenarios" / scenario / "index.html").read_text(encoding="utf-8")
    return html.unescape(re.search(r'<span class="guide-badge[^"]*" data-robust="[^"]+">([^<]+)</span>', page)[1])


def test_a_scenario_pages_card_draws_its_verdict_saving_and_title_above_its_chart(built_site: BuiltSite, project):
    from generator.model import formatting as fmt
    from generator.rendering.embeds import unfurl
    from generator.rendering.charts.images import CARD_HEIGHT, CARD_WIDTH, _only_bundled_fonts, png_size

    site_url = "https://trainium-or-gpu.github.io/guide/"
    for r in project.results[:3]:
        meta = _og(built_site.site / "scenarios" / r.id / "index.html")
        card = built_site.site / meta["og:image"][len(site_url):]
        data = card.read_bytes()
        assert png_size(data) == (CARD_WIDTH, CARD_HEIGHT)
        heading = unfurl.card_heading(r, _holds(built_site, r.id), "Trainium or GPU?")
        assert heading[0] == f"Verdict: {unfurl.VERDICT_LABELS[r.verdict]}" and heading[2] == f"Trainium or GPU? · {r.scenario.title}"
        holds = _holds(built_site, r.id)
        assert heading[1].startswith(holds[:1].upper() + holds[1:] + ". ")
        assert fmt.money(abs(r.total_difference)) in heading[1] and ("less" in heading[1]) == (r.total_difference >= 0)
        # The card is the chart's own SVG under those lines, nothing else (drawn, as the image
        # workers draw, with the bundled font alone).
        chart_svg = (card.parent / card.name.replace("-card.png", ".svg")).read_text(encoding="utf-8")
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_only_bundled_fonts) as pool:
            assert data == pool.submit(_card_png, chart_svg, heading).result()
            assert data != pool.submit(_card_png, chart_svg, ()).result()
        assert meta["og:image:alt"].startswith(". ".join(heading))


def test_the_home_pages_card_carries_the_guides_question_and_answer(built_site: BuiltSite):
    from generator.rendering.embeds import unfurl

    meta = _og(built_site.site / "index.html")
    assert meta["og:image"].endswith("/" + unfurl.SITE_CARD)
    heading = unfurl.site_card_heading("Trainium or GPU?")
    assert heading[1].startswith("Should we train") and heading[2].startswith("It depends on how many runs")
    assert unfurl.QUESTION in meta["og:image:alt"] and unfurl.ANSWER in meta["og:image:alt"]
    home = (built_site.site / "index.html").read_text(encoding="utf-8")
    assert "It depends on how many runs you make on one architecture" in home


def test_card_headings_are_legible_at_a_feeds_500px_and_wrap_inside_the_card():
    from generator.rendering.charts.images import CARD_MARGIN, CARD_WIDTH, HEADING_SIZES, card_svg

    assert min(HEADING_SIZES) * 500 / CARD_WIDTH >= 12
    chart = '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400"><rect width="640" height="400" fill="white"/></svg>'
    long_title = "A team with a very long scenario title " * 6
    drawn = card_svg(chart, ("Verdict: Trainium", "Trainium costs $1,234,567 less than the GPU over the plan", long_title))
    texts = re.findall(r'<text x="(\d+)" y="(\d+)" [^>]*font-size="(\d+)"[^>]*>([^<]*)</text>', drawn)
    assert [t[3] for t in texts[:2]] == ["Verdict: Trainium", "Trainium costs $1,234,567 less than the GPU over the plan"]
    title_lines = texts[2:]
    assert len(title_lines) == 2 and title_lines[-1][3].endswith("\u2026")
    # Liberation Sans runs under 0.55 em a character: every line ends inside the card's margin.
    for x, _, size, text in texts:
        assert int(x) + len(text) * int(size) * 0.55 <= CARD_WIDTH - CARD_MARGIN * 2, text
    assert int(texts[-1][1]) < 300  # the chart keeps most of the card


# --- 8. static images carry their size -----------------------------------------------------------


def test_every_static_chart_image_states_the_width_and_height_of_its_file(built_site: BuiltSite):
    pages = [built_site.site / "index.html", built_site.site / "embed" / "index.html", built_site.site / "embed" / "decision-map" / "index.html",
             *sorted((built_site.site / "scenarios").glob("*/index.html"))[:3]]
    seen = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for tag in re.findall(r"<img [^>]*\.svg\"[^>]*>", text):
            src = re.search(r'src="([^"]+)"', tag)[1]
            size = re.search(r'width="(\d+)" height="(\d+)"', tag)
            assert size, (page, tag)
            root = ET.parse((page.parent / src).resolve()).getroot()
            assert (root.get("width"), root.get("height")) == size.groups(), (page, src)
            seen += 1
        # The image snippet a blogger pastes states both too.
        for snippet in re.findall(r"&lt;img [^\n]*?&gt;", text):
            assert re.search(r"width=&#34;\d+&#34; height=&#34;\d+&#34;", snippet), snippet
    assert seen > 20
