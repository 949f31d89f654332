#!/usr/bin/env bash
# Installs Mesa's software Vulkan driver (lavapipe) from bookworm-backports, so that Dawn (the npm package
# `webgpu`) finds a WebGPU adapter on a machine without a GPU. bookworm's own mesa-vulkan-drivers (22.3) lacks
# features Dawn needs; backports' (25.x) works. The backports suite is added with the same URI as the
# machine's existing Debian source, read from apt's sources, so no host name is written here.
# Idempotent; needs root (or sudo). Skips quietly when a lavapipe ICD is already installed.
set -euo pipefail
if ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 && dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | grep -qv '^22\.'; then
  echo "lavapipe: already installed ($(dpkg-query -W -f='${Version}' mesa-vulkan-drivers))"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
uri=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
  uri=$(awk '$1 == "deb" && $0 ~ /bookworm/ {print $2; exit}' /etc/apt/sources.list)
fi
if [ -z "$uri" ]; then
  echo "lavapipe: no Debian source found in /etc/apt to derive the backports URI from" >&2
  exit 1
fi
list=/etc/apt/sources.list.d/gensyn-backports.list
echo "deb $uri bookworm-backports main" | $SUDO tee "$list" >/dev/null
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers >/dev/null
echo "lavapipe: installed mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"
