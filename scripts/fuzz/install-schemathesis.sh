#!/usr/bin/env bash
# Installs schemathesis (PyPI, pinned) into the git-ignored .cache/venv-schemathesis, once. Idempotent: a second
# run with the pinned version already present does nothing. Used by `make test` (scripts/test.sh) before jest;
# the fuzz test (test/e2e/fuzz.test.ts) runs .cache/venv-schemathesis/bin/schemathesis.
set -euo pipefail
cd "$(dirname "$0")/../.."

SCHEMATHESIS_VERSION=4.32.5
VENV=.cache/venv-schemathesis
BIN="$VENV/bin/schemathesis"

# Present, the pinned version, and runnable (a venv's scripts carry the absolute path it was made at: one copied
# or reached through a moved folder must be made again).
if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null | grep -o '[0-9][0-9.]*' | head -1)" = "$SCHEMATHESIS_VERSION" ]; then
  exit 0
fi

command -v python3 >/dev/null || { echo "schemathesis needs Python 3 (python3 not found)" >&2; exit 1; }
echo "[fuzz] installing schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
rm -rf "$VENV"
mkdir -p .cache
# The physical path, so scripts keep working whatever symlink .cache is reached through.
python3 -m venv "$(cd .cache && pwd -P)/venv-schemathesis"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-input "schemathesis==$SCHEMATHESIS_VERSION"
"$BIN" --version >&2
