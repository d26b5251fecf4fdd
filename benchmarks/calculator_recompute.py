"""Time one recompute of the calculator in headless Chromium (target: under 16 ms).

Builds the site into a temporary folder, serves it on 127.0.0.1, loads the calculator, changes an
input many times and reads the time the page itself measured for each recompute (form read,
engine, ranges, thresholds and the DOM update; the chart redraw is asynchronous and not counted).

    python benchmarks/calculator_recompute.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        subprocess.run(["mkdocs", "build", "-q", "-d", str(site)], cwd=ROOT, env=env, check=True)
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
            page = browser.new_page()
            page.goto(base + "calculator/")
            page.wait_for_selector("#guide-calc[data-ready]")
            times = []
            for i in range(args.repeat):
                page.fill("#calc-runs", str(5 + i % 50))
                times.append(float(page.get_attribute("#guide-calc", "data-recompute-ms")))
            browser.close()
        server.shutdown()
    times.sort()
    print(f"calculator recompute over {len(times)} changes (ms): median {statistics.median(times):.2f}, "
          f"p95 {times[int(len(times) * 0.95) - 1]:.2f}, max {times[-1]:.2f}  (target: under 16)")


if __name__ == "__main__":
    main()
