"""Bytes a reader's browser transfers for each kind of page, raw and gzip-compressed.

Builds the site into a temporary folder, serves it on 127.0.0.1, opens each page in headless
Chromium, records every response the page loads (HTML, CSS, JavaScript, images, fonts) and sums
their sizes, raw and as gzip would send them. Two figures per page: the first view (before any
interaction), and with every chart live (each chart scrolled to and pointed at, so the chart
runtime has loaded and drawn it). Targets (issue 7): the calculator page at most 300 KB gzip with
the chart runtime included, which is the second figure.

    python benchmarks/page_weight.py
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from served import served_site  # noqa: E402

PAGES = {
    "home": "",
    "scenario": "scenarios/repeated-fine-tuning/",
    "calculator": "calculator/",
    "embed": "embed/repeated-fine-tuning-1-cumulative/",
}
CHARTS = ".guide-chart__view, #calc-chart, #chart"


def weigh(urls: set[str], site: Path, base: str) -> tuple[int, int, int]:
    raw = packed = count = 0
    for u in urls:
        if not u.startswith(base):
            continue
        rel = u[len(base):].split("?")[0].split("#")[0]
        f = site / rel
        if f.is_dir() or rel == "" or rel.endswith("/"):
            f = f / "index.html"
        if f.is_file():
            data = f.read_bytes()
            raw += len(data)
            packed += len(gzip.compress(data, 9))
            count += 1
    return raw, packed, count


def reach_charts(page) -> int:
    """Scroll to and point at every chart, as a reader would; wait until each is drawn live."""
    charts = page.locator(CHARTS)
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        chart.hover()
        chart.and_(page.locator("[data-drawn]")).wait_for(timeout=30_000)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)
    return charts.count()


def main() -> None:
    with served_site() as (site, base, browser):
        print(f"{'':<12}{'first view':>30}{'with every chart live':>34}")
        print(f"{'page':<12}{'requests':>10}{'raw KB':>10}{'gzip KB':>10}{'charts':>8}{'requests':>10}{'raw KB':>8}{'gzip KB':>8}")
        for name, path in PAGES.items():
            page = browser.new_page()
            urls: set[str] = set()
            page.on("requestfinished", lambda r, urls=urls: urls.add(r.url))
            page.goto(base + path, wait_until="networkidle")
            page.wait_for_timeout(500)
            raw, packed, count = weigh(urls, site, base)
            charts = reach_charts(page)
            raw2, packed2, count2 = weigh(urls, site, base)
            page.close()
            print(f"{name:<12}{count:>10}{raw / 1024:>10.0f}{packed / 1024:>10.0f}"
                  f"{charts:>8}{count2:>10}{raw2 / 1024:>8.0f}{packed2 / 1024:>8.0f}")


if __name__ == "__main__":
    main()
