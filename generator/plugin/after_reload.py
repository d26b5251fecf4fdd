"""Under `mkdocs serve`: what a save writes that no page shows, written once the save's pages are
served rather than before.

The dev server tells the browsers to reload when a build returns, and holds back every request
while one runs. The published Markdown beside each page and `llms.txt`/`llms-full.txt` are read by
scripts and assistants, not by the page a contributor watches; at three thousand scenarios they are
some 30 MB a save (the embed gallery's Markdown, 12 MB, and llms-full.txt, 18 MB), 0.13 s of a
1.3 s save to make and write. They are made and written in a thread that starts as the build ends,
and the next build waits for it before it reads or writes anything. A failure there shows in the terminal and in the error
banner, as a failed build's does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from mkdocs.exceptions import Abort

log = logging.getLogger("mkdocs.plugins.guide")


class AfterReload:
    """One serve process's writes left for after a build: one at a time, each waited for by the next build."""

    def __init__(self, failed: Callable[[str], None]):
        """failed: told the message of a write that failed (the error banner)."""
        self._failed = failed
        self._thread: threading.Thread | None = None

    def run(self, write: Callable[[], None]) -> None:
        """Starts write (which raises Abort with its message on a failure) once the last one is done."""
        self.wait()
        thread = self._thread = threading.Thread(target=self._write, args=(write,), name="guide-after-reload", daemon=True)
        thread.start()

    def wait(self) -> None:
        """Returns once the write under way, if any, is done."""
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()

    def _write(self, write: Callable[[], None]) -> None:
        try:
            write()
        except Exception as e:  # as a failed build's: the message, not a thread's traceback
            message = str(e) if isinstance(e, Abort) else f"{type(e).__name__}: {e}"
            log.error("guide: %s", message)
            self._failed(message)
