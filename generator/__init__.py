"""Trainium or GPU: a computable decision guide. The core (schema, engine, loader) never imports MkDocs."""

__version__ = "0.1.0"
