"""What each static image of a chart costs to make, and what that leaves of issue 13's cold target.

Renders the images of every chart this checkout's site has (one worker's work, in this process,
with the workers' font setting), --repeat times, and prints the median milliseconds of CPU per
chart for each step of `images._render`: the Vega run to the light SVG, its dark restyling, the
two rasterisations, the 1200x630 card links unfurl to (issue 31), a scenario chart's narrow SVG
(a second Vega run) and its dark restyling (issue 42; a median over the charts that have one, which
at N scenarios are all but five of the charts), and two floors (a Vega run of an empty spec, and a PNG of a blank canvas as
large as a chart's). Then the arithmetic for N charts on C cores: the CPU seconds the images need
and the least wall time they add, against 3x a floor build of F seconds with a warm build of W.

    python benchmarks/image_cost.py
    python benchmarks/image_cost.py --charts 1072 --floor 8.6 --warm 14.7 --cores 2
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cpu_ms(fn) -> tuple[float, object]:
    start = time.process_time()
    out = fn()
    return (time.process_time() - start) * 1000, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--charts", type=int, default=1072, help="charts at N = 1000 scenarios (default 1072)")
    parser.add_argument("--floor", type=float, default=8.6, help="the prose floor's build, seconds")
    parser.add_argument("--warm", type=float, default=14.7, help="our warm build, seconds (everything but images)")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()

    from generator.rendering.embeds import folders as embeds
    from generator.rendering.charts import images
    from generator.rendering.generate import generate
    from generator.store.cachefile import Cache

    images._only_bundled_fonts()
    import vl_convert as vlc

    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp))
        made = generate(ROOT, cache, "https://example.test/guide/", dt.date.today(), images.Images(cache, render=False))
    jobs = [files.job for files in made.site.embeds]
    specs = [json.loads(job.spec) for job in jobs]
    vlc.vega_to_svg(specs[0], allowed_base_urls=[])  # the first run loads Vega
    steps: dict[str, list[float]] = {"svg (Vega run)": [], "dark svg": [], "png": [], "dark png": [], "card png": [],
                                     "narrow svg (Vega run)": [], "narrow dark svg": []}
    for _ in range(args.repeat):
        for job, spec in zip(jobs, specs):
            ms, svg = cpu_ms(lambda: vlc.vega_to_svg(spec, allowed_base_urls=[]))
            steps["svg (Vega run)"].append(ms)
            ms, dark = cpu_ms(lambda: images.dark_svg(svg))
            steps["dark svg"].append(ms)
            ms, _ = cpu_ms(lambda: vlc.svg_to_png(images.drawable_svg(svg), scale=images.PNG_SCALE))
            steps["png"].append(ms)
            ms, _ = cpu_ms(lambda: vlc.svg_to_png(images.drawable_svg(dark), scale=images.PNG_SCALE))
            steps["dark png"].append(ms)
            ms, _ = cpu_ms(lambda: vlc.svg_to_png(images.drawable_svg(images.card_svg(svg))))
            steps["card png"].append(ms)
            if job.narrow_height:
                ms, narrow = cpu_ms(lambda: vlc.vega_to_svg(images.narrow_spec(spec, job.narrow_height), allowed_base_urls=[]))
                steps["narrow svg (Vega run)"].append(ms)
                ms, _ = cpu_ms(lambda: images.dark_svg(narrow))
                steps["narrow dark svg"].append(ms)
    empty = {"$schema": "https://vega.github.io/schema/vega/v5.json", "width": embeds.EXPORT_WIDTH, "height": 400, "marks": []}
    blank = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{embeds.EXPORT_WIDTH}" height="400">'
             f'<rect width="{embeds.EXPORT_WIDTH}" height="400" fill="white"/></svg>')
    floors = {
        "Vega run, empty spec": statistics.median(cpu_ms(lambda: vlc.vega_to_svg(empty))[0] for _ in range(20)),
        f"PNG of a blank {embeds.EXPORT_WIDTH}x400 chart at {images.PNG_SCALE}x": statistics.median(
            cpu_ms(lambda: vlc.svg_to_png(blank, scale=images.PNG_SCALE))[0] for _ in range(20)),
    }

    print(f"{len(specs)} charts in this checkout's site, {args.repeat} rounds; CPU ms per chart, median")
    total = 0.0
    for name, values in steps.items():
        m = statistics.median(values)
        total += m
        print(f"  {name:<28} {m:7.1f}")
    print(f"  {'all seven images':<28} {total:7.1f}")
    for name, m in floors.items():
        print(f"  floor: {name:<40} {m:7.1f}")
    cpu_s = total * args.charts / 1000
    least_wall = cpu_s / args.cores
    budget = 3 * args.floor - args.warm
    print(f"{args.charts} charts: {cpu_s:.0f} CPU s of images; at least {least_wall:.0f} s of wall on {args.cores} cores")
    card = statistics.median(steps["card png"]) * args.charts / 1000
    print(f"  of which the cards: {card:.0f} CPU s, at least {card / args.cores:.0f} s of wall on {args.cores} cores")
    print(f"issue 13's cold target, 3 x {args.floor:g} s = {3 * args.floor:.1f} s, leaves {budget:.1f} s beside a "
          f"{args.warm:g} s warm build: {budget * args.cores * 1000 / args.charts:.1f} CPU ms per chart at most")
    svg_only = statistics.median(steps["svg (Vega run)"]) * args.charts / 1000 / args.cores
    print(f"light SVG alone (one Vega run a chart): at least {svg_only:.0f} s of wall, "
          f"a cold build of at least {(args.warm + svg_only) / args.floor:.1f}x the floor")


if __name__ == "__main__":
    main()
