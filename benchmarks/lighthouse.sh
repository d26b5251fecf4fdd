#!/usr/bin/env bash
# Lighthouse performance (mobile profile) and accessibility scores for home, a scenario page and
# the calculator, on the built site served gzip-compressed from 127.0.0.1 with Debian's Chromium.
# Lighthouse's simulated throttling scales the main-thread time it observes, so a busy machine
# lowers the scores: each page is measured RUNS times (default 3); the median is the figure, and
# every run is printed with the metrics behind it.
# Lighthouse 12 runs on Node 20 (13 needs Node 22); npx fetches it from the npm registry once.
#   bash benchmarks/lighthouse.sh            RUNS=5 bash benchmarks/lighthouse.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
out=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$out"' EXIT
NO_MKDOCS_2_WARNING=1 python3 -m mkdocs build -q -d "$out/site"
port=${PORT:-8917}
python3 benchmarks/serve_gzip.py "$out/site" "$port" & server=$!
sleep 1
# Debian's full Chromium where it is installed, else its headless shell (what scripts/test.sh installs).
CHROME_PATH=${CHROME_PATH:-$(command -v chromium || command -v chromium-headless-shell)}
export CHROME_PATH
flags="--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"
for page in "" "scenarios/repeated-fine-tuning/" "calculator/"; do
  for i in $(seq "$runs"); do
    npx --yes lighthouse@12 "http://127.0.0.1:$port/$page" --quiet --chrome-flags="$flags" \
      --only-categories=performance,accessibility --output=json --output-path="$out/report-$i.json" >/dev/null 2>&1
  done
  python3 - "${page:-home}" "$out"/report-*.json <<'PY'
import json, statistics, sys
name, reports = sys.argv[1], [json.load(open(p)) for p in sys.argv[2:]]
def score(r, c): return round(r["categories"][c]["score"] * 100)
def ms(r, a): return r["audits"][a]["numericValue"]
for r in reports:
    print(f"  {name:<32} run: performance {score(r, 'performance'):>3}, accessibility {score(r, 'accessibility'):>3}"
          f"  (FCP {ms(r, 'first-contentful-paint') / 1000:.1f} s, LCP {ms(r, 'largest-contentful-paint') / 1000:.1f} s,"
          f" TBT {ms(r, 'total-blocking-time'):.0f} ms, CLS {ms(r, 'cumulative-layout-shift'):.3f}, SI {ms(r, 'speed-index') / 1000:.1f} s)")
perf = [score(r, "performance") for r in reports]
a11y = [score(r, "accessibility") for r in reports]
print(f"{name:<34} performance {statistics.median(perf):>4g} (runs {min(perf)} to {max(perf)})"
      f"   accessibility {statistics.median(a11y):>4g} (runs {min(a11y)} to {max(a11y)})")
PY
  rm -f "$out"/report-*.json
done
