#!/usr/bin/env python3
"""Check every link inside a built site, offline: python3 scripts/check_links.py SITE_DIR

Each href and src in every HTML page that stays on the site must name a file in SITE_DIR (a folder
means its index.html), and a #fragment must name an id (or <a name>) on the page it points to.
Links from the site root ("/guide/x/", as on 404.html) are read against the path of site_url,
taken from the shortest address in sitemap.xml (the home page).
The Markdown links of llms.txt at the site's root are checked the same way; there the site's own
addresses are absolute (site_url and a path), and each must name a file in SITE_DIR.
Links to other hosts are not followed: the check needs no network and cannot flake. Exit 0 when
all links resolve, 1 with one line per broken link otherwise, 2 on a usage error.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

# Attributes that point at another document or resource.
LINK_ATTRS = {("a", "href"), ("link", "href"), ("area", "href"), ("script", "src"), ("img", "src"),
              ("iframe", "src"), ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src")}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[int, str]] = []  # (line, url)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            if (tag, name) in LINK_ATTRS:
                self.links.append((self.getpos()[0], value.strip()))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    page.close()
    return page


def _home(site: Path) -> str:
    """The home page's address from sitemap.xml (its shortest), or "/" without one."""
    sitemap = site / "sitemap.xml"
    locs = re.findall(r"<loc>([^<]+)</loc>", sitemap.read_text(encoding="utf-8")) if sitemap.is_file() else []
    return min(locs, key=len).strip() if locs else "/"


def base_path(site: Path) -> str:
    """The path the site is served under ("/guide/"), from sitemap.xml; "/" without one."""
    path = urlsplit(_home(site)).path or "/"
    return path if path.endswith("/") else path + "/"


MARKDOWN_LINK = re.compile(r"\]\(([^()\s]+)\)")
LLMS = "llms.txt"


def _llms_links(site: Path) -> list[tuple[int, str]]:
    """llms.txt's Markdown links, the site's own absolute addresses made root-relative ("/guide/x/")."""
    path = site / LLMS
    if not path.is_file():
        return []
    home = urlsplit(_home(site))
    origin = f"{home.scheme}://{home.netloc}" if home.netloc else None
    links = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for url in MARKDOWN_LINK.findall(line):
            links.append((n, url[len(origin):] if origin and url.startswith(origin + "/") else url))
    return links


def _target(site: Path, base: str, page_url: str, url: str) -> tuple[Path, str] | None:
    """The file and fragment a link on page_url (a path under base) points to, or None if it leaves the site."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return None  # http:, mailto:, data:, //host ...: not this site's to check
    resolved = urlsplit(urljoin(page_url, url))
    if not resolved.path.startswith(base):
        return site / ".." / unquote(resolved.path).lstrip("/"), ""  # above the site: reported below
    path = unquote(resolved.path[len(base):])
    target = site / path if path else site
    if not path or path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target, unquote(resolved.fragment)


def check(site: Path) -> tuple[list[str], int, int]:
    """(broken-link messages, links checked, pages read)."""
    site = site.resolve()
    base = base_path(site)
    pages = sorted(site.rglob("*.html"))
    parsed: dict[Path, _Page] = {p: _parse(p) for p in pages}
    broken = []
    checked = 0
    listed = [(site / LLMS, _llms_links(site))] if (site / LLMS).is_file() else []
    for path, links in [(p, page.links) for p, page in parsed.items()] + listed:
        rel = path.relative_to(site).as_posix()
        page_url = base + rel
        for line, url in links:
            found = _target(site, base, page_url, url)
            if found is None:
                continue
            checked += 1
            target, fragment = found
            shown = f"{rel}:{line}: {url!r}"
            try:
                target.resolve().relative_to(site)
            except ValueError:
                broken.append(f"{shown}: points outside the site")
                continue
            if not target.is_file():
                broken.append(f"{shown}: no such file ({target.relative_to(site).as_posix()})")
                continue
            if fragment and target.suffix == ".html":
                if target not in parsed:
                    parsed[target] = _parse(target)
                if fragment not in parsed[target].ids:
                    broken.append(f"{shown}: no element with id {fragment!r} on {target.relative_to(site).as_posix()}")
    return broken, checked, len(pages)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: check_links.py SITE_DIR (a built site, e.g. site/)", file=sys.stderr)
        return 2
    broken, checked, pages = check(Path(argv[0]))
    for line in broken:
        print(line)
    if broken:
        print(f"{len(broken)} broken link(s) in {pages} page(s).")
        return 1
    print(f"ok: {checked} links in {pages} page(s) resolve.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
