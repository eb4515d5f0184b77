#!/usr/bin/env bash
# Installs, once, what `make pdf` needs from Debian: XeLaTeX with the LaTeX packages Sphinx's LaTeX
# writer uses, latexmk that drives it, the fonts _config.yml sets (GNU FreeFont for the text, DejaVu for
# headings and code: between them every Greek letter, arrow and operator the chapters print), xeCJK for the
# Chinese edition's PDF (texlive-lang-cjk, and texlive-lang-chinese for the ctex hooks it loads; its font comes
# from tests/install_fonts.sh), and poppler-utils
# (pdftotext, pdftoppm) that the PDF test reads the result with.
set -euo pipefail
PACKAGES=(
    texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended
    texlive-lang-cjk texlive-lang-chinese latexmk fonts-freefont-otf fonts-dejavu-core fonts-dejavu-extra poppler-utils
)
if command -v xelatex latexmk pdftotext >/dev/null && dpkg -s "${PACKAGES[@]}" >/dev/null 2>&1; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" "${PACKAGES[@]}"
xelatex --version | head -n 1
