#!/usr/bin/env bash
# The file layout of an Assay image, in three steps shared by the Dockerfile and the runtime-stage smoke test
# (test/image/runtime-stage.test.ts), so that what is tested is what the image holds:
#
#   stage.sh manifests SRC OUT          the lockfile and every workspace's package.json (the dependency layer's input)
#   stage.sh install WORKSPACE DIR      production dependencies of WORKSPACE only, into DIR (holding the manifests);
#                                       for identity also those of the admin CLI (packages/admin-cli)
#   stage.sh artifacts WORKSPACE SRC OUT  package.json, dist/ and SQL migrations of WORKSPACE and of packages/*
#                                       (and web/dist for the gateway; for identity OUT/bin/assay, the admin CLI)
#
# A process then starts as `node dist/main.js` in OUT/WORKSPACE with nothing else: no dev dependencies, nothing
# hoisted from a development tree. A dependency a workspace imports but does not declare is missing there.
set -euo pipefail

usage() {
  echo "usage: $0 manifests SRC OUT | install WORKSPACE DIR | artifacts WORKSPACE SRC OUT" >&2
  exit 2
}

manifests() {
  local src=$1 out=$2 f
  mkdir -p "$out"
  cp "$src/package.json" "$src/package-lock.json" "$out/"
  for f in "$src"/gateway/package.json "$src"/test/package.json "$src"/bench/package.json \
    "$src"/packages/*/package.json "$src"/services/*/package.json "$src"/web/package.json; do
    [ -f "$f" ] || continue
    f=${f#"$src"/}
    mkdir -p "$out/$(dirname "$f")"
    cp "$src/$f" "$out/$f"
  done
}

# The identity image also carries the admin CLI (`kubectl exec deploy/<release>-identity -- assay …`).
cli_workspace() {
  if [ "$1" = services/identity ]; then echo packages/admin-cli; fi
}

install() {
  local ws=$1 dir=$2 cli
  [ -f "$dir/$ws/package.json" ] || { echo "stage.sh: $dir/$ws/package.json not found" >&2; exit 1; }
  cli=$(cli_workspace "$ws")
  (cd "$dir" && npm ci --omit=dev --workspace "$ws" ${cli:+--workspace "$cli"} --include-workspace-root=false \
    --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error)
}

artifacts() {
  local ws=$1 src=$2 out=$3 d m
  for d in "$src"/packages/* "$src/$ws"; do
    [ -f "$d/package.json" ] || continue
    d=${d#"$src"/}
    mkdir -p "$out/$d"
    cp "$src/$d/package.json" "$out/$d/"
    if [ -d "$src/$d/dist" ]; then cp -R "$src/$d/dist" "$out/$d/"; fi
    # tsc does not copy the SQL migrations; they live in migrations/ (or src/migrations/).
    for m in migrations src/migrations; do
      if [ -d "$src/$d/$m" ]; then
        mkdir -p "$out/$d/$(dirname "$m")"
        cp -R "$src/$d/$m" "$out/$d/$m"
      fi
    done
  done
  # The gateway serves the web app's built files (WEB_ROOT defaults to ../web/dist next to the gateway).
  if [ "$ws" = gateway ] && [ -d "$src/web/dist" ]; then
    mkdir -p "$out/web"
    cp -R "$src/web/dist" "$out/web/"
  fi
  [ -f "$out/$ws/dist/main.js" ] || { echo "stage.sh: $ws/dist/main.js not built" >&2; exit 1; }
  # `assay` on PATH (the Dockerfile puts /app/bin there): the admin CLI next to the service it talks to.
  if [ -n "$(cli_workspace "$ws")" ]; then
    [ -f "$out/packages/admin-cli/dist/main.js" ] || { echo "stage.sh: packages/admin-cli/dist/main.js not built" >&2; exit 1; }
    mkdir -p "$out/bin"
    printf '%s\n' '#!/bin/sh' '# The admin CLI of Assay (packages/admin-cli): assay --help' \
      'exec node "$(dirname "$0")/../packages/admin-cli/dist/main.js" "$@"' >"$out/bin/assay"
    chmod 755 "$out/bin/assay"
  fi
}

case "${1:-}" in
manifests) [ $# -eq 3 ] || usage; manifests "$2" "$3" ;;
install) [ $# -eq 3 ] || usage; install "$2" "$3" ;;
artifacts) [ $# -eq 4 ] || usage; artifacts "$2" "$3" "$4" ;;
*) usage ;;
esac
