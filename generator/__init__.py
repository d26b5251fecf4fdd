"""Trainium or GPU: a computable decision guide, in layers that import only the ones listed before them:

- model: typed scenarios and catalog, the decision engine, results and their wording (pure);
- store: the build cache on disk;
- inputs: reading YAML with positions, validation, loading data/ and scenarios/;
- rendering: pages, charts, embeds, images, the calculator's data;
- plugin: the MkDocs plugin that puts the rendered files into a build (the only code importing MkDocs);
- commands: the `guide` command line."""

import os
from pathlib import Path

__version__ = "0.1.0"

# Jinja templates of every layer that writes text: pages, embeds, the diff report, new scenarios.
TEMPLATES = Path(__file__).parent / "templates"
# Templates added to Material's own (main.html: each page's unfurl tags in its <head>): the plugin puts
# the folder among the theme's, `guide generate` copies it into the tree it writes as overrides/.
THEME = TEMPLATES / "theme"

# Material for MkDocs prints an end-of-life banner on stderr when the theme is first imported,
# unless this variable is set. mkdocs.yml imports this package while MkDocs parses it (the
# `!!python/name:generator.rendering.mathml...` fences), which is before MkDocs loads the theme, so setting it
# here keeps `mkdocs build` and `mkdocs serve` output to the build itself. A value already set wins.
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
