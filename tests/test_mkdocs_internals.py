"""What the plugin uses of MkDocs and Material beyond their plugin interface lives in one module,
generator/plugin/mkdocs_internals.py, checked against named releases of both."""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from importlib.metadata import version
from pathlib import Path

import pytest
from core_support import REPO

from generator.plugin import mkdocs_internals

PACKAGE = REPO / "generator"
INTERNALS = PACKAGE / "plugin" / "mkdocs_internals.py"
# Private names of other libraries that the package may use anywhere: Python's own.
ALLOWED = {("os", "_exit"), ("hashlib", "_Hash")}
ALLOWED_ANYWHERE = {"_replace"}  # a named tuple's public method
# Attributes of MkDocs' and Material's objects that the guide replaces or edits in place (none of
# them private by name): MkDocs' file's modified check, the dev server's observer, the search
# plugin's index, the theme environment's loader and how it is made and lists the theme's files, a
# page's template.
PATCHED = {"is_modified", "observer", "entries", "loader", "get_env", "list_templates"}
SEARCH_INTERNALS = {"search_index", "search_index_prev"}


@cache
def library_private_names() -> frozenset[str]:
    """Every private name MkDocs and Material define: functions, methods, classes, attributes."""
    names: set[str] = set()
    for package in ("mkdocs", "material"):
        for location in importlib.util.find_spec(package).submodule_search_locations or ():
            for path in Path(location).rglob("*.py"):
                for node in ast.walk(ast.parse(path.read_bytes())):
                    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                        name = node.name
                    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                        name = node.attr
                    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                        name = node.id
                    else:
                        continue
                    if len(name) > 1 and name.startswith("_") and not name.startswith("__"):
                        names.add(name)
    return frozenset(names)


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _library_bases(tree: ast.AST) -> set[str]:
    """Names the module imports from MkDocs or Material."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("mkdocs", "material"):
            out |= {a.asname or a.name for a in node.names}
    return out


def internals_used(source: str, filename: str = "<source>") -> list[str]:
    """Each use in source of a MkDocs or Material internal, as "file:line: what"."""
    tree = ast.parse(source, filename)
    private = library_private_names()
    docstrings = _docstrings(tree)
    library = _library_bases(tree)
    found: list[str] = []

    def note(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            owner = node.value.id if isinstance(node.value, ast.Name) else None
            private_name = node.attr.startswith("_") and not node.attr.startswith("__")
            if private_name and owner not in ("self", "cls") and (owner, node.attr) not in ALLOWED \
                    and node.attr not in ALLOWED_ANYWHERE:
                note(node, f"{owner or '...'}.{node.attr}")
            if isinstance(node.ctx, ast.Store) and owner != "self" and (node.attr in PATCHED or owner in library):
                note(node, f"{owner or '...'}.{node.attr} replaced")
            if node.attr in SEARCH_INTERNALS:
                note(node, f"search plugin's {node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if node.value in private or node.value in SEARCH_INTERNALS:
                note(node, f"{node.value!r} named as a string")
            if node.value == "template" and any(k is node for d in ast.walk(tree) if isinstance(d, ast.Dict) for k in d.keys):
                note(node, "a page's template set in its front matter")
        elif isinstance(node, ast.ClassDef):
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)} | {b.attr for b in node.bases if isinstance(b, ast.Attribute)}
            if not bases & library:
                continue
            # A subclass of a MkDocs or Material class overriding or setting one of its private names.
            for inner in ast.walk(node):
                if isinstance(inner, ast.FunctionDef) and inner.name in private:
                    note(inner, f"{node.name}.{inner.name} overridden")
                elif isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "self" \
                        and inner.attr in private:
                    note(inner, f"self.{inner.attr} in {node.name}")
    return found


def test_mkdocs_and_material_internals_are_used_in_one_module_alone():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != INTERNALS:
            found += internals_used(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    assert found == [], ("MkDocs or Material internals used outside generator/plugin/mkdocs_internals.py "
                         "(move each use there, with a line saying why):\n" + "\n".join(found))


def test_the_check_finds_each_kind_of_use_and_the_module_holds_them():
    # What the internals module does is what the check is there to find elsewhere.
    held = "\n".join(internals_used(INTERNALS.read_text(encoding="utf-8")))
    for what in ("page._title_from_render", "Page._set_canonical_url", "PageWithKeptUrls._set_edit_url overridden",
                 "server._inject_js_into_html", "f.is_modified replaced", "server.observer replaced",
                 "env.loader replaced", "'search_index_prev' named as a string", "a page's template",
                 "theme.get_env replaced", "....list_templates replaced"):
        assert what in held, what
    assert internals_used("def title(page):\n    return page._title_from_render\n") == ["<source>:2: page._title_from_render"]
    assert internals_used("from mkdocs.structure.pages import Page\n\nclass P(Page):\n"
                          "    def render(self, config, files):\n        self._title_from_render = 'x'\n") \
        == ["<source>:5: self._title_from_render in P"]
    assert internals_used("x = getattr(server, '_epoch_cond')\n") == ["<source>:1: '_epoch_cond' named as a string"]
    assert internals_used("def mark(f):\n    f.is_modified = lambda: True\n") == ["<source>:2: f.is_modified replaced"]
    assert internals_used("from mkdocs.structure.pages import Page\n\nPage.render = print\n") == ["<source>:3: Page.render replaced"]
    # Our own private names and Python's are no internals of MkDocs.
    assert internals_used("import os\n\nclass A:\n    def _go(self):\n        self._x = parts._replace(a=1)\n        os._exit(1)\n") == []


def test_the_installed_mkdocs_and_material_are_the_releases_the_internals_were_checked_against():
    installed = {name: version(name) for name in mkdocs_internals.CHECKED_AGAINST}
    assert installed == mkdocs_internals.CHECKED_AGAINST, (
        f"Installed {installed}, but generator/plugin/mkdocs_internals.py was checked against "
        f"{mkdocs_internals.CHECKED_AGAINST}: read each use there against the new release (their private "
        "names, the search plugin's index, the dev server's epoch and observer), then update CHECKED_AGAINST.")
    assert mkdocs_internals.unchecked_versions() == []


def test_the_engine_running_the_build_is_the_one_checked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(mkdocs_internals, "CHECKED_AGAINST", {"mkdocs": version("mkdocs"), "properdocs": "0.1",
                                                              "mkdocs-material": version("mkdocs-material")})
    assert mkdocs_internals.running_engine() == "mkdocs"
    assert mkdocs_internals.unchecked_versions() == []
    monkeypatch.setattr(mkdocs_internals, "running_engine", lambda: "properdocs")
    assert mkdocs_internals.unchecked_versions() == [f"properdocs {version('properdocs')} (checked against 0.1)"]


def test_other_releases_are_named_in_the_plugins_warning(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(mkdocs_internals, "CHECKED_AGAINST", {"mkdocs": "0.1", "mkdocs-material": version("mkdocs-material")})
    assert mkdocs_internals.unchecked_versions() == [f"mkdocs {version('mkdocs')} (checked against 0.1)"]


def test_the_theme_files_listing_lists_again_only_once_a_folder_under_the_theme_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import os

    import jinja2
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    overrides = tmp_path / "overrides"
    (overrides / "assets").mkdir(parents=True)
    (overrides / "assets" / "a.css").write_text("a", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ntheme:\n  name: material\n  custom_dir: overrides\n", encoding="utf-8")
    listed = []
    real = jinja2.FileSystemLoader.list_templates
    monkeypatch.setattr(jinja2.FileSystemLoader, "list_templates", lambda loader: listed.append(1) or real(loader))
    listing = mkdocs_internals.ThemeListing()

    def static_files(kept: bool = True) -> list[str]:
        config = load_config(str(tmp_path / "mkdocs.yml"))  # as each build under `mkdocs serve` reads it
        if kept:
            listing.use(config)
        files = Files([])
        files.add_files_from_theme(config.theme.get_env(), config)
        return sorted(f.src_uri for f in files)

    def settle() -> None:  # the folders as a theme's are: last changed long before a build
        for folder in [overrides, overrides / "assets"]:
            os.utime(folder, ns=(1_000_000_000, 1_000_000_000))

    settle()
    first = static_files()
    assert first == static_files(kept=False) and "assets/a.css" in first and len(first) > 10
    listed.clear()
    assert static_files() == first and listed == []
    (overrides / "assets" / "b.css").write_text("b", encoding="utf-8")
    assert static_files() == sorted([*first, "assets/b.css"]) and listed == [1]
    (overrides / "assets" / "js").mkdir()  # a new folder, then a file in it once the listing knows the folder
    settle()
    static_files()
    (overrides / "assets" / "js" / "c.js").write_text("c", encoding="utf-8")
    assert "assets/js/c.js" in static_files()
    # A folder changed lately may change again within the same tick of the file system's clock: it
    # is listed again until it has settled.
    listed.clear()
    static_files()
    assert listed == [1]
