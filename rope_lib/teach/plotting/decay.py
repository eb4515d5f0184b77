"""The long-term decay figure of chapter "RoPE in d dimensions" (RoFormer Fig. 2)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..decay import relative_upper_bound
from ...frequencies import DEFAULT_BASE
from .style import new_figure, series_style


def plot_relative_upper_bound(d: int = 128, max_distance: int = 256, bases=(DEFAULT_BASE,)) -> Figure:
    """(1/(d/2)) Σ_j |S_j| against the relative distance 0 … max_distance, one curve per base."""
    distance = np.arange(max_distance + 1)
    curves = {float(b): relative_upper_bound(distance, d, b) for b in bases}
    summary = "; ".join(f"base {b:g}: {c[0]:.1f} at 0, {c[-1]:.2f} at {max_distance}" for b, c in curves.items())
    fig = new_figure(
        f"Line chart of the average size of the partial sums |S_j| (vertical axis) against the relative distance "
        f"m − n from 0 to {max_distance} (horizontal axis), for d = {d}. Every curve starts at (d/2 + 1)/2 and falls "
        f"with distance, with ripples: {summary}.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    for i, (b, curve) in enumerate(curves.items()):
        ax.plot(distance, curve, markevery=32, markersize=4, label=f"base {b:g}", **series_style(i))
    ax.set_xlabel("relative distance m − n")
    ax.set_ylabel("(1/(d/2)) Σ_j |S_j|")
    ax.set_title(f"Long-term decay of the RoPE bound, d = {d}")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig
