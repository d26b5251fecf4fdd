"""The plugin's `incremental` option: off, the plugin only generates its files and MkDocs builds every
page itself; the site is the same, file for file and byte for byte."""

from __future__ import annotations

import ast
import inspect
import re
import shutil
from pathlib import Path

import pytest
from site_support import build_into, site_hashes

from generator.inputs import options
from generator.store import registry


def _incremental_off(root: Path) -> None:
    mkdocs_yml = root / "mkdocs.yml"
    text = mkdocs_yml.read_text(encoding="utf-8")
    assert text.count("      incremental: true\n") == 1
    mkdocs_yml.write_text(text.replace("      incremental: true\n", "      incremental: false\n"), encoding="utf-8")


@pytest.mark.slow
def test_a_build_without_the_incremental_layer_makes_the_site_a_cold_and_a_warm_incremental_build_make(
        two_scenario_project: Path, tmp_path: Path, seed_cache):
    root = two_scenario_project
    on, off = seed_cache(tmp_path / "on-cache"), seed_cache(tmp_path / "off-cache")
    cold = build_into(root, tmp_path / "cold", on)
    assert "guide: 0 page files from the cache" in cold.stderr
    warm = build_into(root, tmp_path / "warm", on)
    # The warm build took both scenario pages' files from what the cold one stored.
    assert re.search(r"guide: 2 page files from the cache", warm.stderr), warm.stderr
    _incremental_off(root)
    plain = build_into(root, tmp_path / "plain", off)
    assert "page files from the cache" not in plain.stderr
    stores = [off / registry.STORES[store].folder for store in ("converted", "themed")]
    assert not any(store.exists() for store in stores), "the layer off stores no page"

    cold_site, plain_site = site_hashes(tmp_path / "cold"), site_hashes(tmp_path / "plain")
    assert len(cold_site) > 100
    only_cold = sorted(set(cold_site) - set(plain_site))
    only_plain = sorted(set(plain_site) - set(cold_site))
    differing = sorted(p for p in set(cold_site) & set(plain_site) if cold_site[p] != plain_site[p])
    assert (only_cold, only_plain, differing) == ([], [], []), "incremental on and off make different sites"
    assert site_hashes(tmp_path / "warm") == cold_site


def _install_shout(folder: Path, version: int) -> None:
    """A third-party plugin as pip leaves one (a module and its dist-info with the entry point), in a folder
    put on PYTHONPATH: it rewrites every page's Markdown and adds to its HTML, as plugins do; each version
    rewrites differently."""
    shutil.rmtree(folder, ignore_errors=True)
    dist = folder / f"shout_plugin-{version}.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: shout-plugin\nVersion: {version}.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[mkdocs.plugins]\nshout = shout_plugin:Shout\n", encoding="utf-8")
    (folder / "shout_plugin.py").write_text(f"""from mkdocs.plugins import BasePlugin


class Shout(BasePlugin):
    def on_page_markdown(self, markdown, page, config, files):
        return markdown + "\\n\\nRewritten by shout {version}.\\n"

    def on_page_content(self, html, page, config, files):
        return html + "<!-- shout -->"
""", encoding="utf-8")


@pytest.mark.slow
def test_with_a_third_party_plugin_that_rewrites_pages_the_layer_on_builds_the_site_it_builds_off(
        two_scenario_project: Path, tmp_path: Path, seed_cache):
    root = two_scenario_project
    mkdocs_yml = root / "mkdocs.yml"
    text = mkdocs_yml.read_text(encoding="utf-8")
    assert text.count("  - search\n") == 1
    mkdocs_yml.write_text(text.replace("  - search\n", "  - search\n  - shout\n"), encoding="utf-8")
    plugins = tmp_path / "site-packages"
    env = {"PYTHONPATH": str(plugins)}
    on = seed_cache(tmp_path / "on-cache")
    _install_shout(plugins, 1)
    build_into(root, tmp_path / "cold", on, env)
    _install_shout(plugins, 2)  # upgraded: the build that follows must not hand over version 1's pages
    build_into(root, tmp_path / "warm", on, env)
    build_into(root, tmp_path / "off", seed_cache(tmp_path / "off-cache"), env | {options.INCREMENTAL_ENV: "0"})

    page = (tmp_path / "warm" / "scenarios" / "case-series-a-startup" / "index.html").read_text(encoding="utf-8")
    assert "Rewritten by shout 2." in page and "shout 1" not in page
    assert page.count("<!-- shout -->") == 1
    warm, off = site_hashes(tmp_path / "warm"), site_hashes(tmp_path / "off")
    assert sorted(p for p in warm if warm[p] != off.get(p)) == [] and warm.keys() == off.keys()


def test_the_page_stores_are_used_only_with_search_and_the_guide_alone():
    from types import SimpleNamespace

    from material.plugins.search.plugin import SearchPlugin

    from generator.plugin.incremental.reuse import pages_only_ours

    guide, search = object(), SearchPlugin()
    assert pages_only_ours(SimpleNamespace(plugins={"material/search": search, "guide": guide}), guide)
    hook = SimpleNamespace(on_page_markdown=lambda markdown, **kw: markdown)  # mkdocs.yml's `hooks:` are plugins too
    for others in ({"hooks/rewrite": hook}, {"shout": object()}, {"material/search": object()}, {"search": object()}):
        assert not pages_only_ours(SimpleNamespace(plugins={"material/search": search, "guide": guide} | others), guide), others


def test_guide_incremental_overrides_the_option_for_one_build(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(options.INCREMENTAL_ENV, raising=False)
    assert options.incremental(True) is True
    assert options.incremental(False) is False
    monkeypatch.setenv(options.INCREMENTAL_ENV, "0")
    assert options.incremental(True) is False
    monkeypatch.setenv(options.INCREMENTAL_ENV, "on")
    assert options.incremental(False) is True
    monkeypatch.setenv(options.INCREMENTAL_ENV, "maybe")
    with pytest.raises(ValueError, match="GUIDE_INCREMENTAL must be 1 or 0"):
        options.incremental(True)


# --- one interface: the adapter never asks whether the layer is on -----------------------------------

PLUGIN = Path(__file__).resolve().parents[1] / "generator" / "plugin"
# What names the layer, its kinds or a page only it makes, in the adapter.
_LAYER_NAMES = {"incremental", "inc", "Reuse", "Off", "StoredPage", "Layer"}


def _names_layer(node: ast.AST) -> bool:
    """Whether node reads the layer itself, not only an answer of one of its events (`inc.finished(...)`)."""
    asked = {id(n.func.value) for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    return any(((isinstance(n, ast.Name) and n.id in _LAYER_NAMES) or (isinstance(n, ast.Attribute) and n.attr in _LAYER_NAMES))
               and id(n) not in asked for n in ast.walk(node))


def on_off_branches(source: str) -> list[int]:
    """The lines of source where a condition (an if, a conditional expression, a while, an assert, a
    comprehension's if, an `and`/`or`) reads the layer itself: whether there is one, which kind it is,
    whether a page is its. A condition on what an event of the layer answers is no such branch."""
    found = []
    for node in ast.walk(ast.parse(source)):
        tests: list[ast.AST] = []
        if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests += node.ifs
        elif isinstance(node, ast.BoolOp):
            tests += node.values
        found += [node.lineno if hasattr(node, "lineno") else test.lineno for test in tests if _names_layer(test)]
    return sorted(set(found))


def test_the_adapter_has_no_branch_on_whether_the_incremental_layer_is_on():
    adapter = sorted(p for p in PLUGIN.rglob("*.py") if "incremental" not in p.relative_to(PLUGIN).parts)
    assert len(adapter) > 10
    found = {p.name: on_off_branches(p.read_text(encoding="utf-8")) for p in adapter}
    assert {name: lines for name, lines in found.items() if lines} == {}
    imported = {alias.name for p in adapter for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("generator.plugin.incremental")
                for alias in node.names}
    assert imported <= {"Layer", "Off", "switched", "Chore"}, imported  # the interface, never a kind's own parts


@pytest.mark.parametrize("branch", [
    "if self.incremental is not None:\n    pass\n",
    "stored = incremental is not None and incremental.stored_file(context, page, record)\n",
    "if isinstance(page, StoredPage):\n    pass\n",
    "if inc is None or not inc.finished(chores):\n    pass\n",
    "linked = inc.files() if inc else made.linked\n",
    "if self.options.incremental:\n    pass\n",
])
def test_a_branch_on_the_layer_is_found(branch: str):
    assert on_off_branches(branch) == [1]


def test_the_layer_off_and_on_answer_every_event_of_the_interface():
    from generator.plugin.incremental.reuse import Reuse
    from generator.plugin.incremental.layer import Layer, Off

    events = {name for name, value in vars(Layer).items() if callable(value) and not name.startswith("_")}
    assert len(events) > 15
    for kind in (Off, Reuse):
        for name in events:
            assert inspect.signature(getattr(kind, name)) == inspect.signature(getattr(Layer, name)), (kind, name)
