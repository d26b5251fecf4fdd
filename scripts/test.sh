#!/usr/bin/env bash
# Installs everything the tests need on a fresh Debian machine (Chromium from Debian's packages,
# this package with its test extras) and runs the whole suite. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
python3 -m pip install -q -e ".[test]"

export NO_MKDOCS_2_WARNING=1
python3 -m pytest -q -p no:cacheprovider "$@"
