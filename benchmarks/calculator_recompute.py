"""Time one recompute of the calculator in headless Chromium (target: under 16 ms).

Builds the site into a temporary folder, serves it on 127.0.0.1, loads the calculator, changes an
input many times and reads the time the page itself measured for each recompute (form read,
engine, ranges, thresholds and the DOM update; the chart redraw is asynchronous and not counted).

    python benchmarks/calculator_recompute.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from served import served_site  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with served_site() as (_, base, browser):
        page = browser.new_page()
        page.goto(base + "calculator/")
        page.wait_for_selector("#guide-calc[data-ready]")
        times = []
        for i in range(args.repeat):
            page.fill("#calc-runs", str(5 + i % 50))
            times.append(float(page.get_attribute("#guide-calc", "data-recompute-ms")))
    times.sort()
    print(f"calculator recompute over {len(times)} changes (ms): median {statistics.median(times):.2f}, "
          f"p95 {times[int(len(times) * 0.95) - 1]:.2f}, max {times[-1]:.2f}  (target: under 16)")


if __name__ == "__main__":
    main()
