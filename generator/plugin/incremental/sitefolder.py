"""The site folder's folders, kept from one build to the next.

MkDocs empties the site folder before every build that is not dirty, then makes each page's folder
again to write the page into it. At a thousand scenarios that is some 2,200 folders, and on a disk
that has to find a fresh inode for each, making them cost a warm build more than anything else it
adds to a plain build (the cost of a folder is in benchmarks/README.md).

So, before MkDocs empties the folder, the last build's folders move under a hidden name, which
MkDocs leaves alone, and every file in them is removed, as MkDocs would have removed it. The embed
files are the exception: one still linked to the very cache file this build links there stays, so
it is neither removed nor linked again. The folders come back before any file is written, and those
this build leaves empty are removed once it is done. The site is what a build into an empty folder
makes: the same files with the same bytes, and no other file or folder.
"""

from __future__ import annotations

import os
import posixpath
import shutil
from pathlib import Path

KEPT = ".guide-kept"  # MkDocs, emptying the site folder, leaves names that start with a dot
EMBED = "embed"


def put_aside(site_dir: Path) -> None:
    """Before MkDocs empties the site folder: its folders move to KEPT, emptied of their files but
    for those under embed/, which `put_back` checks. Files at the top and anything that is not a
    folder of its own (a link to one, say) stay for MkDocs to remove."""
    kept = site_dir / KEPT
    drop_kept(site_dir)  # left by a build that stopped before putting it back
    try:
        entries = [e for e in os.scandir(site_dir) if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)]
    except FileNotFoundError:
        return
    if not entries:
        return
    kept.mkdir()
    for entry in entries:
        os.rename(entry.path, kept / entry.name)
        if entry.name != EMBED:
            _remove_files(kept / entry.name)


def put_back(site_dir: Path, linked: dict[str, Path]) -> dict[str, Path]:
    """After MkDocs emptied the site folder and before anything is written into it: the folders
    `put_aside` kept return. An embed file stays where it is the same file (device and inode) as
    the cache file `linked` names for its path, that is, a hard link an earlier build made, so the
    same bytes; every other file under embed/, and every folder no chart uses, is removed. Returns
    what of `linked` is still to be linked."""
    kept = site_dir / KEPT
    if kept.is_symlink() or not kept.is_dir():
        return linked
    for entry in os.scandir(kept):
        os.rename(entry.path, site_dir / entry.name)
    kept.rmdir()
    embed = site_dir / EMBED
    if embed.is_symlink() or not embed.is_dir():
        return linked
    folders = {EMBED}
    for path in linked:
        folder = posixpath.dirname(path)
        while folder.startswith(EMBED + "/") and folder not in folders:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    missing = dict(linked)
    _sweep(embed, EMBED, folders, linked, missing)
    return missing


def _sweep(folder: Path, rel: str, folders: set[str], linked: dict[str, Path], missing: dict[str, Path]) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            path = f"{rel}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                if path in folders:
                    _sweep(Path(entry.path), path, folders, linked, missing)
                else:
                    shutil.rmtree(entry.path)
                continue
            cached = linked.get(path)
            if cached is not None and os.path.samestat(entry.stat(follow_symlinks=False), os.stat(cached)):
                del missing[path]
            else:
                os.unlink(entry.path)


def drop_empty(site_dir: Path) -> None:
    """Once the build has written everything: removes the kept folders it left empty, as a build
    into an empty folder never makes them. Hidden entries at the top are not the build's to touch."""
    for entry in os.scandir(site_dir):
        if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False) and _empty_after(Path(entry.path)):
            os.rmdir(entry.path)


def _empty_after(folder: Path) -> bool:
    """Removes every empty folder under folder; whether folder is then empty."""
    empty = True
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and _empty_after(Path(entry.path)):
                os.rmdir(entry.path)
            else:
                empty = False
    return empty


def drop_kept(site_dir: Path) -> None:
    """What a build that failed before `put_back` kept: MkDocs would have removed it."""
    kept = site_dir / KEPT
    if kept.is_symlink() or kept.is_file():
        kept.unlink()
    elif kept.is_dir():
        shutil.rmtree(kept)


def _remove_files(folder: Path) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                _remove_files(Path(entry.path))
            else:
                os.unlink(entry.path)
