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


def test_prices_are_refreshed_weekly_through_an_oidc_role_into_one_pull_request_described_by_guide_diff():
    wf = _load(WORKFLOWS / "refresh-prices.yml")
    assert "workflow_dispatch" in wf["on"]
    (cron,) = [entry["cron"] for entry in wf["on"]["schedule"]]
    minute, hour, day, month, weekday = cron.split()
    assert (day, month) == ("*", "*") and weekday.isdigit()  # once a week
    assert wf["permissions"] == {"contents": "read"}
    job = wf["jobs"]["refresh"]
    assert job["permissions"]["id-token"] == "write" and job["permissions"]["pull-requests"] == "write"
    steps = job["steps"]
    creds = next(s for s in steps if s.get("uses", "").startswith("aws-actions/configure-aws-credentials@"))
    # The role comes from a repository variable; no key of any kind is named in the workflow.
    assert creds["with"]["role-to-assume"] == "${{ vars.AWS_PRICES_ROLE_ARN }}"
    text = (WORKFLOWS / "refresh-prices.yml").read_text(encoding="utf-8")
    assert "aws-access-key-id" not in text and "aws-secret-access-key" not in text and "secrets." not in text
    order = [s.get("uses", "").split("@")[0] or s.get("run", "") for s in steps]
    refresh = next(i for i, s in enumerate(order) if s.startswith("guide refresh-prices"))
    diff = next(i for i, s in enumerate(order) if "guide diff" in s)
    assert order.index("aws-actions/configure-aws-credentials") < refresh < diff < order.index("peter-evans/create-pull-request")
    assert "guide diff HEAD > guide-diff.md" in _runs(job)
    opened = [s for s in steps if s.get("uses", "").startswith("peter-evans/create-pull-request@")][0]["with"]
    # One fixed branch: a later run updates the pull request already open instead of opening another.
    assert opened["branch"] == "refresh-prices" and opened["body-path"] == "guide-diff.md" and opened["add-paths"] == "data/"


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
