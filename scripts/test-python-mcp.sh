#!/usr/bin/env bash
# The Python MCP tests: the official `mcp` SDK client against a real `engram serve`.
# Makes the virtual environment .venv-mcp on first use (python3 -m venv; pip install mcp pytest, pinned),
# then runs pytest on test/python. Fails when a test fails and when no test was collected.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-mcp
PYTHON=${PYTHON:-python3}
# Pinned so a new SDK release cannot change the run under us; raise these on purpose.
PACKAGES=(mcp==2.3.0 pytest==9.2.0)

if [ ! -x "$VENV/bin/python" ]; then
  echo "== making $VENV"
  "$PYTHON" -m venv "$VENV"
  # Keep the environment out of git without touching the project's .gitignore.
  echo '*' > "$VENV/.gitignore"
fi
# Installs on first use, and again when an install was interrupted or the pins changed.
installed() {
  "$VENV/bin/python" - "${PACKAGES[@]}" <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(any(m.version(p.split("==")[0]) != p.split("==")[1] for p in sys.argv[1:]))
PY
}
if ! installed; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PACKAGES[@]}"
fi

status=0
"$VENV/bin/python" -m pytest test/python -q -p no:cacheprovider "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "test-python-mcp: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
