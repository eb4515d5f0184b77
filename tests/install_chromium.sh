#!/usr/bin/env bash
# Installs Debian's headless Chromium for the browser tests, once. Playwright drives
# /usr/bin/chromium; no test tool ever downloads a browser of its own.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" chromium chromium-driver fonts-dejavu-core
/usr/bin/chromium --version
