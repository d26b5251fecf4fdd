#!/usr/bin/env bash
# The README's second command, and what CI runs: installs what the tests need on a fresh Debian
# machine (Chromium and Node from Debian's packages, the guide with its test extras in .venv/) and
# runs the whole suite. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

# Chromium drives the browser tests; Node runs the calculator's engine in the parity test.
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
"$VENV/bin/python" -m pip --version >/dev/null 2>&1 || venv_works || missing="$missing python3-venv"
if [ -n "$missing" ]; then
  apt_install $missing
fi
make_venv test

# The README test builds with the interpreter that made .venv/, as a newcomer would.
export GUIDE_README_PYTHON="${GUIDE_README_PYTHON:-$(command -v "$PYTHON")}"
# As if activated: tests find the tools the test extras install (actionlint) on PATH.
export VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
