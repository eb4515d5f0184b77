"""The look every figure shares, and the rule that every figure carries a description.

Colours come from the Okabe–Ito palette, which stays distinct under the common
forms of colour blindness; lines and markers differ as well, so no figure
relies on colour alone. Colour maps are cividis (sequential) and PuOr
(diverging), both readable without red–green discrimination. The plane's
unit circle and its arrows (`draw_unit_circle`, `draw_arrow`) look the same in
every chapter that draws vectors as complex numbers.
"""

from __future__ import annotations

import base64
import html
import importlib.util
import io
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .language import word_count

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
LINE_STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
CJK_FONT = "Noto Sans CJK SC"
"""The font Chinese labels are drawn in: Noto Sans CJK SC, from the PyPI package mplfonts (a pinned requirement of the
book), so every machine draws the Chinese edition's figures alike, with no system font, apt or root. The file is read
from the installed package, which is not imported. It is a fallback: matplotlib takes each glyph from the first family
that has it, so Latin letters, Greek and symbols still come from the sans-serif font (DejaVu Sans), and only Chinese
from this one. Mathtext ($…$) has no fallback, so a Chinese label keeps its words outside $…$."""
CJK_FONT_FILE = "NotoSansCJKsc-Regular.otf"
"""The file of CJK_FONT inside the mplfonts package's fonts/ folder."""


def _add_cjk_font() -> None:
    spec = importlib.util.find_spec("mplfonts")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("rope_lib.teach draws Chinese labels in Noto Sans CJK SC from the package mplfonts: "
                          "pip install 'rope_lib[book]' (or -r requirements.txt) installs it")
    font_manager.fontManager.addfont(str(Path(spec.submodule_search_locations[0]) / "fonts" / CJK_FONT_FILE))
    if CJK_FONT not in matplotlib.rcParams["font.family"]:
        matplotlib.rcParams["font.family"] = [*matplotlib.rcParams["font.family"], CJK_FONT]


_add_cjk_font()

SUBSCRIPTS = str.maketrans("0123456789mn", "₀₁₂₃₄₅₆₇₈₉ₘₙ")


def subscript(index) -> str:
    """An index (a number, or "m,n") in Unicode subscripts, ω₁₂ or aₘ,ₙ: for a label that holds Chinese, which cannot
    use mathtext's $…$ (it has no Chinese glyphs)."""
    return str(index).translate(SUBSCRIPTS)


SEQUENTIAL_CMAP = "cividis"
DIVERGING_CMAP = "PuOr"


def series_style(i: int) -> dict:
    """Colour, line style and marker of the i-th series: all three change from one series to the next."""
    return {"color": OKABE_ITO[i % len(OKABE_ITO)], "linestyle": LINE_STYLES[i % len(LINE_STYLES)], "marker": MARKERS[i % len(MARKERS)]}


def draw_unit_circle(ax: Axes, radius: float = 1.0) -> None:
    """A thin grey circle of the given radius and the two axes through 0, on equal scales."""
    a = np.linspace(0, 2 * np.pi, 361)
    ax.plot(radius * np.cos(a), radius * np.sin(a), color="0.6", linewidth=0.8)
    ax.axhline(0, color="0.8", linewidth=0.6)
    ax.axvline(0, color="0.8", linewidth=0.6)
    ax.set_aspect("equal")


def draw_arrow(ax: Axes, tip: complex, i: int, label: str, tail: complex = 0j) -> None:
    """An arrow from `tail` to `tip` in the style of series i (colour, line style and tip marker)."""
    style = series_style(i)
    ax.annotate("", xy=(tip.real, tip.imag), xytext=(tail.real, tail.imag),
                arrowprops={"arrowstyle": "-|>", "color": style["color"], "linestyle": style["linestyle"], "linewidth": 1.8, "shrinkA": 0, "shrinkB": 0})
    ax.plot([tip.real], [tip.imag], linestyle="none", marker=style["marker"], color=style["color"], markersize=7, label=label)


def png_data_url(png: bytes) -> str:
    """PNG bytes as a data: URL, so a page or widget carries the image inline."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


PNG_DPI = 100
"""Resolution of the PNG a figure shows as in a notebook and on the website."""


class BookFigure(Figure):
    """A Figure that knows its description and shows itself, with no pyplot state: as a PNG with
    that description as alternative text in Jupyter and on the website."""

    alt_text: str = ""

    def to_png(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=PNG_DPI, bbox_inches="tight")
        return buffer.getvalue()

    def _repr_png_(self) -> bytes:
        return self.to_png()

    def _repr_html_(self) -> str:
        """The PNG inline with its description as alternative text: what the website shows."""
        return f'<img class="rope-figure" src="{png_data_url(self.to_png())}" alt="{html.escape(self.alt_text, quote=True)}">'


def new_figure(alt: str, *, figsize: tuple[float, float] = (6.0, 3.5)) -> BookFigure:
    """A pyplot-free BookFigure with constrained layout and its description in `fig.alt_text`.

    alt says what the figure shows (axes, what changes, the point it makes);
    the book uses it as the image's alternative text.
    """
    if not isinstance(alt, str) or word_count(alt) < 5:
        raise ValueError(f"alt must describe the figure in words (at least five, or ten Chinese characters), got {alt!r}")
    fig = BookFigure(figsize=figsize, layout="constrained")
    fig.alt_text = alt
    return fig
