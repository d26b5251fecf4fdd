"""What a build leaves to do once it is done: the cache's digests recorded, the cache held to its
bound after a build that added to it, and under `mkdocs serve` the image workers started for the
next save. Under serve the incremental layer runs these between saves; otherwise they run at once.

After a build: the cache's digests recorded and the cache held to its bound, the image workers
started for the next save; when `mkdocs serve` stops, the digests of the saves since its last idle
moment recorded and the workers closed."""

from __future__ import annotations

import logging
from collections.abc import Callable

from generator.plugin.incremental.between_saves import Chore
from generator.rendering.charts.images import Images, Workers
from generator.store.cachefile import Cache

log = logging.getLogger("mkdocs.plugins.guide")


class Upkeep:
    def __init__(self) -> None:
        self.workers: Workers | None = None  # under serve: the image workers, kept from one build to the next
        self.make_images = True
        self.grew = False  # whether the cache has grown since it was last held to its bound
        self._bound: Callable[..., int] = lambda stopping: 0

    def serving(self) -> None:
        if self.workers is None:
            self.workers = Workers()

    def chores(self, cache: Cache, images: Images | None, max_mb: int | None) -> list[Chore]:
        """A finished build's chores, each taking a function that says whether a build is waiting.
        Each but the first goes over every file the build used (some 40,000 at three thousand scenarios)."""
        # A build without images uses none of those in the cache, and would take its bound as leave to
        # remove them: it leaves the bound to the next build that makes them. A build that added nothing
        # to the cache cannot have taken it over its bound.
        self.grew = self.grew or (images is not None and (cache.wrote() or images.rendered > 0))
        self._bound = lambda stopping: cache.keep_bounded(max_mb=max_mb, stopping=stopping)
        chores = [self.warm, cache.touch_used, lambda stopping: cache.save_digests()]
        if images is not None:
            chores.append(self.keep_bounded)
        return chores

    def at_once(self, cache: Cache, images: Images | None) -> None:
        """The chores of a build that is not served: the digests, and the bound."""
        cache.save_digests()
        if images is not None:
            self.keep_bounded()

    def warm(self, stopping: Callable[[], bool] = lambda: False) -> None:
        if self.workers is not None and self.make_images and self.workers.warm():
            log.info("guide: image workers started for the next save")

    def keep_bounded(self, stopping: Callable[[], bool] = lambda: False) -> None:
        if not self.grew:
            return
        removed = self._bound(stopping)
        if not stopping():
            self.grew = False
        if removed:
            log.info("guide: cache over its bound: removed %d files the last build did not use", removed)

    def close(self, served: Cache | None) -> None:
        """served: under serve, the cache, whose digests then record what saves since the last idle
        moment hashed (the chores between saves record the rest)."""
        if served is not None:
            served.save_digests()
        if self.workers is not None:
            self.workers.close()
            self.workers = None
