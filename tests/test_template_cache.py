"""Compiled templates kept in the cache: a later process renders from them without compiling, and
nothing it reads there can change what a template renders."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from generator.store.cachefile import Cache
from generator.store.template_cache import Compiled


def _cache(folder: Path, made_with: str = "code 1") -> Cache:
    # A new Cache is what a new process starts with: nothing in memory, the same folder.
    cache = Cache(folder)
    cache.keys = {"code": made_with, "libraries": "jinja2 1"}
    return cache


def _env(templates: Path, cache: Path, made_with: str = "code 1", **settings) -> jinja2.Environment:
    compiled = Compiled(_cache(cache, made_with))
    return jinja2.Environment(loader=jinja2.FileSystemLoader(templates), bytecode_cache=compiled, **settings)


def _compiles(env: jinja2.Environment, monkeypatch) -> list[str]:
    seen: list[str] = []
    compile_ = env.compile

    def counted(source, name=None, filename=None, *args, **kwargs):
        seen.append(name)
        return compile_(source, name, filename, *args, **kwargs)

    monkeypatch.setattr(env, "compile", counted)
    return seen


@pytest.fixture
def templates(tmp_path: Path) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "page.html").write_text("<p>{{ text }}</p>\n{% include 'part.html' %}", encoding="utf-8")
    (folder / "part.html").write_text("<i>{{ text|upper }}</i>", encoding="utf-8")
    return folder


def test_a_later_process_renders_the_stored_templates_without_compiling_them(templates: Path, tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    first = _env(templates, cache)
    compiled_first = _compiles(first, monkeypatch)
    out = first.get_template("page.html").render(text="a<b")
    assert compiled_first == ["page.html", "part.html"]
    later = _env(templates, cache)
    compiled_later = _compiles(later, monkeypatch)
    assert later.get_template("page.html").render(text="a<b") == out == "<p>a<b</p>\n<i>A<B</i>"
    assert compiled_later == []


def test_an_environment_set_up_otherwise_compiles_its_own(templates: Path, tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    _env(templates, cache).get_template("page.html").render(text="x")
    escaping = _env(templates, cache, autoescape=True)
    compiled = _compiles(escaping, monkeypatch)
    # Code compiled without autoescaping would leave the tag as it is.
    assert escaping.get_template("page.html").render(text="a<b") == "<p>a&lt;b</p>\n<i>A&lt;B</i>"
    assert compiled == ["page.html", "part.html"]


def test_a_changed_template_or_a_damaged_entry_is_compiled_again(templates: Path, tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    _env(templates, cache).get_template("page.html").render(text="x")
    assert len(list(cache.rglob("*.bc"))) == 2
    # The part's source changes; the page's entry is damaged, its source left as it was.
    (templates / "part.html").write_text("<b>{{ text }}</b>", encoding="utf-8")
    key = Compiled(_cache(cache)).get_cache_key("page.html", str(templates / "page.html"))
    [page_entry] = cache.rglob(f"{key}-*.bc")
    raw = bytearray(page_entry.read_bytes())
    raw[-5] ^= 0xFF
    page_entry.write_bytes(bytes(raw))
    later = _env(templates, cache)
    compiled = _compiles(later, monkeypatch)
    assert later.get_template("page.html").render(text="x") == "<p>x</p>\n<b>x</b>"
    assert sorted(compiled) == ["page.html", "part.html"]


def test_a_filter_that_now_asks_for_the_context_gets_code_compiled_for_it(templates: Path, tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    (templates / "shout.html").write_text("{{ text|shout }}", encoding="utf-8")
    plain = _env(templates, cache)
    plain.filters["shout"] = lambda value: value.upper()
    assert plain.get_template("shout.html").render(text="hi") == "HI"
    upgraded = _env(templates, cache)
    upgraded.filters["shout"] = jinja2.pass_context(lambda context, value: f"{value.upper()} from {context['who']}")
    compiled = _compiles(upgraded, monkeypatch)
    assert upgraded.get_template("shout.html").render(text="hi", who="me") == "HI from me"
    assert compiled == ["shout.html"]


def test_a_template_is_compiled_again_when_the_code_its_filters_come_from_changes(templates: Path, tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    (templates / "label.html").write_text('{{ "Trainium"|label }}', encoding="utf-8")
    before = _env(templates, cache, made_with="code 1")
    before.filters["label"] = str.upper
    assert before.get_template("label.html").render() == "TRAINIUM"  # folded into the code
    after = _env(templates, cache, made_with="code 2")
    after.filters["label"] = str.lower
    compiled = _compiles(after, monkeypatch)
    assert after.get_template("label.html").render() == "trainium"
    assert compiled == ["label.html"]
