"""The suite's fixtures. Helpers live in site_support.py (site tests), core_support.py and
contrib_support.py; test modules import those, never this file.

The site is built with a plain `mkdocs build --strict` in a subprocess, from a copy of the
repository in a temporary folder, and served from 127.0.0.1 for the browser tests. A second copy
carries one extra, valid scenario whose every string is hostile.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from filelock import FileLock
from browser_support import LOCAL, TIMEOUT_MS, Recorder, Tab
from site_support import (CHROMIUM, CHROMIUM_ARGS, FROZEN, TWO_SCENARIO_DAY, BuiltSite, build_copy, copy_project,
                          copy_two_scenario_project, machine_store_files, seed_machine_stores, write_untrusted_scenario)


# A test that takes one of these builds, serves or drives the site, so it is slow (`pytest -m "not
# slow"` leaves it out) and, with the browser, a browser test. Marked here, so a new test that takes
# one is marked too; a test that builds or serves by itself carries @pytest.mark.slow.
SLOW_FIXTURES = {"built_site", "untrusted_site", "served_site", "browser",
                 # test_unfurl's two builds, test_changes' rendered and built sites after a price refresh
                 "sites", "refreshed", "history_site"}


# The files that take longest, longest first (measured with `--durations`). scripts/test.sh hands
# files to its workers in collection order (--no-loadscope-reorder), so these start first and the
# many short files fill in around them; left to the end, one of them alone would set the suite's
# wall time while the other workers sit idle. A file not listed runs after these, in the usual order.
LONGEST_FIRST = ("test_page_file_cache.py", "test_serve.py", "test_accessibility.py", "test_refresh_checks.py",
                 "test_parity.py", "test_browser.py", "test_layout.py", "test_readme.py", "test_refresh_prices.py",
                 "test_plugin.py", "test_last_mile.py", "test_cache.py", "test_calculator_browser.py",
                 "test_contributing.py", "test_refresh_contracts.py", "test_refresh_memory.py",
                 "test_store_registry.py", "test_install.py", "test_sitefolder.py", "test_embeds.py", "test_refresh_spot_advisor.py",
                 "test_passthrough.py", "test_reproducible.py", "test_scenario_cache.py", "test_properties.py",
                 # and the longest of the fast subset (`-m "not slow"`), for the same reason
                 "test_unpublished.py", "test_scaffold.py", "test_cli.py", "test_between_saves.py",
                 "test_flow.py", "test_quoting.py", "test_validation_cache.py", "test_freshness.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if "browser" in used:
            item.add_marker(pytest.mark.browser)
        if used & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


# --- the frozen project, as the engine reads it ------------------------------------------------------


@pytest.fixture(scope="session")
def catalog():
    """The frozen data/ as the loader makes it a catalog."""
    from generator.inputs.loader import load_catalog

    return load_catalog(FROZEN / "data")


@pytest.fixture(scope="session")
def project():
    """The frozen project loaded and evaluated: the engine's own view of what every site here is
    built from."""
    from generator.inputs.loader import load_project

    return load_project(FROZEN)


@pytest.fixture
def own_project():
    """The frozen project loaded for one test alone, which may change it."""
    from generator.inputs.loader import load_project

    return load_project(FROZEN)


# --- building -----------------------------------------------------------------------------------


@pytest.fixture
def two_scenario_project(tmp_path: Path, monkeypatch) -> Path:
    """A buildable copy of the frozen project with its TWO_SCENARIOS only, built on TWO_SCENARIO_DAY."""
    monkeypatch.setenv("GUIDE_TODAY", TWO_SCENARIO_DAY)
    return copy_two_scenario_project(tmp_path / "project")


def _run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's folder, which under pytest-xdist holds each worker's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def seed_cache(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """seed_cache(folder) -> folder: a new cache as a machine that has built the guide before holds
    it, the MACHINE_STORES of site_support filled from one cold build of the two-scenario project for
    the whole run, and nothing of any project's pages."""
    base = _run_folder(tmp_path_factory)
    pool = base / "shared-machine-stores" / "cache"
    _built_once_in(base, "machine-stores", copy_two_scenario_project, cache=pool, env={"GUIDE_TODAY": TWO_SCENARIO_DAY})
    return functools.partial(seed_machine_stores, pool, machine_store_files(pool))


@pytest.fixture
def frozen_inputs(tmp_path: Path) -> Path:
    """The frozen scenarios/ and data/ in tmp_path, as the loader reads them."""
    for part in ("scenarios", "data"):
        shutil.copytree(FROZEN / part, tmp_path / part)
    return tmp_path


def _built_once(tmp_path_factory: pytest.TempPathFactory, name: str, prepare: Callable[[Path], Path]) -> BuiltSite:
    """build_copy(prepare(folder)) once for the whole run, in the run's folder (`_built_once_in`)."""
    return _built_once_in(_run_folder(tmp_path_factory), name, prepare)


def _built_once_in(base: Path, name: str, prepare: Callable[[Path], Path], config: str = "mkdocs.yml", **build) -> BuiltSite:
    """build_copy(prepare(base / f"shared-{name}" / "project"), config, **build) once for the whole run.
    Under pytest-xdist the first worker to ask builds it and the others wait for it, then read what it
    built: the tests that take these sites only read them, and each is many seconds of CPU a second
    build would repeat."""
    folder = base / f"shared-{name}"
    record = base / f"shared-{name}.json"
    with FileLock(base / f"shared-{name}.lock"):
        if record.is_file():
            return BuiltSite.loads(record.read_text(encoding="utf-8"))
        shutil.rmtree(folder, ignore_errors=True)  # what a worker whose build failed left
        built = build_copy(prepare(folder / "project"), config, **build)
        record.write_text(built.dumps(), encoding="utf-8")
        return built


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The repository's site, built with `mkdocs build --strict` from a copy of the repository."""
    return _built_once(tmp_path_factory, "guide", copy_project)




# --- a price AWS's API confirmed since its date ------------------------------------------------

# The day the refresh last heard from the Price List API, in the copy `confirmed_site` builds.
CONFIRMED_ON = "2026-11-20"


@pytest.fixture(scope="session")
def confirmed_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The site built (without chart images) from a copy whose p5.48xlarge us-east-1 on-demand price
    is cited to AWS's Price List API on its own date, 2026-01-21, and whose data/refresh.yaml says that
    API last answered on CONFIRMED_ON: the figure reads as of January, last checked in November."""
    def prepare(dest: Path) -> Path:
        root = copy_project(dest)
        data = root / "data"
        sources = (data / "sources.yaml").read_text(encoding="utf-8")
        (data / "sources.yaml").write_text(sources.rstrip("\n") + "\n" + (
            "  AWS-PRICE-LIST-API-2026-01-21:\n"
            "    title: AWS Price List Query API (GetProducts, AmazonEC2), called 2026-01-21\n"
            "    url: https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html\n"
            "    kind: primary\n"
            "    as_of: 2026-01-21\n"), encoding="utf-8")
        prices = (data / "prices.yaml").read_text(encoding="utf-8")
        row = "{instance: p5.48xlarge, region: us-east-1, option: on-demand, usd_per_hour: 55.04, source: VAN-2026-01, as_of: 2026-01-21"
        assert prices.count(row) == 1
        (data / "prices.yaml").write_text(prices.replace(row, row.replace("VAN-2026-01", "AWS-PRICE-LIST-API-2026-01-21")), encoding="utf-8")
        (data / "refresh.yaml").write_text(f"asked:\n  AWS-PRICE-LIST-API: {CONFIRMED_ON}\n", encoding="utf-8")
        return root

    return _built_once_in(_run_folder(tmp_path_factory), "confirmed", prepare, env={"GUIDE_IMAGES": "0"})


# --- untrusted text -----------------------------------------------------------------------------

@pytest.fixture(scope="session")
def untrusted_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The site built from a copy with one extra, valid scenario whose strings carry payloads."""
    def prepare(dest: Path) -> Path:
        root = copy_project(dest)
        write_untrusted_scenario(root)
        return root

    return _built_once(tmp_path_factory, "guide-untrusted", prepare)


# --- serving and the browser --------------------------------------------------------------------


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # A browser drops a connection whenever a page it was loading goes away; that is no error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _start_server(folder: Path) -> tuple[_QuietServer, str]:
    """A static server of folder (read per request, so it may be filled later) on a free port of
    127.0.0.1, in a thread of this process; its base URL."""
    server = _QuietServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name=f"serve {folder}", daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture(scope="session")
def serve() -> Iterator[Callable[[Path], str]]:
    """serve(folder) -> "http://127.0.0.1:PORT/": a static server on a free port, for the session.
    The folder is read per request, so it may be filled after the server starts."""
    servers: list[_QuietServer] = []

    def start(folder: Path) -> str:
        server, base = _start_server(folder)
        servers.append(server)
        return base

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


# The run's served site: its folder and address, named to pytest-xdist's workers by the process
# that starts them, which serves it from pytest_configure to pytest_unconfigure.
_SERVED = "GUIDE_TEST_SERVED_SITE"
_served_key = pytest.StashKey[tuple[_QuietServer, Path]]()


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") or _SERVED in os.environ:
        return
    folder = Path(tempfile.mkdtemp(prefix="guide-served-"))
    server, base = _start_server(folder / "shared-served" / "project" / "site-out")
    config.stash[_served_key] = (server, folder)
    os.environ[_SERVED] = json.dumps([str(folder), base])


def pytest_unconfigure(config: pytest.Config) -> None:
    served = config.stash.get(_served_key, None)
    if served is not None:
        server, folder = served
        server.shutdown()
        server.server_close()
        del os.environ[_SERVED]
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def served_site() -> str:
    """Base URL of the site built from a copy of the repository, served on 127.0.0.1 on a free port.

    Material's instant navigation only takes over links to pages listed in sitemap.xml, whose
    addresses come from site_url (with the protocol and host swapped for the page's, but not the
    port). So, as `mkdocs serve` does, this build sets site_url to where it is served: the run's
    server takes its port first (pytest_configure, in the process that starts pytest-xdist's
    workers), then the first worker to ask builds the site into the folder it serves, from the
    repository's mkdocs.yml with only site_url overridden (INHERIT), and the others take it.
    """
    folder, base = json.loads(os.environ[_SERVED])

    def prepare(dest: Path) -> Path:
        root = copy_project(dest)
        (root / "mkdocs.served.yml").write_text(f"INHERIT: mkdocs.yml\nsite_url: {base}\n", encoding="utf-8")
        return root

    _built_once_in(Path(folder), "served", prepare, "mkdocs.served.yml")
    return base


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium (Debian's package, never a downloaded one) for the whole session."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium-headless-shell package (scripts/test.sh does)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def open_tab(browser) -> Iterator:
    """open_tab(base_url, color_scheme="light") -> Tab with a fresh context and a Recorder attached."""
    contexts = []

    def make(base: str, color_scheme: str = "light", **options) -> Tab:
        options = {"viewport": {"width": 1280, "height": 900}, **options}
        context = browser.new_context(color_scheme=color_scheme, service_workers="block", **options)
        contexts.append(context)
        recorder = Recorder()
        context.on("request", recorder.on_request)
        # Nothing may leave the machine even if a page tries: record it (above) and refuse it.
        context.route(lambda url: not url.startswith(LOCAL), lambda route: route.abort())
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("console", recorder.on_console)
        page.on("pageerror", recorder.on_page_error)
        return Tab(page, recorder, base)

    yield make
    for context in contexts:
        context.close()
