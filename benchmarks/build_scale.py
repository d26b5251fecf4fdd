"""How the build grows with the number of scenarios, against a plain Material build of as many pages.

For each N, in a temporary copy of this checkout whose scenarios/ holds N synthetic scenarios
(valid, each different, made from the shipped ones with other numbers and titles):

  cold     `mkdocs build` with an empty cache (no image, no compiled spec, no runtime bundle)
  warm     the same build again, nothing changed
  changed  the build after one scenario's numbers changed
  baseline the floor (issue 13): a Material site with the same theme settings (`font: false`,
           search on), an index.md in the nav and N plain prose pages kept out of the nav, each
           a heading, about 80 short sentences, a 10-row table and one admonition. Every ratio is
           against this build.
  same-md  a second column: a plain Material build (same theme, same Markdown extensions, no hook,
           no generator) of our hand-written pages plus, for each scenario, the Markdown our
           generator wrote. It shows what converting our pages costs by itself.

Prints wall time, CPU time (the build and its worker processes), peak memory (the sum over the
build's whole process tree, sampled every 0.1 s) and the ratios to the baseline. The builds take
turns, --repeat rounds of baseline, cold (each from an empty cache of its own), same-Markdown, warm
and changed, and the ratios use the baseline's median; the medians get rows of their own. Targets at N = 1000 (issue 13): warm at most
1.3x the baseline, cold at most 3x, peak memory under 1 GiB.

    python benchmarks/build_scale.py                 # N = 10, 100, 1000
    python benchmarks/build_scale.py 1000 --repeat 5
    python benchmarks/build_scale.py 1000 --no-same-md   # only the prose baseline
"""

from __future__ import annotations

import argparse
import io
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
COPIED = ["mkdocs.yml", "docs", "generator", "scenarios", "data", "schemas", "pyproject.toml"]


def _yaml() -> YAML:
    y = YAML()
    y.width = 4096
    return y


def synthesize(scenarios: Path, n: int, seed: int = 7) -> None:
    """N valid scenarios, each a shipped one with its numbers moved and a title of its own."""
    y = _yaml()
    templates = [y.load(p.read_text(encoding="utf-8")) for p in sorted(scenarios.glob("*.yaml"))]
    for p in scenarios.glob("*.yaml"):
        p.unlink()
    rng = random.Random(seed)
    for i in range(n):
        doc = templates[i % len(templates)]
        doc = y.load(_dump(y, doc))  # a fresh copy
        doc["title"] = f"Synthetic team {i:04d}: {doc['title']}"
        for w in doc["workloads"]:
            if "runs" in w:
                w["runs"] = max(1, round(w["runs"] * rng.uniform(0.3, 3.0)))
            for side in ("trainium", "gpu"):
                w[side]["count"] = max(1, round(w[side].get("count", 1) * rng.uniform(0.5, 2.0)))
            size = w["run_size"]
            if "gpu_instance_hours" in size:
                size["gpu_instance_hours"] = round(size["gpu_instance_hours"] * rng.uniform(0.2, 5.0), 1)
            else:
                size["tokens_billion"] = round(size["tokens_billion"] * rng.uniform(0.2, 5.0), 1)
            rt = w.get("relative_throughput")
            if isinstance(rt, dict):
                f = rng.uniform(0.8, 1.25)
                rt["low"], rt["value"], rt["high"] = (round(rt[k] * f, 3) for k in ("low", "value", "high"))
        (scenarios / f"synthetic-{i:04d}.yaml").write_text(_dump(y, doc), encoding="utf-8")
    settle_expectations(scenarios.parent, sorted(scenarios.glob("*.yaml")))


def settle_expectations(root: Path, paths: list[Path]) -> None:
    """Moved numbers can move the verdict: set each file's `expect` to what the engine now says."""
    from generator.inputs.loader import load_project

    y = _yaml()
    results = load_project(root, [str(p) for p in paths], check_expect=False).results
    for path, r in zip(paths, results, strict=True):
        if r.verdict != r.scenario.expect:
            doc = y.load(path.read_text(encoding="utf-8"))
            doc["expect"] = r.verdict
            path.write_text(_dump(y, doc), encoding="utf-8")


def _dump(y: YAML, doc) -> str:
    out = io.StringIO()
    y.dump(doc, out)
    return out.getvalue()


def change_one(scenarios: Path) -> None:
    y = _yaml()
    p = sorted(scenarios.glob("*.yaml"))[0]
    doc = y.load(p.read_text(encoding="utf-8"))
    doc["workloads"][0]["runs"] += 1
    p.write_text(_dump(y, doc), encoding="utf-8")
    settle_expectations(scenarios.parent, [p])


def timed_build(project: Path, cache: Path, site: Path, pythonpath: Path | None = None) -> tuple[float, int, float]:
    """Wall seconds, peak resident bytes summed over the build's process tree, and CPU seconds
    (user and system, the build and its workers): wall time swings when other work shares the
    machine, CPU time much less."""
    # Flush what the previous build wrote first: a thousand scenarios' images still going to disk
    # would slow the next build down for reasons of their own.
    os.sync()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_CACHE_DIR": str(cache)}
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)], cwd=project, env=env)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        root = psutil.Process(proc.pid)
        while not done.is_set():
            try:
                procs = [root, *root.children(recursive=True)]
                total = 0
                for p in procs:
                    try:
                        total += p.memory_info().rss
                    except psutil.Error:
                        pass
                peak = max(peak, total)
            except psutil.Error:
                pass
            # Every 0.1 s: listing the process tree reads all of /proc, and at 0.02 s the sampler
            # took a quarter of a core from the build it measures.
            done.wait(0.1)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    rc = proc.wait()
    seconds = time.perf_counter() - start
    done.set()
    t.join()
    if rc:
        raise SystemExit(f"mkdocs build failed in {project} (exit {rc})")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, peak, cpu


def baseline_project(ours: Path, dest: Path) -> None:
    """Our hand-written pages plus, as plain files, the Markdown the generator makes for each scenario."""
    from generator.store.cachefile import Cache
    from generator.inputs.loader import load_project
    from generator.rendering.pages.renderer import Renderer

    project = load_project(ours)
    pages = Renderer(project, site_url="https://example.org/", cache=Cache(dest / "unused-cache")).render().pages
    shutil.copytree(ours / "docs", dest / "docs")
    for path, markdown in pages.items():
        if path.startswith("scenarios/") and path != "scenarios/index.md":
            target = dest / "docs" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(markdown, encoding="utf-8")
    # The nav names scenarios/index.md, embed.md ... which only the generator makes: give them a plain page.
    for path in ("scenarios/index.md", "prices.md", "sources.md", "embed.md", "reference/schema.md"):
        target = dest / "docs" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.write_text(pages.get(path, "# Page\n"), encoding="utf-8")
    lines = (ours / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    # The floor is Material alone: no guide plugin, nor what is indented under it.
    out, under = [], None
    for line in lines:
        if line.startswith("  - guide"):
            under = len(line) - len(line.lstrip())
            continue
        if under is not None and (not line.strip() or len(line) - len(line.lstrip()) > under):
            continue
        under = None
        out.append(line)
    (dest / "mkdocs.yml").write_text("\n".join(out) + "\n", encoding="utf-8")
    shutil.rmtree(dest / "unused-cache", ignore_errors=True)


SUBJECTS = ["The team", "Each run", "The cluster", "Our model", "The budget", "A new port", "The queue", "This plan"]
VERBS = ["needs", "takes", "costs", "finds", "keeps", "moves", "checks", "saves"]
OBJECTS = ["more time", "a fresh checkpoint", "two weeks", "the data", "less money", "every token", "a larger batch", "one region"]
ENDINGS = ["today", "in March", "on most days", "after the review", "before noon", "at night", "this quarter", "as planned"]


def prose_project(ours: Path, dest: Path, n: int, seed: int = 11) -> None:
    """The floor issue 13 measures against: Material with our theme settings and N ordinary prose pages."""
    rng = random.Random(seed)
    docs = dest / "docs"
    (docs / "pages").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nA plain Material site of prose pages.\n", encoding="utf-8")
    for i in range(n):
        sentences = []
        for _ in range(80):
            parts = (rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(ENDINGS))
            sentences.append(" ".join(parts) + ".")
        paragraphs = "\n\n".join(" ".join(sentences[k:k + 8]) for k in range(0, 80, 8))
        table = "| item | value | note |\n|---|---|---|\n" + "".join(
            f"| row {r} | {rng.randint(1, 10_000)} | {rng.choice(OBJECTS)} |\n" for r in range(10)
        )
        page = f"# Page {i:04d}\n\n{paragraphs}\n\n{table}\n!!! note \"A note\"\n    {sentences[0]}\n"
        (docs / "pages" / f"page-{i:04d}.md").write_text(page, encoding="utf-8")
    # Our theme block as it is, then only what the floor needs: search, admonitions and tables.
    lines = (ours / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("theme:"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith((" ", "#")))
    config = [
        "site_name: Prose floor",
        "site_url: https://example.org/floor/",
        *lines[start:end],
        "plugins:",
        "  - search",
        "markdown_extensions:",
        "  - admonition",
        "  - tables",
        "nav:",
        "  - Home: index.md",
        "not_in_nav: |",
        "  /pages/*.md",
    ]
    (dest / "mkdocs.yml").write_text("\n".join(config) + "\n", encoding="utf-8")


def measure(n: int, work: Path, repeat: int, same_md: bool = True) -> None:
    """Builds and prints one row as each build ends. The baseline and the warm build take turns,
    `repeat` times each, and their medians make the ratios: on a shared machine the same build
    moves by a fifth from one minute to the next, and taking turns exposes both to the same drift."""
    ours = work / f"ours-{n}"
    ours.mkdir()
    for name in COPIED:
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, ours / name)
    for cached in list((ours / "generator").rglob("__pycache__")):
        shutil.rmtree(cached, ignore_errors=True)
    synthesize(ours / "scenarios", n)
    floor = work / f"prose-{n}"
    floor.mkdir()
    prose_project(ours, floor, n)
    same = work / f"same-md-{n}"
    if same_md:
        same.mkdir()
        baseline_project(ours, same)
    cache, site = work / f"cache-{n}", work / f"site-{n}"
    baseline = lambda: timed_build(floor, work / f"prose-cache-{n}", work / f"prose-site-{n}")  # noqa: E731
    # The same-Markdown build keeps our Markdown extensions, one of which (the math fence) lives in generator/.
    same_md_build = lambda: timed_build(same, work / f"same-cache-{n}", work / f"same-site-{n}", pythonpath=ours)  # noqa: E731
    warm = lambda: timed_build(ours, cache, site)  # noqa: E731
    kinds = ("baseline", "cold", "same-md", "warm", "changed") if same_md else ("baseline", "cold", "warm", "changed")
    runs: dict[str, list[tuple[float, int, float]]] = {kind: [] for kind in kinds}
    for i in range(repeat):
        runs["baseline"].append(baseline())
        row(n, "baseline", *runs["baseline"][-1], None)
        # The first cold build fills the cache the warm builds read; later ones start from their own.
        fresh = cache if i == 0 else work / f"cache-{n}-cold-{i}"
        runs["cold"].append(timed_build(ours, fresh, site))
        row(n, "cold", *runs["cold"][-1], _median(runs["baseline"]))
        if fresh != cache:
            shutil.rmtree(fresh)
            timed_build(ours, cache, site)  # the site again from the warm cache, as the next warm build expects
        if same_md:
            runs["same-md"].append(same_md_build())
            row(n, "same-md", *runs["same-md"][-1], _median(runs["baseline"]))
        runs["warm"].append(warm())
        row(n, "warm", *runs["warm"][-1], _median(runs["baseline"]))
        change_one(ours / "scenarios")  # one more run in the first scenario: a new change every time
        runs["changed"].append(timed_build(ours, cache, site))
        row(n, "changed", *runs["changed"][-1], _median(runs["baseline"]))
    if repeat > 1:
        mid = _median(runs["baseline"])
        for kind in kinds:
            row(n, kind, *_median_row(runs[kind]), None if kind == "baseline" else mid, "median")


def _median_row(runs: list[tuple[float, int, float]]) -> tuple[float, int, float]:
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), statistics.median(r[2] for r in runs)


def _median(runs: list[tuple[float, int, float]]) -> tuple[float, float]:
    seconds, _, cpu = _median_row(runs)
    return seconds, cpu


def row(n: int, kind: str, seconds: float, peak: int, cpu: float, baseline: tuple[float, float] | None, note: str = "") -> None:
    ratios = f"{seconds / baseline[0]:>11.2f} {cpu / baseline[1]:>9.2f}" if baseline else f"{'':>11} {'':>9}"
    print(f"{n:>6} {kind:<9} {seconds:>9.1f} {cpu:>8.1f} {peak / 2**20:>9.0f} {ratios} {note}".rstrip(), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3, help="rounds of baseline, cold, warm and changed builds, taking turns (default 3)")
    parser.add_argument("--no-same-md", dest="same_md", action="store_false", help="leave out the same-Markdown column")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"{'N':>6} {'build':<9} {'seconds':>9} {'cpu s':>8} {'peak MiB':>9} {'x baseline':>11} {'x cpu':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            measure(n, Path(tmp), max(1, args.repeat), args.same_md)


if __name__ == "__main__":
    main()
