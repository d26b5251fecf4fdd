"""scripts/check_links.py: the built site's links all resolve, and the checker does catch a missing
page, a missing anchor and a root-relative link outside the site's path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from site_support import REPO, BuiltSite, missing_targets

CHECKER = REPO / "scripts" / "check_links.py"


def check(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECKER), str(site)], capture_output=True, text=True, timeout=300, check=False)


def test_every_link_of_the_built_site_resolves(built_site: BuiltSite):
    r = check(built_site.site)
    assert r.returncode == 0, r.stdout
    assert r.stdout.startswith("ok: ") and " links in " in r.stdout


def test_every_address_into_the_site_names_a_file_tags_and_oembed_files_included(built_site: BuiltSite):
    # The checker above reads links a browser follows; this also reads the unfurl tags' and oEmbed
    # files' absolute addresses (og:image, thumbnail_url), which name the chart images and cards.
    assert missing_targets(built_site.site, "https://trainium-or-gpu.github.io/guide/") == []


def test_broken_links_are_found(tmp_path: Path):
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "sitemap.xml").write_text(
        "<urlset><url><loc>https://example.org/guide/a/</loc></url><url><loc>https://example.org/guide/</loc></url></urlset>",
        encoding="utf-8")
    (site / "a" / "index.html").write_text('<h2 id="here">A</h2><a href="../#top">home</a>', encoding="utf-8")
    (site / "index.html").write_text("\n".join([
        '<p id="top">Home</p>',
        '<a href="a/">fine</a> <a href="a/#here">fine</a> <a href="#top">fine</a> <a href="/guide/a/">fine</a>',
        '<a href="https://example.org/elsewhere">not ours</a> <a href="mailto:x@example.org">not ours</a>',
        '<a href="b/">missing page</a>',
        '<a href="a/#nowhere">missing anchor</a>',
        '<img src="/other/logo.png">',
        '<script src="assets/app.js"></script>',
    ]), encoding="utf-8")
    r = check(site)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        "index.html:4: 'b/': no such file (b/index.html)",
        "index.html:5: 'a/#nowhere': no element with id 'nowhere' on a/index.html",
        "index.html:6: '/other/logo.png': points outside the site",
        "index.html:7: 'assets/app.js': no such file (assets/app.js)",
        "4 broken link(s) in 2 page(s).",
    ]
    assert check(tmp_path / "nothing-here").returncode == 2


def test_llms_txt_links_are_checked_as_the_sites_own_addresses(tmp_path: Path):
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "sitemap.xml").write_text("<urlset><url><loc>https://example.org/guide/</loc></url></urlset>", encoding="utf-8")
    (site / "index.html").write_text('<a href="llms.txt">llms.txt</a>', encoding="utf-8")
    (site / "a" / "index.html.md").write_text("# A\n", encoding="utf-8")
    (site / "llms.txt").write_text("\n".join([
        "# Site", "", "> Summary.", "", "## Pages", "",
        "- [A](https://example.org/guide/a/index.html.md): fine",
        "- [B](https://example.org/guide/b/index.html.md): missing",
        "- [Elsewhere](https://example.com/x.md): not ours",
        "- [C](https://example.org/other/c.md): outside the site",
    ]) + "\n", encoding="utf-8")
    r = check(site)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        "llms.txt:8: '/guide/b/index.html.md': no such file (b/index.html.md)",
        "llms.txt:10: '/other/c.md': points outside the site",
        "2 broken link(s) in 1 page(s).",
    ]
