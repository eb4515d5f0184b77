"""Figures about query–key scores under RoPE."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE
from ...rotation import score_grid
from .style import SEQUENTIAL_CMAP, new_figure


def plot_score_grid(q: np.ndarray, k: np.ndarray, positions, base: float = DEFAULT_BASE) -> Figure:
    """Heatmap of ⟨R_m q, R_n k⟩ over positions m (rows) and n (columns): constant along diagonals."""
    positions = np.asarray(positions)
    grid = score_grid(q, k, positions, base)
    fig = new_figure(
        f"Heatmap of the score between a query rotated to position m (rows) and a key rotated to position n "
        f"(columns), for m and n from {positions[0]} to {positions[-1]}, in d = {len(q)}. The colours form "
        f"stripes parallel to the main diagonal: every cell with the same m − n has the same score, "
        f"from {grid.min():.2f} to {grid.max():.2f}.",
        figsize=(5, 4.2),
    )
    ax = fig.add_subplot()
    extent = (positions[0] - 0.5, positions[-1] + 0.5, positions[-1] + 0.5, positions[0] - 0.5)
    image = ax.imshow(grid, cmap=SEQUENTIAL_CMAP, extent=extent)
    ax.set_xlabel("key position n")
    ax.set_ylabel("query position m")
    ax.set_title("score ⟨R_m q, R_n k⟩")
    fig.colorbar(image, ax=ax, label="score")
    return fig
