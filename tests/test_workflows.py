"""The GitHub Actions workflows pass actionlint and run what CONTRIBUTING.md promises; the
pre-commit configuration checks scenarios against the committed schema, lints, and validates."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import jsonschema  # altair's dependency, so always installed
import pytest
from ruamel.yaml import YAML

from core_support import LIVE_SCENARIOS, REPO

WORKFLOWS = REPO / ".github" / "workflows"


def _load(path) -> dict:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))  # YAML 1.2: `on` stays a string


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def _uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in job["steps"] if "uses" in step]


def test_actionlint_passes():
    actionlint = shutil.which("actionlint")
    assert actionlint, "actionlint is missing: pip install -e '.[test]' installs it"
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert [p.name for p in files] == ["pages.yml", "pull-request.yml", "refresh-prices.yml"]
    # Files named explicitly: actionlint then needs no .git to find them (a copy of the tree works too).
    r = subprocess.run([actionlint, "-color=false", *map(str, files)], cwd=REPO, capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def test_pull_requests_are_validated_tested_built_link_checked_and_reported():
    wf = _load(WORKFLOWS / "pull-request.yml")
    assert "pull_request" in wf["on"]
    check, report = wf["jobs"]["check"], wf["jobs"]["report"]
    runs = _runs(check)
    for command in ("guide validate", "bash scripts/test.sh", "mkdocs build --strict", "scripts/check_links.py site"):
        assert command in runs, command
    env = {k: v for step in report["steps"] for k, v in (step.get("env") or {}).items()}
    assert env["BASE_REF"] == "${{ github.base_ref }}"
    assert 'guide diff "origin/${BASE_REF}"' in _runs(report)
    assert "git fetch" in _runs(report) and "refs/remotes/origin/${BASE_REF}" in _runs(report)
    assert report["permissions"]["pull-requests"] == "write"
    (script_step,) = [s for s in report["steps"] if s.get("uses", "").startswith("actions/github-script@")]
    script = script_step["with"]["script"]
    # One comment, found again by its marker and edited in place on later pushes.
    marker = re.search(r'const marker = "(<!-- [^"]+ -->)"', script)
    assert marker and "startsWith(marker)" in script
    assert "updateComment" in script and "createComment" in script and "paginate" in script


def test_main_builds_and_deploys_to_pages():
    wf = _load(WORKFLOWS / "pages.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    assert "mkdocs build --strict" in _runs(build) and "scripts/check_links.py site" in _runs(build)
    assert "actions/upload-pages-artifact" in _uses(build)
    assert _uses(deploy) == ["actions/deploy-pages"] and deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"


def test_prices_are_refreshed_weekly_through_an_oidc_role_into_one_pull_request_that_runs_its_checks():
    wf = _load(WORKFLOWS / "refresh-prices.yml")
    assert "workflow_dispatch" in wf["on"]
    (cron,) = [entry["cron"] for entry in wf["on"]["schedule"]]
    minute, hour, day, month, weekday = cron.split()
    assert (day, month) == ("*", "*") and weekday.isdigit()  # once a week
    assert wf["permissions"] == {"contents": "read"}
    job = wf["jobs"]["refresh"]
    assert job["permissions"] == {"contents": "read", "id-token": "write"}  # the App's token pushes and opens
    steps = job["steps"]
    creds = next(s for s in steps if s.get("uses", "").startswith("aws-actions/configure-aws-credentials@"))
    # The role comes from a repository variable; no AWS key of any kind is named in the workflow, and the
    # one secret is the GitHub App's private key.
    assert creds["with"]["role-to-assume"] == "${{ vars.AWS_PRICES_ROLE_ARN }}"
    text = (WORKFLOWS / "refresh-prices.yml").read_text(encoding="utf-8")
    assert "aws-access-key-id" not in text and "aws-secret-access-key" not in text
    assert re.findall(r"secrets\.[A-Z_]+", text) == ["secrets.PRICES_APP_PRIVATE_KEY"]
    order = [s.get("uses", "").split("@")[0] or s.get("run", "") for s in steps]
    refresh = next(i for i, s in enumerate(order) if "guide refresh-prices --report refresh-report.md" in s)
    diff = next(i for i, s in enumerate(order) if "guide diff" in s)
    checks = next(i for i, s in enumerate(steps) if s.get("id") == "checks")
    token = order.index("actions/create-github-app-token")
    opened = order.index("peter-evans/create-pull-request")
    assert order.index("aws-actions/configure-aws-credentials") < refresh < diff < checks < token < opened
    # Validate --strict, the strict build and the fast tests run on the refreshed tree, before the pull request.
    run = steps[checks]["run"]
    for command in ("check gate \"\\`guide validate\\`\" guide validate\n", "guide validate --strict",
                    "check gate \"\\`mkdocs build --strict\\`\" mkdocs build --strict",
                    'python -m pytest -m "not slow"'):
        assert command in run, command
    # Prices the calendar made stale fail --strict whatever the refresh does: shown, like on every pull request.
    assert re.search(r"^check info .* guide validate --strict$", run, re.M)
    assert "guide diff HEAD > guide-diff.md" in _runs(job)
    assert "cat refresh-report.md checks.md guide-diff.md > pr-body.md" in _runs(job)
    pr = steps[opened]["with"]
    # One fixed branch: a later run updates the pull request already open instead of opening another. Opened
    # with the App's token, so that pull-request.yml runs on it; a moved verdict's expect comes along.
    assert pr["branch"] == "refresh-prices" and pr["body-path"] == "pr-body.md"
    assert pr["add-paths"].split() == ["data/", "scenarios/"] and pr["token"] == "${{ steps.app.outputs.token }}"
    # A held move is accepted or refused by running the workflow with its accept or refuse input.
    assert {"accept", "refuse"} <= set(wf["on"]["workflow_dispatch"]["inputs"])
    assert '--accept "$key"' in steps[refresh]["run"] and '--refuse "$key"' in steps[refresh]["run"]
    # The memory: read from its own branch before the refresh, handed to it, pushed back after the pull request
    # step with the App's token, whether or not anyone merges.
    memory = next(i for i, s in enumerate(steps) if "git fetch --no-tags --depth=1 origin refresh-memory" in s.get("run", ""))
    kept = next(i for i, s in enumerate(steps) if "HEAD:refs/heads/refresh-memory" in s.get("run", ""))
    assert memory < refresh and opened < kept and "--memory \"$RUNNER_TEMP/refresh-memory/memory.yaml\"" in steps[refresh]["run"]
    assert steps[kept]["env"]["TOKEN"] == "${{ steps.app.outputs.token }}" and "if" not in steps[kept]
    assert 'cd "$RUNNER_TEMP/refresh-memory"' in steps[kept]["run"]
    # The notes to reread are shown here and fail the pull request's own check.
    assert re.search(r"^check info .* guide reread$", run, re.M)
    assert "guide reread" in _runs(_load(WORKFLOWS / "pull-request.yml")["jobs"]["check"])
    # A failed check fails the run after the pull request shows it.
    assert steps[-1]["if"] == "steps.checks.outputs.failed == '1'" and "exit 1" in steps[-1]["run"]


PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40} # v\d+(\.\d+){0,2}$")


@pytest.mark.parametrize("name", ["pages.yml", "pull-request.yml", "refresh-prices.yml"])
def test_every_action_is_pinned_to_a_commit_with_its_tag_and_every_job_has_a_time_limit(name):
    text = (WORKFLOWS / name).read_text(encoding="utf-8")
    uses = [ln.split("uses:", 1)[1].strip() for ln in text.splitlines() if re.match(r"^\s*(- )?uses:", ln)]
    assert uses
    assert [u for u in uses if not PINNED.match(u)] == []
    wf = _load(WORKFLOWS / name)
    for job_name, job in wf["jobs"].items():
        assert isinstance(job.get("timeout-minutes"), int) and 0 < job["timeout-minutes"] <= 60, job_name


def test_pre_commit_checks_scenarios_against_the_committed_schema_lints_and_validates():
    config = _load(REPO / ".pre-commit-config.yaml")
    hooks = {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}
    schema = hooks["check-jsonschema"]
    schemafile = schema["args"][schema["args"].index("--schemafile") + 1]
    assert (REPO / schemafile).resolve() == (REPO / "schemas" / "scenario.schema.json").resolve()
    pattern = re.compile(schema["files"])
    assert all(pattern.search(f"scenarios/{p.name}") for p in LIVE_SCENARIOS.glob("*.yaml"))
    assert not pattern.search("data/prices.yaml")
    assert "ruff" in hooks
    validate = hooks["guide-validate"]
    assert (validate["entry"], validate["language"], validate["pass_filenames"]) == ("guide validate", "system", False)


@pytest.mark.parametrize("path", sorted(LIVE_SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_scenario_passes_the_schema_check_pre_commit_runs(path):
    # What check-jsonschema does, with the jsonschema library: a scenario file against the committed schema.
    schema = json.loads((REPO / "schemas" / "scenario.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(_load(path))
