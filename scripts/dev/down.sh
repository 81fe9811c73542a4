#!/usr/bin/env bash
# make down: stop every process `make up` started, then the infrastructure; returns once all have exited.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/node.sh
. scripts/lib/node.sh
if [ -f packages/testkit/dist/dev.js ]; then
  exec node packages/testkit/dist/dev.js down
fi
exec bash scripts/infra/infra.sh down
