#!/usr/bin/env bash
# Shared helpers for infra/local/*.sh. Source it; do not run it.
#
# Conventions:
#   - human-readable progress and errors go to stderr;
#   - the only thing a `start` prints on stdout is its env line (KEY=value), so
#     `eval "$(infra/local/kafka.sh start)"` works.

# Directory of this file, the repository root, the download/build cache.
FG_LOCAL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FG_REPO_DIR="$(cd "$FG_LOCAL_DIR/../.." && pwd)"
FG_CACHE_DIR="${FORMGATE_CACHE:-$HOME/.cache/formgate}"
# Base directory for per-server run dirs (data, logs, pid files).
FG_RUN_BASE="${FORMGATE_RUN_DIR:-$FG_REPO_DIR/.run}"

fg_log() { printf '[formgate %s] %s\n' "${FG_COMPONENT:-infra}" "$*" >&2; }

# fg_die MESSAGE [LOGFILE...]: print an error naming what failed, the tail of
# each given log file and its path, then exit 1.
fg_die() {
  local msg="$1"; shift || true
  printf '\n[formgate %s] ERROR: %s\n' "${FG_COMPONENT:-infra}" "$msg" >&2
  local f
  for f in "$@"; do
    if [[ -s "$f" ]]; then
      printf '[formgate %s] ---- last lines of %s ----\n' "${FG_COMPONENT:-infra}" "$f" >&2
      tail -n 25 "$f" >&2 || true
      printf '[formgate %s] ---- (full log: %s) ----\n' "${FG_COMPONENT:-infra}" "$f" >&2
    elif [[ -n "$f" ]]; then
      printf '[formgate %s] (log file %s is empty or missing)\n' "${FG_COMPONENT:-infra}" "$f" >&2
    fi
  done
  exit 1
}

fg_require_cmd() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || fg_die "required command '$c' is not on PATH"
  done
}

fg_is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }

fg_check_port_arg() {
  fg_is_uint "$1" && (( $1 > 0 && $1 < 65535 )) || fg_die "invalid port '$1' (expected 1..65534)"
}

# fg_port_open PORT [HOST]: true if something accepts TCP connections there.
fg_port_open() {
  local port="$1" host="${2:-127.0.0.1}"
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" >/dev/null 2>&1
}

# fg_pid_alive PID: true if the process exists (and is not a zombie).
fg_pid_alive() {
  local pid="$1" state
  fg_is_uint "$pid" || return 1
  [[ -r "/proc/$pid/stat" ]] || return 1
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
  [[ -n "$state" && "$state" != "Z" && "$state" != "X" ]]
}

# fg_pid_matches PID TOKEN: the process command line contains TOKEN (guards
# against a recycled pid that now belongs to an unrelated process).
fg_pid_matches() {
  local pid="$1" token="$2"
  fg_pid_alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$token"
}

# fg_read_pid PIDFILE TOKEN: print the pid if the file names a live process
# whose command line contains TOKEN; remove a stale pid file otherwise.
fg_read_pid() {
  local pidfile="$1" token="$2" pid
  [[ -f "$pidfile" ]] || return 1
  pid="$(tr -dc '0-9' <"$pidfile" 2>/dev/null || true)"
  if [[ -n "$pid" ]] && fg_pid_matches "$pid" "$token"; then
    printf '%s\n' "$pid"
    return 0
  fi
  rm -f "$pidfile"
  return 1
}

# fg_spawn PIDFILE OUTFILE CMD...: start CMD detached (own session, stdin from
# /dev/null, stdout+stderr appended to OUTFILE) and record its pid in PIDFILE.
fg_spawn() {
  local pidfile="$1" outfile="$2"; shift 2
  rm -f "$pidfile"
  # The inner bash writes its own pid, then execs CMD, so the pid is CMD's.
  setsid bash -c 'echo $$ >"$0.tmp" && mv -f "$0.tmp" "$0" && exec "$@"' "$pidfile" "$@" \
    </dev/null >>"$outfile" 2>&1 9>&- &
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s "$pidfile" ]] && return 0
    sleep 0.1
  done
  return 1
}

# fg_wait_ready PID TIMEOUT_S PROBE_FN ARGS...: poll PROBE_FN until it
# succeeds; fail early if PID exits. Returns 0 ready, 1 timeout, 2 process died.
fg_wait_ready() {
  local pid="$1" timeout_s="$2"; shift 2
  local deadline=$(( SECONDS + timeout_s ))
  while (( SECONDS < deadline )); do
    fg_pid_alive "$pid" || return 2
    if "$@"; then return 0; fi
    sleep 0.3
  done
  fg_pid_alive "$pid" || return 2
  "$@" && return 0
  return 1
}

# fg_stop_pid PID NAME TIMEOUT_S: SIG$FG_STOP_SIGNAL (default TERM), wait, SIGKILL as a last resort.
fg_stop_pid() {
  local pid="$1" name="$2" timeout_s="${3:-30}" sig="${FG_STOP_SIGNAL:-TERM}"
  fg_pid_alive "$pid" || return 0
  kill -"$sig" "$pid" 2>/dev/null || true
  local deadline=$(( SECONDS + timeout_s ))
  while fg_pid_alive "$pid"; do
    if (( SECONDS >= deadline )); then
      fg_log "$name (pid $pid) did not exit within ${timeout_s}s after SIG$sig; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.2
  done
  fg_pid_alive "$pid" && return 1
  return 0
}

# fg_lock FILE: take an exclusive lock (fd 9) for the rest of the process, so
# concurrent installs/starts of the same thing serialize instead of racing.
fg_lock() {
  local lockfile="$1"
  mkdir -p "$(dirname "$lockfile")"
  exec 9>"$lockfile"
  if ! flock -n 9; then
    fg_log "waiting for lock $lockfile (another install/start is running)"
    flock -w "${FG_LOCK_TIMEOUT:-900}" 9 || fg_die "timed out waiting for lock $lockfile"
  fi
}

# The commands both servers share. They read the caller's instance variables, set by its set_instance:
# RUN_DIR, PIDFILE, PORT, START_TIMEOUT.

# fg_await_started NAME PID STOP_TIMEOUT_S HINT PROBE_FN LOG...: after a spawn, wait until PROBE_FN $PORT succeeds;
# if the process dies or never answers, stop it, forget its pid file and die naming the logs.
fg_await_started() {
  local name="$1" pid="$2" stop_timeout="$3" hint="$4" probe="$5"; shift 5
  local rc=0
  fg_wait_ready "$pid" "$START_TIMEOUT" "$probe" "$PORT" || rc=$?
  case $rc in
    0) ;;
    2) rm -f "$PIDFILE"
       fg_die "$name exited during startup (port $PORT, run dir $RUN_DIR)" "$@" ;;
    *) fg_stop_pid "$pid" "$name" "$stop_timeout" || true; rm -f "$PIDFILE"
       fg_die "$name did not answer on 127.0.0.1:$PORT within ${START_TIMEOUT}s (stopped it again$hint)" "$@" ;;
  esac
}

# fg_stop_instance NAME TOKEN TIMEOUT_S LOG...: stop the instance whose pid file names a process started with TOKEN.
fg_stop_instance() {
  local name="$1" token="$2" timeout_s="$3"; shift 3
  [[ -d "$RUN_DIR" ]] || { fg_log "not running (no run dir $RUN_DIR)"; return 0; }
  fg_lock "$RUN_DIR/.lock"
  local pid
  if ! pid="$(fg_read_pid "$PIDFILE" "$token")"; then
    fg_log "not running (port $PORT, run dir $RUN_DIR)"
    fg_port_open "$PORT" && fg_log "note: port $PORT is in use by a process this script did not start"
    return 0
  fi
  fg_log "stopping $name (pid $pid, port $PORT)"
  fg_stop_pid "$pid" "$name" "$timeout_s" || fg_die "could not stop $name pid $pid" "$@"
  rm -f "$PIDFILE"
  fg_log "stopped"
}

# fg_instance_status NAME TOKEN PROBE_FN LOGS_TEXT: print whether it runs and answers; exit status 3 when it does not run.
fg_instance_status() {
  local name="$1" token="$2" probe="$3" logs="$4" pid
  if pid="$(fg_read_pid "$PIDFILE" "$token")"; then
    if "$probe" "$PORT"; then
      echo "$name: running, answering on 127.0.0.1:$PORT (pid $pid, run dir $RUN_DIR)"
    else
      echo "$name: process running (pid $pid) but not answering on 127.0.0.1:$PORT yet ($logs)"
    fi
    return 0
  fi
  echo "$name: not running (port $PORT, run dir $RUN_DIR)"
  return 3
}

# fg_pip_venv VENV REQUIREMENT: a Python venv at VENV with REQUIREMENT (`name==version`) installed from PyPI, made
# once (`.installed` is written last: an interrupted install is redone). python3 -m venv needs Debian's
# python3-venv, installed here when missing and running as root (CI).
fg_pip_venv() {
  local venv="$1" requirement="$2"
  [[ -f "$venv/.installed" ]] && return 0
  fg_require_cmd python3
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
      fg_log "installing python3-venv (apt-get install -y python3-venv)"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    else
      fg_die "python3 -m venv is not available: install python3-venv (apt-get install python3-venv)"
    fi
  fi
  fg_log "installing $requirement into $venv (cached)"
  rm -rf "$venv"
  python3 -m venv "$venv" || fg_die "python3 -m venv failed"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$requirement" \
    || { rm -rf "$venv"; fg_die "pip install $requirement failed"; }
  touch "$venv/.installed"
}
