#!/usr/bin/env bash
# Installs Debian packages, quietly, as root or through sudo, then checks that dpkg lists every one of them: what
# scripts/install_chromium.sh and scripts/install_tex.sh share. Usage: bash scripts/apt_install.sh PACKAGE...
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "apt_install.sh: need root (or sudo) to apt-get install $*" >&2; exit 1; }
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
dpkg -s "$@" >/dev/null || { echo "apt_install.sh: apt-get returned, but dpkg does not list all of: $*" >&2; exit 1; }
