"""The build cache (.cache/ or GUIDE_CACHE_DIR): where it may be, and how its files are written and
read back whole.

The cache only saves time, so nothing read from it is trusted: an entry that is truncated, altered
or foreign reads as missing and is made again. Files the build reads carry a header with the size
and sha256 of what follows; files the build links into the site are checked against the hash they
were stored under. Every file a build reads or links is recorded, so pruning knows what is in use.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

# Folders a build only reads: the cache must never be put there.
SOURCE_FOLDERS = ("docs", "scenarios", "data")
_HEADER = b"guide-cache "

# Paths (absolute, as text) this process read from or wrote into the cache since `begin_build`.
_used: set[str] = set()


class CacheDirError(Exception):
    """GUIDE_CACHE_DIR names a place the build must not or cannot use; one line, for the user."""


def cache_dir(root: Path) -> Path:
    """Where builds keep what is slow to make: GUIDE_CACHE_DIR, or .cache/ in the project. Raises
    CacheDirError, before anything is written, where the cache must not be (inside docs/,
    scenarios/ or data/) or cannot be (it cannot be created, or it is an empty folder that cannot
    be written). A warm cache that cannot be written is read: builds then write nothing there."""
    configured = os.environ.get("GUIDE_CACHE_DIR")
    path = Path(configured).expanduser() if configured else root / ".cache"
    where = f"GUIDE_CACHE_DIR={configured}" if configured else str(path)
    resolved = path.resolve()
    for folder in SOURCE_FOLDERS:
        inside = (root / folder).resolve()
        if resolved == inside or inside in resolved.parents:
            raise CacheDirError(f"guide: the build cache must not be inside {folder}/, which builds only read (got {where})")
    if resolved.exists() and not resolved.is_dir():
        raise CacheDirError(f"guide: the build cache must be a folder (got {where}, which is a file)")
    try:
        resolved.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CacheDirError(f"guide: the build cache cannot be created: {e.strerror} (got {where})") from None
    if not os.access(resolved, os.W_OK | os.X_OK) and not any(resolved.iterdir()):
        raise CacheDirError(f"guide: the build cache cannot be written and holds nothing to read (got {where})")
    return path


def writable(directory: Path) -> bool:
    return os.access(directory, os.W_OK | os.X_OK) if directory.exists() else os.access(_existing(directory), os.W_OK | os.X_OK)


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def begin_build() -> None:
    """Forget what an earlier build in this process used (`mkdocs serve` builds again and again)."""
    _used.clear()


def mark_used(path: Path) -> None:
    _used.add(str(path.absolute()))


def used() -> frozenset[str]:
    return frozenset(_used)


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write through a temporary file and a rename, so another build or a worker process never
    reads half a file, and a file linked into a site keeps its bytes (the rename makes a new one).
    Raises OSError; callers for whom the cache only saves time ignore it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    mark_used(path)


def write_checked(path: Path, data: str | bytes) -> None:
    """Write an entry the build reads back: a header line with its size and sha256, then the bytes."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    write_atomically(path, _HEADER + f"{len(body)} {hashlib.sha256(body).hexdigest()}\n".encode() + body)


def read_checked(path: Path) -> bytes | None:
    """The bytes write_checked stored, or None when the file is missing, cut short or altered."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    head, newline, body = raw.partition(b"\n")
    if not newline or not head.startswith(_HEADER):
        return None
    size, _, digest = head[len(_HEADER):].decode("ascii", "replace").partition(" ")
    if size != str(len(body)) or digest != hashlib.sha256(body).hexdigest():
        return None
    mark_used(path)
    return body


def digest(path: Path) -> tuple[int, str]:
    """Size and sha256 of a file. Raises OSError."""
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            size += len(chunk)
            h.update(chunk)
    return size, h.hexdigest()
