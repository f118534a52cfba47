#!/usr/bin/env bash
# The soak as CI runs it: bench/soak.ts for five minutes over a store seeded with 100,000 passages
# (plus the seeding, which CI runs beside the fuzzing; `bun bench/soak.ts --minutes 30` by hand).
# The server and the 16 clients (8 through the TypeScript client library, 8 over MCP) run as their
# own processes on 127.0.0.1. Fails on any 5xx or failed call, any lost or duplicated acknowledged
# write, or a concurrent duplicate pair that did not get exactly one `queued`. Extra arguments go
# to bench/soak.ts: CI (scripts/test-all.sh) seeds with `--keep DIR --seed-only` beside the fuzzing,
# then soaks with `--keep DIR`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec node_modules/.bin/bun bench/soak.ts --minutes 5 --passages 100000 "$@"
