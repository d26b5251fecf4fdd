"""What a `mkdocs serve` process does between saves, not in the middle of one.

A serve process holds the whole guide from one save to the next (some 650,000 objects the collector
tracks at three thousand scenarios), and its cache records some 40,000 files the last build used. A
full garbage collection walks every one of those objects (0.4 s at that size), and the cache's
chores (setting each used file's time of last use, recording digests, holding the cache to its
bound) go over every one of those files. While serving, CPython starts no full collection of its
own: one runs once the server has been idle for a moment after a build, after the chores, and sets
what survives it aside (`gc.freeze`). A save makes and drops a few tens of thousands of objects and
keeps the rest, so the collections that cannot wait for an idle moment (after several builds in a
row) walk only what saves made since (some 30,000 objects: a tenth of the time). A build that
starts meanwhile stops the chores at their next file and waits only for what cannot stop halfway
(one collection, one record written). What was set aside and has become garbage since (the last
build's pages, which the plugin held) waits for the next idle moment.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable, Sequence

IDLE_SECONDS = 2.0  # after a build, before the chores: the browser has reloaded the page by then
MOST_BUILDS = 5  # builds in a row without an idle moment before a collection waits only a moment
# That moment: the dev server answers the browser's reload within milliseconds of a build, so the
# collection's pause falls after the page is served, and before a save made a second later. The
# first build's survivors are set aside then too, so that later collections are short.
SOON_SECONDS = 0.2
NEVER = 1 << 30  # as a full collection's threshold: more young collections than a session makes

log = logging.getLogger("mkdocs.plugins.guide")

# A chore takes a function that says whether a build is waiting, and returns soon after it says yes.
Chore = Callable[[Callable[[], bool]], None]


class BetweenSaves:
    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._thresholds: tuple[int, int, int] | None = None
        self._timers: list[threading.Timer] = []
        self._lock = threading.Lock()  # held while chores or a collection run, and by a build waiting for them to stop
        self._stop = threading.Event()
        self._round = 0  # counts builds started: a timer set before the latest one has nothing to do
        self._builds = 0  # builds ended since the last collection
        self._frozen = False  # whether a collection has set the survivors aside (gc.freeze)

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
            timers, self._timers = self._timers, []
            for timer in timers:
                timer.cancel()
        self._stop.clear()

    def built(self, chores: Sequence[Chore] = ()) -> None:
        """A build ended: its chores, then a full collection, once the server is idle. The first
        build's survivors are set aside soon after it, and after a few builds in a row with no idle
        moment what they made is collected soon after the build, and with twice as many at once, so
        that memory is given back however fast saves come."""
        self._builds += 1
        if self._builds >= 2 * MOST_BUILDS:
            self._collect(everything=False)
        with self._lock:
            for timer in self._timers:
                timer.cancel()
            self._timers = [threading.Timer(self.idle_seconds, self._run, (self._round, tuple(chores)))]
            if not self._frozen or self._builds >= MOST_BUILDS:
                self._timers.append(threading.Timer(SOON_SECONDS, self._soon, (self._round,)))
            for timer in self._timers:
                timer.daemon = True
                timer.start()

    def stop(self) -> None:
        """At the server's end: chores under way stop, what was set aside is collected as before,
        and CPython's own thresholds come back."""
        self.building()
        if self._frozen:
            gc.unfreeze()
            self._frozen = False
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def _soon(self, round_: int) -> None:
        with self._lock:
            if round_ == self._round:
                self._collect(everything=False)

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
                self._collect(everything=True)

    def _collect(self, *, everything: bool) -> None:
        """A full collection: of every object, setting the survivors aside, or (once some are set
        aside and everything is not asked for) of the objects made since."""
        self._builds = 0
        if everything or not self._frozen:
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self._frozen = True
        else:
            gc.collect()
