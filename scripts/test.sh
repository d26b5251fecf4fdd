#!/usr/bin/env bash
# Installs everything the tests need on a fresh Debian machine (Chromium from Debian's packages,
# this package with its test extras) and runs the whole suite. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium drives the browser tests; Node runs the calculator's engine in the parity test.
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
if [ -n "$missing" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi
python3 -m pip install -q -e ".[test]"

export NO_MKDOCS_2_WARNING=1
python3 -m pytest -q -p no:cacheprovider "$@"
