"""`OneBuild`: what one build hands from `on_files`, where the generator runs, to the MkDocs events after it
(the site URL its files carry, its chart images still rendering, what the generator made, the embed files to
link, MkDocs' navigation). A build that fails, or that `mkdocs serve` starts again before it ended, stops its
renders and embed links, shows its error under serve, and leaves nothing it checked taken as done."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.exceptions import Abort

if TYPE_CHECKING:
    from mkdocs.structure.nav import Navigation

    from generator.plugin.error_banner import ErrorBanner
    from generator.plugin.incremental.layer import Layer
    from generator.rendering.generate import Generated
    from generator.rendering.charts.images import Images
    from generator.store.cachefile import Cache


@dataclass
class OneBuild:
    """Filled in as `on_files` learns each part: the images before the generator runs, so a build that
    stops in it stops their renders too."""
    published: str  # the site URL the generated files carry (publishing.PublishedUrl)
    images: Images | None  # the chart images still rendering; None without images, and once joined to the site
    made: Generated | None = None  # what the generator made
    # site path -> cache file to link there once the images are rendered
    linked: dict[str, Path] = field(default_factory=dict)
    nav: Navigation | None = None  # MkDocs' navigation, from on_nav


def stop(build: OneBuild | None, incremental: Layer) -> None:
    """A build that stops early, or is superseded by `mkdocs serve`, stops its renders too."""
    images = None
    if build is not None:
        images, build.images = build.images, None
    if images is not None:
        images.cancel()
    incremental.stop_linking(quietly=True)


def failed(error: Exception, build: OneBuild | None, cache: Cache | None, incremental: Layer,
           banner: ErrorBanner | None) -> None:
    """A build that failed: its error over every page served (under serve), its renders stopped, and
    nothing it checked or wrote taken as done by the next build."""
    if banner is not None:
        banner.failed(str(error) if isinstance(error, Abort) else f"{type(error).__name__}: {error}")
    stop(build, incremental)
    if cache is not None:
        cache.settle(())  # the next build checks every file again
    incremental.failed()
