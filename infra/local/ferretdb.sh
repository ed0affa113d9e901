#!/usr/bin/env bash
# FerretDB (MongoDB wire protocol) on loopback, no Docker, on a private PostgreSQL (default) or on SQLite.
#
#   ferretdb.sh install          check PostgreSQL (postgres.sh install) and build the ferretdb binary from its Go
#                                module into the cache (once)
#   ferretdb.sh start  [port]    start it (default port $FERRETDB_PORT or 27117), with its PostgreSQL on port+1, and
#                                print MONGO_URL=mongodb://127.0.0.1:<port>/ as the last stdout line
#   ferretdb.sh stop   [port]    stop FerretDB, then its PostgreSQL
#   ferretdb.sh status [port]    exit 0 if running, 3 if not
#
# Environment: FERRETDB_HANDLER (postgresql, default; or sqlite), FORMGATE_CACHE (default ~/.cache/formgate),
# FORMGATE_RUN_DIR (base of run dirs, default <repo>/.run; this server uses <base>/ferretdb-<port>), FERRETDB_RUN_DIR
# (exact run dir, overrides), FERRETDB_PORT, FERRETDB_START_TIMEOUT (s, default 30), FERRETDB_LOG_LEVEL
# (debug|info|warn|error, default info), FERRETDB_PG_POOL (its PostgreSQL pool, default 250), FERRETDB_GIN (1, default: give every index FerretDB creates GIN companions its
# equality pushdown can use, see ferretdb-gin.sql; 0: none for indexes made from now on), FERRETDB_DEBUG_ADDR (its
# debug listener with Prometheus metrics per command at /debug/metrics, e.g. 127.0.0.1:8089; default - : none);
# PostgreSQL's knobs are postgres.sh's.
set -euo pipefail
FG_COMPONENT=ferretdb
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

FERRETDB_VERSION=v1.24.2
FERRETDB_MODULE=github.com/FerretDB/FerretDB
FDB_HOME="$FG_CACHE_DIR/ferretdb-$FERRETDB_VERSION"
FDB_BIN="$FDB_HOME/ferretdb"
FDB_MARKER="$FDB_HOME/.installed"
FDB_INSTALL_LOG="$FG_CACHE_DIR/logs/ferretdb-$FERRETDB_VERSION-install.log"

HANDLER="${FERRETDB_HANDLER:-postgresql}"
case "$HANDLER" in
  postgresql | sqlite) ;;
  *) fg_die "FERRETDB_HANDLER must be postgresql or sqlite, not '$HANDLER'" ;;
esac
POSTGRES_SH="$FG_LOCAL_DIR/postgres.sh"

usage() {
  sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

fdb_installed() {
  [[ -f "$FDB_MARKER" && -x "$FDB_BIN" ]] && [[ "$(cat "$FDB_MARKER")" == "$FERRETDB_VERSION" ]]
}

cmd_install() {
  if [[ "$HANDLER" == postgresql ]]; then "$POSTGRES_SH" install; fi
  if fdb_installed; then
    fg_log "FerretDB $FERRETDB_VERSION already built: $FDB_BIN"
    return 0
  fi
  fg_lock "$FG_CACHE_DIR/locks/ferretdb-$FERRETDB_VERSION.lock"
  if fdb_installed; then
    fg_log "FerretDB $FERRETDB_VERSION already built: $FDB_BIN"
    return 0
  fi
  fg_require_cmd go
  local work="$FDB_HOME.tmp" t0=$SECONDS
  rm -rf "$work"
  mkdir -p "$work" "$(dirname "$FDB_INSTALL_LOG")"
  : >"$FDB_INSTALL_LOG"
  # Only the Go module proxy: never let go fetch a toolchain, never use a go.work.
  export GOTOOLCHAIN=local GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=mod -buildvcs=false" CGO_ENABLED=0

  fg_log "downloading $FERRETDB_MODULE@$FERRETDB_VERSION through the Go module proxy (log: $FDB_INSTALL_LOG)"
  if ! (cd "$work" && go mod download -json "$FERRETDB_MODULE@$FERRETDB_VERSION") \
      >"$work/download.json" 2>>"$FDB_INSTALL_LOG"; then
    cat "$work/download.json" >>"$FDB_INSTALL_LOG" 2>/dev/null || true
    fg_die "go mod download of $FERRETDB_MODULE@$FERRETDB_VERSION failed" "$FDB_INSTALL_LOG"
  fi
  local src_dir
  src_dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' "$work/download.json" | head -n 1)"
  [[ -n "$src_dir" && -d "$src_dir/cmd/ferretdb" ]] ||
    { cat "$work/download.json" >>"$FDB_INSTALL_LOG"; fg_die "could not find the module source dir in the output of go mod download" "$FDB_INSTALL_LOG"; }

  # The module cache is read-only and the build embeds build/version/version.txt: copy, then write it.
  cp -R "$src_dir" "$work/src"
  chmod -R u+w "$work/src"
  printf '%s\n' "$FERRETDB_VERSION" >"$work/src/build/version/version.txt"

  fg_log "building ferretdb (go $(go env GOVERSION), takes about a minute cold)"
  if ! (cd "$work/src" && go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb) >>"$FDB_INSTALL_LOG" 2>&1; then
    fg_die "go build of ferretdb failed (sources: $work/src)" "$FDB_INSTALL_LOG"
  fi
  "$work/ferretdb" --version >>"$FDB_INSTALL_LOG" 2>&1 ||
    fg_die "the freshly built $work/ferretdb does not run" "$FDB_INSTALL_LOG"

  rm -rf "$FDB_HOME"
  mkdir -p "$FDB_HOME"
  mv "$work/ferretdb" "$FDB_BIN"
  rm -rf "$work"
  printf '%s\n' "$FERRETDB_VERSION" >"$FDB_MARKER"
  fg_log "FerretDB $FERRETDB_VERSION built: $FDB_BIN ($((SECONDS - t0))s)"
}

set_instance() {
  PORT="${1:-${FERRETDB_PORT:-27117}}"
  fg_check_port_arg "$PORT"
  RUN_DIR="${FERRETDB_RUN_DIR:-$FG_RUN_BASE/ferretdb-$PORT}"
  DATA_DIR="$RUN_DIR/data"          # SQLite handler's files
  STATE_DIR="$RUN_DIR/state"
  PIDFILE="$RUN_DIR/ferretdb.pid"
  OUT_LOG="$RUN_DIR/ferretdb.log"   # the server's stdout/stderr (FerretDB logs to stderr)
  START_TIMEOUT="${FERRETDB_START_TIMEOUT:-30}"
  # Unique on the command line: used to recognise our process behind a pid.
  TOKEN="--state-dir=$STATE_DIR"
  PG_PORT=$((PORT + 1))
  PG_RUN_DIR="$RUN_DIR/postgres"
}

env_line() { printf 'MONGO_URL=mongodb://127.0.0.1:%s/\n' "$PORT"; }

postgres() { POSTGRES_RUN_DIR="$PG_RUN_DIR" "$POSTGRES_SH" "$1" "$PG_PORT"; }

# The handler flags for the spawn; with postgresql, starts (or finds) the private PostgreSQL first.
handler_args() {
  if [[ "$HANDLER" == sqlite ]]; then
    mkdir -p "$DATA_DIR"
    HANDLER_ARGS=(--handler=sqlite --sqlite-url="file:$DATA_DIR/")
    return 0
  fi
  local line
  line="$(postgres start | tail -n 1)" || fg_die "PostgreSQL for FerretDB did not start (see above)"
  # FerretDB's PostgreSQL pool (its default is 50): an open multi-batch cursor holds a connection until its
  # getMore, so a pool smaller than what the services can have in flight (each process's driver pool is 20) can
  # deadlock: every connection held by a cursor whose getMore waits behind requests waiting for a connection.
  HANDLER_ARGS=(--handler=postgresql --postgresql-url="${line#POSTGRES_URL=}?pool_max_conns=${FERRETDB_PG_POOL:-250}")
  gin_companions "${line#POSTGRES_URL=}"
}

# GIN indexes FerretDB's equality pushdown can use (ferretdb-gin.sql, ADR 15); FERRETDB_GIN=0 leaves them out.
gin_companions() {
  if [[ "${FERRETDB_GIN:-1}" == 0 ]]; then
    fg_log "FERRETDB_GIN=0: no GIN companions for new indexes (those made before stay)"
    psql "$1" -X -q -v ON_ERROR_STOP=1 -c 'DROP EVENT TRIGGER IF EXISTS formgate_gin_on_create_index' >>"$OUT_LOG" 2>&1 ||
      fg_die "could not drop the GIN companions' event trigger in $1" "$OUT_LOG"
    return 0
  fi
  psql "$1" -X -q -v ON_ERROR_STOP=1 -f "$FG_LOCAL_DIR/ferretdb-gin.sql" >>"$OUT_LOG" 2>&1 ||
    fg_die "could not install the GIN companions (ferretdb-gin.sql) into $1" "$OUT_LOG"
}

# A failed start leaves nothing running, also not the PostgreSQL it started for itself.
stop_postgres_on_failure() {
  if [[ "${PG_STARTED_HERE:-0}" == 1 ]]; then postgres stop >/dev/null 2>&1 || true; fi
}

cmd_start() {
  set_instance "${1:-}"
  fdb_installed || cmd_install
  mkdir -p "$STATE_DIR"
  fg_lock "$RUN_DIR/.lock"

  local pid rc
  if pid="$(fg_read_pid "$PIDFILE" "$TOKEN")"; then
    fg_pid_matches "$pid" "--handler=$HANDLER" ||
      fg_die "FerretDB (pid $pid) on port $PORT runs with another handler than '$HANDLER'; stop it first with '$0 stop $PORT'"
    [[ "$HANDLER" == sqlite ]] || handler_args
    rc=0; fg_wait_ready "$pid" "$START_TIMEOUT" fg_port_open "$PORT" || rc=$?
    case $rc in
      0) fg_log "already running (pid $pid, run dir $RUN_DIR)"; env_line; return 0 ;;
      2) fg_die "FerretDB (pid $pid) exited while we waited for it on port $PORT" "$OUT_LOG" ;;
      *) fg_die "FerretDB (pid $pid) is running but does not answer on 127.0.0.1:$PORT; stop it with '$0 stop $PORT'" "$OUT_LOG" ;;
    esac
  fi

  fg_port_open "$PORT" &&
    fg_die "port $PORT is already in use by another process (not a FerretDB started from $RUN_DIR); choose another with FERRETDB_PORT=<port> or '$0 start <port>'"

  if [[ "$HANDLER" == postgresql ]] && ! postgres status >/dev/null 2>&1; then PG_STARTED_HERE=1; fi
  trap stop_postgres_on_failure EXIT
  handler_args
  fg_log "starting FerretDB $FERRETDB_VERSION ($HANDLER) on 127.0.0.1:$PORT (run dir $RUN_DIR)"
  printf '\n==== %s start (port %s, %s) ====\n' "$(date -Is)" "$PORT" "$HANDLER" >>"$OUT_LOG"
  local t0=$SECONDS
  # --debug-addr=- unless asked: otherwise every instance opens a debug listener on 127.0.0.1:8088 and a second one exits.
  fg_spawn "$PIDFILE" "$OUT_LOG" "$FDB_BIN" "${HANDLER_ARGS[@]}" \
      --listen-addr="127.0.0.1:$PORT" "$TOKEN" \
      --telemetry=disable --debug-addr="${FERRETDB_DEBUG_ADDR:--}" --log-level="${FERRETDB_LOG_LEVEL:-info}" ||
    fg_die "could not launch $FDB_BIN" "$OUT_LOG"
  pid="$(cat "$PIDFILE")"
  fg_await_started FerretDB "$pid" 10 "" fg_port_open "$OUT_LOG"
  trap - EXIT
  fg_log "FerretDB ready on 127.0.0.1:$PORT (pid $pid, $((SECONDS - t0))s)"
  env_line
}

cmd_stop() {
  set_instance "${1:-}"
  fg_stop_instance FerretDB "$TOKEN" "${FERRETDB_STOP_TIMEOUT:-30}" "$OUT_LOG"
  # Whatever FERRETDB_HANDLER says now: a PostgreSQL this run dir ever used is stopped too.
  if [[ -d "$PG_RUN_DIR" ]]; then postgres stop; fi
}

cmd_status() {
  set_instance "${1:-}"
  local rc=0
  fg_instance_status ferretdb "$TOKEN" fg_port_open "log: $OUT_LOG" || rc=$?
  if [[ -d "$PG_RUN_DIR" ]]; then
    postgres status || { [[ "$HANDLER" == sqlite ]] || rc=3; }
  fi
  return "$rc"
}

sub="${1:-}"; shift || true
case "$sub" in
  install) cmd_install ;;
  start)   cmd_start "$@" ;;
  stop)    cmd_stop "$@" ;;
  status)  cmd_status "$@" ;;
  *)       usage ;;
esac
