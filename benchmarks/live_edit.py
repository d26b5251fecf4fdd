"""How long a contributor previewing an N-scenario guide waits after saving a scenario.

In a temporary copy of this checkout whose scenarios/ holds N synthetic scenarios (build_scale's),
runs `mkdocs build` once to fill the cache, then the README's preview command (`mkdocs serve`;
`--dirty` adds MkDocs' flag of that name), waits until it serves the first scenario's page, and then, --edits times: changes that scenario's
title in its file and polls the served page every 0.05 s until the new title is there. Prints each
latency (from the save to the first response holding the new title) and their median. Also prints
how long serve took to start after the build (it should start from the build's cache).

    python benchmarks/live_edit.py 100
    python benchmarks/live_edit.py 1000 --edits 3
    python benchmarks/live_edit.py 0 --edits 5 --dirty   # the shipped scenarios, under `mkdocs serve --dirty`
    python benchmarks/live_edit.py 1000 --edits 3 --dirty --pause 65   # saves a minute apart
    python benchmarks/live_edit.py 3000 --edits 5 --dirty --spread 0.6   # saves at five points of the watcher's poll

The plugin has scenarios/ watched by the system's change notices (`generator/plugin/watching.py`).
Where none come, MkDocs' poll finds a save: it looks at the folder every half second, plus the time a
look takes, and a save a fixed pause after each page shows then tends to meet that poll at the same point
every edit, so each latency carries about the same share of the wait for the watcher, anywhere from
none to a whole period. --spread S makes the i-th pause `pause + i * S / edits`: five edits with
--spread 0.6 meet the poll at points spread over about a period, which is what saves at moments of a
contributor's choosing meet.

N = 0 keeps the shipped scenarios as they are and edits the first.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_scale import COPIED, ROOT, synthesize  # noqa: E402

# The README's preview command, as a contributor types it (plus a free port).
SERVE = ["mkdocs", "serve"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError):
        return None


def wait_for(url: str, text: str, timeout: float, proc: subprocess.Popen) -> float:
    """Seconds until the page at url holds text."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if proc.poll() is not None:
            raise SystemExit(f"mkdocs serve exited ({proc.returncode})")
        page = fetch(url)
        if page is not None and text in page:
            return time.perf_counter() - start
        time.sleep(0.05)
    raise SystemExit(f"{url} did not show {text!r} within {timeout:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--dirty", action="store_true", help="serve with --dirty (rebuild only the changed pages)")
    parser.add_argument("--pause", type=float, default=1.0,
                        help="seconds between a page shown and the next save (65: a contributor who reads the page first)")
    parser.add_argument("--spread", type=float, default=0.0,
                        help="seconds over which the pauses are spread evenly (0.6: about one period of MkDocs' watcher)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        for name in COPIED:
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, project / name)
        for cached in list((project / "generator").rglob("__pycache__")):
            shutil.rmtree(cached, ignore_errors=True)
        if args.n:
            synthesize(project / "scenarios", args.n)
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_CACHE_DIR": str(Path(tmp) / "cache")}
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(Path(tmp) / "site")], cwd=project, env=env, check=True)
        print(f"N = {args.n}: mkdocs build (cold, fills the cache) {time.perf_counter() - start:.1f} s", flush=True)
        port = free_port()
        mount = "/guide/"  # site_url's path in mkdocs.yml, which serve keeps
        scenario = sorted((project / "scenarios").glob("*.yaml"))[0]
        url = f"http://127.0.0.1:{port}{mount}scenarios/{scenario.stem}/"
        serve = [*SERVE, "--dirty"] if args.dirty else SERVE
        proc = subprocess.Popen([sys.executable, "-m", *serve, "-a", f"127.0.0.1:{port}"],
                                cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            start = time.perf_counter()
            original = scenario.read_text(encoding="utf-8")
            head = re.search(r"^title:\s*[\"']?([A-Za-z0-9 ]{1,20})", original, re.M)[1]  # the title's start
            wait_for(url, head, args.timeout, proc)
            print(f"mkdocs serve ready (first build, from the cache) {time.perf_counter() - start:.1f} s", flush=True)
            latencies = []
            for i in range(args.edits):
                time.sleep(args.pause + i * args.spread / args.edits)  # let the watcher settle after the previous rebuild
                title = f"Edited {i} {head}"
                edited = re.sub(r"^(title:\s*[\"']?)", rf"\g<1>Edited {i} ", original, count=1, flags=re.M)
                assert title in edited, "the edit did not land"
                scenario.write_text(edited, encoding="utf-8")
                saved = time.perf_counter()
                wait_for(url, html.escape(title), args.timeout, proc)
                latencies.append(time.perf_counter() - saved)
                print(f"edit {i + 1}: page served with the new title {latencies[-1]:.2f} s after the save", flush=True)
            print(f"median of {len(latencies)} edits: {statistics.median(latencies):.2f} s")
        finally:
            proc.terminate()  # under serve the plugin stops on it as on Ctrl-C: MkDocs removes the folder it served (3 GB at 3,000)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    main()
