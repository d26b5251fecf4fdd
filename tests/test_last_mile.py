"""What a phone, a pasted link and a first edit trip on (issue 42), checked on the built site and in
headless Chromium: one copy button per snippet, legible snippet code, snippets and the oEmbed answer
that fit any column, link discovery in every head that needs it, the home page's title said once,
tables and controls that fit a phone, and the answer first."""

from __future__ import annotations

import html
import json
import re
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
        assert len(found) == 1, path
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
        feeds = [link for link in head(path).links if link.get("rel") == "alternate" and link.get("type") == "application/atom+xml"]
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
