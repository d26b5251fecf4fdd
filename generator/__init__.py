"""Trainium or GPU: a computable decision guide. The core (schema, engine, loader) never imports MkDocs."""

import os

__version__ = "0.1.0"

# Material for MkDocs prints an end-of-life banner on stderr when the theme is first imported,
# unless this variable is set. mkdocs.yml imports this package while MkDocs parses it (the
# `!!python/name:generator.mathml...` fences), which is before MkDocs loads the theme, so setting it
# here keeps `mkdocs build` and `mkdocs serve` output to the build itself. A value already set wins.
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
