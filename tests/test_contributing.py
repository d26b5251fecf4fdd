"""The contributor's path of CONTRIBUTING.md, walked in a git repository made from a copy of this
one: new-scenario, fill in, validate, build, diff against the original commit; then a price change
that flips an existing verdict, which diff reports (and exits 3 on, when asked). Also: diff in a
shallow clone says what to fetch, and works once it is fetched."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from site_support import FROZEN, REPO, copy_project
from contrib_support import PLACEHOLDER_MESSAGE, fill, guide, problems

pytestmark = pytest.mark.slow  # builds the site and runs guide diff in a git repository

NAME = "small-team-launch"
BUILD_DAY = "2026-11-23"  # the day the fixture was frozen; fixed, so the stale-price note is there whatever the date
GIT_ID = ["-c", "user.name=Contributor", "-c", "user.email=contributor@example.invalid", "-c", "commit.gpgsign=false"]


def git(*args: str, cwd: Path) -> str:
    r = subprocess.run(["git", *GIT_ID, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, f"git {' '.join(args)}: {r.stderr}"
    return r.stdout.rstrip("\n")


def mkdocs_build(root: Path, out: Path) -> subprocess.CompletedProcess[str]:
    # No NO_MKDOCS_2_WARNING: the output a contributor sees, with nothing set by hand.
    env = {k: v for k, v in os.environ.items() if k != "NO_MKDOCS_2_WARNING"}
    env |= {"GUIDE_TODAY": BUILD_DAY, "GUIDE_CACHE_DIR": str(REPO / ".cache")}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> tuple[Path, str]:
    """A git repository holding a copy of the project on main, one commit; (path, that commit)."""
    root = copy_project(tmp_path_factory.mktemp("contrib") / "guide")
    (root / ".gitignore").write_text("/.cache/\n__pycache__/\n", encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=root)
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "The guide as it is", cwd=root)
    return root, git("rev-parse", "HEAD", cwd=root)


def test_the_contributor_path(repo, tmp_path: Path):
    root, original = repo
    path = root / "scenarios" / f"{NAME}.yaml"

    # 1. A new scenario from the template.
    r = guide("new-scenario", NAME, cwd=root)
    assert (r.returncode, r.stderr) == (0, "")
    assert f"wrote scenarios/{NAME}.yaml" in r.stdout

    # 2. Validation points at each placeholder, and at nothing else.
    r = guide("validate", cwd=root)
    assert r.returncode == 1
    reported = problems(r.stderr)
    assert reported and {(p["path"], p["message"]) for p in reported} == {(f"scenarios/{NAME}.yaml", PLACEHOLDER_MESSAGE)}

    # 3. Fill them in where validation said; now everything validates.
    fill(path, reported)
    r = guide("validate", cwd=root, env={"GUIDE_TODAY": BUILD_DAY})
    count = len(list((FROZEN / "scenarios").glob("*.yaml"))) + 1
    assert (r.returncode, r.stderr) == (0, "")
    ok, stale = r.stdout.splitlines()
    assert ok == f"ok: data/ and {count} scenario(s) are valid."
    # The one line on stale prices, pointing at the command that lists them.
    m = re.fullmatch(r"note: (\d+) of \d+ prices are older than 180 days on " + BUILD_DAY + " "
                     r"\(the oldest is from (\d{4}-\d\d-\d\d)\); `guide validate --strict` lists them"
                     r"(; \d+ figure\(s\) no AWS API gives are past their review date \(review_by in data/prices\.yaml\))?", stale)
    assert m, stale
    listed = guide("validate", "--strict", cwd=root, env={"GUIDE_TODAY": BUILD_DAY})
    stale_dates = re.findall(r"price is \d+ days old on " + BUILD_DAY + r", .* \(got (\d{4}-\d\d-\d\d)\)$", listed.stderr, re.M)
    assert (int(m[1]), m[2]) == (len(stale_dates), min(stale_dates))

    # 4. The site builds under --strict, with the new page; stale prices are a note on the pages, and
    # the build prints no warning (nor Material's banner).
    site = tmp_path / "site"
    b = mkdocs_build(root, site)
    log = b.stdout + b.stderr
    assert b.returncode == 0, log
    assert [ln for ln in log.splitlines() if ln.startswith("WARNING")] == [], log
    assert "end of life" not in log and "NO_MKDOCS_2_WARNING" not in log
    page = (site / "scenarios" / NAME / "index.html").read_text(encoding="utf-8")
    assert "A small team&#39;s single fine-tune for a launch" in page or "A small team's single fine-tune" in page
    # The template names trn2 on Capacity Blocks (2026-07-22, within 180 days), but a 300-hour run costs
    # less on demand ($35.76, 2025-11-30) than 13 whole days of blocks: the page names the prices the
    # plans buy at, that one and the p5's (2026-01-21), both older than 180 days.
    assert f"Prices as of 2025-11-30, 2026-01-21, older than 180 days when this page was built ({BUILD_DAY})." in page
    assert NAME in (site / "scenarios" / "index.html").read_text(encoding="utf-8")
    links = subprocess.run([sys.executable, str(REPO / "scripts" / "check_links.py"), str(site)],
                           capture_output=True, text=True, timeout=300, check=False)
    assert links.returncode == 0, links.stdout
    assert git("status", "--porcelain", cwd=root) == f"?? scenarios/{NAME}.yaml"  # the build wrote nothing else

    # 5. The diff against the original commit (the merge base with main) shows the added scenario only.
    for args in ([], [original]):
        d = guide("diff", *args, cwd=root)
        assert (d.returncode, d.stderr) == (0, ""), d.stderr
        assert "**0 verdicts changed**; 1 scenario added, 0 removed; 0 prices changed." in d.stdout
        assert f"| `{NAME}` | gpu | yes |" in d.stdout
        assert "### Verdict changes" not in d.stdout and "### Prices changed" not in d.stdout
    base_label = "the merge base with main"
    assert guide("diff", cwd=root).stdout.startswith(f"## Verdict report: this change against {base_label} (`{original[:12]}`)")

    # 6. A price change that flips an existing scenario: validate stops on the expect, diff reports it.
    prices = root / "data" / "prices.yaml"
    text = prices.read_text(encoding="utf-8")
    old = "{instance: p5.48xlarge, region: us-east-1, option: on-demand, usd_per_hour: 55.04,"
    assert old in text
    prices.write_text(text.replace(old, old.replace("55.04", "110")), encoding="utf-8")
    v = guide("validate", cwd=root)
    assert v.returncode == 1 and "scenarios/one-off-run.yaml:" in v.stderr
    assert ": expect: the engine's verdict is trainium but expect says gpu: " in v.stderr
    d = guide("diff", cwd=root)
    assert d.returncode == 0, d.stderr
    assert "### Verdict changes" in d.stdout
    assert "| `one-off-run` | gpu | **trainium** | ⚠️ no: expect is gpu | the run: trainium by cost |" in d.stdout
    assert "| p5.48xlarge | us-east-1 | On-demand | $55.04/h | $110.00/h | +99.9 % | VAN-2026-01, 2026-01-21 ⚠️ unchanged |" in d.stdout
    assert f"| `{NAME}` | trainium | ⚠️ no: expect is gpu |" in d.stdout  # the new one flips too
    strict = guide("diff", "--fail-on-verdict-change", cwd=root)
    assert strict.returncode == 3 and strict.stdout == d.stdout
    # None of it touched the repository's commits, index or other files.
    assert git("rev-parse", "HEAD", cwd=root) == original
    assert git("status", "--porcelain", cwd=root).splitlines() == [" M data/prices.yaml", f"?? scenarios/{NAME}.yaml"]
    prices.write_text(text, encoding="utf-8")
    path.unlink()


def test_diff_in_a_shallow_clone_says_what_to_fetch(repo, tmp_path: Path):
    origin, original = repo
    git("checkout", "-q", "-b", "add-scenario", cwd=origin)
    assert guide("new-scenario", NAME, cwd=origin).returncode == 0
    git("add", f"scenarios/{NAME}.yaml", cwd=origin)
    git("commit", "-q", "-m", "Add a scenario", cwd=origin)
    git("checkout", "-q", "main", cwd=origin)
    clone = tmp_path / "clone"
    git("clone", "-q", "--depth=1", "--single-branch", "--branch", "add-scenario", origin.as_uri(), str(clone), cwd=tmp_path)

    r = guide("diff", cwd=clone)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("guide diff: cannot find main or origin/main to compare against; fetch it first "
                        "(`git fetch --depth=1 origin main:refs/remotes/origin/main`) or name a BASE, e.g. `guide diff HEAD~1`\n")
    r = guide("diff", "origin/main", cwd=clone)
    assert r.returncode == 2
    assert "cannot find 'origin/main' in this clone" in r.stderr
    assert "`git fetch --depth=1 origin main:refs/remotes/origin/main`" in r.stderr

    git("fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main", cwd=clone)
    r = guide("diff", cwd=clone)  # both tips, each one commit deep: no merge base to find
    assert r.returncode == 2 and "have no merge base in this clone (a shallow clone?)" in r.stderr
    # The placeholder file is invalid on purpose: the head side's problems, located, exit 1.
    r = guide("diff", "origin/main", cwd=clone)
    assert r.returncode == 1 and r.stderr.startswith("in the working tree:\n")
    assert f"scenarios/{NAME}.yaml:" in r.stderr and PLACEHOLDER_MESSAGE in r.stderr
    fill(clone / "scenarios" / f"{NAME}.yaml", problems(r.stderr))
    r = guide("diff", "origin/main", cwd=clone)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.startswith(f"## Verdict report: this change against origin/main (`{original[:12]}`)")
    assert f"| `{NAME}` | gpu | yes |" in r.stdout


def test_diff_reports_invalid_input_on_the_base_side_located(repo):
    root, original = repo
    git("checkout", "-q", "-b", "broken", original, cwd=root)
    path = root / "scenarios" / "one-off-run.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    runs: 1\n", "    runs: 0\n"), encoding="utf-8")
    git("commit", "-q", "-am", "A broken scenario", cwd=root)
    broken = git("rev-parse", "HEAD", cwd=root)
    git("checkout", "-q", "main", cwd=root)
    try:
        r = guide("diff", "broken", cwd=root)
        assert (r.returncode, r.stdout) == (1, "")
        lines = r.stderr.splitlines()
        assert lines[0] == f"at broken ({broken[:12]}), the base side:"
        assert lines[1].startswith("scenarios/one-off-run.yaml:") and ": workloads.0.runs: " in lines[1]
        assert lines[-1] == "1 problem(s) found."
    finally:
        git("branch", "-q", "-D", "broken", cwd=root)
