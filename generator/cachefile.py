"""Writing into the build cache (.cache/ or GUIDE_CACHE_DIR)."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write through a temporary file and a rename, so another build or a worker process never
    reads half a file. Raises OSError; callers for whom the cache only saves time ignore it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    if isinstance(data, str):
        tmp.write_text(data, encoding="utf-8")
    else:
        tmp.write_bytes(data)
    tmp.replace(path)
