#!/usr/bin/env bash
# The project's virtual environment, for the Makefile.  Works with a PATH that holds only python3: it uses
# bash builtins and the environment's own programs, nothing else.
#   venv.sh make PYTHON VENV          make VENV from PYTHON (3.11 or newer), with uv in it when uv installs
#   venv.sh install PYTHON VENV ARGS  install ARGS (pip-style requirements) into VENV, with uv or else pip
set -euo pipefail
action=$1 python=$2 venv=$3
shift 3
start=$SECONDS

case $action in
make)
  if ! command -v "$python" >/dev/null 2>&1; then
    echo "error: $python not found on PATH; install Python 3.11 or newer (Debian/Ubuntu: apt-get install python3 python3-venv), or run make PYTHON=/path/to/python3.11" >&2
    exit 2
  fi
  version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || version=unknown
  major=${version%%.*} minor=${version#*.}
  if [[ ! $major =~ ^[0-9]+$ || ! $minor =~ ^[0-9]+$ ]] || (( major < 3 || (major == 3 && minor < 11) )); then
    echo "error: $python is Python $version; Debate Workbench needs 3.11 or newer (install it, or run make PYTHON=/path/to/python3.11)" >&2
    exit 2
  fi
  if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    echo "error: $python $version has no venv module; install it (Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 2
  fi
  echo "== making the virtual environment $venv from $python ($version)"
  "$python" -m venv "$venv"
  echo "== installing uv (the installer) into $venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off uv \
    || echo "warning: uv did not install; $venv installs with pip (slower)" >&2
  : > "$venv/.made"
  ;;
install)
  if [[ -x $venv/bin/uv ]]; then
    echo "== uv pip install $* (into $venv)"
    "$venv/bin/uv" pip install --python "$venv/bin/python" "$@"
  else
    echo "== pip install $* (into $venv)"
    "$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off "$@"
  fi
  ;;
*)
  echo "error: venv.sh: unknown action '$action' (make or install)" >&2
  exit 2
  ;;
esac
echo "== done in $((SECONDS - start)) s"
