#!/usr/bin/env bash
# Stop the local backends started by up.sh (same KAFKA_PORT / FERRETDB_PORT env).
set -euo pipefail
FG_COMPONENT=down
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

rc=0
"$FG_LOCAL_DIR/kafka.sh" stop || { rc=1; fg_log "ERROR: stopping Kafka failed (see above)"; }
"$FG_LOCAL_DIR/ferretdb.sh" stop || { rc=1; fg_log "ERROR: stopping FerretDB failed (see above)"; }
exit "$rc"
