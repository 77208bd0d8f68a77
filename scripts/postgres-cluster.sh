#!/bin/sh
# A throwaway PostgreSQL cluster for the tests: initdb into a new temporary folder, the server run
# as the `postgres` user (when this runs as root: PostgreSQL refuses root), listening only on a
# Unix socket in that folder (no TCP port, nothing shared with the machine's own clusters).
#
#   sh scripts/postgres-cluster.sh start [PID] starts one; prints its URL on stdout (with PID: it is
#                                              stopped by itself once that process has ended)
#   sh scripts/postgres-cluster.sh stop URL    stops it and removes its folder
#   sh scripts/postgres-cluster.sh halt URL    stops its server only (a test of a database that goes away)
#   sh scripts/postgres-cluster.sh resume URL  starts that server again
#
# The tests' clusters run with fsync off (the tests kill rocket, never this server, and a clean
# stop writes everything); ROCKET_PG_FSYNC=on starts one as a deployment runs (the benchmarks).
#
# scripts/test.sh starts one for the whole run and hands its URL to the tests as
# ROCKET_TEST_POSTGRES; a test run without it (a bare `swift test`) starts its own the same way.
set -eu
say() { echo "postgres-cluster: $*" >&2; }
bindir=$(pg_config --bindir 2> /dev/null || true)
if [ ! -x "$bindir/initdb" ]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)
fi
[ -x "$bindir/initdb" ] || { say "error: PostgreSQL's server programs are missing (Debian: postgresql; sh scripts/install-deps.sh --tests)"; exit 69; }

case "${1:-}" in
  start)
    dir=$(mktemp -d /tmp/rocket-pg.XXXXXX)
    if [ "$(id -u)" -eq 0 ]; then
      chown postgres: "$dir"
      run="runuser -u postgres --"
      user=postgres
    else
      run=""
      user=$(id -un)
    fi
    if ! $run "$bindir/initdb" -D "$dir/data" -U "$user" -A trust -E UTF8 --locale=C --no-sync > "$dir/initdb.log" 2>&1; then
      cat "$dir/initdb.log" >&2
      rm -rf "$dir"
      say "error: initdb failed"
      exit 1
    fi
    echo "${ROCKET_PG_FSYNC:-off}" > "$dir/fsync"
    if ! $run "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -c listen_addresses= -c fsync=${ROCKET_PG_FSYNC:-off} -c max_connections=400" start > /dev/null 2>&1; then
      cat "$dir/server.log" >&2 || true
      rm -rf "$dir"
      say "error: the server did not start"
      exit 1
    fi
    url="postgresql:///postgres?host=$dir&user=$user"
    if [ -n "${2:-}" ]; then
      # A watchdog: when the owner is gone (however it ended), so is the cluster.
      owner=$2
      script=$0
      setsid sh -c 'while kill -0 "$1" 2> /dev/null; do sleep 2; done; sh "$2" stop "$3"' watchdog "$owner" "$script" "$url" \
        < /dev/null > /dev/null 2>&1 &
    fi
    echo "$url"
    ;;
  stop)
    url=${2:?stop needs the URL start printed}
    dir=${url#*host=}
    dir=${dir%%&*}
    case "$dir" in /tmp/rocket-pg.*) ;; *) say "error: $dir is not a folder this script made"; exit 64 ;; esac
    if [ -d "$dir/data" ]; then
      if [ "$(id -u)" -eq 0 ]; then run="runuser -u postgres --"; else run=""; fi
      $run "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  halt | resume)
    url=${2:?$1 needs the URL start printed}
    dir=${url#*host=}
    dir=${dir%%&*}
    case "$dir" in /tmp/rocket-pg.*) ;; *) say "error: $dir is not a folder this script made"; exit 64 ;; esac
    if [ "$(id -u)" -eq 0 ]; then run="runuser -u postgres --"; else run=""; fi
    if [ "$1" = halt ]; then
      $run "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop > /dev/null
    else
      $run "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-k $dir -c listen_addresses= -c fsync=$(cat "$dir/fsync") -c max_connections=400" start > /dev/null
    fi
    ;;
  *)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
    ;;
esac
