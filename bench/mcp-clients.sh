#!/usr/bin/env bash
# What each MCP client shows its caller when Engram refuses a call, run by hand: a fresh
# `engram serve`, and for each client and door (/mcp-http, `engram mcp`, mcp-remote) a Read & write
# key that lists resources and prompts, is lowered to Read by the owner, and calls add_memory.
# Then the MCP Inspector CLI on a resource it may not read and over the per-credential limit.
# Prints one JSON line a cell; bench/log/mcp.md keeps the results with their versions.
#
# Usage: bash bench/mcp-clients.sh [CHECKOUT]   (default: this one; another checkout's server, same cells)
# Makes a virtual environment per Python client on first use (.venv-clients-*, pinned); mcp-remote
# and the Inspector run through npx on the repository's Node 22. Needs PyPI and npm.
set -uo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="$(cd "${1:-$HERE}" && pwd)"
cd "$HERE"
PYTHON=${PYTHON:-python3}
declare -A PINS=(
  [mcp]="mcp==2.3.0" [mcp1]="mcp==1.30.0" [fastmcp]="fastmcp==4.2.3"
  [agents]="openai-agents==0.24.0" [langchain]="langchain-mcp-adapters==0.3.2"
)
for client in "${!PINS[@]}"; do
  venv=".venv-clients-$client"
  if [ ! -x "$venv/bin/python" ]; then
    "$PYTHON" -m venv "$venv" && echo '*' > "$venv/.gitignore"
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${PINS[$client]}" || exit 1
done

cd "$TARGET"
# shellcheck source=lib/engram-server.sh
source scripts/lib/engram-server.sh
WORK="$(mktemp -d "${TMPDIR:-/tmp}/engram-clients.XXXXXX")"
trap 'engram_stop_all; rm -rf "$WORK"' EXIT
DATA="$WORK/data"
mkdir -p "$DATA"
engram_account "$DATA" clients@example.org >/dev/null 2>&1
FOOD="$(engram_cli "$DATA" containers create Food)"
OWNER="$(engram_cli "$DATA" owner token)"
LIMIT=40
set +o pipefail
engram_start "$DATA" "$WORK/server.log" ENGRAM_RATE_LIMIT_PER_MIN=$LIMIT >/dev/null
set -o pipefail
export ENGRAM_URL OWNER FOOD BUN="$HERE/node_modules/.bin/bun" ROOT="$TARGET"
key() { engram_cli "$DATA" keys create --name "$1" --level "${2:-suggest}" --containers "$FOOD" --profile; }

for client in mcp mcp1 fastmcp agents langchain; do
  for door in http stdio; do
    KEY="$(key "$client $door")" ".venv-clients-$client/bin/python" "$HERE/bench/lib/mcp-client-cell.py" "$client" "$door" 2>/dev/null
  done
done
for cell in "v2 http" "v2 stdio" "v2 remote" "v1 http" "v1 stdio" "v1 remote"; do
  # shellcheck disable=SC2086
  KEY="$(key "ts $cell")" "$BUN" "$HERE/bench/lib/mcp-client-cell.ts" $cell
done

# The Inspector lists tools before calling one, so it never sends a call outside the grant.
inspector() {
  PATH="$HERE/node_modules/.bin:$PATH" npx -y @modelcontextprotocol/inspector@2.12.0 --cli "$ENGRAM_URL/mcp-http" \
    --transport http --header "Authorization: Bearer $KEY" "$@" 2>&1 | tr -d '\n' | cut -c1-400
  echo
}
KEY="$(engram_cli "$DATA" keys create --name inspector --level read --containers "$FOOD")"
echo "inspector resources/read engram://profile without the profile tick: $(inspector --method resources/read --uri engram://profile)"
for _ in $(seq 1 $LIMIT); do curl -s -o /dev/null -H "Authorization: Bearer $KEY" "$ENGRAM_URL/v1/containers"; done
echo "inspector tools/list over the limit: $(inspector --method tools/list)"
