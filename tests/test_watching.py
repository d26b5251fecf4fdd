"""Under `mkdocs serve` the guide's inputs are watched by the system's change notices: a save starts a
build through MkDocs' own handler at once, a build reading the files does not start another. MkDocs
still polls the folders, for file systems that send no notices; a change the notices told of starts
no second build when the poll finds it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from mkdocs.livereload import LiveReloadServer
from watchdog.events import FileDeletedEvent, FileModifiedEvent, FileMovedEvent, FileOpenedEvent, FileSystemEventHandler

from generator.plugin import watching


@pytest.fixture
def server(tmp_path: Path):
    s = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path / "site"))
    yield s
    s.observer.stop()
    s.server_close()


@pytest.fixture
def folders(tmp_path: Path) -> list[Path]:
    out = []
    for name in ("scenarios", "data"):
        (tmp_path / name).mkdir()
        for stem in ("one", "two"):
            (tmp_path / name / f"{stem}.yaml").write_text("title: x\n", encoding="utf-8")
        out.append(tmp_path / name)
    return out


def wait_for_build_wanted(server: LiveReloadServer) -> None:
    with server._rebuild_cond:
        assert server._rebuild_cond.wait_for(lambda: server._want_rebuild, timeout=20), "no build was asked for"
        server._want_rebuild = False


def polled(server: LiveReloadServer) -> set[str]:
    return {Path(e.watch.path).name for e in server.observer.emitters}


def test_a_save_starts_a_build_through_mkdocs_handler_and_a_read_does_not(server, folders, caplog):
    caplog.set_level(logging.DEBUG, logger="mkdocs.livereload")
    observer = watching.watch(server, folders)
    try:
        assert observer is not None
        scenarios = folders[0]
        (scenarios / "one.yaml").read_text(encoding="utf-8")  # as a build reads it
        (scenarios / "two.yaml").write_text("title: saved\n", encoding="utf-8")
        wait_for_build_wanted(server)
        # The notices of one folder come in order: the read's were handled before the save's.
        seen = [r.getMessage() for r in caplog.records if r.name == "mkdocs.livereload" and "Event(" in r.getMessage()]
        assert any("two.yaml" in m for m in seen), seen
        assert not any("one.yaml" in m for m in seen), seen
        (folders[1] / "one.yaml").unlink()
        wait_for_build_wanted(server)
        assert polled(server) == {"scenarios", "data"}
        server.watch(str(scenarios))  # as mkdocs.yml's `watch:` naming the folder would
        assert len(server.observer.emitters) == 2, "MkDocs would poll a folder twice"
    finally:
        watching.stop(observer)


class _NoNotices:
    """An observer on a system whose limit of watches is reached."""

    def schedule(self, *args, **kwargs):
        raise OSError(28, "inotify watch limit reached")

    def stop(self) -> None:
        pass

    def is_alive(self) -> bool:
        return False


def test_without_the_systems_notices_mkdocs_polls_the_folders_and_a_save_starts_a_build(server, folders, caplog):
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.guide")
    assert watching.watch(server, folders, observer=_NoNotices()) is None
    assert polled(server) == {"scenarios", "data"}
    assert "MkDocs polls scenarios/, data/" in caplog.text and "inotify watch limit reached" in caplog.text
    server.observer.start()
    (folders[0] / "two.yaml").write_text("title: saved\n", encoding="utf-8")
    wait_for_build_wanted(server)


class _Handler(FileSystemEventHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def on_any_event(self, event) -> None:
        self.events.append((event.event_type, Path(event.src_path).name))


def test_a_change_the_poll_finds_starts_a_build_unless_the_notices_told_of_it_as_it_is(tmp_path: Path):
    mkdocs = _Handler()
    told = watching._Told()
    notices, poll = watching._Notices(told, mkdocs), watching._Polled(told, mkdocs)
    saved, other = tmp_path / "saved.yaml", tmp_path / "other.yaml"
    saved.write_text("title: a\n", encoding="utf-8")
    other.write_text("title: b\n", encoding="utf-8")
    notices.dispatch(FileOpenedEvent(str(saved)))  # a build reading it: neither a build nor noted
    assert mkdocs.events == []
    poll.dispatch(FileModifiedEvent(str(saved)))
    assert mkdocs.events == [("modified", "saved.yaml")], "the notices never told of it"
    notices.dispatch(FileModifiedEvent(str(saved)))
    poll.dispatch(FileModifiedEvent(str(saved)))
    assert mkdocs.events == [("modified", "saved.yaml")] * 2, "the poll found what the notices told of"
    saved.write_text("title: changed since\n", encoding="utf-8")  # with no notice: a file system that sends none
    poll.dispatch(FileModifiedEvent(str(saved)))
    poll.dispatch(FileModifiedEvent(str(other)))
    assert mkdocs.events[2:] == [("modified", "saved.yaml"), ("modified", "other.yaml")]
    # An editor's save: written beside, then moved over the file.
    beside = tmp_path / ".saved.yaml.swp"
    beside.write_text("title: moved in\n", encoding="utf-8")
    beside.replace(saved)
    notices.dispatch(FileMovedEvent(str(beside), str(saved)))
    poll.dispatch(FileModifiedEvent(str(saved)))
    other.unlink()
    notices.dispatch(FileDeletedEvent(str(other)))
    poll.dispatch(FileDeletedEvent(str(other)))
    assert mkdocs.events[4:] == [("moved", ".saved.yaml.swp"), ("deleted", "other.yaml")]
