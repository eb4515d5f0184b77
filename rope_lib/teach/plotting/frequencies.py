"""Figures about the rotary frequencies θ_i and their wavelengths."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, wavelengths
from ..language import require_language, text
from .style import new_figure, series_style


def plot_wavelengths(d: int, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """Wavelength 2π/θ_i of every pair on a log scale: a straight line, since they grow geometrically."""
    require_language(lang)
    lam = wavelengths(d, base)
    fig = new_figure(
        text(
            lang,
            en=f"Line chart on a logarithmic vertical axis of the wavelength of each of the {lam.size} rotation pairs "
            f"(d = {d}, base = {base:g}). The points lie on a straight line rising from {lam[0]:.2f} positions for "
            f"pair 0 to {lam[-1]:,.0f} positions for pair {lam.size - 1}: the wavelengths grow geometrically.",
            zh=f"折线图，纵轴取对数，画出 {lam.size} 个旋转维度对各自的波长（d = {d}，底数 = {base:g}）。"
            f"这些点落在一条直线上，从第 0 对的 {lam[0]:.2f} 个位置升到第 {lam.size - 1} 对的 {lam[-1]:,.0f} 个位置："
            f"波长构成等比数列。",
        ),
        figsize=(6, 3.2),
    )
    ax = fig.add_subplot()
    ax.semilogy(np.arange(lam.size), lam, markersize=3, **series_style(0))
    ax.set_xlabel(text(lang, en="pair index i", zh="维度对序号 i"))
    ax.set_ylabel(text(lang, en="wavelength 2π/θ_i (positions)", zh="波长 2π/θ_i（位置数）"))
    ax.set_title(text(lang, en=f"RoPE wavelengths, d = {d}, base = {base:g}", zh=f"RoPE 的波长，d = {d}，底数 = {base:g}"))
    ax.grid(True, which="major", alpha=0.3)
    return fig
