"""The MkDocs plugin: the only sub-package that imports MkDocs.

Registered as `guide` through the `mkdocs.plugins` entry point (pyproject.toml) and named under
`plugins:` in mkdocs.yml, so a plain `mkdocs build` or `mkdocs serve` runs the generator. The rest of
the package is MkDocs-free; this adapter hands what it makes to MkDocs as generated files.
"""

from generator.plugin.plugin import GuidePlugin

__all__ = ["GuidePlugin"]
