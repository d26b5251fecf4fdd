"""The validation cache: scenarios and data/ that passed validation before, so a warm build skips
parsing them."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from generator.cachefile import read_checked, store
from generator.catalog import Catalog
from generator.schema import Scenario

# The modules whose change can turn a valid file invalid or change what it validates to.
VALIDATING = ("loader.py", "yamlread.py", "validation.py", "limits.py", "problems.py", "schema.py")
# The same for data/, which validates to a Catalog.
CATALOGUING = ("datafiles.py", "catalog.py", "yamlread.py", "validation.py", "limits.py", "problems.py", "schema.py")


M = TypeVar("M", bound=BaseModel)


def _code_digest(names: tuple[str, ...]) -> str:
    return hashlib.sha256(b"".join(Path(__file__).with_name(name).read_bytes() for name in names)).hexdigest()


def _read(path: Path, model: type[M]) -> M | None:
    """The model stored at path, or None when it is missing, damaged or no longer validates."""
    body = read_checked(path)
    if body is None:
        return None
    try:
        return model.model_validate_json(body)
    except ValueError:
        return None


class KnownScenarios:
    """Scenarios that passed validation before (and the catalog data/ validated to), on disk by the
    hash of their text and of the code that validated them. Parsing YAML with the position of every
    node is most of what loading a thousand unchanged scenarios costs; a known text skips it. Only a file with no problem at all is
    remembered, and any doubt (a changed catalog reference, a verdict off its `expect`, an
    unreadable or damaged entry) falls back to the full path, which locates every problem."""

    _code = _code_digest(VALIDATING)
    _catalog_code = _code_digest(CATALOGUING)

    def __init__(self, directory: Path):
        self.directory = directory

    def _path(self, raw: bytes) -> Path:
        return self.directory / (hashlib.sha256(self._code.encode() + b"\0" + raw).hexdigest() + ".json")

    def get(self, raw: bytes) -> Scenario | None:
        """The scenario these exact bytes validated to, or None."""
        return _read(self._path(raw), Scenario)

    def put(self, raw: bytes, scenario: Scenario) -> None:
        store(self._path(raw), scenario.model_dump_json())

    def _catalog_path(self, key: str) -> Path:
        return self.directory / ("catalog-" + hashlib.sha256(f"{self._catalog_code}\0{key}".encode()).hexdigest() + ".json")

    def catalog(self, key: str) -> Catalog | None:
        """The catalog data/ validated to when its files' bytes (named by `key`) validated without a
        problem before; None otherwise. Far cheaper than parsing data/ with the position of every node
        (figures in benchmarks/README.md, "Figures behind design choices")."""
        return _read(self._catalog_path(key), Catalog)

    def put_catalog(self, key: str, catalog: Catalog) -> None:
        store(self._catalog_path(key), catalog.model_dump_json())
