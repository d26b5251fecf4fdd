"""What the theme reads when it makes a page's file, gathered from MkDocs' objects for the check of
`page_file_cache` (the `themed` store): the site's part (settings, theme, search settings, navigation) and each
page's own."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

from generator.plugin.incremental.stored_page import toc_tokens
from generator.store import page_file_cache

# Settings that change no page's file (what is only warned about or refused: `--strict`, validation),
# or whose effect a page's own parts already carry (Markdown's settings: its HTML), or that hold
# paths of this machine; the theme, the navigation and the site URL's path (its address is in no
# stored file: `themed`) are named on their own in site_parts.
_NOT_IN_PAGES = frozenset({"plugins", "hooks", "mdx_configs", "markdown_extensions", "config_file_path", "watch", "dev_addr",
                           "site_dir", "docs_dir", "theme", "nav", "strict", "validation", "site_url"})


def _theme_dirs_outside_packages(config: MkDocsConfig) -> list[tuple[str, str]]:
    """The theme's own templates are named by the versions of MkDocs and Material; a custom_dir's
    files by their bytes."""
    packaged = [Path(loc) for name in ("material", "mkdocs") for loc in (importlib.util.find_spec(name).submodule_search_locations or ())]
    out = []
    for d in config.theme.dirs:
        folder = Path(d)
        if any(folder.is_relative_to(p) for p in packaged):
            continue
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            out.append((path.relative_to(folder).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest()))
    return out


def site_parts(config: MkDocsConfig, nav) -> tuple:
    """What every page's file depends on: MkDocs' settings as read (command-line options included),
    the theme, the search plugin's settings and the navigation as it is shown."""
    theme = config.theme
    search = config.plugins.get("material/search")
    return (
        sorted((k, repr(v)) for k, v in config.items() if k not in _NOT_IN_PAGES),
        page_file_cache.site_path(config.site_url or ""),
        theme.name, sorted((k, repr(v)) for k, v in theme.items()), sorted(theme.static_templates),
        _theme_dirs_outside_packages(config),
        None if search is None else sorted((k, repr(v)) for k, v in search.config.items()),
        _nav_parts(nav.items if nav is not None else []),
    )


def _nav_parts(items) -> list:
    return [(i.is_page, i.is_section, i.is_link, i.title, getattr(i, "url", None), getattr(i, "is_index", None), repr(getattr(i, "meta", None)),
             _nav_parts(i.children or [])) for i in items]


def page_parts(page: Page, content: str | None) -> tuple:
    """What one page's file depends on besides the site."""

    def neighbour(p) -> tuple | None:
        return None if p is None else (p.title, p.url)

    return (
        page.file.src_uri, page.url, page.canonical_url is None, page.abs_url, page.edit_url, page.is_homepage, page.title,
        repr(page.meta), toc_tokens(list(page.toc)),
        hashlib.sha256((content or "").encode("utf-8", "surrogatepass")).hexdigest(),
        neighbour(page.previous_page), neighbour(page.next_page), [(a.title, getattr(a, "url", None)) for a in page.ancestors],
    )
