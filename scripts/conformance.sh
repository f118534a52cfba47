#!/usr/bin/env bash
# The official MCP conformance suite (server leg) against a real `engram serve`, in two legs:
#   2025   the active suite at the handshake revisions, judged by test/conformance/baseline.json;
#   2026   `--requirements 2026-07-28`, every scenario that revision requires, at its stateless
#          wire, judged by test/conformance/baseline-2026-07-28.json.
#
# The suite cannot send a bearer, so a test-only loopback proxy (test/conformance/proxy.ts) adds
# a Full-access key (all containers, profile ticked) to every request and forwards it unchanged
# otherwise. The server runs with ENGRAM_PUBLIC_URL set to the proxy's address, as it would behind
# any reverse proxy, so its Origin check and its resource_metadata name the address clients use.
# Results are judged by test/conformance/compare.ts against each leg's baseline.
# The suite needs Node 22, taken from the `node` devDependency.
#
# Usage: scripts/conformance.sh [--leg 2025|2026] [--keep DIR]
#        (both legs by default; --keep copies the raw results to DIR/<leg>)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
# shellcheck source=lib/engram-server.sh
source scripts/lib/engram-server.sh

KEEP=""
LEGS=(2025 2026)
while [ $# -gt 0 ]; do
  case "$1" in
    --leg) LEGS=("${2:?--leg needs 2025 or 2026}"); shift 2 ;;
    --keep) KEEP="${2:?--keep needs a directory}"; shift 2 ;;
    *) echo "conformance.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

NODE22="$ROOT/node_modules/node/bin/node"
SUITE="$ROOT/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$NODE22" ] || [ ! -f "$SUITE" ]; then
  echo "conformance.sh: run npm ci first (needs the node and @modelcontextprotocol/conformance devDependencies)" >&2
  exit 2
fi
if [ "$("$NODE22" -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
  echo "conformance.sh: $NODE22 is not Node 22 or newer" >&2
  exit 2
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/engram-conformance.XXXXXX")"
PROXY_PID=""
cleanup() {
  if [ -n "$PROXY_PID" ]; then
    kill -TERM "$PROXY_PID" 2>/dev/null || true
    wait "$PROXY_PID" 2>/dev/null || true
  fi
  engram_stop_all
  rm -rf "$WORK"
}
trap cleanup EXIT

DATA="$WORK/data"
mkdir -p "$DATA"
if ! engram_account "$DATA" conformance@example.org >"$WORK/setup.log" 2>&1 \
  || ! engram_cli "$DATA" containers create Conformance >>"$WORK/setup.log" 2>&1; then
  echo "conformance.sh: could not make the account:" >&2
  cat "$WORK/setup.log" >&2
  exit 1
fi
KEY="$(engram_cli "$DATA" keys create --name conformance --level manage --all --profile)"

# The proxy's port must be known before the server starts (it is the server's public address):
# ask the kernel for a free one and bind it a moment later.
PROXY_PORT="$("$NODE22" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
PROXY_URL="http://127.0.0.1:$PROXY_PORT"

# The fast embedding tier (engram_start's default): the suite calls no search.
# engram_start polls its log with grep | head | sed, which fails under pipefail until the line appears.
set +o pipefail
engram_start "$DATA" "$WORK/server.log" ENGRAM_PUBLIC_URL="$PROXY_URL"
set -o pipefail

ENGRAM_API_KEY="$KEY" "$ENGRAM_BUN" test/conformance/proxy.ts --target "$ENGRAM_URL" --port "$PROXY_PORT" >"$WORK/proxy.log" 2>&1 &
PROXY_PID=$!
proxy_ready=""
for _ in $(seq 1 100); do
  if "$NODE22" -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$PROXY_URL/healthz"; then
    proxy_ready=yes
    break
  fi
  sleep 0.1
done
if [ -z "$proxy_ready" ]; then
  echo "conformance.sh: the proxy did not answer on $PROXY_URL; its log:" >&2
  cat "$WORK/proxy.log" >&2
  exit 1
fi

# run_leg NAME BASELINE SUITE-ARGS... : one leg of the suite, judged against its baseline.
run_leg() {
  local name=$1 baseline=$2
  shift 2
  local results="$WORK/results-$name"
  mkdir -p "$results"
  echo "== MCP conformance suite $("$NODE22" "$SUITE" --version), leg $name ($*) (Node $("$NODE22" --version)) against $PROXY_URL/mcp-http -> $ENGRAM_URL"
  # The suite's own exit code counts every failure; the baseline decides instead (compare.ts).
  "$NODE22" "$SUITE" server --url "$PROXY_URL/mcp-http" "$@" --output-dir "$results" >"$WORK/suite-$name.log" 2>&1 || true
  if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP/$name"
    cp -r "$results/." "$KEEP/$name/"
    cp "$WORK/suite-$name.log" "$KEEP/$name/suite.log"
  fi
  local leg_status=0
  "$ENGRAM_BUN" test/conformance/compare.ts "$results" "$baseline" || leg_status=$?
  if [ "$leg_status" -ne 0 ]; then
    echo "== suite log, leg $name (tail)"
    tail -n 40 "$WORK/suite-$name.log"
  fi
  return "$leg_status"
}

status=0
for leg in "${LEGS[@]}"; do
  case "$leg" in
    2025) run_leg 2025 test/conformance/baseline.json || status=1 ;;
    2026) run_leg 2026 test/conformance/baseline-2026-07-28.json --requirements 2026-07-28 || status=1 ;;
    *) echo "conformance.sh: no leg $leg (2025 or 2026)" >&2; exit 2 ;;
  esac
done
if [ "$status" -ne 0 ]; then
  echo "== server log (tail)"
  tail -n 40 "$WORK/server.log"
fi
exit "$status"
