#!/usr/bin/env bash
# Installs what is missing and builds: Node.js 24 when the machine has another version (scripts/lib/node.sh),
# npm dependencies (npm ci when node_modules is absent, older than the lockfile, or installed by another Node
# ABI, whose native add-ons would not load), generated protobuf code and the TypeScript build (incremental).
# Used by `make up` and `make test`, so a fresh clone needs nothing by hand. Sourced by them, it also leaves
# Node 24 first on their PATH.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=lib/node.sh
. scripts/lib/node.sh
echo "[bootstrap] node $(node --version), npm $(npm --version 2>/dev/null)" >&2

abi_stamp=node_modules/.assay-node-abi
abi=$(node -p 'process.versions.modules')
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
  [ "$(cat "$abi_stamp" 2>/dev/null)" != "$abi" ]; then
  echo "[bootstrap] installing npm dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error
  echo "$abi" >"$abi_stamp"
fi

echo "[bootstrap] generating protobuf code and building" >&2
npm run --silent build
