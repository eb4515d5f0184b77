"""RoPE among its relatives: the bias of ALiBi, T5 and NoPE beside RoPE's, with sliders for the ALiBi head and
the range of distances (chapter "Why does RoPE work?")."""

from __future__ import annotations

from ..plotting.relative_bias import plot_relative_biases
from . import Control, InteractiveFigure

RELATIVE_BIAS_RANGES = (64, 1024)


def relative_bias_widget() -> InteractiveFigure:
    """8 ALiBi heads × 2 ranges of distance = 16 frames."""
    return InteractiveFigure(
        draw=plot_relative_biases,
        controls=(
            Control("head", "ALiBi head (of 8)", tuple(range(1, 9)), 1),
            Control("max_distance", "distances up to", RELATIVE_BIAS_RANGES, 1024, fmt=lambda n: f"{n:,}"),
        ),
    )
