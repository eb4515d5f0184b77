"""Figures about the rotary frequencies θ_i and their wavelengths."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, wavelengths
from .style import new_figure, series_style


def plot_wavelengths(d: int, base: float = DEFAULT_BASE) -> Figure:
    """Wavelength 2π/θ_i of every pair on a log scale: a straight line, since they grow geometrically."""
    lam = wavelengths(d, base)
    fig = new_figure(
        f"Line chart on a logarithmic vertical axis of the wavelength of each of the {lam.size} rotation pairs "
        f"(d = {d}, base = {base:g}). The points lie on a straight line rising from {lam[0]:.2f} positions for "
        f"pair 0 to {lam[-1]:,.0f} positions for pair {lam.size - 1}: the wavelengths grow geometrically.",
        figsize=(6, 3.2),
    )
    ax = fig.add_subplot()
    ax.semilogy(np.arange(lam.size), lam, markersize=3, **series_style(0))
    ax.set_xlabel("pair index i")
    ax.set_ylabel("wavelength 2π/θ_i (positions)")
    ax.set_title(f"RoPE wavelengths, d = {d}, base = {base:g}")
    ax.grid(True, which="major", alpha=0.3)
    return fig
