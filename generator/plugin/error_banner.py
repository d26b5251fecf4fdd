"""Under `mkdocs serve`, a save that does not build shows its error in the browser: every page the
server hands out carries a banner with the located problems until a build succeeds, and the browsers
reload at once, both when a build fails and when the next one succeeds.

MkDocs' dev server keeps the last good site and, on a failed build, neither tells the browsers nor
says anything in the page: a contributor looking at the page saw nothing change. The banner is put
into the HTML as the server sends it (where the server puts its live-reload script), so nothing is
written into the site folder and `mkdocs build` never meets it. It leans on two private parts of
MkDocs' dev server (`mkdocs_internals.wrap_served_html` and `reload_browsers`); where a MkDocs
release lacks them, the banner is left out and the terminal alone says what failed.
"""

from __future__ import annotations

import html
import threading
from typing import Any

from generator.plugin.mkdocs_internals import reload_browsers, wrap_served_html

BANNER_ID = "guide-build-error"
_STYLE = ("position:fixed;left:0;right:0;top:0;z-index:10000;max-height:60vh;overflow:auto;margin:0;padding:12px 16px;"
          "background:#b71c1c;color:#fff;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
          "box-shadow:0 2px 8px rgba(0,0,0,.4)")
_PRE_STYLE = "margin:8px 0 0;white-space:pre-wrap;word-break:break-word;font:13px/1.45 ui-monospace,Menlo,Consolas,monospace;color:#fff;background:none"


def banner_html(message: str) -> str:
    """The banner for one failed build's message, escaped: a message quotes what a contributor wrote."""
    return (f'<div id="{BANNER_ID}" role="alert" style="{_STYLE}"><strong>The last save did not build.</strong> '
            f"This page is what the last good build made; it comes back by itself once the files below are fixed."
            f'<pre style="{_PRE_STYLE}">{html.escape(message)}</pre></div>')


class ErrorBanner:
    """One `mkdocs serve` process's banner: `failed` shows a message on every page served from then on
    and reloads the browsers, `succeeded` takes it away (the successful build reloads them itself)."""

    def __init__(self, server: Any):
        self._server = server
        self._message: str | None = None
        self._lock = threading.Lock()
        self.active = wrap_served_html(server, self._with_banner)

    @property
    def message(self) -> str | None:
        return self._message

    def _with_banner(self, content: bytes) -> bytes:
        message = self._message
        if message is None:
            return content
        at = content.find(b"<body")
        at = content.find(b">", at) + 1 if at >= 0 else 0
        return content[:at] + banner_html(message).encode("utf-8") + content[at:]

    def failed(self, message: str) -> None:
        with self._lock:
            self._message = message
        if not self.active:
            return
        reload_browsers(self._server)

    def succeeded(self) -> None:
        with self._lock:
            self._message = None
