#!/usr/bin/env bash
# Lighthouse performance (mobile profile) and accessibility scores for home, a scenario page and
# the calculator, on the built site served gzip-compressed from 127.0.0.1 with Debian's Chromium.
# Lighthouse 12 runs on Node 20 (13 needs Node 22); npx fetches it from the npm registry once.
#   bash benchmarks/lighthouse.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$out"' EXIT
NO_MKDOCS_2_WARNING=1 mkdocs build -q -d "$out/site"
port=8917
python3 benchmarks/serve_gzip.py "$out/site" "$port" & server=$!
sleep 1
export CHROME_PATH=/usr/bin/chromium
flags="--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"
printf '%-34s %12s %14s\n' page performance accessibility
for page in "" "scenarios/repeated-fine-tuning/" "calculator/"; do
  npx --yes lighthouse@12 "http://127.0.0.1:$port/$page" --quiet --chrome-flags="$flags" \
    --only-categories=performance,accessibility --output=json --output-path="$out/report.json" >/dev/null 2>&1
  python3 - "$out/report.json" "${page:-home}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["categories"]
print(f"{sys.argv[2]:<34} {round(r['performance']['score'] * 100):>12} {round(r['accessibility']['score'] * 100):>14}")
PY
done
