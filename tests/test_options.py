"""The GUIDE_* environment variables are read, and named as settings, in one place only: the options
reader the plugin (generator/plugin/config.py) and the commands (generator/commands/siteconfig.py)
share, generator/inputs/options.py. Every other module is handed the values."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "generator"
READERS = {"inputs/options.py"}


def _reads_environment(node: ast.AST) -> bool:
    """`os.environ` (or `environ`) read (subscript, .get, `in`) or `os.getenv`/`getenv` called; a
    write (`os.environ[...] = ...`) or `setdefault` is not a read of a setting."""
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in {"getenv", "getenvb"}:
            return True
        if isinstance(f, ast.Name) and f.id == "getenv":
            return True
        if isinstance(f, ast.Attribute) and f.attr in {"get", "__getitem__", "__contains__", "copy", "items"}:
            return _is_environ(f.value)
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return _is_environ(node.value)
    if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
        return any(_is_environ(c) for c in node.comparators)
    return False


def _is_environ(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "environ"
    return isinstance(node, ast.Name) and node.id == "environ"


def guide_variable_readers(sources: dict[str, str]) -> set[str]:
    """The modules (by path) that read the environment and name a GUIDE_ variable."""
    found = set()
    for path, text in sources.items():
        tree = ast.parse(text, path)
        names_one = any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("GUIDE_")
                        for n in ast.walk(tree))
        if names_one and any(_reads_environment(n) for n in ast.walk(tree)):
            found.add(path)
    return found


def guide_variable_namers(sources: dict[str, str]) -> set[str]:
    """The modules (by path) that give a GUIDE_ variable's name a name of their own (`X_ENV = "GUIDE_X"`):
    a second copy of the reader's constants."""
    return {path for path, text in sources.items() for node in ast.walk(ast.parse(text, path))
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str) and node.value.value.startswith("GUIDE_")}


def _package() -> dict[str, str]:
    return {p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}


def test_guide_variables_are_read_only_where_the_options_are():
    assert guide_variable_readers(_package()) == READERS
    assert guide_variable_namers(_package()) == READERS


def test_a_second_name_for_a_guide_variable_is_found():
    sources = _package()
    sources["commands/siteconfig.py"] += '\nTODAY_ENV = "GUIDE_TODAY"\n'
    assert guide_variable_namers(sources) == READERS | {"commands/siteconfig.py"}


def test_a_guide_variable_read_anywhere_else_is_found():
    sources = _package()
    images = sources["rendering/charts/images.py"]
    for read in ('os.environ.get("GUIDE_IMAGES", "")', 'os.environ["GUIDE_IMAGES"]', 'os.getenv("GUIDE_IMAGES")',
                 '"GUIDE_IMAGES" in os.environ'):
        sources["rendering/charts/images.py"] = images + f"\n\ndef wanted() -> bool:\n    return bool({read})\n"
        assert guide_variable_readers(sources) == READERS | {"rendering/charts/images.py"}, read
    # A name in a message, or a write of another variable, is no read of a setting.
    sources["rendering/charts/images.py"] = images + '\n\nHINT = "set GUIDE_IMAGES=0"\n'
    assert guide_variable_readers(sources) == READERS
