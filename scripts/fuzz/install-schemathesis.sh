#!/usr/bin/env bash
# Installs schemathesis (PyPI, pinned) into the git-ignored .cache/venv-schemathesis, once. Idempotent: a second
# run with the pinned version already present does nothing. Used by `make test` (scripts/test.sh) before jest;
# the fuzz test (test/e2e/fuzz.test.ts) runs .cache/venv-schemathesis/bin/schemathesis.
set -euo pipefail
cd "$(dirname "$0")/../.."

SCHEMATHESIS_VERSION=4.32.5
VENV=.cache/venv-schemathesis
BIN="$VENV/bin/schemathesis"

if [ -x "$BIN" ] && [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" = "$SCHEMATHESIS_VERSION" ]; then
  exit 0
fi

command -v python3 >/dev/null || { echo "schemathesis needs Python 3 (python3 not found)" >&2; exit 1; }
echo "[fuzz] installing schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
rm -rf "$VENV"
mkdir -p .cache
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-input "schemathesis==$SCHEMATHESIS_VERSION"
"$BIN" --version >&2
