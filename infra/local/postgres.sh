#!/usr/bin/env bash
# A private PostgreSQL (Debian's `postgresql` package) on loopback, for FerretDB's postgresql handler.
#
#   postgres.sh install          check that the PostgreSQL server binaries are installed (nothing is downloaded)
#   postgres.sh start  [port]    initdb on first use, start it (default port $POSTGRES_PORT or 27118), create the
#                                database $POSTGRES_DB and print POSTGRES_URL=postgres://postgres@127.0.0.1:<port>/<db>
#   postgres.sh stop   [port]    stop it (fast shutdown: SIGINT, wait, SIGKILL as a last resort)
#   postgres.sh status [port]    exit 0 if running, 3 if not
#
# Environment: FORMGATE_RUN_DIR (base of run dirs; this server uses <base>/postgres-<port>), POSTGRES_RUN_DIR (exact
# run dir, overrides; ferretdb.sh uses <its run dir>/postgres), POSTGRES_PORT, POSTGRES_BIN_DIR (default
# /usr/lib/postgresql/15/bin, else the newest /usr/lib/postgresql/*/bin), POSTGRES_DB (default ferretdb),
# POSTGRES_START_TIMEOUT (s, default 30). PostgreSQL refuses to run as root: as root it runs as the `postgres` user.
set -euo pipefail
FG_COMPONENT=postgres
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

usage() {
  sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

pg_bin_dir() {
  if [[ -n "${POSTGRES_BIN_DIR:-}" ]]; then printf '%s\n' "$POSTGRES_BIN_DIR"; return; fi
  if [[ -x /usr/lib/postgresql/15/bin/initdb ]]; then echo /usr/lib/postgresql/15/bin; return; fi
  local newest
  newest="$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2>/dev/null | sort -V | tail -n 1)"
  [[ -n "$newest" ]] && dirname "$newest" || echo /usr/lib/postgresql/15/bin
}

PG_BIN="$(pg_bin_dir)"

# As root the server runs as the `postgres` user (setpriv execs, so a pid stays the server's pid).
AS_PG=()
if (( EUID == 0 )); then AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups --); fi

cmd_install() {
  local b
  for b in initdb postgres pg_isready psql; do
    [[ -x "$PG_BIN/$b" ]] || fg_die "PostgreSQL is not installed: $PG_BIN/$b is missing. FerretDB's postgresql handler needs it: run 'apt-get update && apt-get install -y postgresql' (as root), set POSTGRES_BIN_DIR to its bin dir, or use FERRETDB_HANDLER=sqlite"
  done
  if (( EUID == 0 )); then
    id -u postgres >/dev/null 2>&1 ||
      fg_die "running as root, but there is no 'postgres' user to run PostgreSQL as (Debian's postgresql package creates it)"
    fg_require_cmd setpriv
  fi
  fg_log "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') found in $PG_BIN"
}

set_instance() {
  PORT="${1:-${POSTGRES_PORT:-27118}}"
  fg_check_port_arg "$PORT"
  RUN_DIR="${POSTGRES_RUN_DIR:-$FG_RUN_BASE/postgres-$PORT}"
  DATA_DIR="$RUN_DIR/data"
  SOCKET_DIR="$RUN_DIR/socket"
  PIDFILE="$RUN_DIR/postgres.pid"
  OUT_LOG="$RUN_DIR/postgres.log"
  DB_NAME="${POSTGRES_DB:-ferretdb}"
  START_TIMEOUT="${POSTGRES_START_TIMEOUT:-30}"
  # The data dir is unique on the command line: used to recognise our process behind a pid.
  TOKEN="-D $DATA_DIR"
}

as_pg() { (cd "$RUN_DIR" && "${AS_PG[@]}" "$@"); }

pg_probe() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$1" -t 2 >/dev/null 2>&1; }

env_line() { printf 'POSTGRES_URL=postgres://postgres@127.0.0.1:%s/%s\n' "$PORT" "$DB_NAME"; }

# The directories the server writes, owned by the user it runs as; initdb on first use.
prepare_dirs() {
  mkdir -p "$RUN_DIR"
  if (( EUID == 0 )); then
    install -d -o postgres -g postgres -m 700 "$DATA_DIR" "$SOCKET_DIR"
    as_pg test -w "$DATA_DIR" ||
      fg_die "the postgres user cannot reach $RUN_DIR (a parent directory is not searchable by others): chmod o+x it or set FORMGATE_RUN_DIR elsewhere"
  else
    mkdir -p -m 700 "$DATA_DIR" "$SOCKET_DIR"
  fi
  [[ -f "$DATA_DIR/PG_VERSION" ]] && return 0
  fg_log "initdb in $DATA_DIR"
  as_pg "$PG_BIN/initdb" -D "$DATA_DIR" -U postgres -E UTF8 --locale=C.UTF-8 -A trust --no-sync \
      >"$RUN_DIR/initdb.log" 2>&1 ||
    fg_die "initdb of $DATA_DIR failed" "$RUN_DIR/initdb.log"
}

ensure_database() {
  local psql=("$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -tA)
  [[ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" == 1 ]] && return 0
  "${psql[@]}" -c "CREATE DATABASE \"$DB_NAME\"" >>"$OUT_LOG" 2>&1 || fg_die "could not create database $DB_NAME" "$OUT_LOG"
}

cmd_start() {
  set_instance "${1:-}"
  (cmd_install) >/dev/null 2>&1 || cmd_install
  mkdir -p "$RUN_DIR"
  fg_lock "$RUN_DIR/.lock"

  local pid rc
  if pid="$(fg_read_pid "$PIDFILE" "$TOKEN")"; then
    rc=0; fg_wait_ready "$pid" "$START_TIMEOUT" pg_probe "$PORT" || rc=$?
    case $rc in
      0) fg_log "already running (pid $pid, run dir $RUN_DIR)"; ensure_database; env_line; return 0 ;;
      2) fg_die "PostgreSQL (pid $pid) exited while we waited for it on port $PORT" "$OUT_LOG" ;;
      *) fg_die "PostgreSQL (pid $pid) is running but does not answer on 127.0.0.1:$PORT; stop it with '$0 stop $PORT'" "$OUT_LOG" ;;
    esac
  fi
  fg_port_open "$PORT" &&
    fg_die "port $PORT is already in use by another process (not a PostgreSQL started from $RUN_DIR); choose another port"

  prepare_dirs
  fg_log "starting PostgreSQL on 127.0.0.1:$PORT (run dir $RUN_DIR)"
  printf '\n==== %s start (port %s) ====\n' "$(date -Is)" "$PORT" >>"$OUT_LOG"
  local t0=$SECONDS
  cd "$RUN_DIR"
  fg_spawn "$PIDFILE" "$OUT_LOG" "${AS_PG[@]}" "$PG_BIN/postgres" -D "$DATA_DIR" -p "$PORT" -k "$SOCKET_DIR" \
      -c listen_addresses=127.0.0.1 -c max_connections=300 ${POSTGRES_EXTRA_ARGS:-} ||
    fg_die "could not launch $PG_BIN/postgres" "$OUT_LOG"
  pid="$(cat "$PIDFILE")"
  fg_await_started PostgreSQL "$pid" 20 "" pg_probe "$OUT_LOG"
  ensure_database
  fg_log "PostgreSQL ready on 127.0.0.1:$PORT (pid $pid, $((SECONDS - t0))s)"
  env_line
}

cmd_stop() {
  set_instance "${1:-}"
  # SIGTERM would be a "smart" shutdown that waits for every client to disconnect; SIGINT is "fast".
  FG_STOP_SIGNAL=INT fg_stop_instance PostgreSQL "$TOKEN" "${POSTGRES_STOP_TIMEOUT:-30}" "$OUT_LOG"
}

cmd_status() {
  set_instance "${1:-}"
  fg_instance_status postgres "$TOKEN" pg_probe "log: $OUT_LOG"
}

sub="${1:-}"; shift || true
case "$sub" in
  install) cmd_install ;;
  start)   cmd_start "$@" ;;
  stop)    cmd_stop "$@" ;;
  status)  cmd_status "$@" ;;
  *)       usage ;;
esac
