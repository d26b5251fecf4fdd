#!/usr/bin/env bash
# The refresh drill: in a throwaway git worktree of HEAD, move the first on-demand price up 1 % and
# date it today, add a valid new scenario, commit both as a contributor would, then run
# `guide validate` and the whole test suite there. Both must pass: a routine refresh or a first
# scenario must never turn the suite red. Leaves the repository as it was.
# Usage: scripts/refresh_drill.sh [pytest arguments]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'git -C "$repo" worktree remove --force "$tmp/drill" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

git -C "$repo" worktree add --detach -q "$tmp/drill" HEAD
cd "$tmp/drill"
export PYTHONPATH="$tmp/drill"  # this worktree's generator, not an installed one
today="$(date -u +%F)"
"$python" - "$today" <<'EOF'
import re, sys
from pathlib import Path

today = sys.argv[1]
prices = Path("data/prices.yaml")
text = prices.read_text(encoding="utf-8")
pattern = re.compile(r"(- \{instance: \S+, region: \S+, option: on-demand, usd_per_hour: )([0-9.]+)(, source: \S+, as_of: )\d{4}-\d\d-\d\d")
m = pattern.search(text)
prices.write_text(text[:m.start()] + f"{m[1]}{round(float(m[2]) * 1.01, 6)}{m[3]}{today}" + text[m.end():], encoding="utf-8")
base = sorted(Path("scenarios").glob("*.yaml"))[0]
scenario = re.sub(r"^title: .*$", "title: A refresh drill", base.read_text(encoding="utf-8"), count=1, flags=re.M)
Path("scenarios/zz-refresh-drill.yaml").write_text(scenario, encoding="utf-8")
print(f"moved {m[2]} by 1 % and dated it {today}; added scenarios/zz-refresh-drill.yaml (a copy of {base.name})")
EOF
git -c user.name=Drill -c user.email=drill@example.invalid -c commit.gpgsign=false commit -qam "refresh drill" --no-verify
git add scenarios/zz-refresh-drill.yaml
git -c user.name=Drill -c user.email=drill@example.invalid -c commit.gpgsign=false commit -qm "refresh drill: new scenario" --no-verify
"$python" -m generator validate
NO_MKDOCS_2_WARNING=1 "$python" -m pytest -q -p no:cacheprovider "$@"
