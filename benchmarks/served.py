"""The built site, served on 127.0.0.1, with a headless Chromium to read it: shared by the benchmarks."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def served_site() -> Iterator[tuple[Path, str, object]]:
    """(site folder, base URL, Chromium browser) for the site built from this checkout."""
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        subprocess.run(["mkdocs", "build", "-q", "-d", str(site)], cwd=ROOT, env=env, check=True)
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
                yield site, f"http://127.0.0.1:{server.server_address[1]}/", browser
                browser.close()
        finally:
            server.shutdown()
