"""Figures of chapter "RoPE for images and video": scores across a grid of patches, and M-RoPE's three streams."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...axial import axial_freqs_2d, grid_score_map
from ...frequencies import inv_freq
from ...mrope import MROPE_AXES, mrope_position_ids
from .style import DIVERGING_CMAP, new_figure, series_style

PATCH_RULES = ("axial", "diagonal")
"""The 2D rules the patch-score figure compares: axial RoPE, and mixed frequencies that all point along the diagonal
(1, 1)/√2, one of the tables RoPE-Mixed can learn and axial RoPE cannot express."""


def patch_rule_freqs(rule: str, d: int, base: float) -> np.ndarray:
    """The frequency vectors the figure uses: axial with shared frequencies, or the 1D frequencies base^(−2i/d)
    along the diagonal."""
    if rule not in PATCH_RULES:
        raise ValueError(f"rule must be one of {PATCH_RULES}, got {rule!r}")
    if rule == "axial":
        return axial_freqs_2d(d, base)
    return np.outer(inv_freq(d, base), [np.cos(np.pi / 4), np.sin(np.pi / 4)])  # (d/2, 2)


def plot_patch_scores(h: int, w: int, rule: str = "axial", size: int = 12, d: int = 8, base: float = 10.0) -> Figure:
    """The score of the query patch (h, w) to every patch of a size × size grid, for a key equal to the query
    (q = k = all ones), scaled so that the patch itself scores 1."""
    ones = np.ones(d)
    freqs = patch_rule_freqs(rule, d, base)
    grid = grid_score_map(ones, ones, freqs, (h, w), size, size) / (ones @ ones)
    shape = "a cross along its row and its column" if rule == "axial" else "a stripe along the anti-diagonal through it, where h + w is the query's"
    fig = new_figure(
        f"Heat map of a {size} by {size} grid of image patches under {rule} RoPE (d = {d}, base {base:g}). Each cell is "
        f"the score of the query patch at row {h}, column {w} to the key patch there, for a key equal to the query, "
        f"scaled so that the query patch scores 1. High scores form {shape}; the lowest score on the grid is {grid.min():.2f}.",
        figsize=(4.4, 3.8),
    )
    ax = fig.add_subplot()
    image = ax.imshow(grid, cmap=DIVERGING_CMAP, vmin=-1, vmax=1, origin="upper")
    ax.plot(w, h, marker="*", color="black", markersize=12, linestyle="none", label="query patch")
    ax.set_xlabel("column w")
    ax.set_ylabel("row h")
    ax.set_xticks(range(0, size, 2))
    ax.set_yticks(range(0, size, 2))
    ax.set_title(f"{rule} RoPE, query at (h, w) = ({h}, {w})", fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, frameon=False)
    fig.colorbar(image, ax=ax, shrink=0.8, label="score / q·q")
    return fig


def plot_mrope_positions(segments) -> Figure:
    """M-RoPE's three position streams t, h, w against the token index, one panel each, for a sequence of segments."""
    ids = mrope_position_ids(segments).numpy()  # (T, 3)
    kinds = [kind for kind, size in segments for _ in range(len(mrope_position_ids([(kind, size)])))]
    described = ", ".join(f"{kind} {size if kind == 'text' else '×'.join(map(str, size))}" for kind, size in segments)
    fig = new_figure(
        f"Three stacked panels, the temporal, height and width position ids t, h and w of M-RoPE against the token "
        f"index, for the sequence {described} ({len(ids)} tokens). Text tokens climb one step per token in all three "
        f"panels alike; within an image t stays at {ids[kinds.index('image'), 0] if 'image' in kinds else ids[0, 0]}, h steps "
        f"once per row and w runs along each row; the text after it continues from the largest id plus one, "
        f"ending at {ids[-1, 0]}.",
        figsize=(6.4, 4.6),
    )
    axes = fig.subplots(3, 1, sharex=True)
    index = np.arange(len(ids))
    for a, (ax, name) in enumerate(zip(axes, MROPE_AXES)):
        for j, kind in enumerate(dict.fromkeys(kinds)):
            style = series_style(j)
            mine = np.array([k == kind for k in kinds])
            ax.plot(index[mine], ids[mine, a], marker=style["marker"], color=style["color"], linestyle="none", markersize=5,
                    label=kind if a == 0 else None)
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("token index")
    fig.legend(loc="outside upper center", ncol=3, fontsize=8, frameon=False)
    return fig
