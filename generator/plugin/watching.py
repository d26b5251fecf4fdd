"""Under `mkdocs serve`: the guide's own inputs (scenarios/ and data/) watched by the operating
system's change notices as well as by MkDocs' polling.

MkDocs looks at every watched file each half second, plus the time a look takes, so a save waited for
its next look before its build began (benchmarks/README.md, `live_edit.py`). The system's notices
(inotify, FSEvents, ReadDirectoryChangesW, through watchdog) tell of a save as it happens. Some file
systems never send them (a folder shared into a virtual machine, some network mounts), so MkDocs
keeps polling the folders; a change it finds that the notices already told of, the file as it was
then, starts no second build. MkDocs' own handler for each folder decides what a change is and
starts the build, so its wait for saves to stop and its log are as without the plugin.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from watchdog.events import (EVENT_TYPE_ATTRIB, EVENT_TYPE_CLOSED, EVENT_TYPE_CREATED, EVENT_TYPE_DELETED,
                             EVENT_TYPE_MODIFIED, EVENT_TYPE_MOVED, FileSystemEvent, FileSystemEventHandler)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from generator.plugin.mkdocs_internals import mkdocs_handler, poll

log = logging.getLogger("mkdocs.plugins.guide")

# What changes a file. Opening and reading one are left out: every build reads the scenarios, and
# would start the next.
CHANGES = frozenset({EVENT_TYPE_CREATED, EVENT_TYPE_DELETED, EVENT_TYPE_MODIFIED, EVENT_TYPE_MOVED,
                     EVENT_TYPE_CLOSED, EVENT_TYPE_ATTRIB})


def _paths(event: FileSystemEvent) -> list[str]:
    return [str(p) for p in (event.src_path, event.dest_path) if p]


def _state(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


class _Told:
    """Each path the system's notices told of, as it was when they did (None: not there)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, tuple[int, int, int] | None] = {}

    def note(self, event: FileSystemEvent) -> None:
        with self._lock:
            for path in _paths(event):
                self._states[path] = _state(path)

    def knows(self, event: FileSystemEvent) -> bool:
        with self._lock:
            return all(path in self._states and self._states[path] == _state(path) for path in _paths(event))


class _ToMkDocs(FileSystemEventHandler):
    """Passes on to MkDocs' handler of a folder what one of its two watchers finds."""

    def __init__(self, told: _Told, mkdocs_handler: FileSystemEventHandler):
        self.told = told
        self.mkdocs_handler = mkdocs_handler


class _Notices(_ToMkDocs):
    """The system's notices of a folder: a change goes to MkDocs' handler, and is noted."""

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in CHANGES:
            self.told.note(event)
            self.mkdocs_handler.dispatch(event)


class _Polled(_ToMkDocs):
    """MkDocs' poll of a folder: a change goes to MkDocs' handler unless the notices told of it."""

    def on_any_event(self, event: FileSystemEvent) -> None:
        if not self.told.knows(event):
            self.mkdocs_handler.dispatch(event)


def watch(server, folders: list[Path], observer: BaseObserver | None = None) -> BaseObserver | None:
    """Watch folders for the server: by MkDocs' polling, and by the system's notices where they can
    be had. The notices' observer, started, to be stopped when serving ends; or None. server: MkDocs'
    LiveReloadServer, not serving yet."""
    folders = [f for f in folders if f.is_dir()]
    if not folders:
        return None
    told = _Told()
    handlers = {folder: mkdocs_handler(server, folder) for folder in folders}
    for folder, handler in handlers.items():
        poll(server, _Polled(told, handler), folder)
    observer = observer if observer is not None else Observer()
    try:
        for folder, handler in handlers.items():
            observer.schedule(_Notices(told, handler), str(folder), recursive=True)
        observer.start()
    except OSError as e:
        log.info("guide: the system's change notices are not available (%s); MkDocs polls %s for changes",
                 e.strerror or e, _named(folders))
        stop(observer)
        return None
    log.info("guide: watching %s by the system's change notices", _named(folders))
    return observer


def _named(folders: list[Path]) -> str:
    return ", ".join(f.name + "/" for f in folders)


def stop(observer: BaseObserver | None) -> None:
    if observer is None:
        return
    observer.stop()
    if observer.is_alive():
        observer.join()
