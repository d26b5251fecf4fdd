"""The built site, read as HTML: every number comes from the engine, nothing leaves the site,
generated pages behave as their readers are told, and contributed text never becomes markup.

The site is built once per session by `mkdocs build --strict` from a copy of the repository
(fixtures in conftest.py); the engine's own numbers come from `load_project` on that copy.
"""

from __future__ import annotations

import json
import math
import posixpath
import re
import subprocess
import sys
from dataclasses import dataclass, field, fields
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from site_support import PAYLOADS, REPO, UNTRUSTED_ID, BuiltSite, copy_project, run_mkdocs_build, untrusted_scenario

# --- a small DOM over html.parser -----------------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass(eq=False)
class Node:
    tag: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)
    parent: Node | None = None

    def iter(self):
        """This element and every element under it, in document order."""
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        out = []
        for n in self.iter():
            if tag is not None and n.tag != tag:
                continue
            if all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                out.append(n)
        return out

    def has_class(self, name: str) -> bool:
        return name in (self.attrs.get("class") or "").split()

    def text(self) -> str:
        parts = []
        for c in self.children:
            parts.append(c if isinstance(c, str) else c.text())
        return "".join(parts)

    def norm_text(self) -> str:
        return " ".join(self.text().split())


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), parent=self.stack[-1])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, dict(attrs), parent=self.stack[-1]))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


_parsed: dict[Path, Node] = {}


def parse(path: Path) -> Node:
    if path not in _parsed:
        b = _TreeBuilder()
        b.feed(path.read_text(encoding="utf-8"))
        b.close()
        _parsed[path] = b.root
    return _parsed[path]


def page(site: Path, url: str) -> Node:
    """A built page by its site-relative directory URL ("" for home, "prices/" ...)."""
    path = site / url / "index.html"
    assert path.is_file(), f"no page at {url or '/'} ({path} is missing)"
    return parse(path)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


# --- the site and the engine --------------------------------------------------------------------


def test_build_passes_strict(built_site: BuiltSite):
    # build_copy asserts exit 0 under --strict; this keeps the evidence in the report.
    assert "Documentation built" in built_site.output
    assert "Traceback" not in built_site.output


def test_every_scenario_has_a_page(built_site: BuiltSite, project):
    assert project.results, "no scenarios were loaded"
    built = {p.parent.name for p in (built_site.site / "scenarios").glob("*/index.html")}
    assert built == {r.id for r in project.results}
    for r in project.results:
        doc = page(built_site.site, f"scenarios/{r.id}/")
        (h1,) = doc.find_all("h1")
        assert h1.norm_text().rstrip("¶").strip() == " ".join(r.scenario.title.split())
        (verdict,) = [n for n in doc.iter() if n.has_class("guide-verdict")]
        assert verdict.attrs["data-verdict"] == r.verdict


def test_index_lists_every_scenario_with_the_engines_verdict(built_site: BuiltSite, project):
    from generator.model import wording
    from generator.model.results import plain
    from generator.model.wording import RANGE_LABELS
    from generator.model.wording import VERDICT_LABELS

    doc = page(built_site.site, "scenarios/")
    rows = {tr.attrs["data-scenario"]: tr for tr in doc.find_all("tr") if "data-scenario" in tr.attrs}
    assert set(rows) == {r.id for r in project.results}
    for r in project.results:
        tr = rows[r.id]
        (link,) = tr.find_all("a")
        assert link.norm_text() == " ".join(r.scenario.title.split())
        target = urljoin("scenarios/", link.attrs["href"])
        assert target == f"scenarios/{r.id}/" and (built_site.site / target / "index.html").is_file()
        (v,) = [td for td in tr.find_all("td") if "data-verdict" in td.attrs]
        assert v.attrs["data-verdict"] == r.verdict, r.id
        (label,) = [n for n in v.find_all("strong") if "data-verdict-label" in n.attrs]
        assert label.norm_text() == VERDICT_LABELS[r.verdict], r.id
        (rob,) = [td for td in tr.find_all("td") if "data-robust" in td.attrs]
        flips = [n for w in r.workloads for n in w.robustness.flips_on]
        if flips:
            assert rob.attrs["data-robust"] == "flips", r.id
            assert rob.norm_text().startswith("flips on "), r.id
            assert all(RANGE_LABELS[n] in rob.norm_text() for n in flips), r.id
        elif not any(_corner_flips(w) for w in r.workloads):
            assert (rob.attrs["data-robust"], rob.norm_text()) == ("robust", "robust"), r.id
        else:
            assert rob.attrs["data-robust"] == "joint", r.id
            assert rob.norm_text() == "changes only when several inputs are at their worst at once", r.id
        # A hybrid's saving counts only the workloads that go to Trainium.
        counted = [w for w in r.workloads if r.verdict != "hybrid" or w.outcome.verdict == "trainium"]
        saving = tr.find_all("td")[2]
        # The row says what decided each workload, in the words of the rule that did.
        (why,) = [n for n in v.find_all("span") if "data-reason" in n.attrs]
        deciding = [[s for s in w.outcome.trace if s.verdict][-1] for w in r.workloads]
        said = [wording.step_text(plain(s)) for s in deciding]
        assert all(" ".join(t.rstrip(".").split()) in why.norm_text() for t in said), (r.id, why.norm_text())
        assert close(float(saving.attrs["data-sort"]), sum(w.outcome.saving_per_run for w in counted)), r.id


def _corner_flips(w) -> bool:
    """All ranges at their worst, or at their best, at once give the other verdict."""
    rob = w.robustness
    return rob.worst_case.verdict != w.outcome.verdict or rob.best_case.verdict != w.outcome.verdict


def engine_numbers(w) -> dict[str, float | None]:
    """What each data-key on a scenario page must hold, straight from the engine's result."""
    x, o, t = w.inputs, w.outcome, w.thresholds
    numbers: dict[str, float | None] = {
        "gpu_hours": x.gpu_hours,
        "runs": x.runs,
        "trainium_price": x.trainium_price.value,
        "gpu_price": x.gpu_price.value,
        "relative_throughput": x.relative_throughput.value,
        "port_weeks": x.port_weeks.value,
    }
    for side in ("trainium", "gpu"):
        for name in ("hours_per_run", "cost_per_run", "wall_clock_hours", "total"):
            numbers[f"{side}.{name}"] = getattr(getattr(o, side), name)
    for name in ("saving_per_run", "port_cost", "ports", "break_even_runs", "total_difference", "port_calendar_days"):
        numbers[name] = getattr(o, name)
    for side in ("trainium", "gpu"):
        numbers[f"{side}.ready_days"] = getattr(o, side).ready_days
    if x.trainium_spot or x.gpu_spot:
        for side in ("trainium", "gpu"):
            numbers[f"{side}.spot_overhead"] = getattr(o, side).spot_overhead
    if x.plan_hours is not None:
        numbers["plan_months"] = x.plan_hours / 730
    if x.trainium_term_hours is not None or x.gpu_term_hours is not None:
        for side in ("trainium", "gpu"):
            sd = getattr(o, side)
            numbers[f"{side}.committed_terms"] = sd.committed_terms
            if sd.utilisation is not None:
                numbers[f"{side}.utilisation"] = sd.utilisation
        # Totals step by terms: no run breaks even by itself, and the page gives where the lines cross.
        assert o.break_even_runs is None
        numbers["break_even_runs"] = t.runs
    if o.trainium.options or o.gpu.options:
        # The ways to buy the plan's compute were compared: each side says how much less its cheapest way costs.
        for side in ("trainium", "gpu"):
            numbers[f"{side}.cheaper_by"] = getattr(o, side).cheaper_by
    for f in fields(t):
        # break_even is a statement about plan lengths, told in the break-even row's words, not a value.
        if f.name != "break_even":
            numbers[f"threshold.{f.name}"] = getattr(t, f.name)
    return numbers


def page_numbers(doc: Node) -> dict[int, dict[str, list[str]]]:
    """data-key -> data-value strings, per workload (from the "Workload N:" heading above them)."""
    out: dict[int, dict[str, list[str]]] = {}
    workload = 0
    for n in doc.iter():
        if n.tag == "h2":
            m = re.match(r"Workload (\d+):", n.norm_text())
            workload = int(m.group(1)) if m else 0
        if "data-key" in n.attrs:
            out.setdefault(workload, {}).setdefault(n.attrs["data-key"], []).append(n.attrs.get("data-value") or "")
    return out


def test_scenario_pages_show_the_engines_numbers(built_site: BuiltSite, project):
    checked = 0
    for r in project.results:
        found = page_numbers(page(built_site.site, f"scenarios/{r.id}/"))
        assert set(found) == set(range(1, len(r.workloads) + 1)), f"{r.id}: numbers outside a workload section"
        for i, w in enumerate(r.workloads, start=1):
            want = engine_numbers(w)
            got = dict(found[i])
            # The row that writes the plan out names the way each side is bought, a word, not a number:
            # it is there whenever a side is not bought as named, and says the way the engine chose.
            for side in ("trainium", "gpu"):
                sd, named = getattr(w.outcome, side), getattr(w.inputs, side + "_option")
                plan = got.pop(f"{side}.plan_option", None)
                if sd.plan_option != named:
                    assert plan == [sd.plan_option], f"{r.id} workload {i} {side}: plan {plan!r}, engine {sd.plan_option!r}"
                elif plan is not None:
                    assert plan == [named], f"{r.id} workload {i} {side}"
                checked += plan is not None
            assert set(got) == set(want), f"{r.id} workload {i}: keys differ: {set(got) ^ set(want)}"
            for key, expected in want.items():
                (shown,) = got[key]
                if expected is None:
                    assert shown == "none", f"{r.id} workload {i} {key}: page {shown!r}, engine None"
                else:
                    assert shown != "none" and close(float(shown), float(expected)), (
                        f"{r.id} workload {i} {key}: page {shown!r}, engine {expected!r}"
                    )
                checked += 1
    assert checked >= 20 * len(project.results)


def _next_element(n: Node) -> Node:
    siblings = [c for c in n.parent.children if isinstance(c, Node)]
    return siblings[siblings.index(n) + 1]


def test_robustness_is_told_as_the_engine_found_it(built_site: BuiltSite, project):
    from generator.model.wording import RANGE_LABELS
    from generator.model.wording import VERDICT_LABELS

    seen_joint_flip = False
    for r in project.results:
        doc = page(built_site.site, f"scenarios/{r.id}/")
        heads = [h for h in doc.find_all("h3") if h.norm_text().startswith("Does the verdict hold?")]
        assert len(heads) == len(r.workloads), r.id
        for h, w in zip(heads, r.workloads):
            rob = w.robustness
            text = _next_element(h).norm_text()
            joint = not rob.flips_on and _corner_flips(w)
            opening = "Flips on " if rob.flips_on else "No single input moved across its range changes" if joint else "Robust: "
            assert text.startswith(opening), f"{r.id}: {text}"
            if joint:
                assert "only when several inputs are at their worst at once" in text, f"{r.id}: {text}"
            for name in rob.flips_on:
                assert RANGE_LABELS[name] in text, f"{r.id}: {name} flips the verdict but is not named: {text}"
            assert not re.search(r"range, +turns|, +,", text), f"{r.id}: a sentence with an empty list: {text}"
            assert f"least favourable to Trainium the verdict is {VERDICT_LABELS[rob.worst_case.verdict]}" in text
            assert f"most favourable end it is {VERDICT_LABELS[rob.best_case.verdict]}" in text
            seen_joint_flip |= joint
    assert seen_joint_flip, "no scenario flips only when ranges move together; this test lost its case"


def test_a_chip_figure_sources_disagree_on_is_marked_and_both_figures_shown(built_site: BuiltSite):
    # The frozen chips.yaml keeps two memory figures for the B200: 180 GB used, 192 GB beside it.
    doc = page(built_site.site, "prices/")
    (row,) = [tr for tr in doc.find_all("tr") if tr.children and tr.text().startswith("Nvidia B200 (HGX")]
    (link,) = [a for a in row.find_all("a") if a.attrs.get("href") == "#chip-b200-memory-gib"]
    assert link.text() == "note"
    (note,) = doc.find_all("p", id="chip-b200-memory-gib")
    text = note.norm_text()
    assert text.startswith("Nvidia B200 (HGX, 1000 W), memory: the table uses 180 GB (NVDA, 2025-06-01).")
    assert "Also 192 GB (NVDA, 2025-06-01). The upper end of the quote." in text
    # One note a disagreement: figures with one source have none.
    assert [p.attrs["id"] for p in doc.find_all("p") if p.attrs.get("id", "").startswith("chip-")] == ["chip-b200-memory-gib"]


def test_prices_page_shows_every_instance_and_the_trn2_range(built_site: BuiltSite, project):
    from generator.model.formatting import hourly

    catalog = project.catalog
    doc = page(built_site.site, "prices/")
    (table,) = doc.find_all("table", data_table="prices")
    listed = [tr.attrs["data-instance"] for tr in table.find_all("tr") if "data-instance" in tr.attrs]
    assert sorted(listed) == sorted(catalog.instances)
    # Every price in data/ has its row, by instance, region and purchase option, and so has every way of
    # buying recorded as unpublished (no region when none has a price), which says so.
    detail = {
        (tr.attrs["data-instance"], tr.attrs["data-region"], tr.attrs["data-option"]): tr
        for tr in doc.find_all("tr")
        if "data-option" in tr.attrs
    }
    unpublished = {(u.instance, u.region or "", u.option) for u in catalog.unpublished}
    assert unpublished
    assert set(detail) == {(p.instance, p.region, p.option) for p in catalog.prices} | unpublished
    for key in unpublished:
        assert "not published" in detail[key].norm_text(), key

    p = catalog.price("trn2.48xlarge", "us-east-2", "on-demand")
    assert p is not None and p.low is not None and p.high is not None and p.low < p.high
    backers = {a.source for a in p.alternatives if a.usd_per_hour in (p.low, p.high)}
    if p.usd_per_hour in (p.low, p.high):
        backers.add(p.source)
    assert backers == {"VAN", "SKY"}, "the trn2.48xlarge range is expected to span the VAN and SKY figures"
    row = detail[("trn2.48xlarge", "us-east-2", "on-demand")]
    text = row.norm_text()
    assert f"range {hourly(p.low)} to {hourly(p.high)}" in text
    for source in sorted(backers):
        assert re.search(rf"\b{source}\b", text), f"{source} is not named in the trn2.48xlarge on-demand row: {text}"
    # The instances table shows the same range next to the on-demand price.
    (cell,) = [td for td in table.find_all("td") if td.attrs.get("data-key") == "on_demand" and td.parent.attrs.get("data-instance") == "trn2.48xlarge"]
    assert close(float(cell.attrs["data-value"]), p.point)
    # The frozen price is the low end of its range, and the cell says which end it shows.
    assert p.point == p.low
    assert f"(the lowest figure of a range, {hourly(p.low)} to {hourly(p.high)})" in cell.norm_text()


# --- nothing from another host ------------------------------------------------------------------

# <link> relations that name a page rather than load a resource ("feed" and "oembed" go with
# "alternate" on the feed's and a chart's oEmbed file's discovery links: see generator/templates/theme/main.html).
NON_FETCHING_RELS = {"canonical", "prev", "next", "alternate", "author", "license", "help", "me", "edit", "feed", "oembed"}
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3""", re.I)


def _remote(url: str) -> bool:
    u = url.strip()
    return u.startswith("//") or urlsplit(u).scheme not in ("", "data", "blob")


def _css_urls(css: str) -> list[str]:
    return [m.group(2) or m.group(4) for m in CSS_URL.finditer(css)]


def resource_refs(doc: Node) -> list[tuple[str, str]]:
    refs = []
    for n in doc.iter():
        attrs = n.attrs
        if n.tag in ("script", "img", "source", "iframe", "audio", "video", "track", "embed", "input"):
            for a in ("src", "poster"):
                if attrs.get(a):
                    refs.append((n.tag, attrs[a]))
        if n.tag in ("img", "source") and attrs.get("srcset"):
            refs += [(n.tag, part.strip().split()[0]) for part in attrs["srcset"].split(",") if part.strip()]
        if n.tag == "object" and attrs.get("data"):
            refs.append((n.tag, attrs["data"]))
        if n.tag == "link" and attrs.get("href"):
            rels = set((attrs.get("rel") or "").lower().split())
            if not rels or not rels <= NON_FETCHING_RELS:
                refs.append(("link", attrs["href"]))
        if n.tag in ("svg", "use", "image") and (attrs.get("href") or attrs.get("xlink:href")):
            refs.append((n.tag, attrs.get("href") or attrs["xlink:href"]))
        if attrs.get("style"):
            refs += [("style attribute", u) for u in _css_urls(attrs["style"])]
        if n.tag == "style":
            refs += [("style", u) for u in _css_urls(n.text())]
    return refs


def test_no_page_loads_anything_from_another_host(built_site: BuiltSite):
    pages = sorted(built_site.site.rglob("*.html"))
    assert len(pages) > 10
    remote = []
    scanned = 0
    for path in pages:
        for kind, url in resource_refs(parse(path)):
            scanned += 1
            if _remote(url):
                remote.append(f"{path.relative_to(built_site.site)}: <{kind}> {url}")
    for path in sorted(built_site.site.rglob("*.css")):
        for url in _css_urls(path.read_text(encoding="utf-8")):
            if _remote(url):
                remote.append(f"{path.relative_to(built_site.site)}: url({url})")
    assert scanned > 5 * len(pages), "the scan found suspiciously few references"
    assert not remote, "pages reference other hosts:\n" + "\n".join(remote)


def test_resource_scan_flags_remote_references():
    # The scanner itself: remote script, style, font and image references are caught, links are not.
    html = (
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css"><link rel="canonical" href="https://x.org/">'
        '<script src="//cdn.example/v.js"></script><img src="data:image/png;base64,AA"><a href="https://x.org/">x</a>'
        "<style>@font-face{src:url(https://fonts.gstatic.com/f.woff2)}</style>"
    )
    b = _TreeBuilder()
    b.feed(html)
    found = [u for _, u in resource_refs(b.root) if _remote(u)]
    assert found == ["https://fonts.googleapis.com/css", "//cdn.example/v.js", "https://fonts.gstatic.com/f.woff2"]


# --- generated pages in MkDocs ------------------------------------------------------------------


def test_build_leaves_the_source_tree_unchanged(built_site: BuiltSite):
    assert built_site.before, "nothing was hashed"
    added = sorted(set(built_site.after) - set(built_site.before))
    removed = sorted(set(built_site.before) - set(built_site.after))
    changed = sorted(k for k in built_site.before.keys() & built_site.after.keys() if built_site.before[k] != built_site.after[k])
    assert not (added or removed or changed), f"the build wrote into the source tree: added {added}, removed {removed}, changed {changed}"


def _edit_root() -> str:
    """The repository's edit URL for a path at its root: edit_uri in mkdocs.yml ends in docs/."""
    m = re.search(r"^edit_uri:\s*(\S+)\s*$", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert m and m.group(1).endswith("/docs/"), "edit_uri is expected to point at docs/"
    return m.group(1)[: -len("docs/")]


def _normalised(url: str) -> str:
    """The URL a browser follows: dot segments resolved."""
    u = urlsplit(url)
    return u._replace(path=posixpath.normpath(u.path)).geturl()


def _edit_link(doc: Node) -> str:
    links = [a.attrs["href"] for a in doc.find_all("a") if "edit" in (a.attrs.get("rel") or "").split()]
    assert len(links) == 1, f"expected one edit link, found {links}"
    return _normalised(links[0])


def test_edit_links_of_generated_pages_point_at_their_yaml(built_site: BuiltSite, project):
    root = _edit_root()
    for r in project.results:
        assert (REPO / r.path).is_file() or (built_site.root / r.path).is_file()
        assert _edit_link(page(built_site.site, f"scenarios/{r.id}/")) == root + r.path
    assert _edit_link(page(built_site.site, "prices/")) == root + "data/prices.yaml"
    assert _edit_link(page(built_site.site, "sources/")) == root + "data/sources.yaml"
    # A hand-written page still edits its Markdown.
    assert _edit_link(page(built_site.site, "faq/")) == root + "docs/faq.md"


def test_scenario_pages_are_not_in_the_sidebar(built_site: BuiltSite, project):
    scenario_urls = {f"scenarios/{r.id}/" for r in project.results}
    # Every page of the guide; embed/<id>/ pages are bare charts for iframes, with no navigation.
    pages = sorted(p for p in built_site.site.rglob("index.html") if p.relative_to(built_site.site).parts[0] != "embed"
                   or p.parent == built_site.site / "embed")
    for path in pages:
        url = path.parent.relative_to(built_site.site).as_posix()
        base = "" if url == "." else url + "/"
        navs = [n for n in parse(path).find_all("nav") if n.has_class("md-nav--primary")]
        assert len(navs) == 1, f"{base}: no primary navigation"
        targets = {urljoin(base, a.attrs["href"]).split("#")[0] for a in navs[0].find_all("a") if a.attrs.get("href")}
        assert "scenarios/" in targets, f"{base}: the sidebar lost the scenarios index"
        listed = targets & scenario_urls
        assert not listed, f"{base}: the sidebar lists scenario pages {sorted(listed)}"


PROBLEM_LINE = re.compile(r"^(\S+):(\d+):(\d+): (\S+): (.+)$", re.M)


@pytest.mark.slow
def test_invalid_scenario_stops_the_build_with_located_messages(tmp_path: Path):
    root = copy_project(tmp_path / "project")
    good = (root / "scenarios" / "one-off-run.yaml").read_text(encoding="utf-8")
    broken = (
        good.replace("runs: 1\n", "runs: 0\n")
        .replace("instance: p5.48xlarge", "instance: p5.48xlarg")
        .replace("expect: gpu", "expect: maybe")
    )
    assert broken.count("\n") == good.count("\n") and broken != good
    (root / "scenarios" / "zz-broken.yaml").write_text(broken, encoding="utf-8")
    (root / "scenarios" / "zz-syntax.yaml").write_text(good.replace("workloads:\n", "workloads: [\n", 1), encoding="utf-8")

    validate = subprocess.run(
        [sys.executable, "-m", "generator", "--root", str(root), "validate"], capture_output=True, text=True, timeout=300
    )
    assert validate.returncode == 1, validate.stdout + validate.stderr
    expected = PROBLEM_LINE.findall(validate.stderr)
    files = {m[0] for m in expected}
    assert {"scenarios/zz-broken.yaml", "scenarios/zz-syntax.yaml"} <= files, validate.stderr
    assert len([m for m in expected if m[0] == "scenarios/zz-broken.yaml"]) >= 2, validate.stderr

    build = run_mkdocs_build(root, tmp_path / "site")
    output = build.stdout + build.stderr
    assert build.returncode != 0, output
    assert "Traceback" not in output, output
    assert PROBLEM_LINE.findall(output) == expected, f"mkdocs said:\n{output}\nguide validate said:\n{validate.stderr}"
    assert not (tmp_path / "site" / "scenarios" / "zz-broken").exists()


# --- untrusted text -----------------------------------------------------------------------------


def _own_scripts(doc: Node) -> list[tuple[str, str]]:
    return sorted((n.attrs.get("src") or "", n.text()) for n in doc.find_all("script") if n.attrs.get("type") != "application/json")


def test_untrusted_text_is_shown_as_text_and_never_becomes_markup(untrusted_site: BuiltSite):
    site = untrusted_site.site
    s = untrusted_scenario()
    w = s["workloads"][0]
    doc = page(site, f"scenarios/{UNTRUSTED_ID}/")
    baseline = page(site, "scenarios/one-off-run/")

    # Nothing live: the page runs exactly the scripts every scenario page runs.
    assert _own_scripts(doc) == _own_scripts(baseline)
    json_scripts = [n.attrs.get("id") for n in doc.find_all("script") if n.attrs.get("type") == "application/json"]
    assert json_scripts == [n.attrs.get("id") for n in baseline.find_all("script") if n.attrs.get("type") == "application/json"]
    specs = [n for n in doc.find_all("template") if n.has_class("guide-chart__spec")]
    assert specs and len(specs) == len([n for n in baseline.find_all("template") if n.has_class("guide-chart__spec")])
    titles = []
    for n in specs:
        assert all(isinstance(c, str) for c in n.children), "markup inside a chart spec"
        spec = json.loads(n.text())  # markup from a payload would leave broken JSON behind
        titles.append(" ".join(spec["title"]["text"]))
    # The scenario's title reached the chart titles intact, inside the JSON.
    assert any(PAYLOADS["script"] in t and PAYLOADS["img"] in t and PAYLOADS["placeholder"] in t for t in titles), titles

    for path in sorted(site.rglob("*.html")):
        d = parse(path)
        where = path.relative_to(site)
        for n in d.iter():
            handlers = [a for a in n.attrs if a.lower().startswith("on")]
            assert not handlers, f"{where}: <{n.tag}> has event handler attributes {handlers}"
            assert not (n.tag == "a" and (n.attrs.get("href") or "").strip().lower().startswith("javascript:")), f"{where}: javascript: link"
            assert not (n.tag in ("strong", "b", "em") and n.norm_text() == "bold"), f"{where}: Markdown from a payload became <{n.tag}>"
            assert not (n.tag == "img" and n.attrs.get("src") == "x"), f"{where}: an <img> from a payload"
            if n.tag == "script" and n.attrs.get("type") != "application/json":
                assert "__pwned" not in n.text(), f"{where}: a payload became a script"
    assert not doc.find_all("math"), "a payload became math"

    # The calculator bakes every scenario into JSON on its page: the text must arrive intact there too.
    (calc,) = page(site, "calculator/").find_all("template", id="guide-calc-data")
    assert all(isinstance(c, str) for c in calc.children), "Markdown or HTML formed inside the calculator's data"
    presets = {p["id"]: p for p in json.loads(calc.text())["presets"]}
    baked = presets[f"{UNTRUSTED_ID}/1"]
    assert baked["label"] == s["title"]
    assert baked["workload"]["name"] == w["name"] and baked["workload"]["rationale"] == w["rationale"]

    # Shown as text, character for character, where it was written.
    (h1,) = doc.find_all("h1")
    assert h1.norm_text().rstrip("¶").strip() == s["title"]
    (title,) = doc.find_all("title")
    assert title.text().startswith(s["title"] + " - ")
    (desc,) = doc.find_all("meta", name="description")
    assert desc.attrs["content"] == s["summary"]
    (summary,) = [n for n in doc.iter() if n.has_class("guide-summary")]
    assert summary.norm_text() == s["summary"]
    (note,) = [n for n in doc.iter() if n.has_class("admonition") and n.has_class("note")]  # not the stale-price warning
    assert " ".join(s["notes"].split()) in note.norm_text()
    (sources,) = [n for n in doc.iter() if n.has_class("guide-sources")]
    assert [li.norm_text() for li in sources.find_all("li")] == [" ".join(x.split()) for x in s["sources"]]
    assert any(h2.norm_text().startswith(f"Workload 1: {w['name']}") for h2 in doc.find_all("h2"))
    (inputs,) = doc.find_all("table", data_table="inputs")
    cells = {" ".join(td.text().split()) for td in inputs.find_all("td")}
    for key in ("architecture", "run_size", "runs", "relative_throughput", "neuron_experience", "availability", "constraints"):
        assert " ".join(w["rationale"][key].split()) in cells, key
    index_titles = [a.norm_text() for a in page(site, "scenarios/").find_all("a") if a.attrs.get("href") == f"{UNTRUSTED_ID}/"]
    assert index_titles == [s["title"]]
    # The Trainium3 page's table of every situation is HTML written by its template, not Markdown.
    trn3_titles = [a.norm_text() for a in page(site, "trainium3/").find_all("a") if a.attrs.get("href") == f"../scenarios/{UNTRUSTED_ID}/"]
    assert trn3_titles == [s["title"]]


@pytest.mark.parametrize("text", list(PAYLOADS.values()) + ["a\nb", "x" * 3, "é ü 中"])
def test_md_filter_leaves_no_markup_characters(text):
    import html

    from generator.rendering.pages.escaping import md

    out = str(md(text))
    assert not re.search(r"[<>\"'`*_\[\]{}$\\]", out.replace("&#", "")), out
    # What the filter writes reads back as the text (newlines fold to spaces).
    assert html.unescape(out) == text.replace("\n", " ")


@pytest.mark.parametrize("text", [PAYLOADS["breakout"], "<!--", "]]>", "&amp;", "\u2028"])
def test_script_json_cannot_close_its_script_tag(text):
    from generator.rendering.pages.escaping import script_json

    out = str(script_json({"title": text}))
    assert "<" not in out and ">" not in out and "&" not in out
    assert json.loads(out) == {"title": text}


def test_scenario_pages_lead_with_the_throughput_threshold_when_it_turns_the_verdict(built_site: BuiltSite, project):
    from generator.model.formatting import ratio

    led = 0
    for r in project.results:
        doc = page(built_site.site, f"scenarios/{r.id}/")
        (box,) = [d for d in doc.find_all("div") if "guide-verdict" in d.attrs.get("class", "").split()]
        leads = [p.norm_text() for p in box.find_all("p") if "guide-verdict__lead" in p.attrs.get("class", "")]
        expected = [w for w in r.workloads if "relative_throughput" in w.robustness.flips_on and w.thresholds.relative_throughput is not None]
        assert len(leads) == len(expected), (r.id, leads)
        for text, w in zip(leads, expected, strict=True):
            assert f"Trainium wins if it reaches at least {ratio(w.thresholds.relative_throughput)} the GPU's throughput." in text, text
            led += 1
        # Nothing on the page reads as a zero break-even or explains a "None" the page does not show.
        body = doc.norm_text()
        assert "0.0 runs" not in body and '"None" means' not in body, r.id
    assert led, "no shipped scenario flips on relative throughput; this test lost its case"


def test_a_scenario_page_names_the_teams_neuron_experience_as_the_calculator_does(built_site: BuiltSite, project):
    from generator.model.wording import EXPERIENCE_LABELS

    seen = set()
    for r in project.results:
        doc = page(built_site.site, f"scenarios/{r.id}/")
        rows = [tr.find_all("td") for tr in doc.find_all("tr")]
        shown = [cells[1].norm_text() for cells in rows if cells and cells[0].norm_text() == "Team's Neuron experience"]
        assert shown == [EXPERIENCE_LABELS[w.workload.neuron_experience] for w in r.workloads], r.id
        seen.update(w.workload.neuron_experience for w in r.workloads)
    assert {"none", "some"} <= seen  # more than one kind of team, so a raw value would show
