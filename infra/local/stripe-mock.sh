#!/usr/bin/env bash
# stripe-mock (Stripe's official API mock, answers from its OpenAPI fixtures, stateless) on loopback, no Docker.
#
#   stripe-mock.sh install          build the stripe-mock binary from its Go module into the cache (once)
#   stripe-mock.sh start  [port]    start it (HTTP on port, default $STRIPE_MOCK_PORT or 12111; its HTTPS listener on
#                                   a port the system picks, loopback only)
#                                   and print STRIPE_API_URL=http://127.0.0.1:<port> as the last stdout line
#   stripe-mock.sh stop   [port]    stop it
#   stripe-mock.sh status [port]    exit 0 if running, 3 if not
#
# Environment: FORMGATE_CACHE (default ~/.cache/formgate), FORMGATE_RUN_DIR (base of run dirs, default <repo>/.run;
# this server uses <base>/stripe-mock-<port>), STRIPE_MOCK_RUN_DIR (exact run dir, overrides), STRIPE_MOCK_PORT,
# STRIPE_MOCK_START_TIMEOUT (s, default 30).
set -euo pipefail
FG_COMPONENT=stripe-mock
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

STRIPE_MOCK_VERSION=v0.203.0
STRIPE_MOCK_MODULE=github.com/stripe/stripe-mock
SM_HOME="$FG_CACHE_DIR/stripe-mock-$STRIPE_MOCK_VERSION"
SM_BIN="$SM_HOME/bin/stripe-mock"
SM_MARKER="$SM_HOME/.installed"
SM_INSTALL_LOG="$FG_CACHE_DIR/logs/stripe-mock-$STRIPE_MOCK_VERSION-install.log"

usage() {
  sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

sm_installed() {
  [[ -f "$SM_MARKER" && -x "$SM_BIN" ]] && [[ "$(cat "$SM_MARKER")" == "$STRIPE_MOCK_VERSION" ]]
}

cmd_install() {
  if sm_installed; then
    fg_log "stripe-mock $STRIPE_MOCK_VERSION already built: $SM_BIN"
    return 0
  fi
  fg_lock "$FG_CACHE_DIR/locks/stripe-mock-$STRIPE_MOCK_VERSION.lock"
  if sm_installed; then
    fg_log "stripe-mock $STRIPE_MOCK_VERSION already built: $SM_BIN"
    return 0
  fi
  fg_require_cmd go
  local tmp="$SM_HOME.tmp" t0=$SECONDS
  rm -rf "$tmp"
  mkdir -p "$tmp/bin" "$(dirname "$SM_INSTALL_LOG")"
  : >"$SM_INSTALL_LOG"
  # Only the Go module proxy: never let go fetch a toolchain, never use a go.work.
  fg_log "building $STRIPE_MOCK_MODULE@$STRIPE_MOCK_VERSION through the Go module proxy (log: $SM_INSTALL_LOG)"
  if ! (cd "$tmp" && GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
      GOBIN="$tmp/bin" go install "$STRIPE_MOCK_MODULE@$STRIPE_MOCK_VERSION") >>"$SM_INSTALL_LOG" 2>&1; then
    fg_die "go install of $STRIPE_MOCK_MODULE@$STRIPE_MOCK_VERSION failed" "$SM_INSTALL_LOG"
  fi
  [[ -x "$tmp/bin/stripe-mock" ]] || fg_die "go install finished but $tmp/bin/stripe-mock is missing" "$SM_INSTALL_LOG"
  rm -rf "$SM_HOME"
  mv "$tmp" "$SM_HOME"
  printf '%s\n' "$STRIPE_MOCK_VERSION" >"$SM_MARKER"
  fg_log "stripe-mock $STRIPE_MOCK_VERSION built: $SM_BIN ($((SECONDS - t0))s)"
}

set_instance() {
  PORT="${1:-${STRIPE_MOCK_PORT:-12111}}"
  fg_check_port_arg "$PORT"
  RUN_DIR="${STRIPE_MOCK_RUN_DIR:-$FG_RUN_BASE/stripe-mock-$PORT}"
  PIDFILE="$RUN_DIR/stripe-mock.pid"
  OUT_LOG="$RUN_DIR/stripe-mock.log"
  START_TIMEOUT="${STRIPE_MOCK_START_TIMEOUT:-30}"
  # Unique on the command line: used to recognise our process behind a pid.
  TOKEN="-http-addr 127.0.0.1:$PORT"
}

# stripe-mock answers GET /v1/customers (any bearer key) once its fixtures are loaded.
sm_probe() {
  curl -fsS -o /dev/null --max-time 2 -H 'Authorization: Bearer sk_test_probe' "http://127.0.0.1:$1/v1/customers" 2>/dev/null
}

env_line() { printf 'STRIPE_API_URL=http://127.0.0.1:%s\n' "$PORT"; }

cmd_start() {
  set_instance "${1:-}"
  sm_installed || cmd_install
  fg_require_cmd curl
  mkdir -p "$RUN_DIR"
  fg_lock "$RUN_DIR/.lock"

  local pid rc
  if pid="$(fg_read_pid "$PIDFILE" "$TOKEN")"; then
    rc=0; fg_wait_ready "$pid" "$START_TIMEOUT" sm_probe "$PORT" || rc=$?
    case $rc in
      0) fg_log "already running (pid $pid, run dir $RUN_DIR)"; env_line; return 0 ;;
      2) fg_die "stripe-mock (pid $pid) exited while we waited for it on port $PORT" "$OUT_LOG" ;;
      *) fg_die "stripe-mock (pid $pid) is running but does not answer on 127.0.0.1:$PORT; stop it with '$0 stop $PORT'" "$OUT_LOG" ;;
    esac
  fi

  fg_port_open "$PORT" &&
    fg_die "port $PORT is already in use by another process (not a stripe-mock started from $RUN_DIR); choose another with STRIPE_MOCK_PORT=<port> or '$0 start <port>'"

  fg_log "starting stripe-mock $STRIPE_MOCK_VERSION on 127.0.0.1:$PORT (run dir $RUN_DIR)"
  printf '\n==== %s start (port %s) ====\n' "$(date -Is)" "$PORT" >>"$OUT_LOG"
  local t0=$SECONDS
  # Without -https-addr it would also listen for HTTPS on 0.0.0.0:12112 (and clash with a second instance).
  # shellcheck disable=SC2086
  fg_spawn "$PIDFILE" "$OUT_LOG" "$SM_BIN" $TOKEN -https-addr "127.0.0.1:" ||
    fg_die "could not launch $SM_BIN" "$OUT_LOG"
  pid="$(cat "$PIDFILE")"
  fg_await_started stripe-mock "$pid" 10 "" sm_probe "$OUT_LOG"
  fg_log "stripe-mock ready on 127.0.0.1:$PORT (pid $pid, $((SECONDS - t0))s)"
  env_line
}

cmd_stop() {
  set_instance "${1:-}"
  fg_stop_instance stripe-mock "$TOKEN" "${STRIPE_MOCK_STOP_TIMEOUT:-10}" "$OUT_LOG"
}

cmd_status() {
  set_instance "${1:-}"
  fg_instance_status stripe-mock "$TOKEN" sm_probe "log: $OUT_LOG"
}

sub="${1:-}"; shift || true
case "$sub" in
  install) cmd_install ;;
  start)   cmd_start "$@" ;;
  stop)    cmd_stop "$@" ;;
  status)  cmd_status "$@" ;;
  *)       usage ;;
esac
