#!/usr/bin/env bash
# SeaweedFS (an Apache-2.0 S3-compatible object store) on loopback, no Docker: one `weed server` process with its
# master, volume, filer and S3 gateway, data under the run dir.
#
#   seaweedfs.sh install          build the weed binary from its Go module into the cache (once; several minutes)
#   seaweedfs.sh start  [port]    start it with the S3 API on port (default $SEAWEEDFS_PORT or 8333; the master,
#                                 volume and filer take port+1..port+3 and their gRPC ports 10000 above each), and
#                                 print S3_TEST_URL=http://<key>:<secret>@127.0.0.1:<port> as the last stdout line
#   seaweedfs.sh stop   [port]    stop it (its data stays in the run dir)
#   seaweedfs.sh status [port]    exit 0 if running, 3 if not
#
# Environment: FORMGATE_CACHE (default ~/.cache/formgate), FORMGATE_RUN_DIR (base of run dirs, default <repo>/.run;
# this server uses <base>/seaweedfs-<port>), SEAWEEDFS_RUN_DIR (exact run dir, overrides), SEAWEEDFS_PORT,
# SEAWEEDFS_START_TIMEOUT (s, default 60).
set -euo pipefail
FG_COMPONENT=seaweedfs
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

# The module publishes no release tags on the proxy: a pseudo-version of its main branch (go.mod: go 1.26).
SW_VERSION=v0.0.0-20261109003541-7506e5f91cd6
SW_MODULE=github.com/seaweedfs/seaweedfs
SW_HOME="$FG_CACHE_DIR/seaweedfs-$SW_VERSION"
SW_BIN="$SW_HOME/bin/weed"
SW_MARKER="$SW_HOME/.installed"
SW_INSTALL_LOG="$FG_CACHE_DIR/logs/seaweedfs-$SW_VERSION-install.log"
# The static identity of the test server (loopback only).
SW_ACCESS_KEY=formgate
SW_SECRET_KEY=formgate-local-secret

usage() {
  sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

sw_installed() {
  [[ -f "$SW_MARKER" && -x "$SW_BIN" ]] && [[ "$(cat "$SW_MARKER")" == "$SW_VERSION" ]]
}

cmd_install() {
  if sw_installed; then
    fg_log "seaweedfs $SW_VERSION already built: $SW_BIN"
    return 0
  fi
  fg_lock "$FG_CACHE_DIR/locks/seaweedfs-$SW_VERSION.lock"
  if sw_installed; then
    fg_log "seaweedfs $SW_VERSION already built: $SW_BIN"
    return 0
  fi
  fg_require_cmd go
  local tmp="$SW_HOME.tmp" t0=$SECONDS src
  rm -rf "$tmp"
  mkdir -p "$tmp/bin" "$(dirname "$SW_INSTALL_LOG")"
  : >"$SW_INSTALL_LOG"
  # `go install mod@version` refuses a module whose go.mod has replace directives (SeaweedFS has one): download the
  # module through the proxy, then build its `weed` command inside a writable copy. Never a fetched toolchain.
  fg_log "building $SW_MODULE/weed@$SW_VERSION through the Go module proxy (log: $SW_INSTALL_LOG)"
  src="$(cd "$tmp" && GOTOOLCHAIN=local GOWORK=off GOFLAGS=-mod=mod go mod download -json "$SW_MODULE@$SW_VERSION" 2>>"$SW_INSTALL_LOG" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" || true
  [[ -n "$src" && -d "$src" ]] || fg_die "go mod download of $SW_MODULE@$SW_VERSION failed" "$SW_INSTALL_LOG"
  cp -r "$src" "$tmp/src"
  chmod -R u+w "$tmp/src"
  if ! (cd "$tmp/src" && GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
      go build -o "$tmp/bin/weed" ./weed) >>"$SW_INSTALL_LOG" 2>&1; then
    fg_die "go build of $SW_MODULE/weed@$SW_VERSION failed" "$SW_INSTALL_LOG"
  fi
  rm -rf "$tmp/src"
  [[ -x "$tmp/bin/weed" ]] || fg_die "go build finished but $tmp/bin/weed is missing" "$SW_INSTALL_LOG"
  rm -rf "$SW_HOME"
  mv "$tmp" "$SW_HOME"
  printf '%s\n' "$SW_VERSION" >"$SW_MARKER"
  fg_log "seaweedfs $SW_VERSION built: $SW_BIN ($((SECONDS - t0))s)"
}

set_instance() {
  PORT="${1:-${SEAWEEDFS_PORT:-8333}}"
  fg_check_port_arg "$PORT"
  (( PORT + 3 + 10000 < 65535 )) || fg_die "port $PORT leaves no room for the gRPC ports (port+3+10000 must be < 65535)"
  RUN_DIR="${SEAWEEDFS_RUN_DIR:-$FG_RUN_BASE/seaweedfs-$PORT}"
  PIDFILE="$RUN_DIR/weed.pid"
  OUT_LOG="$RUN_DIR/weed.log"
  START_TIMEOUT="${SEAWEEDFS_START_TIMEOUT:-60}"
  # Unique on the command line: used to recognise our process behind a pid.
  TOKEN="-s3.port=$PORT"
}

# The S3 gateway answers (403 without credentials) once the filer behind it is up.
sw_probe() {
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$1/" 2>/dev/null || true)"
  [[ "$code" =~ ^[234] ]]
}

env_line() { printf 'S3_TEST_URL=http://%s:%s@127.0.0.1:%s\n' "$SW_ACCESS_KEY" "$SW_SECRET_KEY" "$PORT"; }

cmd_start() {
  set_instance "${1:-}"
  sw_installed || cmd_install
  fg_require_cmd curl
  mkdir -p "$RUN_DIR/data"
  fg_lock "$RUN_DIR/.lock"

  local pid rc
  if pid="$(fg_read_pid "$PIDFILE" "$TOKEN")"; then
    rc=0; fg_wait_ready "$pid" "$START_TIMEOUT" sw_probe "$PORT" || rc=$?
    case $rc in
      0) fg_log "already running (pid $pid, run dir $RUN_DIR)"; env_line; return 0 ;;
      2) fg_die "weed (pid $pid) exited while we waited for it on port $PORT" "$OUT_LOG" ;;
      *) fg_die "weed (pid $pid) is running but does not answer on 127.0.0.1:$PORT; stop it with '$0 stop $PORT'" "$OUT_LOG" ;;
    esac
  fi

  local p
  for p in "$PORT" $((PORT + 1)) $((PORT + 2)) $((PORT + 3)); do
    fg_port_open "$p" &&
      fg_die "port $p is already in use by another process (not a weed started from $RUN_DIR); choose another base port with SEAWEEDFS_PORT=<port> or '$0 start <port>'"
  done
  cat >"$RUN_DIR/s3.json" <<JSON
{"identities":[{"name":"formgate","credentials":[{"accessKey":"$SW_ACCESS_KEY","secretKey":"$SW_SECRET_KEY"}],"actions":["Admin","Read","List","Tagging","Write"]}]}
JSON

  # SSE-S3 (what Formgate asks of every write) needs a key of the server's: one per run dir, kept across restarts.
  [[ -s "$RUN_DIR/sse.key" ]] || od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$RUN_DIR/sse.key"

  fg_log "starting seaweedfs $SW_VERSION with S3 on 127.0.0.1:$PORT (run dir $RUN_DIR)"
  printf '\n==== %s start (port %s) ====\n' "$(date -Is)" "$PORT" >>"$OUT_LOG"
  local t0=$SECONDS
  fg_spawn "$PIDFILE" "$OUT_LOG" env WEED_S3_SSE_KEY="$(cat "$RUN_DIR/sse.key")" "$SW_BIN" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$RUN_DIR/data" \
    -master.port=$((PORT + 1)) -volume.port=$((PORT + 2)) -filer -filer.port=$((PORT + 3)) \
    -s3 "$TOKEN" -s3.config="$RUN_DIR/s3.json" -volume.max=0 -master.volumeSizeLimitMB=256 ||
    fg_die "could not launch $SW_BIN" "$OUT_LOG"
  pid="$(cat "$PIDFILE")"
  fg_await_started seaweedfs "$pid" 20 "" sw_probe "$OUT_LOG"
  fg_log "seaweedfs ready with S3 on 127.0.0.1:$PORT (pid $pid, $((SECONDS - t0))s)"
  env_line
}

cmd_stop() {
  set_instance "${1:-}"
  fg_stop_instance seaweedfs "$TOKEN" "${SEAWEEDFS_STOP_TIMEOUT:-20}" "$OUT_LOG"
}

cmd_status() {
  set_instance "${1:-}"
  fg_instance_status seaweedfs "$TOKEN" sw_probe "log: $OUT_LOG"
}

sub="${1:-}"; shift || true
case "$sub" in
  install) cmd_install ;;
  start)   cmd_start "$@" ;;
  stop)    cmd_stop "$@" ;;
  status)  cmd_status "$@" ;;
  *)       usage ;;
esac
