#!/usr/bin/env bash
# Every test of the project: the server's suites (bun test), then each client library's own suite.
# `npm test` runs this, and so does CI (.ci/run), so a newcomer runs exactly what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

echo "== server (bun test)"
bun test

for suite in clients/typescript/scripts/test.sh clients/python/scripts/test.sh; do
  if [ -f "$suite" ]; then
    echo "== $suite"
    bash "$suite"
  fi
done
