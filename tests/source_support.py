"""Reading the project's own sources in tests: the import graph of generator/ (imports inside
functions counted), and the string literals of a JavaScript module and whether one reads as prose."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "generator"


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(package: Path) -> dict[str, Path]:
    return {_module_name(p, package.parent): p for p in sorted(package.rglob("*.py"))}


def _resolve(name: str, known: set[str]) -> str | None:
    """The module of ours `name` names, or its package where `name` is an attribute of one."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = _modules(package)
    known = set(modules)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, base] if base else up)
                # `from pkg import mod` names the module `pkg.mod` where there is one, else `pkg` itself.
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            for target in targets:
                found = _resolve(target, known)
                if found is not None and found != module:
                    graph[module].add(found)
    return graph


# Where a substitution `${...}` stood in a template literal: not a letter, so a template made only
# of substitutions and punctuation ("${label}: ${value}") is not prose.
HOLE = "\u2026"


# Before a `/` these end an expression, so the `/` divides; anywhere else it opens a regex literal.
_DIVIDES_AFTER = set(")]}") | {"ident"}


_REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await"}


def js_literals(src: str) -> list[str]:
    """Every string and template literal in a JavaScript module, in order; a template's
    substitutions become HOLE and the literals inside them are listed too."""
    out: list[str] = []

    def code(i: int, in_hole: bool) -> int:
        depth, prev, word = 0, "", ""
        while i < len(src):
            c = src[i]
            if c.isspace():
                i += 1
                continue
            if src.startswith("//", i):
                end = src.find("\n", i)
                i = len(src) if end < 0 else end
                continue
            if src.startswith("/*", i):
                i = src.index("*/", i) + 2
                continue
            if c in "'\"":
                j, buf = i + 1, []
                while src[j] != c:
                    step = 2 if src[j] == "\\" else 1
                    buf.append(src[j:j + step])
                    j += step
                out.append("".join(buf))
                i, prev = j + 1, "ident"
            elif c == "`":
                i = template(i + 1)
                prev = "ident"
            elif c == "/" and not (prev in _DIVIDES_AFTER and word not in _REGEX_AFTER_WORDS):
                j, in_class = i + 1, False
                while in_class or src[j] != "/":
                    if src[j] == "\\":
                        j += 1
                    elif src[j] == "[":
                        in_class = True
                    elif src[j] == "]":
                        in_class = False
                    j += 1
                i, prev = j + 1, "ident"
            elif c.isalnum() or c in "_$":
                m = re.compile(r"[\w$]+").match(src, i)
                word, prev, i = m.group(), "ident", m.end()
                continue
            else:
                if c == "{":
                    depth += 1
                elif c == "}":
                    if depth == 0 and in_hole:
                        return i + 1
                    depth -= 1
                prev, i = c, i + 1
            word = ""
        return i

    def template(i: int) -> int:
        slot = len(out)
        out.append("")
        buf = []
        while src[i] != "`":
            if src[i] == "\\":
                buf.append(src[i:i + 2])
                i += 2
            elif src.startswith("${", i):
                buf.append(HOLE)
                i = code(i + 2, True)
            else:
                buf.append(src[i])
                i += 1
        out[slot] = "".join(buf)
        return i + 1

    code(0, False)
    return out


def reads_as_prose(literal: str) -> bool:
    """A phrase (three words in a row) or a sentence (a capitalised word and at least one more, with
    a full stop, colon, question or exclamation mark after a word). Markup tags are not words."""
    text = re.sub(r"<[^>]*>", " ", literal)
    if re.search(r"[A-Za-z'-]+ [A-Za-z'-]+ [A-Za-z'-]+", text):
        return True
    return bool(re.search(r"\b[A-Z][A-Za-z'-]*[.:?!,]?\s+\S", text) and re.search(r"\S[.:?!](\s|$)", text))
