"""Figures of chapter "The LLaMA implementation"."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE
from ...rope import rope_angles
from ..bf16_positions import bf16_angles
from .style import new_figure, series_style


def plot_bf16_angles(positions, d: int = 128, base: float = DEFAULT_BASE) -> Figure:
    """The angle of pair 0 (θ_0 = 1, so the angle is the position) in float64 and in bf16."""
    positions = [int(p) for p in positions]
    exact = rope_angles(positions, d, theta=base)[:, 0].numpy()  # (P,)
    careless = bf16_angles(positions, d, base)[:, 0].numpy()  # (P,)
    merged = len(positions) - len(np.unique(careless))
    fig = new_figure(
        f"Line chart of the angle of pair 0 against the position, from {positions[0]} to {positions[-1]}. Computed "
        f"in float64 it rises by 1 rad per position, a straight staircase of distinct values; computed in bfloat16 it "
        f"moves in steps of 2 above 256, so {merged} of the {len(positions)} positions share their angle with a neighbour.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    ax.plot(positions, exact, markersize=4, label="float64 (rope_lib)", **series_style(0))
    ax.plot(positions, careless, markersize=4, label="bfloat16", drawstyle="steps-mid", **series_style(1))
    ax.axvline(256, color="0.5", linewidth=0.8, linestyle=":")
    ax.set_xlabel("position m")
    ax.set_ylabel("angle m·θ_0 (rad)")
    ax.set_title("Pair 0 angles: float64 vs bfloat16")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig
