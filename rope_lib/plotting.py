"""Pure functions that return matplotlib Figures; every figure in the book is drawn here."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .frequencies import DEFAULT_BASE, wavelengths
from .rotation import score_grid


def plot_wavelengths(d: int, base: float = DEFAULT_BASE) -> Figure:
    """Wavelength 2π/θ_i of every pair on a log scale: a straight line, since they grow geometrically."""
    lam = wavelengths(d, base)
    fig = Figure(figsize=(6, 3.2), layout="constrained")
    ax = fig.add_subplot()
    ax.semilogy(np.arange(lam.size), lam, marker="o", markersize=3, linestyle="-")
    ax.set_xlabel("pair index i")
    ax.set_ylabel("wavelength 2π/θ_i (positions)")
    ax.set_title(f"RoPE wavelengths, d = {d}, base = {base:g}")
    ax.grid(True, which="major", alpha=0.3)
    return fig


def plot_score_grid(q: np.ndarray, k: np.ndarray, positions, base: float = DEFAULT_BASE) -> Figure:
    """Heatmap of ⟨R_m q, R_n k⟩ over positions m (rows) and n (columns): constant along diagonals."""
    positions = np.asarray(positions)
    grid = score_grid(q, k, positions, base)
    fig = Figure(figsize=(5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    extent = (positions[0] - 0.5, positions[-1] + 0.5, positions[-1] + 0.5, positions[0] - 0.5)
    image = ax.imshow(grid, cmap="cividis", extent=extent)
    ax.set_xlabel("key position n")
    ax.set_ylabel("query position m")
    ax.set_title("score ⟨R_m q, R_n k⟩")
    fig.colorbar(image, ax=ax, label="score")
    return fig
