#!/usr/bin/env bash
# Every test of the project: `npm run test:all` runs this, and so does CI (.ci/run), so anyone can
# run exactly what CI runs. `npm test` is the fast tier of it (scripts/test-fast.sh). Node.js here
# is the machine's own (the client must work on it); Bun and the Node 22 that the MCP conformance
# suite needs come from node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
bun=node_modules/.bin/bun
# Each test and hook without a timeout of its own may take this long: Bun 1.4.5 ignores bunfig's
# [test] timeout, and its 5 s default cut tests that start servers on a loaded CI machine.
TEST_TIMEOUT_MS=30000

# Secret hygiene: every harness below sweeps its stores and logs for raw credentials when it
# removes them (test/helpers/secret-sweep.ts) and adds a line to this ledger; the last step reads it.
hygiene="$(mktemp -d "${TMPDIR:-/tmp}/engram-hygiene.XXXXXX")"
export ENGRAM_HYGIENE_LEDGER="$hygiene/ledger.jsonl"

# phase TITLE: ends the phase before (its seconds, the run's so far and the load are printed, and
# kept for the table at the end) and starts TITLE, so that the CI log says where the time goes.
phase_title=""
phase_start=$SECONDS
phase_times=()
phase() {
  if [ -n "$phase_title" ]; then
    local took=$((SECONDS - phase_start)) load
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    phase_times+=("$(printf '%5d s  %s' "$took" "${phase_title%% (*}")")
    echo "== took $took s (the run so far $SECONDS s, load $load): ${phase_title%% (*}"
  fi
  phase_title="$1"
  phase_start=$SECONDS
  [ -z "$1" ] || echo "== $1"
}
# phase_table: every phase ended so far, with its seconds, and the total.
phase_table() {
  phase ""
  echo "== time per phase (load now $(cut -d' ' -f1-3 /proc/loadavg))"
  printf '   %s\n' "${phase_times[@]}"
  printf '   %5d s  total\n' "$SECONDS"
}

phase "type-check"
node_modules/.bin/tsc -p .

phase "lint"
npm run --silent --if-present lint

phase "Chromium for the browser tests (Debian's package, installed when missing)"
bash scripts/ensure-chromium.sh

phase "PostgreSQL for the PostgreSQL store's suites (Debian's package, installed when missing; one server for the run)"
bash scripts/postgres.sh ensure
pg_dir="$(mktemp -d "${TMPDIR:-/tmp}/engram-pg.XXXXXX")"
# The soak's data directory: seeded during the fuzzing, soaked on after it.
soak_dir="$(mktemp -d "${TMPDIR:-/tmp}/engram-soak-ci.XXXXXX")"
soak_seed_pid=""
# When a step fails, the end of the log says why: a CI log is often read from its tail only.
finish() {
  local status=$?
  phase_table
  if [ "$status" -ne 0 ]; then
    echo "== Failed (exit $status): the bun test passes' failures, PostgreSQL's complaints, the machine"
    "$bun" scripts/lib/failure-digest.ts "$hygiene"/junit-*.xml || true
    grep -E 'PANIC|FATAL|ERROR|terminated|crash|recovery' "$pg_dir/server.log" 2>/dev/null | tail -n 20 || true
    df -h "${TMPDIR:-/tmp}" . || true
    free -m || true
  fi
  bash scripts/postgres.sh stop "$pg_dir"
  if [ -n "$soak_seed_pid" ]; then
    kill "$soak_seed_pid" 2>/dev/null || true
    wait "$soak_seed_pid" 2>/dev/null || true
  fi
  rm -rf "$pg_dir" "$soak_dir"
}
trap finish EXIT
ENGRAM_TEST_DATABASE_URL="$(bash scripts/postgres.sh start "$pg_dir" max_connections=300)"
export ENGRAM_TEST_DATABASE_URL

phase "server (bun test)"
"$bun" test --timeout "$TEST_TIMEOUT_MS" --reporter=junit --reporter-outfile="$hygiene/junit-server.xml"

phase "the operation tier, the REST and MCP doors (in process and end to end) and fact extraction again, on PostgreSQL (test/helpers/postgres-preload.ts)"
# Two suites read the SQLite file itself to show what it keeps (a forgetting's bytes, the access log's
# rows); what PostgreSQL keeps is test/storage's to show.
"$bun" test --timeout "$TEST_TIMEOUT_MS" --reporter=junit --reporter-outfile="$hygiene/junit-postgres.xml" \
  --preload ./test/helpers/postgres-preload.ts test/operations test/http test/mcp test/e2e/rest test/e2e/mcp \
  test/agent/fact-lane.test.ts test/agent/extraction.test.ts \
  --path-ignore-patterns='test/e2e/rest/forgetting.test.ts' --path-ignore-patterns='test/e2e/rest/access-log.test.ts'

phase "TypeScript client (Node's test runner, then end to end)"
bash clients/typescript/scripts/test.sh

phase "Python client (pytest, then end to end)"
bash clients/python/scripts/test.sh

phase "MCP from Python (the official mcp package)"
bash scripts/test-python-mcp.sh

phase "MCP conformance suite (server leg)"
bash scripts/conformance.sh

phase "OpenAPI fuzzing (schemathesis against a real server; the soak's store seeded beside it)"
# schemathesis keeps one core busy (its Python; the server it fuzzes next to none), so the soak's
# seeding, minutes of one core's work, runs on the other meanwhile; its lines follow schemathesis'.
soak_seed_log="$hygiene/soak-seed.log"
bash scripts/soak-ci.sh --keep "$soak_dir" --seed-only >"$soak_seed_log" 2>&1 &
soak_seed_pid=$!
bash scripts/schemathesis.sh
soak_seed_status=0
wait "$soak_seed_pid" || soak_seed_status=$?
soak_seed_pid=""
cat "$soak_seed_log"
[ "$soak_seed_status" -eq 0 ] || exit "$soak_seed_status"

phase "Soak: 16 clients (TypeScript client and MCP) for five minutes over 100,000 passages"
bash scripts/soak-ci.sh --keep "$soak_dir"

phase "Dockerfile lint"
bash scripts/lint-dockerfile.sh

phase "compose.yaml lint"
bash scripts/lint-compose.sh

phase "Secret hygiene: every store and log of the run searched for raw keys, tokens and codes"
# Fails on any finding, and when a harness swept fewer times than it must have: a broken hook
# cannot pass silently. The floors are below what one run makes (65 in-process test servers).
"$bun" test/helpers/secret-sweep.ts --report \
  --expect bun:test-server=40 --expect bun:crash=1 --expect bun:secret-hygiene=1 --expect bun:graceful-shutdown=1 \
  --expect bun:cli=1 --expect bun:binary=1 --expect bun:backup-transfer=1 --expect bun:operations=1 --expect sh:scripts/conformance-auth.sh=1 \
  --expect sh:clients/typescript/scripts/e2e.sh=1 --expect py:clients/python=1 --expect py:test/python=1 \
  --expect sh:scripts/conformance.sh=1 --expect sh:scripts/schemathesis.sh=1 --expect bench:soak.ts=1
rm -rf "$hygiene"
