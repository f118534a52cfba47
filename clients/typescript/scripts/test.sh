#!/bin/sh
# Builds the client with the repository's TypeScript compiler, type-checks the public types, runs
# the test suite with Node's test runner against the built dist/, then the end-to-end file against
# real servers started from the repository (scripts/e2e.sh). Exits non-zero on any failure.
#
# Test files are named test/<topic>.js, not *.test.js, on purpose: the repository root runs
# `bun test`, which would pick up *.test.js and fail while dist/ is not built. Bun can still run
# them explicitly: `bun test ./test/methods.js` (after a build).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
tsc="$here/../../node_modules/.bin/tsc"

if [ ! -x "$tsc" ]; then
  echo "test.sh: no TypeScript compiler at $tsc (run npm install at the repository root)" >&2
  exit 2
fi

cd "$here"
rm -rf dist
echo "== build"
"$tsc" -p tsconfig.json
echo "== type-check the public types"
"$tsc" -p tsconfig.test.json
echo "== tests"
node --test test/*.js
# test/e2e.js ran above only if ENGRAM_E2E_* named a server; here it always runs against its own.
bash "$here/scripts/e2e.sh"
