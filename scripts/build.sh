#!/usr/bin/env bash
# The README's first command: installs the guide into .venv/ (made with python3, or $PYTHON) and
# builds the site into site/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

make_venv
"$VENV/bin/mkdocs" build --strict
echo "built the site into site/; preview it with .venv/bin/mkdocs serve" >&2
