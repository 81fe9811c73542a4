#!/usr/bin/env bash
# The S3-compatible server of the tests: versitygw (github.com/versity/versitygw, Apache-2.0), built once with
# `go install` from the Go module proxy into .cache/bin like helm. Chosen because it is maintained (monthly
# releases), builds here as one static binary with CGO off, and serves a plain folder (posix backend) from one
# process: MinIO's community edition no longer ships releases, SeaweedFS needs master, volume and filer.
# The harness (packages/testkit/src/s3.ts) starts it on a free port with its own folder and keys.
# Usage: scripts/infra/s3.sh install   (prints the binary's path on stdout)
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INFRA_COMPONENT=s3

VERSITYGW_V=v1.8.0
BIN="$ASSAY_CACHE_DIR/bin/versitygw"
STAMP="$ASSAY_CACHE_DIR/bin/.versitygw-version"

cmd_install() {
  if [ -x "$BIN" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$VERSITYGW_V" ]; then
    echo "$BIN"
    return 0
  fi
  command -v go >/dev/null || die "go is missing (needed to build versitygw from the Go module proxy)"
  log "building versitygw $VERSITYGW_V with go install (once, about a minute)"
  export GOMODCACHE=$ASSAY_CACHE_DIR/go/mod GOCACHE=$ASSAY_CACHE_DIR/go/build GOBIN=$ASSAY_CACHE_DIR/bin
  export GOFLAGS=-modcacherw GOTOOLCHAIN=local CGO_ENABLED=0
  mkdir -p "$GOBIN"
  go install -trimpath -ldflags "-s -w" "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_V" >&2
  echo "$VERSITYGW_V" >"$STAMP"
  echo "$BIN"
}

case "${1:-}" in
install) cmd_install ;;
*)
  echo "usage: $0 install" >&2
  exit 2
  ;;
esac
