"""The build cache's stores are registered in one table (generator/store/registry.py): each has one
name, a folder, a key recipe and an encoding; every file a build leaves in the cache belongs to
exactly one of them, and every store and memo the code names is in the table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_support import build_into

from generator.store import registry
from generator.store.cachefile import Cache
from generator.store.registry import STORES, TABLE, Encoding, Recipe

PACKAGE = Path(__file__).resolve().parents[1] / "generator"


def test_each_store_has_one_name_a_key_recipe_and_an_encoding():
    names = [s.name for s in TABLE]
    assert len(names) == len(set(names)) == len(STORES)
    for store in TABLE:
        assert isinstance(store.key, Recipe) and isinstance(store.encoding, Encoding), store.name
        assert store.files and store.holds, store.name
    # Stores that share a folder never claim each other's files.
    for store in TABLE:
        for other in TABLE:
            if other is not store and other.folder == store.folder:
                examples = (f"{store.folder}/{p}".lstrip("/").replace("*", "k") for p in store.files)
                assert not any(other.has(e) for e in examples), (store.name, other.name)


def test_a_store_or_memo_the_registry_lacks_is_refused(tmp_path: Path):
    cache = Cache(tmp_path / "cache")
    with pytest.raises(KeyError):
        cache.folder("thumbnails")
    with pytest.raises(KeyError):
        cache.memo("thumbnails")
    with pytest.raises(KeyError):
        cache.names("texts")  # named by the hash of its bytes, not by parts
    assert cache.memo("vega") is cache.memo("vega")


# How the code names a store or a memo: `cache.folder("x")`, `cache.names("x", ...)`, `memo("x")`,
# `carry("x", ...)`, `_remembered("x", ...)`; the validation store's memos are its own, prefixed.
_STORE_USE = re.compile(r"\.(?:folder|names)\(\"([^\"]+)\"")
_MEMO_USE = re.compile(r"(?:\.memo|\.carry|_remembered)\(\"([^\"]+)\"")


def test_every_store_and_memo_the_code_names_is_registered():
    stores, memos = set(), set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        stores.update(_STORE_USE.findall(text))
        prefix = "known:" if "self.known.memo(" in text else ""
        memos.update(prefix + name for name in _MEMO_USE.findall(text))
    assert stores and memos, "the patterns no longer find how the code names stores and memos"
    assert stores - set(STORES) == set()
    assert memos - set(registry.MEMOS) == set()
    # Every store but the digests record (written by the cache itself) and every memo is used.
    assert set(STORES) - stores == {"digests"}
    assert set(registry.MEMOS) - memos == set()


@pytest.mark.slow
def test_every_file_a_build_leaves_in_the_cache_belongs_to_one_registered_store(two_scenario_project: Path, tmp_path: Path):
    root = two_scenario_project
    cache = tmp_path / "cache"
    build_into(root, tmp_path / "site", cache)
    build_into(root, tmp_path / "warm", cache)
    files = [p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()]
    owners = {path: [s.name for s in TABLE if s.has(path)] for path in files}
    assert {path: found for path, found in owners.items() if len(found) != 1} == {}
    # The table holds no store a build does not fill.
    assert {found[0] for found in owners.values()} == set(STORES)
    assert not any(s.has("thumbnails/one.png") for s in TABLE)
