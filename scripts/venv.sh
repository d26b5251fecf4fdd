# Sourced by build.sh and test.sh: makes .venv/ with the interpreter in $PYTHON (python3 when
# unset) and installs this package into it, with the extras named in $1 if any. Never installs
# into the interpreter itself: Debian's python3 refuses that (PEP 668), and a project's virtualenv
# keeps the machine's Python as it was.

PYTHON="${PYTHON:-python3}"
VENV=.venv

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Debian packages, installed with apt-get when missing; a message instead on other systems.
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: install $* with your system's package manager, then run this again" >&2
    exit 1
  fi
  echo "installing $* with apt-get" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# Debian splits venv's pip bootstrap (ensurepip) into python3-venv, absent on a fresh install.
venv_works() {
  "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1
}

make_venv() {
  if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "error: $PYTHON not found; install Python 3.11 or newer (or set PYTHON to one)" >&2
    exit 1
  fi
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "error: the guide needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1) (set PYTHON to another)" >&2
    exit 1
  fi
  if ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
    venv_works || apt_install python3-venv
    rm -rf "$VENV"  # a half-made one, from a run that stopped early
    "$PYTHON" -m venv "$VENV"
  fi
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".${1:+[$1]}"
}
