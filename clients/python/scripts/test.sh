#!/usr/bin/env bash
# Runs the Python client's tests in its own virtual environment, the end-to-end ones included:
# tests/servers.py starts real Engram servers from this repository for them, and
# ENGRAM_E2E_REQUIRED=1 makes them fail rather than skip when it cannot.
# Makes clients/python/.venv when missing, installs the package with its dev extras (editable),
# then runs pytest; any extra arguments go to pytest. PYTHON picks the interpreter (default
# python3) and VENV the environment's folder, e.g. PYTHON=python3.10 VENV=.venv-3.10 to check the floor.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
python="${PYTHON:-python3}"
venv="${VENV:-$here/.venv}"
case "$venv" in /*) ;; *) venv="$here/$venv" ;; esac

# A venv whose interpreter no longer runs (moved, or made by a removed Python) is made again.
if ! "$venv/bin/python" -c '' >/dev/null 2>&1; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi

# Reinstall only when the package's metadata changed; the editable install follows the sources.
stamp="$venv/.engram-client-installed"
want="$(cat pyproject.toml | "$venv/bin/python" -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[dev]"
  echo "$want" > "$stamp"
fi

"$venv/bin/python" --version
set +e
ENGRAM_E2E_REQUIRED="${ENGRAM_E2E_REQUIRED:-1}" "$venv/bin/python" -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: counted as a failure" >&2
  exit 1
fi
exit "$status"
