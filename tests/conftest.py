"""Shared fixtures for the site tests (test_site.py, test_browser.py).

The site is built with a plain `mkdocs build --strict` in a subprocess, from a copy of the
repository in a temporary folder, and served from 127.0.0.1 for the browser tests. A second copy
carries one extra, valid scenario whose every string is hostile. The core tests keep their own
helpers elsewhere and do not depend on this file.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The site is built from the frozen copy of data/ and scenarios/ (see core_support.FROZEN), so a
# price refresh or a new scenario never changes what the site tests expect.
FROZEN = REPO / "tests" / "fixtures" / "project"
FROZEN_PARTS = ("data", "scenarios")
# What a build reads. generator/ is installed, but mkdocs.yml names the hook module by path.
PROJECT_PARTS = ("mkdocs.yml", "docs", "generator", "scenarios", "data", "schemas")
# What the build must not write into.
SOURCE_PARTS = ("mkdocs.yml", "docs", "generator", "scenarios", "data", "schemas")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


# --- building -----------------------------------------------------------------------------------


def copy_project(dest: Path) -> Path:
    """Copy what `mkdocs build` needs into dest (and the cached Vega bundle, to save seconds)."""
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in PROJECT_PARTS:
        src = (FROZEN if part in FROZEN_PARTS else REPO) / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=ignore)
        else:
            shutil.copy2(src, dest / part)
    cache = REPO / ".cache"
    if cache.is_dir():
        shutil.copytree(cache, dest / ".cache", ignore=shutil.ignore_patterns("*.tmp"))
    return dest


@pytest.fixture
def two_scenario_project(tmp_path: Path, monkeypatch) -> Path:
    """A buildable copy of the frozen project with its first two scenarios only, built on a fixed day."""
    monkeypatch.setenv("GUIDE_TODAY", "2026-11-21")
    root = copy_project(tmp_path / "project")
    for extra in sorted((root / "scenarios").glob("*.yaml"))[2:]:
        extra.unlink()
    return root


@pytest.fixture
def frozen_inputs(tmp_path: Path) -> Path:
    """The frozen scenarios/ and data/ in tmp_path, as the loader reads them."""
    for part in ("scenarios", "data"):
        shutil.copytree(FROZEN / part, tmp_path / part)
    return tmp_path



def pretend_upgraded(monkeypatch, distribution: str) -> None:
    """importlib.metadata reports version 99.0 for one distribution, as after an upgrade."""
    from importlib import metadata

    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "99.0" if name == distribution else real(name))


def tree_hashes(root: Path, parts: tuple[str, ...] = SOURCE_PARTS) -> dict[str, str]:
    """sha256 of every file under the given files and folders, by path relative to root."""
    out = {}
    for part in parts:
        base = root / part
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        for path in paths:
            out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def run_mkdocs_build(root: Path, out: Path, config: str = "mkdocs.yml", cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    # One image cache for every build of the session (the repository's own .cache, outside the
    # inputs), so each temporary copy does not render every chart again; a test may pass its own.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_CACHE_DIR": str(cache or REPO / ".cache")}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config, "-d", str(out)],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )


def site_hashes(site: Path) -> dict[str, str]:
    """sha256 of every file of a built site, by its path there."""
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(site.rglob("*")) if p.is_file()}


def build_into(root: Path, out: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of root into out with this cache; the build must pass."""
    proc = run_mkdocs_build(root, out, cache=cache)
    assert proc.returncode == 0, proc.stderr
    return proc


@dataclass(frozen=True)
class BuiltSite:
    root: Path  # the project copy the site was built from
    site: Path  # the built site
    output: str  # stdout + stderr of the build
    before: dict[str, str]  # tree_hashes(root) before the build
    after: dict[str, str]  # and after it


def build_copy(root: Path, config: str = "mkdocs.yml") -> BuiltSite:
    """Build an already prepared project copy into root/site-out; the build must pass --strict."""
    before = tree_hashes(root)
    site = root / "site-out"
    proc = run_mkdocs_build(root, site, config)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed ({proc.returncode}):\n{output}"
    return BuiltSite(root, site, output, before, tree_hashes(root))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The repository's site, built with `mkdocs build --strict` from a copy of the repository."""
    return build_copy(copy_project(tmp_path_factory.mktemp("guide") / "project"))


@pytest.fixture(scope="session")
def project(built_site: BuiltSite):
    """The engine's own view of the copy the site was built from."""
    from generator.loader import load_project

    return load_project(built_site.root)


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

    from generator.schema import MODELINE

    text = MODELINE + "\n" + yaml.safe_dump(untrusted_scenario(), sort_keys=False, allow_unicode=True, width=1000)
    path = root / "scenarios" / f"{UNTRUSTED_ID}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def untrusted_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The site built from a copy with one extra, valid scenario whose strings carry payloads."""
    root = copy_project(tmp_path_factory.mktemp("guide-untrusted") / "project")
    write_untrusted_scenario(root)
    return build_copy(root)


# --- serving and the browser --------------------------------------------------------------------


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session")
def serve() -> Iterator[Callable[[Path], str]]:
    """serve(folder) -> "http://127.0.0.1:PORT/": a static server on a free port, for the session.
    The folder is read per request, so it may be filled after the server starts."""
    servers: list[ThreadingHTTPServer] = []

    def start(folder: Path) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, name=f"serve {folder}", daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def served_site(tmp_path_factory: pytest.TempPathFactory, serve) -> str:
    """Base URL of the site built from a copy of the repository, served on 127.0.0.1 on a free port.

    Material's instant navigation only takes over links to pages listed in sitemap.xml, whose
    addresses come from site_url (with the protocol and host swapped for the page's, but not the
    port). So, as `mkdocs serve` does, this build sets site_url to where it is served: the server
    takes its port first, then the site is built into the folder it serves, from the repository's
    mkdocs.yml with only site_url overridden (INHERIT).
    """
    root = copy_project(tmp_path_factory.mktemp("guide-served") / "project")
    base = serve(root / "site-out")
    (root / "mkdocs.served.yml").write_text(f"INHERIT: mkdocs.yml\nsite_url: {base}\n", encoding="utf-8")
    build_copy(root, "mkdocs.served.yml")
    return base


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium (Debian's package, never a downloaded one) for the whole session."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (scripts/test.sh does)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
