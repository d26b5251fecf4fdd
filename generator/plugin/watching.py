"""Under `mkdocs serve`: the guide's own inputs (scenarios/ and data/) watched by the operating
system's change notices rather than by MkDocs' polling.

MkDocs looks at every watched file each half second, plus the time a look takes: at three thousand
scenarios a save waited for that look 0.3 s on average before its build began, and each look held
the interpreter while a build ran. The system's notices (inotify, FSEvents, ReadDirectoryChangesW,
through watchdog) tell of a save as it happens. MkDocs' own handler for the folder still decides
what a change is and starts the build, so its wait for saves to stop and its log are unchanged.
Where the system's watcher cannot start (no notices on the file system, or its limit of watches
reached) the folder is watched by MkDocs' polling as before.
"""

from __future__ import annotations

import logging
from pathlib import Path

from watchdog.events import (EVENT_TYPE_ATTRIB, EVENT_TYPE_CLOSED, EVENT_TYPE_CREATED, EVENT_TYPE_DELETED,
                             EVENT_TYPE_MODIFIED, EVENT_TYPE_MOVED, FileSystemEvent, FileSystemEventHandler)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

log = logging.getLogger("mkdocs.plugins.guide")

# What changes a file. Opening and reading one are left out: every build reads the scenarios, and
# would start the next.
CHANGES = frozenset({EVENT_TYPE_CREATED, EVENT_TYPE_DELETED, EVENT_TYPE_MODIFIED, EVENT_TYPE_MOVED,
                     EVENT_TYPE_CLOSED, EVENT_TYPE_ATTRIB})


class _Changes(FileSystemEventHandler):
    """Hands MkDocs' handler of a folder the notices that tell of a change."""

    mkdocs_handler: FileSystemEventHandler | None = None

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in CHANGES and self.mkdocs_handler is not None:
            self.mkdocs_handler.dispatch(event)


class _Handed:
    """Stands in for MkDocs' observer while `LiveReloadServer.watch` makes its handler for a folder."""

    handler: FileSystemEventHandler | None = None

    def schedule(self, handler: FileSystemEventHandler, path: str, **kwargs) -> None:
        self.handler = handler


def watch(server, folders: list[Path], observer: BaseObserver | None = None) -> BaseObserver | None:
    """Watch folders for the server by the system's notices; the observer started, to be stopped when
    serving ends, or None where MkDocs polls them. server: MkDocs' LiveReloadServer."""
    folders = [f for f in folders if f.is_dir()]
    if not folders:
        return None
    observer = observer if observer is not None else Observer()
    changes = {folder: _Changes() for folder in folders}
    try:
        for folder, handler in changes.items():
            observer.schedule(handler, str(folder), recursive=True)
        observer.start()
    except OSError as e:
        log.info("guide: the system's change notices are not available (%s); MkDocs polls %s for changes",
                 e.strerror or e, _named(folders))
        stop(observer)
        for folder in folders:
            server.watch(str(folder))
        return None
    for folder, handler in changes.items():
        handler.mkdocs_handler = _mkdocs_handler(server, folder)
    log.info("guide: watching %s by the system's change notices", _named(folders))
    return observer


def _mkdocs_handler(server, folder: Path) -> FileSystemEventHandler:
    """The handler MkDocs makes for a watched folder, which starts a build; the folder is counted as
    watched, so mkdocs.yml's `watch:` naming it again does not make MkDocs poll it too."""
    polling, server.observer = server.observer, _Handed()
    try:
        server.watch(str(folder))
        handler = server.observer.handler
    finally:
        server.observer = polling
    if handler is None:
        raise RuntimeError("MkDocs' server watched a folder without a handler: this MkDocs is not one the guide knows")
    return handler


def _named(folders: list[Path]) -> str:
    return ", ".join(f.name + "/" for f in folders)


def stop(observer: BaseObserver | None) -> None:
    if observer is None:
        return
    observer.stop()
    if observer.is_alive():
        observer.join()
