"""`guide generate DIR`: the docs tree and an mkdocs.yml without the guide plugin, which plain MkDocs with
Material, and Zensical, build into the site the plugin builds; bad input and a DIR among the sources
are refused with nothing written."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from core_support import copy_inputs, run_guide
from site_support import REPO, build_copy, copy_project, tree_hashes

CHECKER = REPO / "scripts" / "check_links.py"


# --- refusals (fast) ------------------------------------------------------------------------------


def test_bad_input_gives_validates_located_errors_exit_1_and_writes_nothing(tmp_path: Path):
    root = copy_inputs(tmp_path / "project")
    broken = root / "scenarios" / "one-off-run.yaml"
    broken.write_text(broken.read_text(encoding="utf-8").replace("runs: 1\n", "runs: 0\n"), encoding="utf-8")
    out = tmp_path / "out"
    r = run_guide("generate", str(out), cwd=root, root=root)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert re.match(r"scenarios/one-off-run\.yaml:\d+:\d+: workloads\.0\.runs: ", lines[0]), lines
    assert lines[-1] == "1 problem(s) found."
    assert r.stderr == run_guide("validate", cwd=root, root=root).stderr  # the very lines validate gives
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]  # no half-written tree beside it


def test_a_page_whose_figures_do_not_render_is_located_and_nothing_written(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("GUIDE_IMAGES", "0")  # the page is read while the images render: none are needed here
    root = copy_inputs(tmp_path / "project")
    for other in (root / "scenarios").glob("*.yaml"):
        if other.name != "one-off-run.yaml":
            other.unlink()
    (root / "docs").mkdir()
    (root / "docs" / "faq.md").write_text("---\nfigures: true\n---\n# FAQ\n\n{{ headline.trn( }}\n", encoding="utf-8")
    out = tmp_path / "out"
    r = run_guide("generate", str(out), cwd=root, root=root)
    assert r.returncode == 1
    assert r.stderr.startswith("docs/faq.md:6: ") and "Traceback" not in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


def test_the_images_option_in_mkdocs_yml_is_honoured(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("GUIDE_IMAGES", raising=False)
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))  # an empty one: an image would be rendered
    root = copy_inputs(tmp_path / "project")
    for other in (root / "scenarios").glob("*.yaml"):
        if other.name != "one-off-run.yaml":
            other.unlink()
    (root / "mkdocs.yml").write_text("site_name: Guide\nsite_url: https://example.org/guide/\n"
                                     "plugins:\n  - search\n  - guide:\n      images: false\n", encoding="utf-8")
    out = tmp_path / "out"
    r = run_guide("generate", str(out), cwd=root, root=root)
    assert r.returncode == 0, r.stderr
    assert (out / "docs" / "scenarios" / "one-off-run.md").is_file()
    assert sorted(p.name for p in (out / "docs").rglob("*") if p.suffix in (".png", ".svg")) == []
    assert "og:image" not in (out / "docs" / "scenarios" / "one-off-run.md").read_text(encoding="utf-8")


def test_a_zensical_tree_keeps_materials_look_and_edit_links_without_asking_github(tmp_path: Path):
    from generator.commands.generate import OVERRIDES, _read_config, _write_config, _write_overrides

    (tmp_path / "mkdocs.yml").write_text((REPO / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    for engine in ("mkdocs", "zensical"):
        out = tmp_path / engine
        out.mkdir()
        config = _read_config(tmp_path)
        _write_overrides(tmp_path, out, config, engine)
        _write_config(out, config, engine)
        written = yaml.load((out / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_AnyTag)
        overrides = sorted(p.relative_to(out / OVERRIDES).as_posix() for p in (out / OVERRIDES).rglob("*") if p.is_file())
        if engine == "mkdocs":
            assert "variant" not in written["theme"] and "repo_url" not in written
            assert overrides == ["main.html"]
            continue
        # Zensical's own look is its "modern" one; and it makes edit links only from repo_url and edit_uri.
        assert written["theme"]["variant"] == "classic"
        assert written["repo_url"] == "https://github.com/trainium-or-gpu/guide"
        assert written["edit_uri"] == "https://github.com/trainium-or-gpu/guide/edit/main/docs/"
        # The repository widget repo_url brings, which asks GitHub's API from the browser, is left out.
        assert overrides == ["main.html", "partials/source.html"]
        assert "<" not in re.sub(r"\{#.*?#\}", "", (out / OVERRIDES / "partials" / "source.html").read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("inside", ["docs", "docs/generated", "scenarios/x", "data"])
def test_a_dir_inside_the_sources_is_refused(tmp_path: Path, inside: str):
    root = copy_inputs(tmp_path / "project")
    (root / "docs").mkdir()
    before = {p.relative_to(root).as_posix() for p in root.rglob("*")}
    r = run_guide("generate", str(root / inside), cwd=root, root=root)
    assert r.returncode == 2
    folder = inside.split("/")[0]
    assert r.stderr == f"guide generate: DIR must not be inside {folder}/, which the guide only reads (got {root / inside})\n"
    assert {p.relative_to(root).as_posix() for p in root.rglob("*")} == before


def test_a_folder_it_did_not_write_is_refused(tmp_path: Path):
    root = copy_inputs(tmp_path / "project")
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine", encoding="utf-8")
    r = run_guide("generate", str(taken), cwd=root, root=root)
    assert r.returncode == 2
    assert "holds files guide generate did not write" in r.stderr
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]


def test_zensical_trees_name_raw_html_addresses_from_the_source_files_folder():
    # Zensical reads `../sources/#x` on trainium3.md (served at trainium3/) from docs/, where it would
    # leave the site; from the source's folder the same target is `sources/#x`.
    from generator.commands.generate import source_relative

    assert source_relative('<a href="../sources/#x">s</a> <a href="../">up</a>', "trainium3.md") == \
        '<a href="sources/#x">s</a> <a href="./">up</a>'
    page = ('<a href="result.json"> <a href="index.html.md"> <img src="../../embed/c/c.svg" alt="">'
            ' <a href="https://example.org/a"> <a href="#top"> <a href="/guide/">')
    assert source_relative(page, "scenarios/x.md") == (
        '<a href="x/result.json"> <a href="x/index.html%2Emd"> <img src="../embed/c/c.svg" alt="">'
        ' <a href="https://example.org/a"> <a href="#top"> <a href="/guide/">')
    # An index page's folder is its URL's: nothing moves.
    assert source_relative('<a href="../prices/#p">', "axes/index.md") == '<a href="../prices/#p">'


def test_the_generated_mkdocs_yml_drops_the_guide_plugin_and_keeps_everything_else(tmp_path: Path):
    from generator.commands.generate import _read_config, _write_config

    (tmp_path / "mkdocs.yml").write_text((REPO / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    _write_config(out, _read_config(tmp_path))
    text = (out / "mkdocs.yml").read_text(encoding="utf-8")
    theirs = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_AnyTag)
    ours = yaml.load(text, Loader=_AnyTag)
    assert ours["plugins"] == ["search"] and "guide" not in text.split("plugins:")[1].split("markdown_extensions:")[0]
    assert ours["theme"] == {**theirs["theme"], "custom_dir": "overrides"} and ours["docs_dir"] == "docs"
    assert {k: v for k, v in ours.items() if k not in ("plugins", "theme", "docs_dir")} == \
        {k: v for k, v in theirs.items() if k not in ("plugins", "theme")}
    assert text.count("!!python/name:generator.rendering.mathml.") == 2  # the formulas' formatters, as tags


# --- the tree, built without the plugin (slow) -----------------------------------------------------


def _pages(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*.html")}


def _links_ok(site: Path) -> None:
    r = subprocess.run([sys.executable, str(CHECKER), str(site)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:]


def _generate(root: Path, out: Path, *args: str) -> None:
    env = {**os.environ, "GUIDE_CACHE_DIR": str(REPO / ".cache"), "PYTHONIOENCODING": "utf-8"}
    r = subprocess.run([sys.executable, "-m", "generator", "--root", str(root), "generate", str(out), *args],
                       cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"wrote {out}: ")


class _AnyTag(yaml.SafeLoader):
    pass


_AnyTag.add_multi_constructor("", lambda loader, suffix, node: None)


def _article_text(page: Path) -> str:
    """What a reader reads of a page's article: its text, without tags, scripts and spaces."""
    found = re.search(r"<article.*?</article>", page.read_text(encoding="utf-8"), re.S)
    body = re.sub(r"<script.*?</script>|<template.*?</template>", "", found[0] if found else "", flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def _edit_link_and_blank_lines_dropped(html: str) -> str:
    return re.sub(r"\n\s*\n", "\n", re.sub(r'<a href="[^"]*" title="Edit this page".*?</a>', "", html, flags=re.S))


@pytest.mark.slow
def test_the_generated_tree_builds_without_the_plugin_into_the_plugins_pages(tmp_path: Path):
    """Plain `mkdocs build --strict` of the generated tree makes every file the plugin's build makes
    once extra/ is copied over it; a hand-written page's file is the very same bytes (figures, unfurl
    tags, feed link), a generated page's differs only by its edit link (to its docs/ path, where the
    plugin links the YAML it is made from, or nothing) and blank lines. Zensical builds the tree written `--for zensical` into the same HTML
    pages; its other files are its own (search.json for search/search_index.json, its own assets,
    no sitemap.xml.gz) and its theme's markup its own, so the pages are compared by the text of their
    articles. Every link of both resolves."""
    root = copy_project(tmp_path / "project")
    sources = tree_hashes(root)
    plugin = build_copy(root).site

    tree = tmp_path / "tree"
    _generate(root, tree)
    config = yaml.load((tree / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_AnyTag)
    assert config["plugins"] == ["search"] and config["theme"]["custom_dir"] == "overrides"
    assert (tree / "overrides" / "main.html").is_file()
    plain = tmp_path / "plain"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(plain)], cwd=tree, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "guide:" not in r.stderr  # the plugin did not run
    assert _pages(plain) == _pages(plugin)
    shutil.copytree(tree / "extra", plain, dirs_exist_ok=True)
    files = {p.relative_to(plugin).as_posix() for p in plugin.rglob("*") if p.is_file()}
    assert {p.relative_to(plain).as_posix() for p in plain.rglob("*") if p.is_file()} == files
    for name in ("index.html", "faq/index.html", "calculator/index.html", "methodology/index.html", "llms.txt"):
        assert (plain / name).read_bytes() == (plugin / name).read_bytes(), name
    for name, source in (("scenarios/one-off-run/index.html", "scenarios/one-off-run.yaml"),
                         ("prices/index.html", "data/prices.yaml"), ("scenarios/index.html", None)):
        ours, theirs = ((site / name).read_text(encoding="utf-8") for site in (plain, plugin))
        if source is not None:
            assert "/edit/main/" + source in theirs and "/edit/main/" + source not in ours
        assert _edit_link_and_blank_lines_dropped(ours) == _edit_link_and_blank_lines_dropped(theirs), name
    _links_ok(plain)

    zensical = shutil.which("zensical", path=str(Path(sys.executable).parent))
    assert zensical, "zensical is a test extra (pyproject.toml)"
    ztree = tmp_path / "ztree"
    _generate(root, ztree, "--for", "zensical")
    r = subprocess.run([zensical, "build", "--clean"], cwd=ztree, env={**os.environ, "NO_COLOR": "1"},
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    zsite = ztree / "site"
    assert _pages(zsite) == _pages(plugin)
    for name in _pages(plugin):
        assert _article_text(zsite / name) == _article_text(plugin / name), name
    assert "<title>Trainium or GPU?</title>" in (zsite / "index.html").read_text(encoding="utf-8")
    assert 'property="og:image"' in (zsite / "scenarios" / "one-off-run" / "index.html").read_text(encoding="utf-8")
    faq = (zsite / "faq" / "index.html").read_text(encoding="utf-8")
    assert 'href="../assets/stylesheets/classic/main.' in faq  # Material's look, not Zensical's own
    assert 'href="https://github.com/trainium-or-gpu/guide/edit/main/docs/faq.md" title="Edit this page"' in faq
    assert 'data-md-component="source"' not in faq  # no repository widget asking GitHub's API
    shutil.copytree(ztree / "extra", zsite, dirs_exist_ok=True)
    _links_ok(zsite)
    assert tree_hashes(root) == sources  # nothing written into the project
