"""Figures about the rotary frequencies θ_i and their wavelengths."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, wavelengths
from ..language import require_language, text
from .style import new_figure, series_style

FIXED_AXES_BOTTOM = 1.0
"""With fixed axes the vertical axis starts at 1 position: pair 0 turns 1 radian a position, so its wavelength is 2π
whatever d and base are, a little above the bottom."""

FIXED_AXES_HEADROOM = 4.0
"""With fixed axes the vertical axis ends at 4 × 2π·base for the largest base: room above its limit line and label."""


def plot_wavelengths(
    d: int,
    base: float = DEFAULT_BASE,
    *,
    lang: str = "en",
    limits_for: tuple[int, float] | None = None,
) -> Figure:
    """Wavelength 2π/θ_i of every pair on a log scale: a straight line, since they grow geometrically.

    By default the axes fit this d and base. `limits_for=(largest d, largest base)` fixes them to hold every curve up
    to those values instead, and draws the limit 2π·base that the longest wavelength approaches as d grows: an
    interactive figure passes the ends of its controls' ranges, so that a move of a slider moves the curve, not the
    axes.
    """
    require_language(lang)
    if limits_for is not None and (d > limits_for[0] or base > limits_for[1]):
        raise ValueError(f"limits_for={limits_for!r} must hold d = {d} and base = {base:.10g}")
    lam = wavelengths(d, base)
    limit = 2 * np.pi * base
    fig = new_figure(
        text(
            lang,
            en=f"Line chart on a logarithmic vertical axis of the wavelength of each of the {lam.size} rotation pairs "
            f"(d = {d}, base = {base:.10g}). The points lie on a straight line rising from {lam[0]:.2f} positions for "
            f"pair 0 to {lam[-1]:,.0f} positions for pair {lam.size - 1}: the wavelengths grow geometrically."
            + (f" A dashed line marks 2π·base = {limit:,.0f} positions, which the longest wavelength approaches as d "
               f"grows." if limits_for is not None else ""),
            zh=f"折线图，纵轴取对数，画出 {lam.size} 个旋转维度对各自的波长（d = {d}，底数 = {base:.10g}）。"
            f"这些点落在一条直线上，从第 0 对的 {lam[0]:.2f} 个位置升到第 {lam.size - 1} 对的 {lam[-1]:,.0f} 个位置："
            f"波长构成等比数列。"
            + (f"一条虚线标出 2π·底数 = {limit:,.0f} 个位置，d 越大，最长的波长越接近它。" if limits_for is not None else ""),
        ),
        figsize=(6, 3.2),
    )
    ax = fig.add_subplot()
    ax.semilogy(np.arange(lam.size), lam, markersize=3, **series_style(0))
    if limits_for is not None:
        largest_d, largest_base = limits_for
        ax.axhline(limit, color="black", linestyle="--", linewidth=1)
        ax.annotate(text(lang, en="2π·base", zh="2π·底数"), (0, limit), xytext=(2, 3), textcoords="offset points", fontsize=8)
        last_pair = largest_d // 2 - 1
        pad = ax.margins()[0] * last_pair  # matplotlib's own margin, as the axes would have for the largest d
        ax.set_xlim(-pad, last_pair + pad)
        ax.set_ylim(FIXED_AXES_BOTTOM, FIXED_AXES_HEADROOM * 2 * np.pi * largest_base)
    ax.set_xlabel(text(lang, en="pair index i", zh="维度对序号 i"))
    ax.set_ylabel(text(lang, en="wavelength 2π/θ_i (positions)", zh="波长 2π/θ_i（位置数）"))
    ax.set_title(text(lang, en=f"RoPE wavelengths, d = {d}, base = {base:.10g}", zh=f"RoPE 的波长，d = {d}，底数 = {base:.10g}"))
    ax.grid(True, which="major", alpha=0.3)
    return fig
