#!/usr/bin/env bash
# Builds compose-check (once per source change, cached like the rest of infra/) and runs it:
#   infra/compose-check/run.sh docker-compose.yml   → the resolved project as JSON on stdout
#   infra/compose-check/run.sh build                → only build (CI does it ahead of the tests)
set -euo pipefail
FG_COMPONENT=compose-check
source "$(dirname "${BASH_SOURCE[0]}")/../local/lib.sh"
fg_require_cmd go sha256sum
src="$FG_REPO_DIR/infra/compose-check"
hash="$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum | cut -c1-16)"
bin="$FG_CACHE_DIR/compose-check/compose-check-$hash"
if [[ ! -x "$bin" ]]; then
  fg_log "building compose-check (compose-go, from the Go module proxy; cached in $FG_CACHE_DIR)"
  mkdir -p "$(dirname "$bin")"
  (cd "$src" && go build -o "$bin.partial" .) || fg_die "go build of infra/compose-check failed"
  mv "$bin.partial" "$bin"
fi
[[ "${1:-}" == build ]] && exit 0
exec "$bin" "$@"
