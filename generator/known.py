"""The validation cache: scenarios that passed validation before, so a warm build skips their parse."""

from __future__ import annotations

import hashlib
from pathlib import Path

from generator.cachefile import read_checked, write_checked
from generator.schema import Scenario

# The modules whose change can turn a valid file invalid or change what it validates to.
VALIDATING = ("loader.py", "yamlread.py", "validation.py", "limits.py", "problems.py", "schema.py")


class KnownScenarios:
    """Scenarios that passed validation before, on disk by the hash of their text and of the code
    that validated them. Parsing YAML with the position of every node is most of what loading a
    thousand unchanged scenarios costs; a known text skips it. Only a file with no problem at all is
    remembered, and any doubt (a changed catalog reference, a verdict off its `expect`, an
    unreadable or damaged entry) falls back to the full path, which locates every problem."""

    _code = hashlib.sha256(b"".join(Path(__file__).with_name(name).read_bytes() for name in VALIDATING)).hexdigest()

    def __init__(self, directory: Path):
        self.directory = directory

    def _path(self, raw: bytes) -> Path:
        return self.directory / (hashlib.sha256(self._code.encode() + b"\0" + raw).hexdigest() + ".json")

    def get(self, raw: bytes) -> Scenario | None:
        """The scenario these exact bytes validated to, or None."""
        body = read_checked(self._path(raw))
        if body is None:
            return None
        try:
            return Scenario.model_validate_json(body)
        except ValueError:
            return None

    def put(self, raw: bytes, scenario: Scenario) -> None:
        try:
            write_checked(self._path(raw), scenario.model_dump_json())
        except OSError:
            pass  # a read-only cache only costs time
