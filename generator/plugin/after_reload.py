"""Under `mkdocs serve`: what a save writes that no page shows, written once the save's pages are
served rather than before.

The dev server tells the browsers to reload when a build returns, and holds back every request
while one runs. The published Markdown beside each page and `llms.txt`/`llms-full.txt` are read by
scripts and assistants, not by the page a contributor watches. At three thousand scenarios a save
changes some 30 MB of them (the embed gallery's Markdown, 12 MB, and llms-full.txt, 18 MB), and
saying the scenarios index and the gallery in Markdown again takes seconds. So they are written once
saves pause: a thread waits `IDLE_SECONDS` after the build, then writes. A save within that time
supersedes the write before it begins, and that save's own write covers what it would have written
(a page not converted again keeps its Markdown to publish); a write under way is waited for. A
failure there shows in the terminal and in the error banner, as a failed build's does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from mkdocs.exceptions import Abort

log = logging.getLogger("mkdocs.plugins.guide")


# How long saves must pause before what they changed for scripts is written: longer than a
# contributor's save, look and save again, shorter than reading a page.
IDLE_SECONDS = 2.0


class AfterReload:
    """One serve process's writes left for after a build: one at a time, each begun once saves pause."""

    def __init__(self, failed: Callable[[str], None], idle: float = IDLE_SECONDS):
        """failed: told the message of a write that failed (the error banner)."""
        self._failed = failed
        self._idle = idle
        self._thread: threading.Thread | None = None
        self._now = threading.Event()  # begin the write under way without waiting for the pause
        self._dropped = threading.Event()  # a later build writes what it would have

    def run(self, write: Callable[[], None]) -> None:
        """Starts write (which raises Abort with its message on a failure) once the last one is done
        and saves have paused."""
        self.wait()
        self._now, self._dropped = threading.Event(), threading.Event()
        thread = self._thread = threading.Thread(target=self._later, args=(write, self._now, self._dropped),
                                                 name="guide-after-reload", daemon=True)
        thread.start()

    def supersede(self) -> None:
        """For a build about to start: a write not begun is dropped (that build's write covers it),
        one under way is waited for."""
        self._dropped.set()
        self._now.set()
        self._join()

    def wait(self) -> None:
        """Returns once the last write is done, begun now if it was still waiting for a pause."""
        self._now.set()
        self._join()

    def _join(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()

    def _later(self, write: Callable[[], None], now: threading.Event, dropped: threading.Event) -> None:
        now.wait(self._idle)
        if not dropped.is_set():
            self._write(write)

    def _write(self, write: Callable[[], None]) -> None:
        try:
            write()
        except Exception as e:  # as a failed build's: the message, not a thread's traceback
            message = str(e) if isinstance(e, Abort) else f"{type(e).__name__}: {e}"
            log.error("guide: %s", message)
            self._failed(message)
