#!/usr/bin/env bash
# The browser of the browser tests: Debian's Chromium (Playwright's own download is not reachable here), installed
# with apt when missing. CHROMIUM_PATH points at another Chromium instead.
# Also Debian's ffmpeg, which Playwright's video recording (`video: 'on'`) runs: Playwright looks for its own build
# at $PLAYWRIGHT_BROWSERS_PATH/ffmpeg-<revision>/ffmpeg-linux, so .cache/ms-playwright gets a link to it there
# (tests that record videos set PLAYWRIGHT_BROWSERS_PATH to that folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
apt_install() {
  [ "$(id -u)" = 0 ] || { echo "install-chromium: $* missing; install with: sudo apt-get install -y $*" >&2; exit 1; }
  echo "[bootstrap] installing $* with apt" >&2
  export DEBIAN_FRONTEND=noninteractive
  # The existing package lists first: `apt-get update` is slow and usually unneeded.
  if ! apt-get install -y -qq "$@" >/dev/null 2>&1; then
    apt-get update -qq >&2
    apt-get install -y -qq "$@" >&2
  fi
}
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  [ -n "${CHROMIUM_PATH:-}" ] && { echo "install-chromium: CHROMIUM_PATH=$chromium is not an executable" >&2; exit 1; }
  apt_install chromium fonts-liberation
  [ -x "$chromium" ] || { echo "install-chromium: $chromium still missing after apt-get install" >&2; exit 1; }
fi
command -v ffmpeg >/dev/null || apt_install ffmpeg
revision=$(node -p "JSON.parse(require('fs').readFileSync('node_modules/playwright-core/browsers.json', 'utf8')).browsers.find((b) => b.name === 'ffmpeg').revision")
mkdir -p ".cache/ms-playwright/ffmpeg-$revision"
ln -sf "$(command -v ffmpeg)" ".cache/ms-playwright/ffmpeg-$revision/ffmpeg-linux"
