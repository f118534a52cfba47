#!/usr/bin/env bash
# The fast tier, `npm test`, for everyday work: type-check, lint (when the project has a `lint`
# script), and the server's suites (bun test) without the slow ones listed below. Needs nothing
# but `npm ci`. Everything, the slow suites and the client, Python, conformance, fuzzing and soak
# harnesses included, is `npm run test:all` (scripts/test-all.sh), which CI runs. Measured: 297 s
# for the whole tier (1,256 tests in 126 files; bun test 285 s), on 2 cores shared with other work (load 3.4).
set -euo pipefail
cd "$(dirname "$0")/.."

# The slow suites, one glob each (bun test --path-ignore-patterns), and the only list of them: a
# suite belongs here when it needs what a fresh machine lacks (Chromium, installed with apt-get by
# scripts/ensure-chromium.sh) or takes tens of seconds by design. Measured alone on 2 cores:
# crash 41 s (30 kill -9 cycles), disk-full 64 s (a minute of reads on a full disk; needs root).
slow=(
  'test/web/*-browser.test.ts'
  'test/e2e/reliability/crash.test.ts'
  'test/e2e/reliability/disk-full.test.ts'
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
  echo "== PostgreSQL: $(bash scripts/postgres.sh bindir); its store's suites run on a server started for them"
else
  echo "== PostgreSQL: no server binaries here, so the PostgreSQL store's suites are SKIPPED (bash scripts/postgres.sh ensure installs them)"
fi

echo "== server (bun test, without the slow suites: ${slow[*]})"
node_modules/.bin/bun test "${slow[@]/#/--path-ignore-patterns=}"
