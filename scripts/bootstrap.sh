#!/usr/bin/env bash
# Installs what is missing and builds: npm dependencies (npm ci when node_modules is absent or older than
# the lockfile), generated protobuf code and the TypeScript build (incremental). Used by `make up` and
# `make test`, so a fresh clone needs nothing by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

need_major=20; need_minor=19
ver=$(node -p 'process.versions.node' 2>/dev/null || echo 0.0.0)
major=${ver%%.*}; rest=${ver#*.}; minor=${rest%%.*}
if [ "$major" -lt "$need_major" ] || { [ "$major" -eq "$need_major" ] && [ "$minor" -lt "$need_minor" ]; }; then
  echo "Assay needs Node.js >= $need_major.$need_minor (found $ver)" >&2
  exit 1
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[bootstrap] installing npm dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi

echo "[bootstrap] generating protobuf code and building" >&2
npm run --silent build
