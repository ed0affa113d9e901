#!/usr/bin/env bash
# Schemathesis (PyPI): property-based requests generated from the API's OpenAPI document, checked against it.
#   infra/schemathesis/schemathesis.sh install      → only create the cached venv (CI does it ahead of the tests)
#   infra/schemathesis/schemathesis.sh ARGS...      → `st ARGS...` (tests/integration/schemathesis.int.test.ts)
# The venv lives in ~/.cache/formgate/schemathesis-venv-<version> (fg_pip_venv).
set -euo pipefail
FG_COMPONENT=schemathesis
source "$(dirname "${BASH_SOURCE[0]}")/../local/lib.sh"

SCHEMATHESIS_VERSION=4.32.5
venv="$FG_CACHE_DIR/schemathesis-venv-$SCHEMATHESIS_VERSION"

fg_pip_venv "$venv" "schemathesis==$SCHEMATHESIS_VERSION"
[[ "${1:-}" == install ]] && exit 0
exec "$venv/bin/st" "$@"
