"""Helpers for the site tests: copies of the project to build, `mkdocs build` and `mkdocs serve` in a
subprocess, hashes of trees and built sites, and the scenario whose every string is hostile. The
fixtures built from them live in conftest.py; test modules import helpers from here, never from
conftest.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

REPO = Path(__file__).resolve().parents[1]
# The site is built from the frozen copy of data/ and scenarios/ (see core_support.FROZEN), so a
# price refresh or a new scenario never changes what the site tests expect.
FROZEN = REPO / "tests" / "fixtures" / "project"
FROZEN_PARTS = ("data", "scenarios")
# What a build reads. generator/ is installed, but mkdocs.yml names the hook module by path.
PROJECT_PARTS = ("mkdocs.yml", "docs", "generator", "scenarios", "data", "schemas")
# What the build must not write into.
SOURCE_PARTS = ("mkdocs.yml", "docs", "generator", "scenarios", "data", "schemas")
# Debian's build of Chromium's headless shell, the browser Playwright itself runs headless: Blink and
# V8 as in Chromium, without the browser's own windows and pages around them (the full browser, run
# headless, loads its omnibox popup into every new window). The suite's pages cost about a quarter
# less CPU in it.
CHROMIUM = "/usr/bin/chromium-headless-shell"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


def copy_project(dest: Path, *, shipped: bool = False) -> Path:
    """Copy what `mkdocs build` needs into dest: the frozen data/ and scenarios/ with the cached Vega
    bundle (a second to make), or with shipped=True the repository's own with this checkout's
    whole cache, where its charts' images are."""
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in PROJECT_PARTS:
        src = (FROZEN if part in FROZEN_PARTS and not shipped else REPO) / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=ignore)
        else:
            shutil.copy2(src, dest / part)
    cache = REPO / ".cache"
    if shipped and cache.is_dir():
        shutil.copytree(cache, dest / ".cache", ignore=shutil.ignore_patterns("*.tmp"))
    for runtime in cache.glob("vega-runtime-*.js") if not shipped else ():
        (dest / ".cache").mkdir(exist_ok=True)
        shutil.copy2(runtime, dest / ".cache" / runtime.name)
    return dest


# Two scenarios of the frozen project, a Trainium and a GPU verdict: enough for the cache's tests,
# which build them on this day (GUIDE_TODAY).
TWO_SCENARIO_DAY = "2026-11-21"
TWO_SCENARIOS = frozenset({"case-continuous-pretraining-trn1n.yaml", "case-series-a-startup.yaml"})


def copy_two_scenario_project(dest: Path) -> Path:
    """copy_project(dest) with only TWO_SCENARIOS left in its scenarios/."""
    root = copy_project(dest)
    for extra in (root / "scenarios").glob("*.yaml"):
        if extra.name not in TWO_SCENARIOS:
            extra.unlink()
    return root


# The stores that hold what any build of the guide makes the same way, whichever project it builds:
# chart images, charts compiled to Vega, the Vega runtime and compiled templates, each keyed by the
# code, the libraries and the chart or template. A machine that has built the guide once holds them.
# Made afresh they are some two thirds of a cold build of the two-scenario project (4.4 of 6.4 s of
# CPU), so a test about what a build does with its pages starts from them (`seed_machine_stores`);
# the tests of those stores themselves start empty.
MACHINE_STORES = ("images", "vega", "assets", "compiled")


def machine_store_files(pool: Path) -> list[str]:
    """The paths in pool of its MACHINE_STORES entries, found once for every test that seeds from it."""
    from generator.store.registry import STORES

    stores = [STORES[name] for name in MACHINE_STORES]
    files, found = [], set()
    for path in sorted(pool.rglob("*")):
        name = path.relative_to(pool).as_posix()
        owner = next((store.name for store in stores if store.has(name)), None)
        if path.is_file() and owner:
            files.append(name)
            found.add(owner)
    # A store renamed or moved in the registry would otherwise leave every seeded test cold, unseen.
    assert found == set(MACHINE_STORES), f"the pool {pool} holds nothing of {sorted(set(MACHINE_STORES) - found)}"
    return files


def seed_machine_stores(pool: Path, files: list[str], cache: Path) -> Path:
    """A new cache folder holding a copy of these files of pool (`machine_store_files`): copies, not
    links, since a test may damage its cache's files in place."""
    cache.mkdir(parents=True)
    for name in files:
        (cache / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(pool / name, cache / name)
    return cache


def pretend_upgraded(monkeypatch, distribution: str) -> None:
    """importlib.metadata reports version 99.0 for one distribution, as after an upgrade."""
    from importlib import metadata

    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "99.0" if name == distribution else real(name))


def leave_out_of_entry_names(monkeypatch, part: str) -> None:
    """Entries are named as though one part of their key, an entry's own or one all share, were not
    there: for the tests that show a key test fails without that part."""
    from generator.store.registry import EntryNames

    real = EntryNames.path

    def without(self, own):
        assert part in {**self.common, **own}, part
        shared = EntryNames(self.directory, {n: v for n, v in self.common.items() if n != part})
        return real(shared, {n: v for n, v in own.items() if n != part})

    monkeypatch.setattr(EntryNames, "path", without)


def tree_hashes(root: Path, parts: tuple[str, ...] = SOURCE_PARTS) -> dict[str, str]:
    """sha256 of every file under the given files and folders, by path relative to root."""
    out = {}
    for part in parts:
        base = root / part
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        for path in paths:
            out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def run_mkdocs_build(root: Path, out: Path, config: str = "mkdocs.yml", cache: Path | None = None,
                     env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # One image cache for every build of the session (the repository's own .cache, outside the
    # inputs), so each temporary copy does not render every chart again; a test may pass its own.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_CACHE_DIR": str(cache or REPO / ".cache"), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config, "-d", str(out)],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )


def site_hashes(site: Path) -> dict[str, str]:
    """sha256 of every file of a built site, by its path there."""
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(site.rglob("*")) if p.is_file()}


def build_into(root: Path, out: Path, cache: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of root into out with this cache (and these variables besides); the build must pass."""
    proc = run_mkdocs_build(root, out, cache=cache, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc


@dataclass(frozen=True)
class BuiltSite:
    root: Path  # the project copy the site was built from
    site: Path  # the built site
    output: str  # stdout + stderr of the build
    before: dict[str, str]  # tree_hashes(root) before the build
    after: dict[str, str]  # and after it

    def dumps(self) -> str:
        return json.dumps({"root": str(self.root), "site": str(self.site), "output": self.output,
                           "before": self.before, "after": self.after})

    @classmethod
    def loads(cls, text: str) -> BuiltSite:
        d = json.loads(text)
        return cls(Path(d["root"]), Path(d["site"]), d["output"], d["before"], d["after"])


def build_copy(root: Path, config: str = "mkdocs.yml", cache: Path | None = None,
               env: dict[str, str] | None = None) -> BuiltSite:
    """Build an already prepared project copy into root/site-out (with run_mkdocs_build's cache and
    variables); the build must pass --strict."""
    before = tree_hashes(root)
    site = root / "site-out"
    proc = run_mkdocs_build(root, site, config, cache, env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed ({proc.returncode}):\n{output}"
    return BuiltSite(root, site, output, before, tree_hashes(root))


# --- addresses into the site ----------------------------------------------------------------------

# Attributes whose value is an address wherever it is relative (data-spec: what the embed gallery
# fetches), and the one whose value is an address only where it is absolute (a <meta> tag's content).
_ADDRESS_ATTRS = ("href", "src", "data-spec")


class _Addresses(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in _ADDRESS_ATTRS or (name == "content" and value.startswith(("http://", "https://"))):
                self.found.append(value.strip())


def missing_targets(site: Path, site_url: str) -> list[str]:
    """Every address the built site gives that points into it and names no file there: href, src and
    data-spec in its HTML, absolute addresses in <meta> content (og:image, og:url), and those of its
    oEmbed files (thumbnail_url, provider_url). One "page: address" line each."""
    missing = []

    def check(source: Path, base: str, address: str) -> None:
        parts = urlsplit(address)
        if parts.scheme not in ("", "http", "https") or address.startswith("#"):
            return
        absolute = urljoin(base, address)
        if not absolute.startswith(site_url):
            return
        path = unquote(urlsplit(absolute).path)[len(urlsplit(site_url).path):]
        target = site / path
        if not path or path.endswith("/") or target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            missing.append(f"{source.relative_to(site).as_posix()}: {address}")

    for page in sorted(site.rglob("*.html")):
        base = site_url + page.relative_to(site).as_posix()
        parser = _Addresses()
        parser.feed(page.read_text(encoding="utf-8"))
        for address in parser.found:
            check(page, base, address)
    for oembed in sorted(site.rglob("oembed.json")):
        for key, value in json.loads(oembed.read_text(encoding="utf-8")).items():
            if key.endswith("url") and isinstance(value, str):
                check(oembed, site_url + oembed.relative_to(site).as_posix(), value)
    return missing


# --- untrusted text -----------------------------------------------------------------------------

UNTRUSTED_ID = "zz-untrusted-text"
PAYLOADS = {
    "script": "<script>window.__pwned=1</script>",
    "img": '<img src=x onerror="window.__pwned=2">',
    "link": "[click](javascript:window.__pwned=3)",
    "bold": "**bold**",
    "attr": '{: onclick="window.__pwned=4"}',
    "math": "$x^2$",
    "breakout": "</script><script>window.__pwned=5</script>",
    "quotes": "\"'&",
    "placeholder": "<!-- guide:html 0 -->",  # what passthrough swaps a raw HTML block for
}


def untrusted_scenario() -> dict:
    """A valid scenario (one-off-run's numbers, so its `expect` holds) whose every string is hostile."""
    import yaml

    base = yaml.safe_load((FROZEN / "scenarios" / "one-off-run.yaml").read_text(encoding="utf-8"))
    p = PAYLOADS
    every = " ".join(p.values())
    base["title"] = f"Hostile {p['script']} {p['bold']} {p['attr']} {p['math']} {p['quotes']} {p['img']} {p['placeholder']}"
    base["summary"] = f"Summary {every}"
    # Blank lines try to end the HTML block the text sits in, so what follows would be read as Markdown.
    base["notes"] = "\n\n".join([f"Notes {p['script']}", p["img"], p["link"], p["bold"], f"text\n{p['attr']}", p["math"], p["breakout"], p["quotes"]])
    base["sources"] = [f"{p['link']} {p['bold']}", p["script"], f"{p['img']} {p['quotes']}", p["breakout"], f"- {p['attr']}"]
    w = base["workloads"][0]
    w["name"] = p["breakout"]  # lands in chart titles, inside <script type="application/json">
    w["description"] = f"Description\n\n{every}"
    w["rationale"] = {
        "architecture": every,
        "run_size": f"{p['img']}\n\n{p['bold']}",
        "runs": p["link"],
        "trainium": p["script"],
        "gpu": p["breakout"],
        "relative_throughput": f"{p['math']} {p['attr']}",
        "porting": p["quotes"],
        "neuron_experience": p["bold"],
        "availability": p["img"],
        "constraints": p["breakout"],
    }
    return base


def write_untrusted_scenario(root: Path) -> Path:
    import yaml

    from generator.model.schema import MODELINE

    text = MODELINE + "\n" + yaml.safe_dump(untrusted_scenario(), sort_keys=False, allow_unicode=True, width=1000)
    path = root / "scenarios" / f"{UNTRUSTED_ID}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# --- mkdocs serve -------------------------------------------------------------------------------

READY = re.compile(r"Serving on (http://\S+)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`mkdocs serve` in a subprocess; its log is collected line by line."""

    def __init__(self, root: Path, cache: Path, *args: str, env: dict[str, str] | None = None):
        self.lines: list[str] = []
        self.changed = threading.Condition()
        env = env if env is not None else {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        env = {**env, "GUIDE_CACHE_DIR": str(cache)}
        self.proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{free_port()}", *args],
                                     cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(self, pattern: re.Pattern[str], timeout: float = 300) -> re.Match[str]:
        """The first log line matching pattern, waiting for it to be written."""
        found: list[re.Match[str]] = []

        def seen() -> bool:
            found[:] = [m for m in map(pattern.search, self.lines) if m][:1]
            return bool(found) or self.proc.poll() is not None

        with self.changed:
            self.changed.wait_for(seen, timeout)
        assert found, "".join(self.lines)
        return found[0]

    def stop(self) -> None:
        """As a process manager stops it (SIGTERM, which the plugin makes a Ctrl-C; a process started
        in the background ignores SIGINT): MkDocs then removes the site folder it served from."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
