"""Figures about query–key scores under RoPE."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE
from ...rotation import score_grid
from ..language import require_language, text
from .style import SEQUENTIAL_CMAP, new_figure


def plot_score_grid(q: np.ndarray, k: np.ndarray, positions, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """Heatmap of ⟨R_m q, R_n k⟩ over positions m (rows) and n (columns): constant along diagonals."""
    require_language(lang)
    positions = np.asarray(positions)
    grid = score_grid(q, k, positions, base)
    fig = new_figure(
        text(
            lang,
            en=f"Heatmap of the score between a query rotated to position m (rows) and a key rotated to position n "
            f"(columns), for m and n from {positions[0]} to {positions[-1]}, in d = {len(q)}. The colours form "
            f"stripes parallel to the main diagonal: every cell with the same m − n has the same score, "
            f"from {grid.min():.2f} to {grid.max():.2f}.",
            zh=f"热力图：查询旋转到位置 m（行）、键旋转到位置 n（列）后的得分，m 和 n 都从 {positions[0]} 到 {positions[-1]}，"
            f"d = {len(q)}。颜色形成与主对角线平行的条纹：m − n 相同的格子得分都相同，"
            f"得分从 {grid.min():.2f} 到 {grid.max():.2f}。",
        ),
        figsize=(5, 4.2),
    )
    ax = fig.add_subplot()
    extent = (positions[0] - 0.5, positions[-1] + 0.5, positions[-1] + 0.5, positions[0] - 0.5)
    image = ax.imshow(grid, cmap=SEQUENTIAL_CMAP, extent=extent)
    ax.set_xlabel(text(lang, en="key position n", zh="键的位置 n"))
    ax.set_ylabel(text(lang, en="query position m", zh="查询的位置 m"))
    ax.set_title(text(lang, en="score ⟨R_m q, R_n k⟩", zh="得分 ⟨R_m q, R_n k⟩"))
    fig.colorbar(image, ax=ax, label=text(lang, en="score", zh="得分"))
    return fig
