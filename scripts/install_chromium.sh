#!/usr/bin/env bash
# Installs Debian's headless Chromium for the browser tests, once, and checks that it starts. Playwright drives
# /usr/bin/chromium; no test tool ever downloads a browser of its own.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
    bash "$(dirname "$0")/apt_install.sh" chromium chromium-driver fonts-dejavu-core
fi
/usr/bin/chromium --version || { echo "install_chromium.sh: /usr/bin/chromium does not start" >&2; exit 1; }
