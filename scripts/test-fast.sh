#!/usr/bin/env bash
# The fast tier, `npm test`, for everyday work: type-check, lint (when the project has a `lint`
# script), and the server's unit, operation-tier and in-process suites (bun test), two test files at
# a time. Needs nothing but `npm ci`. Everything, the end-to-end suites and the client, Python,
# conformance, fuzzing and soak harnesses included, is `npm run test:all` (scripts/test-all.sh),
# which CI runs. Timed on a clean clone by bench/test-tiers.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each test and hook without a timeout of its own may take this long: Bun 1.4.5 ignores bunfig's
# [test] timeout, and its 5 s default cut tests that start servers on a loaded CI machine.
TEST_TIMEOUT_MS=30000

# What only `npm run test:all` runs, one glob each (bun test --path-ignore-patterns), and the only
# list of it: the end-to-end suites, which start whole servers, commands and processes (test/e2e,
# and the MCP conformance suite's authorization leg against `engram serve`; the doors they cover
# are also tested in process: test/http, test/mcp, test/oauth), and the browser suites, which need
# Chromium (installed with apt-get by scripts/ensure-chromium.sh).
slow=(
  'test/e2e/**'
  'test/conformance/**'
  'test/web/*-browser.test.ts'
)

# A tool that turns on Node's compile cache (jiti's) keeps it here, not in the temporary directory,
# which the run leaves as it found it.
export NODE_COMPILE_CACHE="$PWD/node_modules/.cache/node-compile-cache"

echo "== type-check"
node_modules/.bin/tsc -p .

echo "== lint"
npm run --silent --if-present lint

# The PostgreSQL store's suites start a server of their own from the machine's binaries
# (test/helpers/postgres.ts); without them they are skipped, and said so.
if bash scripts/postgres.sh bindir >/dev/null 2>&1; then
  echo "== PostgreSQL: $(bash scripts/postgres.sh bindir); its store's suites run on servers started for them"
else
  echo "== PostgreSQL: no server binaries here, so the PostgreSQL store's suites are SKIPPED (bash scripts/postgres.sh ensure installs them)"
fi

# Test files run side by side in two worker processes (each file in a fresh global, with its own
# temporary root and cleanup: test/helpers/hygiene-preload.ts): both cores work, and one file's
# waits (a process it starts, a timer, the disk) are the other's time to run.
echo "== server (bun test, two files at a time, without: ${slow[*]})"
node_modules/.bin/bun test --timeout "$TEST_TIMEOUT_MS" --parallel=2 "${slow[@]/#/--path-ignore-patterns=}"
