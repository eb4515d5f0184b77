#!/usr/bin/env bash
# Installs Debian packages, quietly, as root or through sudo: what tests/install_chromium.sh and
# tests/install_tex.sh share. Usage: bash tests/apt_install.sh PACKAGE...
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "apt_install.sh: need root (or sudo) to apt-get install $*" >&2; exit 1; }
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
