#!/usr/bin/env bash
# make up: install what is missing, build, start infrastructure and every process, seed the demo, print how to try it.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/node.sh
. scripts/lib/node.sh
bash scripts/bootstrap.sh
exec node packages/testkit/dist/dev.js up
