"""Figures of chapter "RoPE in two dimensions": a query and a key turned to their positions."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...rotation import rotation_matrix_2d, score_grid
from .style import SEQUENTIAL_CMAP, new_figure, series_style

DEFAULT_Q = (1.0, 0.35)
"""The query W_q x_m of the chapter's pictures, a plane vector."""
DEFAULT_K = (0.45, 0.8)
"""The key W_k x_n of the chapter's pictures."""


def _vector(v, name: str) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    if v.shape != (2,):
        raise ValueError(f"{name} must be a plane vector of shape (2,), got shape {v.shape}")
    return v


def plot_rope_2d(m: int, n: int, theta: float, shift: int = 0, *, q=DEFAULT_Q, k=DEFAULT_K, positions: int = 8) -> Figure:
    """Left: q turned by (m+s)θ and k by (n+s)θ, their score in the title. Right: score(m, n) for
    every pair of positions, with the chosen pair marked; moving both by s slides along a diagonal."""
    q, k = _vector(q, "q"), _vector(k, "k")
    if not 0 <= m + shift < positions or not 0 <= n + shift < positions:
        raise ValueError(f"m + shift and n + shift must lie in 0 … {positions - 1}, got m={m}, n={n}, shift={shift}")
    grid = score_grid(q, k, range(positions), inv_freq=[theta])  # (P, P)
    pm, pn = m + shift, n + shift
    score = grid[pm, pn]
    fig = new_figure(
        f"Two panels. Left: a query arrow turned by (m + s)·θ = {pm}·{theta:g} rad and a key arrow turned by "
        f"(n + s)·θ = {pn}·{theta:g} rad, for m = {m}, n = {n}, shift s = {shift}; their dot product is {score:.3f}, "
        f"and it stays {score:.3f} for every shift because both arrows turn by the same extra angle. Right: heatmap "
        f"of the score for query positions 0 to {positions - 1} (rows) and key positions 0 to {positions - 1} "
        f"(columns), constant along each diagonal m − n; a marker sits at ({pm}, {pn}) on the diagonal m − n = {m - n}.",
        figsize=(8.0, 3.8),
    )
    arrows, heat = fig.subplots(1, 2, width_ratios=(1, 1.15))

    unit = np.linspace(0, 2 * np.pi, 121)
    arrows.plot(np.cos(unit), np.sin(unit), color="0.85", linewidth=0.8)
    for i, (name, vector, position) in enumerate((("q", q, pm), ("k", k, pn))):
        style = series_style(i)
        turned = rotation_matrix_2d(position * theta) @ vector
        arrows.annotate("", xy=vector, xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": style["color"], "alpha": 0.35, "linestyle": style["linestyle"]})
        arrows.annotate("", xy=turned, xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": style["color"], "linewidth": 2, "linestyle": style["linestyle"]})
        arrows.plot(*turned, marker=style["marker"], color=style["color"], linestyle="none", label=f"{name} at position {position}")
    arrows.set_aspect("equal")
    arrows.set_xlim(-1.25, 1.25)
    arrows.set_ylim(-1.25, 1.25)
    arrows.legend(loc="lower left", fontsize=8)
    arrows.set_title(f"score = {score:.3f}   (m − n = {m - n})", fontsize=10)

    extent = (-0.5, positions - 0.5, positions - 0.5, -0.5)
    image = heat.imshow(grid, cmap=SEQUENTIAL_CMAP, extent=extent)
    offsets = np.arange(positions)
    heat.plot(offsets, offsets + (m - n), color="white", linestyle="--", linewidth=1)
    heat.plot(pn, pm, marker="o", markersize=10, markerfacecolor="none", markeredgecolor="white", markeredgewidth=2)
    heat.set_xlim(-0.5, positions - 0.5)
    heat.set_ylim(positions - 0.5, -0.5)
    heat.set_xlabel("key position n + s")
    heat.set_ylabel("query position m + s")
    heat.set_title(f"score for every pair, θ = {theta:g}", fontsize=10)
    fig.colorbar(image, ax=heat, label="score")
    return fig
