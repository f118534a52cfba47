#!/usr/bin/env bash
# The fast tier's figure (issue 44: `npm test` under 120 s on 2 cores, on a clean clone), by hand:
#   bash bench/test-tiers.sh [--runs N] [REF ...]        (default: HEAD, 3 runs)
# Each commit named gets a clean clone (git clone, npm ci) in a temporary folder, removed after;
# then `npm test` runs in turns over them (A B A B ...), so a busy host weighs on each alike. Each
# run prints its wall and CPU seconds (npm test and every process it waited for), the wall time and
# counts bun test reports for its own step, and the load average just before. Against main:
#   bash bench/test-tiers.sh main HEAD
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs=3
refs=()
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    *) refs+=("$1"); shift ;;
  esac
done
((${#refs[@]})) || refs=(HEAD)

work="$(mktemp -d "${TMPDIR:-/tmp}/engram-test-tiers.XXXXXX")"
trap 'rm -rf "$work"' EXIT
commits=()
for ref in "${refs[@]}"; do
  commit="$(git -C "$root" rev-parse --short "$ref")"
  commits+=("$commit")
  echo "clone of $ref ($commit), npm ci ..." >&2
  git clone -q --shared --no-checkout "$root" "$work/$commit"
  git -C "$work/$commit" checkout -q "$commit"
  (cd "$work/$commit" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
done

printf '%-10s %4s %8s %8s %11s  %s\n' commit run wall_s cpu_s bun_test_s 'load before (1, 5, 15 min); what bun test ran'
TIMEFORMAT='%R %U %S'
for ((run = 1; run <= runs; run++)); do
  for commit in "${commits[@]}"; do
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    outcome=passed
    if ! { time (cd "$work/$commit" && npm test >"$work/out" 2>&1); } 2>"$work/time"; then
      # Timed all the same; what failed goes to standard error, and the script's status says so at the end.
      outcome=FAILED
      failed=1
      grep -E '^\(fail\)' "$work/out" | sort -u >&2 || tail -20 "$work/out" >&2
    fi
    read -r wall user sys < <(tail -1 "$work/time")
    # bun test's own last line: "Ran 764 tests across 73 files. [61.71s]"
    ran="$(grep -E '^Ran [0-9]+ tests? across' "$work/out" | tail -1)"
    bun_s="$(sed -E 's/.*\[([0-9.]+)(m?s)\]$/\1 \2/' <<<"$ran" | awk '{ print ($2 == "ms") ? $1 / 1000 : $1 }')"
    printf '%-10s %4d %8.1f %8.1f %11.1f  %s; %s, %s\n' "$commit" "$run" "$wall" "$(awk "BEGIN { print $user + $sys }")" \
      "${bun_s:-0}" "$load" "$(sed -E 's/^Ran ([0-9]+) tests? across ([0-9]+) files?.*/\1 tests in \2 files/' <<<"$ran")" "$outcome"
  done
done
exit "${failed:-0}"
