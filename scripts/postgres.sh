#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and benchmarks, from the machine's own packages:
#   scripts/postgres.sh ensure               installs Debian's postgresql with apt-get where no server binaries are
#   scripts/postgres.sh bindir               prints the newest server's bin directory; exits 1 when there is none
#   scripts/postgres.sh start DIR [k=v]…     initdb into DIR (made if missing; as root, its parent must let the
#                                            postgres user through, as /tmp does), start with a throwaway server's
#                                            settings (THROWAWAY below) and then those, on a free port of 127.0.0.1
#                                            only, and print its URL (superuser postgres, trust)
#   scripts/postgres.sh stop DIR             stops the server of DIR (immediately: it is thrown away)
#   scripts/postgres.sh resume DIR           starts the stopped server of DIR again, on its port and with its settings
# initdb and the server refuse to run as root: as root they run as the `postgres` user, which owns DIR.
set -euo pipefail

# Durability is not what a throwaway server is for: fsync costs tests most of their time. Its write-ahead
# log is kept small: left to its default 1 GB, a full run's log (every test's CREATE DATABASE writes its
# template into it) grew the server's folder to 700 MB, on machines whose disk is sometimes nearly full.
THROWAWAY="fsync=off synchronous_commit=off full_page_writes=off max_wal_size=64MB min_wal_size=32MB"

bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] || return 1
  echo "$dir"
}

# Runs a command as the server's user: this one, or `postgres` for root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
  else
    "$@"
  fi
}

case "${1:-}" in
  ensure)
    if bindir >/dev/null; then exit 0; fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
      if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
        echo "postgres.sh: no PostgreSQL server binaries, and this user cannot run apt-get (not root, no passwordless sudo)" >&2
        exit 3
      fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "postgres.sh: no PostgreSQL server binaries, and no apt-get to install them with" >&2
      exit 3
    fi
    echo "postgres.sh: installing Debian's postgresql..." >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update >&2
    # The package would start a cluster of its own on port 5432: a policy-rc.d (unless the machine
    # has one, as container images do) keeps it from starting.
    made_policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
      $SUDO chmod +x /usr/sbin/policy-rc.d
      made_policy=1
    fi
    status=0
    $SUDO apt-get install -y --no-install-recommends postgresql >&2 || status=4
    if [ -n "$made_policy" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
    [ "$status" -eq 0 ] || exit "$status"
    bindir >/dev/null || { echo "postgres.sh: apt-get finished but no server binaries are there" >&2; exit 4; }
    ;;
  bindir)
    bindir
    ;;
  start)
    dir=${2:?usage: postgres.sh start DIR [name=value ...]}
    shift 2
    bin=$(bindir) || { echo "postgres.sh: no PostgreSQL server binaries (scripts/postgres.sh ensure installs them)" >&2; exit 3; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 5; }
    opts="-p $port -k $dir -c listen_addresses=127.0.0.1"
    for setting in $THROWAWAY "$@"; do opts="$opts -c $setting"; done
    echo "$opts" >"$dir/options"
    as_owner "$bin/pg_ctl" -D "$dir/data" -o "$opts" -l "$dir/server.log" -w -t 60 start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 5; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  resume)
    dir=${2:?usage: postgres.sh resume DIR}
    bin=$(bindir)
    as_owner "$bin/pg_ctl" -D "$dir/data" -o "$(cat "$dir/options")" -l "$dir/server.log" -w -t 60 start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 5; }
    ;;
  stop)
    dir=${2:?usage: postgres.sh stop DIR}
    bin=$(bindir)
    if [ -f "$dir/data/postmaster.pid" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null; fi
    ;;
  *)
    sed -n '2,9p' "$0" >&2
    exit 2
    ;;
esac
