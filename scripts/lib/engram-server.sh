# Sourced, not run: starts real Engram servers from the `engram` CLI for the end-to-end scripts
# (clients/typescript/scripts/e2e.sh, scripts/schemathesis.sh). The Python client's tests do the
# same in Python (clients/python/tests/servers.py).
#
# Every server listens on 127.0.0.1 with port 0 (the kernel picks a free one, so there is no race
# between choosing a port and binding it); its address is read from the "engram listening" line
# of its log. `engram_stop_all` stops every server this shell started: call it from an EXIT trap.
# It then sweeps each server's data directory and log for secrets (test/helpers/secret-sweep.ts;
# one line on standard error, and one in ENGRAM_HYGIENE_LEDGER when set) and exits 1 on a finding,
# before the caller's trap removes anything, so the files stay for inspection.

ENGRAM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ENGRAM_BUN="$ENGRAM_ROOT/node_modules/.bin/bun"
ENGRAM_NODE="$ENGRAM_ROOT/node_modules/.bin/node"
ENGRAM_PASSWORD="correct horse battery staple"
ENGRAM_PIDS=()
# What engram_stop_all sweeps: the data directories and logs of the servers started here.
ENGRAM_SWEEP_STORES=()
ENGRAM_SWEEP_LOGS=()
# The harness named in the ledger: the script that sourced this file, relative to the repository.
ENGRAM_SWEEP_HARNESS="${ENGRAM_SWEEP_HARNESS:-sh:$(realpath -m --relative-to="$ENGRAM_ROOT" "$0")}"

if [ ! -x "$ENGRAM_BUN" ]; then
  echo "engram-server.sh: no Bun at $ENGRAM_BUN (run npm ci at the repository root)" >&2
  exit 2
fi
# The health check needs fetch: the pinned Node of the repository, else the one on PATH.
[ -x "$ENGRAM_NODE" ] || ENGRAM_NODE="$(command -v node)"

# engram_cli DATA_DIR ARGS... : one CLI command on DATA_DIR; prints its standard output.
# Bun runs from the repository root: it takes its TypeScript settings (JSX among them) from the
# tsconfig.json of the directory it starts in, not from the file's.
engram_cli() {
  local data=$1
  shift
  (cd "$ENGRAM_ROOT" && ENGRAM_LOG_LEVEL=warn exec "$ENGRAM_BUN" src/main.ts "$@" --data "$data")
}

# engram_account DATA_DIR EMAIL : makes the owner's account (the password is piped on stdin).
engram_account() {
  printf '%s\n' "$ENGRAM_PASSWORD" | engram_cli "$1" owner create --email "$2"
}

# engram_start DATA_DIR LOG_FILE [VAR=VALUE...] : starts `engram serve` with the extra environment
# and waits until GET /healthz answers. Sets ENGRAM_URL and ENGRAM_PID (overwritten by the next call).
# The fast embedding tier alone (ENGRAM_EMBEDDER=fast) unless VAR=VALUE says otherwise: these
# harnesses test contracts (HTTP, MCP, OAuth, the clients), not ranking, and the default tier loads
# the strong model and refines every passage in the background: schemathesis took about 30 minutes
# with it, 14 without (2 shared cores). Search quality has its own tests (test/e2e/learning/, bench/).
engram_start() {
  local data=$1 log=$2
  shift 2
  (cd "$ENGRAM_ROOT" && exec env ENGRAM_EMBEDDER=fast "$@" "$ENGRAM_BUN" src/main.ts serve --host 127.0.0.1 --port 0 --data "$data") >>"$log" 2>&1 &
  ENGRAM_PID=$!
  ENGRAM_PIDS+=("$ENGRAM_PID")
  ENGRAM_SWEEP_STORES+=("$data")
  ENGRAM_SWEEP_LOGS+=("$log")
  ENGRAM_URL=""
  local tries=0
  while [ "$tries" -lt 300 ]; do
    if ! engram_running "$ENGRAM_PID"; then
      echo "engram serve exited before answering; its log:" >&2
      cat "$log" >&2
      return 1
    fi
    if [ -z "$ENGRAM_URL" ]; then
      ENGRAM_URL="$(grep -o '"msg":"engram listening","url":"[^"]*"' "$log" | head -n 1 | sed 's/.*"url":"\([^"]*\)"/\1/' || true)"
    fi
    if [ -n "$ENGRAM_URL" ] && "$ENGRAM_NODE" -e \
      'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$ENGRAM_URL/healthz"; then
      return 0
    fi
    sleep 0.1
    tries=$((tries + 1))
  done
  echo "engram serve did not answer /healthz within 30 s; its log:" >&2
  cat "$log" >&2
  return 1
}

# engram_running PID : true while the process runs (an exited child that is not yet reaped
# still answers `kill -0`, so its state is read instead).
engram_running() {
  [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}

# engram_sweep : searches the data directories and logs of the servers started here for anything
# shaped like a credential; exits 1 on a finding (the findings name file, offset and a hint only).
engram_sweep() {
  local args=() p
  for p in "${ENGRAM_SWEEP_STORES[@]}"; do args+=(--store "$p"); done
  for p in "${ENGRAM_SWEEP_LOGS[@]}"; do args+=(--log "$p"); done
  ENGRAM_SWEEP_STORES=()
  ENGRAM_SWEEP_LOGS=()
  [ "${#args[@]}" -gt 0 ] || return 0
  if ! (cd "$ENGRAM_ROOT" && "$ENGRAM_BUN" test/helpers/secret-sweep.ts --harness "$ENGRAM_SWEEP_HARNESS" "${args[@]}"); then
    echo "engram-server.sh: a credential was written to a store or log (above); the files are kept" >&2
    exit 1
  fi
}

# engram_stop_all : SIGTERM to every server started here, SIGKILL after 10 s; then engram_sweep.
engram_stop_all() {
  local pid tries
  for pid in "${ENGRAM_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || continue
    tries=0
    while engram_running "$pid" && [ "$tries" -lt 100 ]; do
      sleep 0.1
      tries=$((tries + 1))
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  ENGRAM_PIDS=()
  engram_sweep
}
