"""What a `mkdocs serve` process does between saves, not in the middle of one.

A serve process holds the whole guide from one save to the next (some 750,000 objects the collector
tracks at three thousand scenarios), and its cache records some 40,000 files the last build used. A
full garbage collection walks every one of those objects, and the cache's chores (setting each used
file's time of last use, recording digests, holding the cache to its bound) go over every one of
those files: together some two seconds at that size, which a save paid whenever they fell due.
While serving, CPython starts no full collection of its own; the chores and one collection run once
the server has been idle for a moment after a build. A build that starts meanwhile stops the chores
at their next file and waits only for what cannot stop halfway (one collection, one record written).
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable, Sequence

IDLE_SECONDS = 2.0  # after a build, before the chores: the browser has reloaded the page by then
MOST_BUILDS = 5  # builds in a row without an idle moment before the collection waits only a moment
# That moment: the dev server answers the browser's reload within milliseconds of a build, so the
# collection's pause falls after the page is served, and before a save made a second later.
SOON_SECONDS = 0.2
NEVER = 1 << 30  # as a full collection's threshold: more young collections than a session makes

log = logging.getLogger("mkdocs.plugins.guide")

# A chore takes a function that says whether a build is waiting, and returns soon after it says yes.
Chore = Callable[[Callable[[], bool]], None]


class BetweenSaves:
    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._thresholds: tuple[int, int, int] | None = None
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()  # held while chores run, and by a build waiting for them to stop
        self._stop = threading.Event()
        self._round = 0  # counts builds started: a timer set before the latest one has nothing to do
        self._builds = 0  # builds ended since the last full collection

    def start(self) -> None:
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, NEVER)

    def building(self) -> None:
        """A build starts: chores under way stop, and those waiting wait for the next idle moment."""
        self._stop.set()
        with self._lock:
            self._round += 1
            timer, self._timer = self._timer, None
            if timer is not None:
                timer.cancel()
        self._stop.clear()

    def built(self, chores: Sequence[Chore] = ()) -> None:
        """A build ended: its chores, then a full collection, once the server is idle. After a few
        builds in a row with no idle moment the collection runs soon after the build, and with
        twice as many at once, so that memory is given back however fast saves come."""
        self._builds += 1
        if self._builds >= 2 * MOST_BUILDS:
            self._collect()
        delay = SOON_SECONDS if self._builds >= MOST_BUILDS else self.idle_seconds
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(delay, self._run, (self._round, tuple(chores)))
            self._timer.daemon = True
            self._timer.start()

    def stop(self) -> None:
        """At the server's end: chores under way stop, and CPython's own thresholds come back."""
        self.building()
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def _run(self, round_: int, chores: tuple[Chore, ...]) -> None:
        with self._lock:
            if round_ != self._round:
                return  # a build started after this timer was set
            for chore in chores:
                if self._stop.is_set():
                    return
                try:
                    chore(self._stop.is_set)
                except OSError as e:  # the cache folder moved or was emptied: the next build finds out
                    log.warning("guide: between saves: %s", e)
            if not self._stop.is_set():
                self._collect()

    def _collect(self) -> None:
        self._builds = 0
        gc.collect()
