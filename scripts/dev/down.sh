#!/usr/bin/env bash
# make down: stop every process `make up` started, then the infrastructure.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -f packages/testkit/dist/dev.js ]; then
  exec node packages/testkit/dist/dev.js down
fi
exec bash scripts/infra/infra.sh down
