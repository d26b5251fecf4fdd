"""The validation cache: scenarios and the catalog (data/) that passed validation before, found by the hash of
their bytes and of the code, so a warm build skips parsing them with positions."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from generator.model.catalog import Catalog
from generator.model.schema import Scenario
from generator.store.cachefile import Cache

M = TypeVar("M", bound=BaseModel)


class KnownScenarios:
    """Scenarios that passed validation before (and the catalog data/ validated to), on disk by the
    hash of their text and of the code and libraries that validated them (`Cache.names`). Parsing
    YAML with the position of every node is most of what loading a thousand unchanged scenarios
    costs; a known text skips it. Only a file with no problem at all is remembered, and any doubt (a
    changed catalog reference, a verdict off its `expect`, an unreadable or damaged entry) falls back
    to the full path, which locates every problem.

    It also carries the cache's in-process memos of loading (`memo`): the catalog last read and the
    scenarios evaluated against it, which `mkdocs serve` keeps from one save to the next."""

    def __init__(self, cache: Cache):
        self.cache = cache
        self.names = cache.names("known")
        self.directory = self.names.directory

    def memo(self, name: str) -> dict:
        return self.cache.memo(f"known:{name}")

    def carry(self, name: str, values: dict) -> None:
        self.cache.carry(f"known:{name}", values)

    def _read(self, path: Path, model: type[M]) -> M | None:
        """The model stored at path, or None when it is missing, damaged or no longer validates."""
        body = self.cache.read_checked(path)
        if body is None:
            return None
        try:
            return model.model_validate_json(body)
        except ValueError:
            return None

    def _path(self, raw: bytes) -> Path:
        return self.names.path({"scenario": hashlib.sha256(raw).hexdigest()})

    def get(self, raw: bytes) -> Scenario | None:
        """The scenario these exact bytes validated to, or None."""
        return self._read(self._path(raw), Scenario)

    def put(self, raw: bytes, scenario: Scenario) -> None:
        self.cache.store(self._path(raw), scenario.model_dump_json())

    def _catalog_path(self, key: str) -> Path:
        return self.directory / f"catalog-{self.names.digest({'catalog': key})}.json"

    def catalog(self, key: str) -> Catalog | None:
        """The catalog data/ validated to when its files' bytes (named by `key`) validated without a
        problem before; None otherwise. Far cheaper than parsing data/ with the position of every node
        (figures in benchmarks/README.md, "Figures behind design choices")."""
        return self._read(self._catalog_path(key), Catalog)

    def put_catalog(self, key: str, catalog: Catalog) -> None:
        self.cache.store(self._catalog_path(key), catalog.model_dump_json())
