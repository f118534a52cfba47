#!/usr/bin/env bash
# Every test of the project. `npm test` runs this, and so does CI (.ci/run), so a newcomer runs
# exactly what CI runs. Node.js here is the machine's own (the client must work on it); Bun and
# the Node 22 that the MCP conformance suite needs come from node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
bun=node_modules/.bin/bun

echo "== type-check"
node_modules/.bin/tsc -p .

echo "== Chromium for the browser tests (Debian's package, installed when missing)"
bash scripts/ensure-chromium.sh

echo "== server (bun test)"
"$bun" test

echo "== TypeScript client (Node's test runner, then end to end)"
bash clients/typescript/scripts/test.sh

echo "== Python client (pytest, then end to end)"
bash clients/python/scripts/test.sh

echo "== MCP from Python (the official mcp package)"
bash scripts/test-python-mcp.sh

echo "== MCP conformance suite (server leg)"
bash scripts/conformance.sh

echo "== OpenAPI fuzzing (schemathesis against a real server)"
bash scripts/schemathesis.sh

echo "== Soak: 16 clients (TypeScript client and MCP) for five minutes over 100,000 passages"
bash scripts/soak-ci.sh

echo "== Dockerfile lint"
bash scripts/lint-dockerfile.sh
