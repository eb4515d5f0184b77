"""The centrepiece of chapter "RoPE in two dimensions": move m, n, θ, or both positions at once."""

from __future__ import annotations

from ..plotting.rope_2d import plot_rope_2d
from . import Control, InteractiveFigure


def rope_2d_widget() -> InteractiveFigure:
    """4 × 4 × 2 × 3 = 96 frames: q at m + s, k at n + s; the score changes with m − n and θ, never with s."""
    return InteractiveFigure(
        draw=plot_rope_2d,
        controls=(
            Control("m", "query position m", (0, 1, 2, 3), 3),
            Control("n", "key position n", (0, 1, 2, 3), 1),
            Control("theta", "angle per position θ (rad)", (0.35, 0.9), 0.35, fmt=lambda t: f"{t:g}"),
            Control("shift", "shift both by s", (0, 2, 4), 0),
        ),
    )
