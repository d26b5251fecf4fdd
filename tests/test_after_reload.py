"""Under `mkdocs serve`, the published Markdown and llms.txt are written after the build returns
(`generator/plugin/after_reload.py`): the next build waits for them, and a failure is reported as a
failed build's is."""

from __future__ import annotations

import logging
import threading

from mkdocs.exceptions import Abort

from generator.plugin.after_reload import AfterReload


def test_a_write_runs_after_run_returns_and_the_next_one_waits_for_it():
    started, release = threading.Event(), threading.Event()
    done: list[str] = []

    def first() -> None:
        started.set()
        assert release.wait(30)
        done.append("first")

    after = AfterReload(failed=lambda message: done.append(message))
    after.run(first)  # returns while the write is held
    assert started.wait(30)
    assert done == []
    threading.Timer(0.2, release.set).start()
    after.run(lambda: done.append("second"))  # waits for the first before it starts
    after.wait()
    assert done == ["first", "second"]


def test_a_failed_write_is_logged_and_shown_as_a_failed_builds_message(caplog):
    shown: list[str] = []
    after = AfterReload(failed=shown.append)

    def full_disk() -> None:
        raise Abort("Writing the pages' Markdown and llms.txt into the site folder failed (site/llms-full.txt): "
                    "No space left on device")

    def broken() -> None:
        raise ValueError("no such page")

    with caplog.at_level(logging.ERROR, logger="mkdocs.plugins.guide"):
        after.run(full_disk)
        after.run(broken)
        after.wait()
    assert shown == ["Writing the pages' Markdown and llms.txt into the site folder failed (site/llms-full.txt): "
                     "No space left on device", "ValueError: no such page"]
    assert [r.getMessage() for r in caplog.records] == [f"guide: {m}" for m in shown]


def test_a_write_waits_for_saves_to_pause_and_a_save_before_it_begins_drops_it():
    done: list[str] = []
    after = AfterReload(failed=done.append, idle=30)
    after.run(lambda: done.append("superseded"))
    after.supersede()  # a save within the pause: the next build writes what this one would have
    assert done == []
    after.run(lambda: done.append("flushed"))
    after.wait()  # as serve shuts down: the write begins at once
    assert done == ["flushed"]


def test_a_write_under_way_is_waited_for_by_the_build_that_supersedes_it():
    started, release = threading.Event(), threading.Event()
    done: list[str] = []

    def slow() -> None:
        started.set()
        assert release.wait(30)
        done.append("slow")

    after = AfterReload(failed=done.append, idle=0)
    after.run(slow)
    assert started.wait(30)
    threading.Timer(0.2, release.set).start()
    after.supersede()
    assert done == ["slow"]
