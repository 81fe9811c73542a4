#!/usr/bin/env bash
# make test: everything CI checks, in order of cost. Installs what is missing first (scripts/bootstrap.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/node.sh
. scripts/lib/node.sh
step() { printf '\n== %s\n' "$*" >&2; }
start=$(date +%s)

bash scripts/bootstrap.sh

step "lint (eslint, prettier) and proto lint (buf)"
npx eslint . --max-warnings 0
npx prettier --check . >/dev/null
npx buf lint proto

step "dependency check (knip: every workspace declares exactly what it imports)"
npx knip --no-config-hints

step "type check of tests and benchmarks"
npx tsc -p tsconfig.tests.json --noEmit

step "Helm chart and skaffold.yaml (helm lint, kubeconform, kube-linter, schema); tools built once into .cache"
bash scripts/charts/install-tools.sh
bash scripts/charts/check.sh

step "schemathesis for the fuzz test (pinned, installed once into .cache/venv-schemathesis)"
bash scripts/fuzz/install-schemathesis.sh

step "test tools: versitygw (the S3-compatible server, built once with go install), Debian's Chromium and ffmpeg"
bash scripts/infra/s3.sh install >/dev/null
# Before jest too: its artifact tests record a real Playwright run in Chromium (video through ffmpeg).
bash scripts/browser/install-chromium.sh

step "unit, integration and end-to-end tests (jest; includes the OpenAPI lint and schemathesis fuzzing)"
npx jest --ci "$@"

step "browser tests (Playwright driving Debian's Chromium)"
npx playwright test -c web/playwright.config.ts

echo "make test: all green in $(( $(date +%s) - start )) s" >&2
