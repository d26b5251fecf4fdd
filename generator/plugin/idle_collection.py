"""Python's full garbage collections, moved out of a save's way under `mkdocs serve`.

A serve process holds the whole guide from one save to the next (some 750,000 objects the collector
tracks at three thousand scenarios), and a full collection walks every one of them: half a second,
which CPython started in the middle of about every other save (benchmarks/README.md). While serving,
CPython starts no full collection of its own; one runs once the server has been idle for a moment
after a build, or at the latest after a few builds in a row, so memory is still given back.
"""

from __future__ import annotations

import gc
import threading

IDLE_SECONDS = 2.0  # after a build, before the collection: the browser has reloaded the page by then
MOST_BUILDS = 5  # builds in a row without an idle moment before one collects at its end anyway
NEVER = 1 << 30  # as a full collection's threshold: more young collections than a session makes


class IdleCollection:
    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._thresholds: tuple[int, int, int] | None = None
        self._timer: threading.Timer | None = None
        self._builds = 0  # builds ended since the last full collection

    def start(self) -> None:
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, NEVER)

    def building(self) -> None:
        """A build starts: a collection waiting for the server to be idle waits for the next one."""
        self._cancel()

    def built(self) -> None:
        self._cancel()
        self._builds += 1
        if self._builds >= MOST_BUILDS:
            self._collect()
            return
        self._timer = threading.Timer(self.idle_seconds, self._collect)
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        """CPython's own thresholds back, as they were before start."""
        self._cancel()
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def _collect(self) -> None:
        self._builds = 0
        gc.collect()

    def _cancel(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
