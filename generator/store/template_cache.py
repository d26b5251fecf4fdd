"""Jinja templates compiled once: in memory for the rest of the process, and in the cache for the
builds after it.

`mkdocs serve` makes a Renderer, and MkDocs a theme environment, on every save; and every `mkdocs
build` starts a process that would compile some seventy templates (ours and Material's) again, which
at a thousand scenarios is about a tenth of a warm build. Jinja checks each template's source
against the checksum stored with its code, and its own header against the Jinja and Python that read
it; the cache's header checks the bytes. What Jinja compiles also depends on how the environment is
set up (autoescaping, extensions, delimiters, what each filter and test is passed), which its key
does not hold, so the key here does; and on the filters' code, for a filter given only constants is
called while compiling, so each state of the generator's code and the theme's libraries has a folder
of its own.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket

from generator.store.cachefile import Cache

# What an environment's compiled code depends on besides the template's source.
_SETTINGS = (
    "block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
    "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
    "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized",
    "is_async", "autoescape", "finalize", "sandboxed", "intercepted_binops", "intercepted_unops",
)


def _named(value: object) -> str:
    # A function's repr holds its address, which changes from one process to the next.
    if callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__qualname__)}"
    return repr(value)


def settings_key(env: jinja2.Environment) -> str:
    parts = [jinja2.__version__, sys.version, *sorted(env.extensions)]
    parts += [f"{name}={_named(getattr(env, name, None))}" for name in _SETTINGS]
    # A call to a filter or test is compiled with what it asks to be passed (the context, the
    # environment): a theme upgrade that changes that must not run code compiled for the old one.
    for kind, table in (("filter", env.filters), ("test", env.tests)):
        parts += [f"{kind} {name}:{getattr(f, 'jinja_pass_arg', '')}" for name, f in sorted(table.items())]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


class Compiled(jinja2.BytecodeCache):
    """Ours and the theme's, by template file: in the cache's memo for the rest of the process, and
    on disk in a folder of its own for each state of the code and libraries (`Cache.names`): Jinja
    calls a filter given only constants while it compiles, and keeps the result."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.code: dict[str, bytes] = cache.memo("compiled")
        self.directory = cache.folder("compiled") / cache.names("compiled").digest({})[:16]

    def stored(self) -> set[Path]:
        """The files compiled for the present state, Material's included, whether or not this
        process compiled them: what `guide cache prune`, which renders no theme page, keeps."""
        return set(self.directory.glob("*.bc"))

    def get_bucket(self, environment: jinja2.Environment, name: str, filename: str | None, source: str) -> Bucket:
        key = f"{self.get_cache_key(name, filename)}-{settings_key(environment)}"
        bucket = Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.code.get(bucket.key)
        if code is None:
            code = self.cache.read_checked(self.directory / f"{bucket.key}.bc")
        if code is not None:
            bucket.bytecode_from_string(code)  # a stale or foreign header leaves the bucket empty

    def dump_bytecode(self, bucket: Bucket) -> None:
        code = bucket.bytecode_to_string()
        self.code[bucket.key] = code
        self.cache.store(self.directory / f"{bucket.key}.bc", code)
