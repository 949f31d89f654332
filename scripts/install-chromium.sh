#!/usr/bin/env bash
# Installs Debian's chromium, the headless browser the report test opens report.html in
# (src/sim/report/html/renderHtml.e2e.test.ts). Debian's own package from the machine's configured sources, as
# install-lavapipe.sh installs its packages: no download outside apt, no browser fetched by an npm package.
# Idempotent; needs root (or sudo). Skips quietly when chromium is already installed.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium: already installed ($(dpkg-query -W -f='${Version}' chromium 2>/dev/null || echo unknown))"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
echo "chromium: installed $(dpkg-query -W -f='${Version}' chromium)"
