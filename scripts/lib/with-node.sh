#!/usr/bin/env bash
# Runs a command with Node.js 24 first on PATH (scripts/lib/node.sh): `bash scripts/lib/with-node.sh node x.js`.
set -euo pipefail
# shellcheck source=node.sh
. "$(dirname "${BASH_SOURCE[0]}")/node.sh"
exec "$@"
