"""Bytes a reader's browser transfers for each kind of page, raw and gzip-compressed.

Builds the site into a temporary folder, serves it on 127.0.0.1, opens each page in headless
Chromium, records every response the page loads (HTML, CSS, JavaScript, images, fonts) and sums
their sizes, raw and as gzip would send them. Targets (issue 7): the calculator page at most
300 KB gzip with the chart runtime included.

    python benchmarks/page_weight.py
"""

from __future__ import annotations

import functools
import gzip
import os
import shutil
import subprocess
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
PAGES = {
    "home": "",
    "scenario": "scenarios/repeated-fine-tuning/",
    "calculator": "calculator/",
    "embed": "embed/repeated-fine-tuning-1-cumulative/",
}


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


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
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        subprocess.run(["mkdocs", "build", "-q", "-d", str(site)], cwd=ROOT, env=env, check=True)
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
            print(f"{'page':<12}{'requests':>10}{'raw KB':>10}{'gzip KB':>10}")
            for name, path in PAGES.items():
                page = browser.new_page()
                raw, packed, count = weigh(page, base + path, site, base)
                page.close()
                print(f"{name:<12}{count:>10}{raw / 1024:>10.0f}{packed / 1024:>10.0f}")
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
