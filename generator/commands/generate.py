"""`guide generate DIR`: the whole docs tree a build makes, written out with an mkdocs.yml that names no
plugin of ours, so that plain MkDocs with Material (or Zensical, which reads mkdocs.yml) builds the site.

What the plugin hands MkDocs comes from the same `rendering.generate.generate`; what it does while MkDocs
runs is carried as files: hand-written pages with their figures filled in, each page's unfurl tags in
its front matter (`guide_unfurl`, which `generator.THEME`'s main.html, copied in as overrides/main.html,
reads when no plugin hands them in), the embed files and images copied out of the cache. Files MkDocs
cannot take from docs/ (Markdown published beside the pages, which it would build as pages, and the
llms.txt files that list them) go to DIR/extra/, to be copied over the built site. The tree is made
beside DIR and put in its place whole, so invalid input leaves nothing written.

`guide generate DIR`: what `rendering/generate.generate` makes, with the plugin's options as a build
reads them, written out as a docs tree (figures filled in, unfurl tags in front matter, embed files
and images copied from the cache, `generator.THEME` as `overrides/`) with an mkdocs.yml that names
no plugin of ours, made beside DIR and moved in whole; `--for zensical` also keeps Material's look
(`variant: classic`) and edit links (`repo_url` from `edit_uri`, with `templates/zensical/`'s empty
repository widget, which would ask GitHub's API).

Not carried: the published Markdown (`index.html.md`) and the `llms.txt` files listing it go to
`DIR/extra/`, to be copied over the built site, since any `.md` in docs/ is built as a page;
generated pages' edit links name a docs/ file (the plugin's name their YAML, or are left out); the
search index holds whole pages; and what only the plugin does: the build cache (stored pages, images
by hash, `--dirty` saves within 1.5 s), reloading on scenarios/ and data/, the located error over
the served page, figures filled in as part of the build. Plain MkDocs with Material builds DIR into
the plugin's files (hand-written pages byte for byte), Zensical a tree written `--for zensical` (raw
HTML addresses taken from the source file) into the same pages, each article's text the plugin's
(`tests/test_generate.py`). The formulas still need this package installed: mkdocs.yml names
`rendering/mathml.py` as a Markdown formatter. The plugin's stores are what keep builds fast: at
1,000 scenarios (no images, a busy 2-core machine) Zensical took 54-58 s over the generated tree and
plain MkDocs 25-40 s, where the plugin's warm build took 7-10 s.
"""

from __future__ import annotations

import io
import posixpath
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import jinja2
import yaml
from ruamel.yaml import YAML

from generator import TEMPLATES, THEME
from generator.commands import siteconfig
from generator.rendering.embeds import folders as embeds
from generator.rendering.pages import passthrough
from generator.rendering.published import llms as published
from generator.rendering.embeds import unfurl
from generator.rendering.generate import Generated, generate
from generator.rendering.charts.images import Images
from generator.rendering.pages.escaping import front_matter
from generator.rendering.pages.hand_written import render_markdown_page
from generator.store import cachefile
from generator.store.cachefile import Cache
from generator.store.html_cache import scenario_page

DOCS, OVERRIDES, EXTRA = "docs", "overrides", "extra"
MARKER = ".guide-generate"  # names a folder this command made, which it may replace
UNFURL_KEY = "guide_unfurl"  # the front matter key theme/main.html reads a page's tags from
# Zensical's own overrides, after THEME's (`_write_overrides`).
ZENSICAL_THEME = TEMPLATES / "zensical"
_PASSTHROUGH = re.compile(f"^(?:{re.escape(passthrough.START)}|{re.escape(passthrough.END)})\n", re.M)
_H1 = re.compile(r"^#\s+(.+?)\s*(?:\{[^}]*\})?\s*$", re.M)


class GenerateError(Exception):
    """A DIR this command must not write, worded for the reader."""


class PageError(GenerateError):
    """A hand-written page whose figures cannot be filled in: invalid input, located."""


@dataclass(frozen=True)
class Written:
    pages: int
    files: int
    extra: int


def check_destination(root: Path, dest: Path) -> None:
    """Raises GenerateError for a DIR inside docs/, scenarios/ or data/ (which builds only read), for the
    project folder itself, and for a folder with files this command did not write."""
    resolved = dest.resolve()
    for folder in cachefile.SOURCE_FOLDERS:
        inside = (root / folder).resolve()
        if resolved == inside or inside in resolved.parents:
            raise GenerateError(f"guide generate: DIR must not be inside {folder}/, which the guide only reads (got {dest})")
    if resolved == root.resolve():
        raise GenerateError(f"guide generate: DIR must not be the project folder itself (got {dest})")
    if resolved.exists() and not resolved.is_dir():
        raise GenerateError(f"guide generate: DIR must be a folder (got {dest}, which is a file)")
    if resolved.is_dir() and any(resolved.iterdir()) and not (resolved / MARKER).is_file():
        raise GenerateError(f"guide generate: {dest} holds files guide generate did not write; name an empty or new folder")


def run(root: Path, dest: Path, engine: str = "mkdocs") -> Written:
    """engine: "mkdocs" (MkDocs with Material) or "zensical", which reads raw HTML addresses otherwise
    (`source_relative`). The guide plugin's options in mkdocs.yml (and their GUIDE_* variables) are a
    build's: the cache, its bound, the day, the images; `incremental` is about how MkDocs builds the
    pages, which is not this command's part (the generator's own stores serve either way, as they
    do a build with it off). Raises GenerateError, CacheDirError, ValueError (a bad date, bound or
    switch) and InputError, each before anything is written to dest."""
    check_destination(root, dest)
    settings = siteconfig.read(root)
    options = siteconfig.settings(root, settings)
    cache = Cache(options.cache_dir)
    images = Images(cache) if options.images else None
    config = _read_config(root)
    try:
        made = generate(root, cache, settings.site_url, options.today, images, site_name=settings.site_name)
        hand_written, statics = _hand_written(root, made.renderer)  # while the images render
        if images is not None:
            try:
                images.wait()
            except Exception as e:  # a renderer crash: the step that failed, not a worker's traceback
                raise GenerateError(f"guide generate: rendering the chart images failed: {e}") from None
    except BaseException:
        if images is not None:
            images.cancel()
        raise
    if images is not None:
        images.record_rendered()
        images.close()
    dest.resolve().parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.resolve().parent))
    try:
        written = _write(root, work, config, made, hand_written, statics, settings, images is not None, engine)
        (work / MARKER).write_text("Written by `guide generate`; run it again to replace this folder.\n", encoding="utf-8")
        if dest.exists():
            shutil.rmtree(dest)
        work.rename(dest)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    cache.save_digests()
    if images is not None and (cache.wrote() or images.rendered):
        # As after a build that added to the cache; one without images leaves the bound to one with them.
        cache.keep_bounded(max_mb=options.cache_max_mb)
    return written


def _hand_written(root: Path, renderer) -> tuple[dict[str, str], dict[str, Path]]:
    """docs/'s pages, figures filled in where they opt in, and its other files, by docs path."""
    pages: dict[str, str] = {}
    statics: dict[str, Path] = {}
    for source in sorted((root / DOCS).rglob("*")):
        path = source.relative_to(root / DOCS).as_posix()
        if source.is_dir():
            continue
        if not source.name.endswith(".md"):
            statics[path] = source
            continue
        text = source.read_text(encoding="utf-8")
        if _meta(text).get("figures"):
            try:
                text = render_markdown_page(renderer, text)
            except jinja2.TemplateError as e:  # a hand-written page's figures, as the build would stop on them
                line = f"{e.lineno}:" if getattr(e, "lineno", None) else ""
                raise PageError(f"{DOCS}/{path}:{line} {e.message or e}") from None
        pages[path] = text
    return pages, statics


def _write(root: Path, out: Path, config, made: Generated, hand_written: dict[str, str], statics: dict[str, Path],
           settings: siteconfig.SiteConfig, images: bool, engine: str) -> Written:
    docs, extra = out / DOCS, out / EXTRA
    site_name = settings.site_name
    nav_titles = {path: title for path, title, _ in _nav_pages(config.get("nav"))}
    for path, source in statics.items():
        _put(docs / path, source)
    texts = {**hand_written, **made.site.pages}  # docs path -> Markdown as MkDocs gets it
    markdown: dict[str, str] = {}  # docs path -> its Markdown as published beside it (scenarios' are linked files)
    infos: dict[str, tuple[str, str]] = {}  # docs path -> title and description, as llms.txt lists them
    for path, text in sorted(texts.items()):
        meta = _meta(text)
        title = _page_title(path, text, meta, nav_titles)
        infos[path] = (title, str(meta.get("description") or ""))
        card = made.site.unfurls.get(path)
        if card is None:
            home = path == "index.md"
            shown = meta.get("title") or (site_name if home else title) or site_name
            card = unfurl.page(str(shown), str(meta.get("description") or config.get("site_description") or ""),
                               embeds.page_url(path), homepage=home)
        tags = unfurl.tags(made.renderer.unfurl_env, card, settings.site_url, site_name, image=images)
        # passthrough's markers only speed the plugin's Markdown up: MkDocs reads the blocks as the same HTML.
        page = _PASSTHROUGH.sub("", text)
        page = source_relative(page, path) if engine == "zensical" else page
        _write_text(docs / path, _with_key(page, UNFURL_KEY, tags))
        if not scenario_page(path):
            markdown[path] = published.page_markdown(text, path, settings.site_url)
    extras = 0
    for path, content in {**made.assets, **made.texts}.items():
        _write_text((extra if path.endswith(".md") else docs) / path, content)
        extras += path.endswith(".md")
    for path, cached in made.linked.items():
        _put((extra if path.endswith(".md") else docs) / path, cached)
        extras += path.endswith(".md")
    for path, text in markdown.items():
        _write_text(extra / published.markdown_path(path), text)
    pages = [published.PageInfo(path, *infos.get(path, (title, "")), section, markdown.get(path, ""))
             for path, title, section in _nav_pages(config.get("nav"))]
    summary = str(config.get("site_description") or "")
    _write_text(extra / published.LLMS, published.llms_txt(site_name, summary, settings.site_url, pages, made.site.published,
                                                           made.project.catalog.latest_as_of()))
    _write_text(extra / published.LLMS_FULL, published.llms_full(site_name, summary, settings.site_url, pages, made.site.published))
    _write_overrides(root, out, config, engine)
    _write_config(out, config, engine)
    return Written(len(texts), len(made.assets) + len(made.texts) + len(made.linked) - extras, extras + len(markdown) + 2)


# --- mkdocs.yml ---------------------------------------------------------------------------------


def _yaml() -> YAML:
    y = YAML()  # round-trip: comments, order and tags (`!!python/name:` of the maths fences) kept
    y.width = 4096
    return y


def _read_config(root: Path):
    try:
        return _yaml().load((root / "mkdocs.yml").read_text(encoding="utf-8")) or {}
    except OSError:
        return {}


def _is_guide(item) -> bool:
    return item == "guide" or (hasattr(item, "keys") and "guide" in item.keys())


def _write_config(out: Path, config, engine: str = "mkdocs") -> None:
    """The project's mkdocs.yml without the guide plugin, its theme's custom_dir pointing at overrides/.
    For Zensical also Material's look (`variant: classic`, where Zensical's default is its own), and
    the repository an absolute edit_uri names as repo_url (`repository`): Zensical makes edit links only
    from both."""
    plugins = config.get("plugins")
    if plugins is not None:
        kept = [p for p in plugins if not _is_guide(p)]
        plugins.clear()
        plugins.extend(kept)
    theme = config.get("theme")
    if isinstance(theme, str) or theme is None:
        config["theme"] = theme = {"name": theme or "material"}
    theme["custom_dir"] = OVERRIDES
    config["docs_dir"] = DOCS
    if engine == "zensical":
        theme.setdefault("variant", "classic")
        repo = repository(config.get("edit_uri"))
        if not config.get("repo_url") and repo:
            config["repo_url"] = repo
    buffer = io.StringIO()
    _yaml().dump(config, buffer)
    _write_text(out / "mkdocs.yml", buffer.getvalue())


def _write_overrides(root: Path, out: Path, config, engine: str = "mkdocs") -> None:
    """The project's own custom_dir, if any, then what of THEME (the templates the plugin adds to the
    theme's) it has not (as the plugin puts THEME after a custom_dir), and for Zensical what of
    ZENSICAL_THEME neither has."""
    theme = config.get("theme")
    custom = theme.get("custom_dir") if hasattr(theme, "get") else None
    target = out / OVERRIDES
    if custom:
        shutil.copytree(root / str(custom), target)
    target.mkdir(exist_ok=True)
    for folder in (THEME, ZENSICAL_THEME) if engine == "zensical" else (THEME,):
        for source in sorted(p for p in folder.rglob("*") if p.is_file()):
            dest = target / source.relative_to(folder)
            if not dest.exists():
                _put(dest, source)


def repository(edit_uri) -> str | None:
    """The repository an absolute edit_uri names, as GitHub, GitLab and Bitbucket write one: owner and
    name (`https://github.com/o/r/edit/main/docs/` -> `https://github.com/o/r`), or GitLab's path up to
    its `/-/`; None for a relative one."""
    if not isinstance(edit_uri, str):
        return None
    parts = urlsplit(edit_uri)
    names = [n for n in parts.path.split("/") if n]
    names = names[:names.index("-")] if "-" in names else names[:2]
    if parts.scheme not in ("http", "https") or not parts.netloc or len(names) < 2:
        return None
    return urlunsplit((parts.scheme, parts.netloc, "/" + "/".join(names), "", ""))


def _nav_pages(nav, section: str = "Guide"):
    """(path, nav title or "", section) in the navigation's order, as the plugin lists pages in llms.txt;
    links to other sites left out."""
    for item in nav or ():
        if isinstance(item, str):
            if "://" not in item:
                yield item, "", section
        elif hasattr(item, "items"):
            for title, value in item.items():
                if isinstance(value, str):
                    if "://" not in value:
                        yield value, str(title), section
                else:
                    yield from _nav_pages(value, str(title))


# --- pages --------------------------------------------------------------------------------------


def _meta(text: str) -> dict:
    m = published.FRONT_MATTER.match(text)
    if not m:
        return {}
    try:
        meta = yaml.safe_load(m[0][4:-4])
    except yaml.YAMLError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _page_title(path: str, text: str, meta: dict, nav_titles: dict[str, str]) -> str:
    """As MkDocs titles a page: its title in the navigation, its front matter's, its first heading's, its
    file's name."""
    if nav_titles.get(path):
        return nav_titles[path]
    if meta.get("title"):
        return str(meta["title"])
    heading = _H1.search(published.FRONT_MATTER.sub("", text, count=1))
    if heading:
        return heading[1]
    name = Path(path).stem if Path(path).stem != "index" else Path(path).parent.name or "Home"
    return name.replace("-", " ").replace("_", " ").capitalize()


def _with_key(text: str, key: str, value: str) -> str:
    """The page with key: value added to its front matter (a block of YAML lines, or the generated pages'
    one line of JSON), or a front matter of its own; written as `site.front_matter` writes one, which
    YAML reads back whole."""
    entry = f'"{key}": ' + str(front_matter({"": value}))[4:-1]  # '{"":"value"}' less its key: a line of either
    m = published.FRONT_MATTER.match(text)
    if m is None:
        return f"---\n{entry}\n---\n{text}"
    body = text[4:]
    if body.startswith("{"):
        return "---\n{" + entry + ("" if body.startswith("{}") else ", ") + body[1:]
    return f"---\n{entry}\n{body}"


# A relative address in an HTML attribute the way the templates write one: double-quoted, no scheme.
_HTML_ADDRESS = re.compile(r'(\s(?:href|src)=")(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)([^"]*)"')


def source_relative(text: str, page: str) -> str:
    """The page's raw HTML addresses made relative to its source file's folder instead of its URL. MkDocs
    leaves raw HTML alone, so the templates write addresses from the page's URL (`scenarios/x/`);
    Zensical reads every address on a page as relative to its source file (`scenarios/x.md`), as
    MkDocs reads a Markdown link, and writes it again from the URL. A published Markdown file
    (`index.html.md`) is named with its dot escaped, or Zensical would take it for a page to link to."""
    url_dir = embeds.page_url(page)
    source_dir = posixpath.dirname(page)

    def one(m: re.Match[str]) -> str:
        address, rest = m[2], ""
        cut = min((i for i in (address.find("#"), address.find("?")) if i >= 0), default=-1)
        if cut >= 0:
            address, rest = address[:cut], address[cut:]
        target = posixpath.normpath(posixpath.join(url_dir, address or "."))
        moved = posixpath.relpath(target, source_dir or ".")
        if address.endswith("/") or not address:
            moved = "./" if moved == "." else moved + "/"
        if moved.endswith(".md"):
            moved = moved[:-3] + "%2Emd"
        return f'{m[1]}{moved}{rest}"'

    return _HTML_ADDRESS.sub(one, text)


def _write_text(dest: Path, text: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")


def _put(dest: Path, source: Path) -> None:
    """A copy, not a link: the tree is the reader's to keep and edit, and the cache's files must not change."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, dest)
