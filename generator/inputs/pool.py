"""Worker processes that never outlive the build that started them.

A build killed with SIGTERM or SIGKILL runs no cleanup, and spawned workers waiting for work would
stay alive (with multiprocessing's resource tracker, some hundreds of megabytes). Each worker
watches its parent instead and exits as soon as it is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

# How often a worker checks that its parent is alive: the longest it outlives a killed build.
WATCH_SECONDS = 0.5


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def _start(parent: int, initializer: Callable[[], None] | None) -> None:
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()
    if initializer is not None:
        initializer()


def process_pool(workers: int, initializer: Callable[[], None] | None = None) -> ProcessPoolExecutor:
    """A pool of spawned workers (spawn, not fork: a process that has used vl-convert must not be
    forked) that exit when this process dies, however it dies."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start, initargs=(os.getpid(), initializer))


def map_shared(work: Callable[..., list[Any]], items: list[Any], *args: Any) -> list[Any]:
    """work(chunk, *args) over items shared out between processes, results in the order of items.
    This process takes a share too, while the others start."""
    cpus = os.cpu_count() or 1
    n = cpus * 4
    chunks = [items[i::n] for i in range(n)]
    with process_pool(cpus) as pool:
        futures = [pool.submit(work, chunk, *args) for chunk in chunks[1:]]
        done = [work(chunks[0], *args)] + [f.result() for f in futures]
    out: list[Any] = [None] * len(items)
    for i, chunk_out in enumerate(done):
        out[i::n] = chunk_out
    return out
