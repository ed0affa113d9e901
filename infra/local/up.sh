#!/usr/bin/env bash
# Install (cached) and start the local backends: Kafka and FerretDB.
# Progress goes to stderr; stdout gets only the env lines:
#   KAFKA_BROKERS=127.0.0.1:<KAFKA_PORT, default 19092>
#   MONGO_URL=mongodb://127.0.0.1:<FERRETDB_PORT, default 27117>/
# so `eval "$(infra/local/up.sh)"` or `infra/local/up.sh > .run/env` both work.
set -euo pipefail
FG_COMPONENT=up
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

t0=$SECONDS

# 1. installs, both in the background at once (downloads/builds are cached; a no-op when warm)
"$FG_LOCAL_DIR/kafka.sh" install </dev/null >&2 &
kafka_install=$!
"$FG_LOCAL_DIR/ferretdb.sh" install </dev/null >&2 &
ferretdb_install=$!
kafka_rc=0; wait "$kafka_install" || kafka_rc=$?
ferretdb_rc=0; wait "$ferretdb_install" || ferretdb_rc=$?
failed=()
(( kafka_rc == 0 )) || failed+=("kafka install (exit $kafka_rc; log: $FG_CACHE_DIR/logs/kafka-*-install.log)")
(( ferretdb_rc == 0 )) || failed+=("ferretdb install (exit $ferretdb_rc; log: $FG_CACHE_DIR/logs/ferretdb-*-install.log)")
if (( ${#failed[@]} > 0 )); then
  fg_die "$(printf '%s; ' "${failed[@]}")see the messages above"
fi
fg_log "installs ready ($((SECONDS - t0))s)"

# 2. start (each prints its env line last on stdout; a no-op if already running)
mongo_line="$("$FG_LOCAL_DIR/ferretdb.sh" start | tail -n 1)" || fg_die "starting FerretDB failed (see above)"
kafka_line="$("$FG_LOCAL_DIR/kafka.sh" start | tail -n 1)" || fg_die "starting Kafka failed (see above)"

fg_log "local backends up ($((SECONDS - t0))s total); stop them with infra/local/down.sh"
printf '%s\n%s\n' "$kafka_line" "$mongo_line"
