"""The one key recipe of the build cache: what "the code" and "the libraries" are, for every store.

An entry is named by the hash of everything it is made from. What is its own (a scenario's bytes,
a page's Markdown, the site URL) each store names; what every entry is made from is here: the
generator's code and templates (the whole package, so no hand-kept list of files can miss one) and
the versions of the libraries that shape anything the build makes. A change to either makes every
entry again, but the chart images, whose key is narrower (see images.py): rendering them is most of
a cold build.
"""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

PACKAGE = Path(__file__).parents[1]

# Distributions whose releases can change what a build makes for the same input: validation
# (pydantic), pages and charts (altair, jinja2, markupsafe, vl-convert), Markdown (mkdocs, markdown,
# pymdown-extensions) and the theme (mkdocs-material).
LIBRARIES = ("altair", "jinja2", "markdown", "markupsafe", "mkdocs", "mkdocs-material", "pydantic",
             "pymdown-extensions", "vl-convert-python")


def code_digest(package: Path | None = None) -> str:
    """sha256 of the generator's code and templates: every file of the package."""
    package = package or PACKAGE
    h = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(f"{path.relative_to(package).as_posix()}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def library_versions(names: tuple[str, ...] = LIBRARIES) -> str:
    """The installed versions of these distributions, as one key part."""
    return "\0".join(f"{name} {metadata.version(name)}" for name in names)
