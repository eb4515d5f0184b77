"""Figures of chapter "RoPE in two dimensions": a query and a key turned to their positions."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ...rotation import rotation_matrix_2d, score_grid
from ..language import require_language, text
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


def plot_rope_2d(m: int, n: int, theta: float, shift: int = 0, *, q=DEFAULT_Q, k=DEFAULT_K, positions: int = 8, lang: str = "en") -> Figure:
    """Left: q turned by (m+s)θ and k by (n+s)θ, their score in the title. Right: score(m, n) for
    every pair of positions, with the chosen pair marked; moving both by s slides along a diagonal."""
    require_language(lang)
    q, k = _vector(q, "q"), _vector(k, "k")
    if not 0 <= m + shift < positions or not 0 <= n + shift < positions:
        raise ValueError(f"m + shift and n + shift must lie in 0 … {positions - 1}, got m={m}, n={n}, shift={shift}")
    grid = score_grid(q, k, range(positions), inv_freq=[theta])  # (P, P)
    pm, pn = m + shift, n + shift
    score = grid[pm, pn]
    fig = new_figure(
        text(
            lang,
            en=f"Two panels. Left: a query arrow turned by (m + s)·θ = {pm}·{theta:g} rad and a key arrow turned by "
            f"(n + s)·θ = {pn}·{theta:g} rad, for m = {m}, n = {n}, shift s = {shift}; their dot product is {score:.3f}, "
            f"and it stays {score:.3f} for every shift because both arrows turn by the same extra angle. Right: heatmap "
            f"of the score for query positions 0 to {positions - 1} (rows) and key positions 0 to {positions - 1} "
            f"(columns), constant along each diagonal m − n; a marker sits at ({pm}, {pn}) on the diagonal m − n = {m - n}.",
            zh=f"左右两幅图。左图：查询箭头转过 (m + s)·θ = {pm}·{theta:g} 弧度，键箭头转过 (n + s)·θ = {pn}·{theta:g} 弧度，"
            f"其中 m = {m}，n = {n}，平移 s = {shift}；二者的点积为 {score:.3f}，而且无论平移多少都保持 {score:.3f}，"
            f"因为两个箭头多转了同一个角度。右图：热力图，行是查询位置 0 到 {positions - 1}，列是键位置 0 到 {positions - 1}，"
            f"画出每对位置的得分，沿每条 m − n 为常数的对角线取值不变；圆圈标在 ({pm}, {pn})，位于 m − n = {m - n} 的对角线上。",
        ),
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
        arrows.plot(*turned, marker=style["marker"], color=style["color"], linestyle="none", label=text(lang, en=f"{name} at position {position}", zh=f"位置 {position} 处的 {name}"))
    arrows.set_aspect("equal")
    arrows.set_xlim(-1.25, 1.25)
    arrows.set_ylim(-1.25, 1.25)
    arrows.legend(loc="lower left", fontsize=8)
    arrows.set_title(text(lang, en=f"score = {score:.3f}   (m − n = {m - n})", zh=f"得分 = {score:.3f}   （m − n = {m - n}）"), fontsize=10)

    extent = (-0.5, positions - 0.5, positions - 0.5, -0.5)
    image = heat.imshow(grid, cmap=SEQUENTIAL_CMAP, extent=extent)
    offsets = np.arange(positions)
    heat.plot(offsets, offsets + (m - n), color="white", linestyle="--", linewidth=1)
    heat.plot(pn, pm, marker="o", markersize=10, markerfacecolor="none", markeredgecolor="white", markeredgewidth=2)
    heat.set_xlim(-0.5, positions - 0.5)
    heat.set_ylim(positions - 0.5, -0.5)
    heat.xaxis.set_major_locator(MaxNLocator(integer=True))  # positions are whole numbers
    heat.yaxis.set_major_locator(MaxNLocator(integer=True))
    heat.set_xlabel(text(lang, en="key position n + s", zh="键位置 n + s"))
    heat.set_ylabel(text(lang, en="query position m + s", zh="查询位置 m + s"))
    heat.set_title(text(lang, en=f"score for every pair, θ = {theta:g}", zh=f"每对位置的得分，θ = {theta:g}"), fontsize=10)
    fig.colorbar(image, ax=heat, label=text(lang, en="score", zh="得分"))
    return fig
