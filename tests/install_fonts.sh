#!/usr/bin/env bash
# Installs, once, the font the Chinese edition draws its figures in and typesets its PDF with: WenQuanYi Micro Hei
# (Debian's fonts-wqy-microhei), the CJK fallback of rope_lib.teach.plotting.style and the CJK font of
# book/zh/_config.yml. Matplotlib lists the system's fonts once and caches the list, so a list made before the font
# was there is removed and made again.
set -euo pipefail
PACKAGES=(fonts-wqy-microhei fontconfig)
if dpkg -s "${PACKAGES[@]}" >/dev/null 2>&1; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" "${PACKAGES[@]}"
rm -f "${MPLCONFIGDIR:-${XDG_CACHE_HOME:-$HOME/.cache}/matplotlib}"/fontlist-*.json
fc-list | grep -q "WenQuanYi Micro Hei" || { echo "install_fonts.sh: WenQuanYi Micro Hei is not installed" >&2; exit 1; }
