"""The clock of chapter "RoPE in d dimensions": one hand per pair, turning as the position moves."""

from __future__ import annotations

from ..plotting.rope_nd import plot_clock
from . import Control, InteractiveFigure

CLOCK_POSITIONS = (0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 32, 64, 100, 256, 1000, 4096)


def clock_widget() -> InteractiveFigure:
    """16 positions × 3 dimensions × 2 bases = 96 frames."""
    return InteractiveFigure(
        draw=plot_clock,
        controls=(
            Control("position", "position m", CLOCK_POSITIONS, 1),
            Control("d", "dimension d", (4, 8, 16), 8),
            Control("base", "base", (100.0, 10000.0), 10000.0, fmt=lambda b: f"{b:g}"),
        ),
    )
