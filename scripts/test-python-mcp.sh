#!/usr/bin/env bash
# The Python MCP tests: the official `mcp` SDK client against a real `engram serve`, in two lines of
# that SDK, each in its own virtual environment made here on first use (python3 -m venv; pip
# install, pinned):
#   .venv-mcp    mcp 2.x  runs test/python (both protocol eras, tools, resources, prompts, refusals)
#   .venv-mcp1   mcp 1.x  runs test/python/sdk1 (the maintenance line langchain-mcp-adapters needs:
#                         what a refusal does to its session)
# Arguments go to both pytest runs. Fails when a test fails, and when a run without arguments
# collected no tests (with a -k filter, one run may well select none).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
# Pinned so a new SDK release cannot change the run under us; raise these on purpose.
SDK2=(mcp==2.3.0 pytest==9.2.0)
SDK1=(mcp==1.30.0 pytest==9.2.0)

# venv DIR PACKAGES...: makes the environment, and installs on first use, again when an install
# was interrupted or the pins changed.
venv() {
  local dir=$1
  shift
  if [ ! -x "$dir/bin/python" ]; then
    echo "== making $dir"
    "$PYTHON" -m venv "$dir"
    # Keep the environment out of git without touching the project's .gitignore.
    echo '*' > "$dir/.gitignore"
  fi
  if ! "$dir/bin/python" - "$@" <<'PY' 2>/dev/null; then
import importlib.metadata as m, sys
sys.exit(any(m.version(p.split("==")[0]) != p.split("==")[1] for p in sys.argv[1:]))
PY
    "$dir/bin/pip" install --quiet --disable-pip-version-check "$@"
  fi
}

# run DIR PATH...: one pytest run, with the script's arguments.
run() {
  local dir=$1 status=0
  shift
  "$dir/bin/python" -m pytest -q -p no:cacheprovider "$@" "${ARGS[@]}" || status=$?
  if [ "$status" -eq 5 ] && [ "${#ARGS[@]}" -gt 0 ]; then return 0; fi
  if [ "$status" -eq 5 ]; then echo "test-python-mcp: pytest collected no tests in $*" >&2; fi
  return "$status"
}

ARGS=("$@")
venv .venv-mcp "${SDK2[@]}"
venv .venv-mcp1 "${SDK1[@]}"
status=0
run .venv-mcp test/python --ignore=test/python/sdk1 || status=1
run .venv-mcp1 test/python/sdk1 || status=1
exit "$status"
