#!/usr/bin/env bash
# Installs, once, what `make pdf` needs from Debian: XeLaTeX with the LaTeX packages Sphinx's LaTeX
# writer uses, latexmk that drives it, GNU FreeFont (the fonts Sphinx sets for XeLaTeX: Greek, arrows and
# the mathematical operators the chapters print in code cells), and poppler-utils (pdftotext, pdftoppm)
# that the PDF test reads the result with.
set -euo pipefail
PACKAGES=(
    texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended
    latexmk fonts-freefont-otf poppler-utils
)
if command -v xelatex latexmk pdftotext >/dev/null && dpkg -s "${PACKAGES[@]}" >/dev/null 2>&1; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" "${PACKAGES[@]}"
xelatex --version | head -n 1
