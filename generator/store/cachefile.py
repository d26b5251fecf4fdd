"""The build cache (.cache/, or where the plugin's options put it): where it may be, and how its files are written and
read back whole.

The cache only saves time, so nothing read from it is trusted: an entry that is truncated, altered
or foreign reads as missing and is made again. Files the build reads carry a header with the size
and sha256 of what follows; files the build links into the site are checked against the hash they
were stored under. Every file a build reads or links is recorded, so pruning knows what is in use.

`Cache`: one object per cache folder and process (the plugin keeps it on its instance, a command
makes its own) handed to every store. It finds each store's folder and entry names in the registry,
and keeps the record of what this build used and wrote, what a `mkdocs serve` process keeps between
builds (parsed entries, each store's memo, the entry names the last build used with the paths they
gave), the file digests kept per file identity like git's index (`digests.json`, recorded after each
build; under `mkdocs serve` between saves, with each used file's time of last use), the bound after
a build and pruning what no store marked used. Files are written through a temporary file and a
rename and read back only whole (a header with size and sha256); where the cache may be (never
inside `docs/`, `scenarios/`, `data/`) is checked before anything is written.

What a process keeps between `mkdocs serve` rebuilds (catalog, evaluations, cache entries read or
stored, compiled templates) is keyed by the bytes it came from, never by time; only the scenario
files' bytes are kept by their stat, as git's index keeps its files (a file modified within two
seconds of being read is read again). Under `mkdocs serve --dirty` alone, the cache files a save
checked and linked into the site folder are taken as checked by the next save (`Cache.settle`), and
the generated files the last finished build wrote as written (`GeneratedFile`), so a file edited in
place or removed there goes unseen until it changes or the server restarts; a failed build settles
nothing, and the next build writes again every generated file it may have written. A chart that is
the very object the last save linked (its scenario's stored entry, unchanged), or one equal to a
chart the last save checked file by file, with every file settled, is linked as it was without a
look at any of them (`embeds.carried`). Serve also keeps its image workers started between saves
(`images.Workers`), and leaves what goes over every file a build used (times of last use, the
digests record, the bound, a full garbage collection) to the moments between saves
(`plugin/incremental/between_saves.py`). A lone `mkdocs build` keeps no cache entry past its use.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

import orjson

from generator.store.registry import MEMOS, STORES, EntryNames, Recipe, code_digest, library_versions

# Folders a build only reads: the cache must never be put there.
SOURCE_FOLDERS = ("docs", "scenarios", "data")
_HEADER = b"guide-cache "
T = TypeVar("T")

TOUCH_EVERY_NS = 60 * 10**9  # see Cache.mark_used

# Cache files are hard-linked into sites, which a web server may read as another user: they get
# the mode open() would give a new file (0o666 less the umask), not the 0o600 of mkstemp.
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK


class CacheDirError(Exception):
    """The cache's configured place is one the build must not or cannot use; one line, for the user."""


def cache_dir(root: Path, configured: str | None = None, given: tuple[str, str] | None = None) -> Path:
    """Where builds keep what is slow to make: given (an environment variable's name and value, which
    the options read), else the plugin's `cache_dir` option (relative to the project), else .cache/ in
    the project. Raises CacheDirError, before anything is written, where the cache must not be (inside
    docs/, scenarios/ or data/) or cannot be (it cannot be created, or it is an empty folder that
    cannot be written). A warm cache that cannot be written is read: builds then write nothing there."""
    if given is not None and given[1]:
        path, where = Path(given[1]).expanduser(), f"{given[0]}={given[1]}"
    elif configured:
        path, where = root / Path(configured).expanduser(), f"cache_dir: {configured}"
    else:
        path = root / ".cache"
        where = str(path)
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
    """Whether files can be made in directory (or, while it does not exist, in its nearest parent)."""
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    return os.access(directory, os.W_OK | os.X_OK)


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write through a temporary file and a rename, so another build or a worker process never
    reads half a file, and a file linked into a site keeps its bytes (the rename makes a new one).
    Records nothing: worker processes write with it; a build writes through its `Cache`.
    Raises OSError; callers for whom the cache only saves time ignore it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), FILE_MODE)
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def checked(data: str | bytes) -> bytes:
    """An entry the build reads back: a header line with its size and sha256, then the bytes."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    return _HEADER + f"{len(body)} {hashlib.sha256(body).hexdigest()}\n".encode() + body


def unchecked(raw: bytes) -> bytes | None:
    """The bytes `checked` wrapped, or None when they are cut short or altered."""
    head, newline, body = raw.partition(b"\n")
    if not newline or not head.startswith(_HEADER):
        return None
    size, _, digest = head[len(_HEADER):].decode("ascii", "replace").partition(" ")
    if size != str(len(body)) or digest != hashlib.sha256(body).hexdigest():
        return None
    return body


DIGESTS = STORES["digests"].files[0]
# A file hashed within this long of its last modification could be written again within the same
# tick of the file system's clock, leaving its modification time where it was: its record is kept
# for this process only, and a later build hashes it once more. Two seconds covers the coarsest
# clocks in use (FAT's); ext4's tick is a few milliseconds.
RACY_NS = 2 * 10**9

# The cache's bound: the `cache_max_mb` option (or GUIDE_CACHE_MAX_MB), or by default this many
# times what the last build used (the current tree plus a few earlier states of it: a branch
# switched back to builds warm), and never less than the floor. Files used in the last GRACE_SECONDS (by access time, see mark_used)
# are kept whatever the size: a build running beside this one may be about to link them.
BOUND_FACTOR = 3
BOUND_FLOOR = 512 * 1024 * 1024
GRACE_SECONDS = 600

def path_key(path: Path) -> str:
    """A file's key in what the cache records of its files (used, settled, digests)."""
    return str(path.absolute())


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _files(directory: Path, stopping: Callable[[], bool] = lambda: False) -> list[tuple[Path, os.stat_result]]:
    """The files under directory with their stats; only some of them once stopping() says so."""
    out = []
    for i, path in enumerate(directory.rglob("*")):
        if i % 256 == 0 and stopping():
            break
        try:
            st = path.stat()
        except OSError:
            continue
        if path.is_file():
            out.append((path, st))
    return out


def bound(used_bytes: int, max_mb: float | None = None) -> int:
    """max_mb (the plugin's `cache_max_mb` option, or GUIDE_CACHE_MAX_MB) in bytes, else the default bound."""
    if max_mb is not None:
        return int(max_mb * 1024 * 1024)
    return max(BOUND_FACTOR * used_bytes, BOUND_FLOOR)


class Cache:
    """One build cache folder, and what this process knows of it. The plugin makes one and keeps it
    on its instance, so what it remembers outlives one build of `mkdocs serve`; a command makes its
    own. Every store is handed it: each finds its folder here (`folder`), keys its entries with the
    one code digest and list of library versions (`keys`), and reads and writes through it, so the
    files a build used are recorded in one place and `prune` removes the rest.

    A worker process gets a copy that knows the folder only (see __getstate__): what it records is
    its own, as it was with a process of its own."""

    def __init__(self, directory: Path, *, between_builds: bool = True):
        self.directory = directory
        # Whether entries read, and texts stored, are kept in the process for the builds that follow
        # (`mkdocs serve`); a lone build lets each go once used.
        self.between_builds = between_builds
        self._memos: dict[str, dict] = {}
        self._new_process()

    def _new_process(self) -> None:
        # Paths (absolute, as text) this build read from or wrote into the cache.
        self._used: set[str] = set()
        self._wrote = False  # whether this build wrote into the cache
        self._names_used: set[tuple] = set()  # the keys of memo("entry names") this build used
        # When this process last set each path's time of last use: `mkdocs serve` builds on every
        # save, and a time a minute old is still well inside the grace the bound gives recent files.
        self._touched: dict[str, int] = {}
        # Entries parsed in this process, by path (see read_remembered).
        self._remembered: dict[Path, object] = {}
        # Digests of the cache's files, by absolute path, with the identity and modification time each
        # file had when it was hashed, and whether that record is settled (see RACY_NS). `mkdocs serve`
        # checks every image again on each save, and every warm build checks them all: some 500 MB at
        # a thousand scenarios, most of a warm build's reading. So, as git's index keeps its files'
        # stat data, settled records outlive the process in DIGESTS at the cache's top: a later build
        # trusts a recorded digest while the file keeps the identity and modification time it had,
        # and hashes it again otherwise. Any write to a file (in the cache, or through a link in a
        # built site) moves its modification time.
        self._digests: dict[str, tuple[tuple[int, int, int, int], tuple[int, str], bool]] = {}
        # The records DIGESTS held when this process read it (None: not read yet), to write it only
        # when they change.
        self._ledger_records: dict[str, list] | None = None
        # Files the last build of this process checked and linked into a site folder no one else
        # writes (see settle).
        self._settled: frozenset[str] = frozenset()
        # Each store's folder as the start of its files' keys (see linkable_in).
        self._folder_keys: dict[str, str] = {}

    def __getstate__(self) -> dict:
        return {"directory": self.directory}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["directory"])  # type: ignore[misc]

    # --- layout and keys ---

    def folder(self, store: str) -> Path:
        """The folder of a store, by its name in `registry.STORES`."""
        return self.directory / STORES[store].folder

    @functools.cached_property
    def keys(self) -> dict[str, str]:
        """The key parts every NAMED store's entries are made from, besides what is their own: the
        generator's code and the versions of the libraries that shape the output (`registry`).
        Worked out once a process: a change to either needs a new process (`mkdocs serve` does not
        reload the package)."""
        return {"code": code_digest(), "libraries": library_versions()}

    def names(self, store: str, common: dict[str, str] | None = None, suffix: str = ".json") -> EntryNames:
        """How a NAMED store names its entries in its folder: by `keys`, the parts common to every
        entry of this build (common) and each entry's own."""
        if STORES[store].key is not Recipe.NAMED:
            raise KeyError(f"the {store} store's entries are not named by parts (store/registry.py)")
        common = {**self.keys, **(common or {})}
        if not self.between_builds:
            return EntryNames(self.folder(store), common, suffix)
        # Under serve each save names the same thousands of entries again (three stores' at three
        # thousand scenarios: 9,000 hashes and paths a save). The names of the last build's common
        # parts and this one's are kept, with the paths they gave.
        key = (store, suffix, tuple(sorted(common.items())))
        memo = self.memo("entry names")
        names = memo.get(key)
        if names is None:
            names = memo[key] = EntryNames(self.folder(store), common, suffix, remember=True)
        self._names_used.add(key)
        return names

    def memo(self, name: str) -> dict:
        """What this process keeps between builds for one store or stage, by its name in
        `registry.MEMOS` (the catalog read, the scenarios evaluated, templates and charts compiled).
        Keyed by what the values are made from, never by time; `forget` drops them all."""
        memo = self._memos.get(name)
        if memo is None:
            if name not in MEMOS:
                raise KeyError(f"{name!r} is not a memo of store/registry.py's MEMOS")
            memo = self._memos[name] = {}
        return memo

    def carry(self, name: str, values: dict) -> None:
        """What this build found, for the next build of this process to find in `memo(name)`, in
        place of what the last one left; where no build follows, nothing is kept."""
        memo = self.memo(name)
        memo.clear()
        if self.between_builds:
            memo.update(values)

    def forget(self) -> None:
        """Drop what this process remembers of the cache's files and of earlier builds: the next
        build reads, checks and marks them all, as a new process would (which still trusts the
        settled digests the cache records)."""
        self._memos.clear()
        self._new_process()

    # --- what a build used ---

    def begin_build(self) -> None:
        """Forget what an earlier build used (`mkdocs serve` builds again and again), and take up
        the digests earlier builds recorded in the cache (see _digests) once a process."""
        self._used.clear()
        self._wrote = False
        names = self.memo("entry names")
        for key in [key for key in names if key not in self._names_used]:
            del names[key]
        self._names_used.clear()
        if self._ledger_records is None:
            self._load_digests()

    def mark_used(self, path: Path) -> None:
        """Record that this build uses path, and make its time of last use (its access time) now, so
        the files the bound removes first are those no build has used for longest (and none a running
        build uses). A lone build sets it at once; a process that builds again and again (`mkdocs
        serve`) sets it between saves (`touch_used`). The modification time stays that of the bytes:
        `digest` relies on it."""
        name = path_key(path)
        self._used.add(name)
        if not self.between_builds:
            self._touch(name)

    def mark_all_used(self, keys: Iterable[str]) -> None:
        """mark_used for files known by their `path_key`."""
        keys = tuple(keys)
        self._used.update(keys)
        if not self.between_builds:
            for key in keys:
                self._touch(key)

    def touch_used(self, stopping: Callable[[], bool] = lambda: False) -> None:
        """Make the time of last use of every file this build used now, where this process has not
        set it for a minute; returns early once stopping() says so (a save has come)."""
        for i, name in enumerate(list(self._used)):
            if i % 256 == 0 and stopping():
                return
            self._touch(name)

    def _touch(self, name: str) -> None:
        now = time.time_ns()
        if now - self._touched.get(name, -TOUCH_EVERY_NS) < TOUCH_EVERY_NS:
            return
        try:
            os.utime(name, ns=(now, os.stat(name).st_mtime_ns))
        except OSError:
            return  # a read-only cache, or a file gone since
        self._touched[name] = now

    def used(self) -> frozenset[str]:
        return frozenset(self._used)

    def wrote(self) -> bool:
        """Whether this build wrote into the cache (images its worker processes render aside)."""
        return self._wrote

    # --- writing and reading ---

    def write(self, path: Path, data: str | bytes) -> None:
        """write_atomically, recorded. Raises OSError."""
        write_atomically(path, data)
        self._wrote = True
        self.mark_used(path)

    def write_checked(self, path: Path, data: str | bytes) -> None:
        """Write an entry the build reads back, with its header (`checked`). Raises OSError."""
        self.write(path, checked(data))

    def store(self, path: Path, data: str | bytes) -> None:
        """write_checked for what only saves time: where the cache cannot be written, nothing is
        stored and the next build makes it again."""
        try:
            self.write_checked(path, data)
        except OSError:
            pass

    def store_json(self, path: Path, value: object, parse: Callable[[bytes], object | None] | None = None) -> None:
        """store() value as compact JSON. A value that does not travel as JSON (an object, a NaN) is
        not stored: what it was made of is made again every time. parse: the entry's reader
        (`read_remembered`), where the process keeps entries between builds: the next build finds
        the entry as a read would give it back, without reading the file (after `mkdocs serve`'s
        first build, thousands of entries written moments before)."""
        try:
            text = json.dumps(value, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            return
        self.store(path, text)
        if parse is not None and self.between_builds:
            parsed = parse(text.encode("utf-8"))
            if parsed is not None:
                self._remembered[path] = parsed

    def read_checked(self, path: Path) -> bytes | None:
        """The bytes write_checked stored, or None when the file is missing, cut short or altered."""
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        body = unchecked(raw)
        if body is not None:
            self.mark_used(path)
        return body

    def read_remembered(self, path: Path, parse: Callable[[bytes], T | None]) -> T | None:
        """An entry parsed from its checked bytes, or None. An entry is named by the hash of all it is
        made from, so once read in a process (`mkdocs serve` builds again on every save) it is the
        same entry for the rest of it, and is kept."""
        known = self._remembered.get(path)
        if known is not None:
            self.mark_used(path)
            return known  # type: ignore[return-value]
        body = self.read_checked(path)
        parsed = None if body is None else parse(body)
        if parsed is not None and self.between_builds:
            self._remembered[path] = parsed
        return parsed

    # --- digests of files linked into sites ---

    def _load_digests(self) -> None:
        self._ledger_records = {}
        body = self.read_checked(self.directory / DIGESTS)
        try:
            records = json.loads(body) if body is not None else {}
            prefix = str(self.directory.absolute()) + os.sep
            for rel, (dev, ino, size, mtime, length, hexdigest) in records.items():
                name = prefix + rel
                if name not in self._digests:
                    self._digests[name] = ((dev, ino, size, mtime), (length, hexdigest), True)
                self._ledger_records[rel] = [dev, ino, size, mtime, length, hexdigest]
        except (ValueError, TypeError, AttributeError):
            self._ledger_records.clear()  # not a record this code wrote: every file is hashed again

    def save_digests(self) -> None:
        """Record the settled digests of the files this build used, for later builds (see _digests).
        A cache that cannot be written keeps what it had."""
        if self._ledger_records is None:
            return
        prefix = str(self.directory.absolute()) + os.sep
        records: dict[str, list] = {}
        for name in self._used:
            known = self._digests.get(name)
            if known is not None and known[2] and name.startswith(prefix):
                records[name[len(prefix):]] = [*known[0], *known[1]]
        if records == self._ledger_records:
            return
        try:
            self.write_checked(self.directory / DIGESTS, orjson.dumps(records, option=orjson.OPT_SORT_KEYS))
        except OSError:
            return
        self._ledger_records = records

    def digest(self, path: Path, st: os.stat_result | None = None) -> tuple[int, str]:
        """Size and sha256 of a file (st: its stat, where the caller took it). Raises OSError."""
        name = path_key(path)
        known = self._digests.get(name)
        if known is not None and known[0] == _identity(st or path.stat()):
            return known[1]
        h = hashlib.sha256()
        size = 0
        hashed_at = time.time_ns()
        with path.open("rb") as f:
            before = _identity(os.fstat(f.fileno()))
            while chunk := f.read(1 << 20):
                size += len(chunk)
                h.update(chunk)
            if _identity(os.fstat(f.fileno())) == before:
                self._digests[name] = (before, (size, h.hexdigest()), hashed_at - before[3] >= RACY_NS)
        return size, h.hexdigest()

    def linkable(self, path: Path, size: int, sha256: str) -> bool:
        """Whether a cache file holds these bytes and may be linked into a site as it is: a file an
        older build left readable by its owner alone is made again. A settled file is taken as it
        was checked, without a look at the disk. Raises OSError."""
        if self._settled and self._settled_as(path_key(path), size, sha256):
            return True
        return self._linkable_on_disk(path, size, sha256)

    def linkable_in(self, store: str, name: str, size: int, sha256: str) -> bool:
        """`linkable` for the file of that name in a store. A settled one is found by its key alone:
        under `mkdocs serve --dirty` each save at three thousand scenarios asks after some 25,000
        stored texts, and making each one's path took a fifth of the save. Raises OSError."""
        if self._settled:
            folder = self._folder_keys.get(store)
            if folder is None:
                folder = self._folder_keys[store] = path_key(self.folder(store)) + os.sep
            if self._settled_as(folder + name, size, sha256):
                return True
        return self._linkable_on_disk(self.folder(store) / name, size, sha256)

    def _settled_as(self, key: str, size: int, sha256: str) -> bool:
        return key in self._settled and self._digests[key][1] == (size, sha256)

    def _linkable_on_disk(self, path: Path, size: int, sha256: str) -> bool:
        st = path.stat()
        return stat.S_IMODE(st.st_mode) == FILE_MODE and self.digest(path, st) == (size, sha256)

    def settle(self, paths: Iterable[Path], keys: Iterable[str] = ()) -> None:
        """Under `mkdocs serve --dirty`, once a build has checked these files and linked them into the
        site folder the server alone writes: until the next call, `linkable` and `settled` take them
        as they were, with no stat. A save at three thousand scenarios otherwise looks at some 30,000
        unchanged files twice. A file edited in place, in the cache or through its link in that
        folder, goes unseen until the server restarts; every other build checks them all. A build
        that fails settles nothing. keys: more files, by their `path_key`."""
        digests = self._digests
        settled = {name for name in keys if name in digests}
        for path in paths:
            name = path_key(path)
            if name in digests:
                settled.add(name)
        self._settled = frozenset(settled)

    def settled(self, path: Path) -> bool:
        return path_key(path) in self._settled

    def all_settled(self, keys: Iterable[str]) -> bool:
        """Whether every one of these files, by its `path_key`, is settled."""
        return self._settled.issuperset(keys)

    # --- keeping it bounded, pruning ---

    def keep_bounded(self, now: float | None = None, max_mb: float | None = None,
                     stopping: Callable[[], bool] = lambda: False) -> int:
        """After a build: while the cache is over its bound, remove the files this build did not use,
        least recently used first. Returns how many were removed; returns early, having removed some
        or none, once stopping() says so."""
        if not writable(self.directory):
            return 0
        files = _files(self.directory, stopping)
        if stopping():
            return 0
        in_use = self._used
        used_bytes = sum(st.st_size for p, st in files if path_key(p) in in_use)
        total = sum(st.st_size for _, st in files)
        limit = bound(used_bytes, max_mb)
        if total <= limit:
            return 0
        now = time.time() if now is None else now
        removed = 0
        for path, st in sorted(files, key=lambda f: f[1].st_atime):
            if total <= limit or stopping():
                break
            if path_key(path) in in_use or now - st.st_atime < GRACE_SECONDS:
                continue
            try:
                path.unlink()
            except OSError:
                continue
            total -= st.st_size
            removed += 1
        return removed

    def prune(self, now: float | None = None) -> tuple[int, int]:
        """Remove every file of the cache this build did not mark used, but a temporary file written
        in the last GRACE_SECONDS (a build may be about to rename it). Returns the files and bytes
        removed."""
        now = time.time() if now is None else now
        count = size = 0
        for path, st in _files(self.directory):
            if path_key(path) in self._used or (path.suffix == ".tmp" and now - st.st_mtime < GRACE_SECONDS):
                continue
            path.unlink(missing_ok=True)
            count += 1
            size += st.st_size
        for folder in sorted((p for p in self.directory.rglob("*") if p.is_dir()), reverse=True):
            try:
                folder.rmdir()
            except OSError:
                pass
        return count, size
