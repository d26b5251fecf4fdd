"""Bytes a reader's browser transfers for each kind of page, raw and gzip-compressed.

Builds the site into a temporary folder, serves it on 127.0.0.1, opens each page in headless
Chromium, records every response the page loads (HTML, CSS, JavaScript, images, fonts) and sums
their sizes, raw and as gzip would send them. Targets (issue 7): the calculator page at most
300 KB gzip with the chart runtime included.

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


def weigh(page, url: str, site: Path, base: str) -> tuple[int, int, int]:
    paths: set[str] = set()
    page.on("requestfinished", lambda r: paths.add(r.url))
    page.goto(url, wait_until="networkidle")
    page.wait_for_timeout(500)
    raw = packed = 0
    for u in paths:
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
    return raw, packed, len(paths)


def main() -> None:
    with served_site() as (site, base, browser):
        print(f"{'page':<12}{'requests':>10}{'raw KB':>10}{'gzip KB':>10}")
        for name, path in PAGES.items():
            page = browser.new_page()
            raw, packed, count = weigh(page, base + path, site, base)
            page.close()
            print(f"{name:<12}{count:>10}{raw / 1024:>10.0f}{packed / 1024:>10.0f}")


if __name__ == "__main__":
    main()
