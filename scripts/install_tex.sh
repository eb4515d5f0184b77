#!/usr/bin/env bash
# Installs, once, what `make pdf` needs from Debian, and checks after installing that each piece is there: XeLaTeX
# with the LaTeX packages Sphinx's LaTeX writer uses, latexmk that drives it, the fonts _config.yml sets (GNU FreeFont
# for the text, DejaVu for headings and code: between them every Greek letter, arrow and operator the chapters print),
# xeCJK for the Chinese edition's PDF (texlive-lang-cjk, and texlive-lang-chinese for the ctex hooks it loads) with
# its font, WenQuanYi Micro Hei (fonts-wqy-microhei, set in book/zh/_config.yml), and poppler-utils (pdftotext,
# pdftoppm) that the PDF test reads the result with.
#
# No pipe here feeds a reader that may stop early (grep -q, head): under pipefail the writer's SIGPIPE would fail the
# script at random. Output is captured whole, then searched (tests/test_scripts.py enforces this).
set -euo pipefail
PACKAGES=(
    texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended
    texlive-lang-cjk texlive-lang-chinese latexmk fonts-freefont-otf fonts-dejavu-core fonts-dejavu-extra
    fonts-wqy-microhei fontconfig poppler-utils
)
COMMANDS=(xelatex latexmk kpsewhich fc-list pdftotext pdftoppm)
LATEX_FILES=(xeCJK.sty fontspec.sty newunicodechar.sty)
FONTS=("FreeSerif" "DejaVu Sans" "DejaVu Sans Mono" "WenQuanYi Micro Hei" "WenQuanYi Micro Hei Mono")

missing() { # prints what is not there yet, one item a line; prints nothing when everything is
    local cmd file font families
    dpkg -s "${PACKAGES[@]}" >/dev/null 2>&1 || echo "a Debian package of: ${PACKAGES[*]}"
    for cmd in "${COMMANDS[@]}"; do command -v "$cmd" >/dev/null || echo "the command $cmd"; done
    command -v kpsewhich >/dev/null || return 0
    for file in "${LATEX_FILES[@]}"; do [ -n "$(kpsewhich "$file")" ] || echo "the LaTeX file $file"; done
    command -v fc-list >/dev/null || return 0
    families=$(fc-list : family)
    for font in "${FONTS[@]}"; do
        [[ $'\n'"${families//,/$'\n'}"$'\n' == *$'\n'"$font"$'\n'* ]] || echo "the font $font"
    done
}

[ -z "$(missing)" ] && exit 0
bash "$(dirname "$0")/apt_install.sh" "${PACKAGES[@]}"
still=$(missing)
if [ -n "$still" ]; then
    echo "install_tex.sh: installed ${PACKAGES[*]}, but these are still missing:" >&2
    echo "$still" >&2
    exit 1
fi
version=$(xelatex --version)
echo "${version%%$'\n'*}"
