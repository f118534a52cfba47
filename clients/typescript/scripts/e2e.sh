#!/usr/bin/env bash
# Runs test/e2e.js under Node against real Engram servers started here from the repository's CLI:
# the owner, two containers and the keys are made with `engram owner create`, `containers create`
# and `keys create` on a temporary data directory, then `engram serve` runs on a free 127.0.0.1
# port. A second server with a per-credential limit of a few requests a minute provokes a real 429.
# The servers and their data are removed on exit; any failure exits non-zero.
#
# test.sh calls this after building dist/; run alone, it builds dist/ first when it is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../../../scripts/lib/engram-server.sh
source "$here/../../scripts/lib/engram-server.sh"

cd "$here"
if [ ! -f dist/index.js ]; then
  "$ENGRAM_ROOT/node_modules/.bin/tsc" -p tsconfig.json
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/engram-ts-e2e.XXXXXX")"
cleanup() {
  engram_stop_all
  rm -rf "$work"
}
trap cleanup EXIT

echo "== starting engram for the end-to-end tests"
data="$work/main"
engram_account "$data" owner@example.org
work_ctr="$(engram_cli "$data" containers create Work --description 'Projects and deadlines')"
home_ctr="$(engram_cli "$data" containers create Home)"
full_key="$(engram_cli "$data" keys create --name 'e2e full access' --level manage --containers "$work_ctr,$home_ctr" --profile)"
read_key="$(engram_cli "$data" keys create --name 'e2e read, Work only' --level read --containers "$work_ctr")"
owner_token="$(engram_cli "$data" owner token)"
engram_start "$data" "$work/main.log"
main_url="$ENGRAM_URL"

rate_limit=3
limited="$work/limited"
engram_account "$limited" owner@example.org
limited_ctr="$(engram_cli "$limited" containers create Only)"
limited_key="$(engram_cli "$limited" keys create --name 'e2e limited' --level read --containers "$limited_ctr")"
engram_start "$limited" "$work/limited.log" ENGRAM_RATE_LIMIT_PER_MIN="$rate_limit"
limited_url="$ENGRAM_URL"

echo "== end-to-end tests against $main_url and $limited_url"
set +e
ENGRAM_E2E_BASE_URL="$main_url" \
  ENGRAM_E2E_API_KEY="$full_key" \
  ENGRAM_E2E_READ_KEY="$read_key" \
  ENGRAM_E2E_OWNER_TOKEN="$owner_token" \
  ENGRAM_E2E_CONTAINERS="$work_ctr,$home_ctr" \
  ENGRAM_E2E_LIMITED_BASE_URL="$limited_url" \
  ENGRAM_E2E_LIMITED_API_KEY="$limited_key" \
  ENGRAM_E2E_RATE_LIMIT="$rate_limit" \
  node --test test/e2e.js
status=$?
set -e
if [ "$status" -ne 0 ]; then
  echo "== the server's log (main)" >&2
  tail -n 50 "$work/main.log" >&2
fi
exit "$status"
