"""Under `mkdocs serve`, CPython's full garbage collections wait for the server to be idle."""

from __future__ import annotations

import gc
import time

import pytest

from generator.plugin.idle_collection import MOST_BUILDS, NEVER, IdleCollection


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


def test_serving_turns_off_automatic_full_collections_and_stopping_puts_the_thresholds_back():
    before = gc.get_threshold()
    collection = IdleCollection()
    collection.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], NEVER)
    finally:
        collection.stop()
    assert gc.get_threshold() == before


def test_a_full_collection_runs_once_the_server_is_idle_after_a_build(full_collections):
    collection = IdleCollection(idle_seconds=0.2)
    collection.start()
    try:
        collection.built()
        ended = time.monotonic()
        deadline = ended + 30
        while not full_collections and time.monotonic() < deadline:
            time.sleep(0.02)
        assert full_collections and full_collections[0] - ended >= 0.15
    finally:
        collection.stop()


def test_builds_in_a_row_with_no_idle_moment_collect_at_the_end_of_the_last(full_collections):
    collection = IdleCollection(idle_seconds=3600)  # never idle for long enough in this test
    collection.start()
    try:
        for _ in range(MOST_BUILDS - 1):
            collection.building()
            collection.built()
        assert full_collections == []
        collection.building()
        collection.built()
        assert len(full_collections) == 1  # at once, not after an hour
    finally:
        collection.stop()


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
