#!/usr/bin/env bash
# The browser of the browser tests: Debian's Chromium (Playwright's own download is not reachable here), installed
# with apt when missing. CHROMIUM_PATH points at another Chromium instead.
set -euo pipefail
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
[ -x "$chromium" ] && exit 0
[ -n "${CHROMIUM_PATH:-}" ] && { echo "install-chromium: CHROMIUM_PATH=$chromium is not an executable" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "install-chromium: Chromium is missing; install it with: sudo apt-get install -y chromium" >&2; exit 1; }
echo "[bootstrap] installing chromium with apt" >&2
export DEBIAN_FRONTEND=noninteractive
# The existing package lists first: `apt-get update` is slow and usually unneeded.
if ! apt-get install -y -qq chromium fonts-liberation >/dev/null 2>&1; then
  apt-get update -qq >&2
  apt-get install -y -qq chromium fonts-liberation >&2
fi
[ -x "$chromium" ] || { echo "install-chromium: $chromium still missing after apt-get install" >&2; exit 1; }
