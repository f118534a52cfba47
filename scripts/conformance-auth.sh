#!/usr/bin/env bash
# The official MCP conformance suite, authorization leg (`conformance authorization`), against a
# real `engram serve`: the authorization-server metadata scenario, then the whole authorization
# code grant. That second scenario prints an authorization URL and waits for a person to approve;
# test/conformance/approve-consent.ts plays the owner (signs in, ticks a container, approves).
# The suite needs Node 22, taken from the `node` devDependency.
#
# Usage: scripts/conformance-auth.sh [--metadata-only] [--keep DIR]   (--keep copies the raw results to DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
# shellcheck source=lib/engram-server.sh
source scripts/lib/engram-server.sh

METADATA_ONLY=""
KEEP=""
while [ $# -gt 0 ]; do
  case "$1" in
    --metadata-only) METADATA_ONLY=yes; shift ;;
    --keep) KEEP="${2:?--keep needs a directory}"; shift 2 ;;
    *) echo "conformance-auth.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

NODE22="$ROOT/node_modules/node/bin/node"
SUITE="$ROOT/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$NODE22" ] || [ ! -f "$SUITE" ]; then
  echo "conformance-auth.sh: run npm ci first (needs the node and @modelcontextprotocol/conformance devDependencies)" >&2
  exit 2
fi
if [ "$("$NODE22" -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
  echo "conformance-auth.sh: $NODE22 is not Node 22 or newer" >&2
  exit 2
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/engram-conformance-auth.XXXXXX")"
APPROVER_PID=""
cleanup() {
  if [ -n "$APPROVER_PID" ]; then
    kill -TERM "$APPROVER_PID" 2>/dev/null || true
    wait "$APPROVER_PID" 2>/dev/null || true
  fi
  engram_stop_all
  if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP"
    cp -r "$WORK/results" "$WORK"/*.log "$KEEP"/ 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

EMAIL=conformance@example.org
DATA="$WORK/data"
mkdir -p "$DATA" "$WORK/results"
if ! engram_account "$DATA" "$EMAIL" >"$WORK/setup.log" 2>&1; then
  echo "conformance-auth.sh: could not make the account:" >&2
  cat "$WORK/setup.log" >&2
  exit 1
fi
CONTAINER="$(engram_cli "$DATA" containers create Conformance)"

set +o pipefail
engram_start "$DATA" "$WORK/server.log"
set -o pipefail
echo "== engram at $ENGRAM_URL"

echo "== conformance authorization: authorization-server-metadata-endpoint"
"$NODE22" "$SUITE" authorization --url "$ENGRAM_URL" --scenario authorization-server-metadata-endpoint \
  --output-dir "$WORK/results" 2>&1 | tee "$WORK/metadata.log"
metadata_status=${PIPESTATUS[0]}
if [ "$metadata_status" -ne 0 ]; then
  echo "conformance-auth.sh: the metadata scenario failed" >&2
  exit 1
fi
if [ -n "$METADATA_ONLY" ]; then
  exit 0
fi

# The code grant: a public client registered for the suite's callback server, the owner approving.
CALLBACK_PORT="$("$NODE22" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
CLIENT_ID="$("$NODE22" -e '
  fetch(process.argv[1] + "/oauth/register", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "MCP conformance suite", redirect_uris: ["http://127.0.0.1:" + process.argv[2] + "/callback"] }) })
    .then((r) => r.json()).then((b) => { if (!b.client_id) throw new Error(JSON.stringify(b)); console.log(b.client_id); })
    .catch((e) => { console.error(e); process.exit(1); });' "$ENGRAM_URL" "$CALLBACK_PORT")"

: >"$WORK/grant.log"
ENGRAM_PASSWORD="$ENGRAM_PASSWORD" "$ENGRAM_BUN" test/conformance/approve-consent.ts --log "$WORK/grant.log" --email "$EMAIL" \
  --container "$CONTAINER" >"$WORK/approver.log" 2>&1 &
APPROVER_PID=$!

echo "== conformance authorization: every scenario, with the code grant"
set +e
"$NODE22" "$SUITE" authorization --url "$ENGRAM_URL" --client-id "$CLIENT_ID" --resource "$ENGRAM_URL/mcp-http" \
  --port "$CALLBACK_PORT" --output-dir "$WORK/results" >"$WORK/grant.log" 2>&1
grant_status=$?
set -e
cat "$WORK/grant.log"
wait "$APPROVER_PID" 2>/dev/null
approver_status=$?
APPROVER_PID=""
cat "$WORK/approver.log"
if [ "$grant_status" -ne 0 ] || [ "$approver_status" -ne 0 ]; then
  echo "conformance-auth.sh: the authorization leg failed (suite $grant_status, approver $approver_status)" >&2
  exit 1
fi
echo "== conformance authorization: green"
