"""Under `mkdocs serve`, the cache's chores and CPython's full garbage collections wait for the
server to be idle, and stop when a save comes."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from generator.plugin.incremental.between_saves import MOST_BUILDS, NEVER, BetweenSaves


@pytest.fixture
def full_collections():
    """The full collections that end while the test runs, as they end."""
    ended: list[float] = []

    def record(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            ended.append(time.monotonic())

    gc.callbacks.append(record)
    yield ended
    gc.callbacks.remove(record)


def wait_until(condition, seconds: float = 30) -> bool:
    """Whether condition held at some moment within the time. It is not asked again once it held: a
    collection running in another thread makes gc.get_freeze_count() 0 for a moment (unfreeze,
    collect, freeze), and asking twice could land there."""
    deadline = time.monotonic() + seconds
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def test_serving_turns_off_automatic_full_collections_and_stopping_puts_the_thresholds_back():
    before = gc.get_threshold()
    between = BetweenSaves()
    between.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], NEVER)
    finally:
        between.stop()
    assert gc.get_threshold() == before


class Node:
    """An object the collector tracks."""


def in_a_cycle() -> Node:
    """An object only a full collection frees once nothing else refers to it."""
    node = Node()
    node.me = node  # type: ignore[attr-defined]
    return node


def dropped_once_set_aside(between: BetweenSaves) -> weakref.ref:
    """An object in a cycle, set aside with the rest soon after a first build, then dropped."""
    kept = in_a_cycle()
    ref = weakref.ref(kept)
    between.building()
    between.built()
    assert wait_until(lambda: gc.get_freeze_count() > 0)  # soon, not after the idle moment
    del kept
    return ref


def test_chores_then_a_full_collection_run_once_the_server_is_idle_after_a_build(full_collections):
    ran: list[tuple[str, float]] = []
    between = BetweenSaves(idle_seconds=0.5)
    between.start()
    try:
        between.building()
        between.built()
        assert wait_until(lambda: len(full_collections) >= 2)  # the first build's: one soon after it, one once idle
        full_collections.clear()
        between.building()
        between.built([lambda stopping: ran.append(("first", time.monotonic())),
                       lambda stopping: ran.append(("second", time.monotonic()))])
        ended = time.monotonic()
        assert wait_until(lambda: full_collections)
        assert [name for name, _ in ran] == ["first", "second"]
        assert ran[0][1] - ended >= 0.45
        assert full_collections[0] >= ran[1][1]
    finally:
        between.stop()


def test_a_build_that_starts_stops_the_chore_under_way_and_waits_for_it():
    started, stopped = threading.Event(), threading.Event()
    seen_after_stop: list[bool] = []

    def long_chore(stopping) -> None:
        started.set()
        while not stopping():
            time.sleep(0.01)
        stopped.set()
        seen_after_stop.append(True)

    between = BetweenSaves(idle_seconds=0.05)
    between.start()
    try:
        between.built([long_chore])
        assert started.wait(30)
        between.building()  # returns only once the chore has seen the stop and returned
        assert stopped.is_set() and seen_after_stop == [True]
    finally:
        between.stop()


def test_a_build_that_starts_before_the_idle_moment_leaves_the_chores_for_the_next(full_collections):
    ran: list[str] = []
    between = BetweenSaves(idle_seconds=0.3)
    between.start()
    try:
        between.built([lambda stopping: ran.append("first build's")])
        between.building()  # a save within the idle moment
        between.built([lambda stopping: ran.append("second build's")])
        assert wait_until(lambda: ran)
        assert ran == ["second build's"]
    finally:
        between.stop()


def test_builds_in_a_row_with_no_idle_moment_collect_soon_after_the_last(full_collections):
    between = BetweenSaves(idle_seconds=3600)  # never idle for long enough in this test
    between.start()
    try:
        for _ in range(MOST_BUILDS - 1):
            between.building()
            between.built()
        between.building()
        assert full_collections == []
        between.built()
        ended = time.monotonic()
        assert wait_until(lambda: full_collections, 30)  # soon, not after an hour
        assert len(full_collections) == 1 and full_collections[0] - ended < 30
    finally:
        between.stop()


def test_saves_that_never_leave_a_moment_still_collect(full_collections):
    between = BetweenSaves(idle_seconds=3600)
    between.start()
    try:
        for _ in range(2 * MOST_BUILDS):
            between.building()  # each save comes before the collection's moment
            between.built()
        assert len(full_collections) == 1  # at the end of the last build, at once
    finally:
        between.stop()


def test_a_chore_that_fails_on_the_file_system_is_reported_and_the_collection_still_runs(full_collections, caplog):
    def failing(stopping) -> None:
        raise FileNotFoundError(2, "No such file or directory", "/gone/cache")

    between = BetweenSaves(idle_seconds=0.05)
    between.start()
    try:
        with caplog.at_level("WARNING", logger="mkdocs.plugins.guide"):
            between.built([failing])
            assert wait_until(lambda: len(full_collections) >= 2)  # soon after the build, and once idle
        assert "/gone/cache" in caplog.text
    finally:
        between.stop()


def test_the_first_build_s_survivors_are_set_aside_soon_and_put_back_when_serving_stops():
    between = BetweenSaves(idle_seconds=3600)
    between.start()
    try:
        between.building()
        between.built()
        assert wait_until(lambda: gc.get_freeze_count() > 0)  # soon, not after an hour
    finally:
        between.stop()
    assert gc.get_freeze_count() == 0


def test_collections_between_idle_moments_walk_only_what_was_not_set_aside(full_collections):
    between = BetweenSaves(idle_seconds=3600)
    between.start()
    try:
        set_aside = dropped_once_set_aside(between)  # garbage, but set aside: the collections below do not look at it
        made = in_a_cycle()
        made_since = weakref.ref(made)
        del made
        collections = len(full_collections)
        for _ in range(MOST_BUILDS):
            between.building()
            between.built()
        assert wait_until(lambda: len(full_collections) > collections)
        assert made_since() is None
        assert set_aside() is not None
    finally:
        between.stop()


def test_the_idle_collection_frees_what_was_set_aside_and_has_become_garbage():
    between = BetweenSaves(idle_seconds=0.5)
    between.start()
    try:
        gone = dropped_once_set_aside(between)
        between.building()
        between.built()  # no collection soon after this one: only the idle moment's can free it
        assert wait_until(lambda: gone() is None)
    finally:
        between.stop()


def test_the_plugin_defers_full_collections_under_serve_alone():
    from generator.plugin.plugin import GuidePlugin

    before = gc.get_threshold()
    built = GuidePlugin()
    built.on_startup(command="build", dirty=False)
    assert gc.get_threshold() == before
    served = GuidePlugin()
    served.on_startup(command="serve", dirty=True)
    try:
        assert gc.get_threshold()[2] == NEVER
    finally:
        served.on_shutdown()
    assert gc.get_threshold() == before
