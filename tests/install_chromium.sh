#!/usr/bin/env bash
# Installs Debian's headless Chromium for the browser tests, once. Playwright drives
# /usr/bin/chromium; no test tool ever downloads a browser of its own.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "install_chromium.sh: need root (or sudo) to apt-get install chromium" >&2; exit 1; }
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
/usr/bin/chromium --version
