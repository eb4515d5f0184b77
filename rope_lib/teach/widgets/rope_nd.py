"""The clock of chapter "RoPE in d dimensions": one hand per pair, turning as the position moves."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.rope_nd import plot_clock
from . import Control, InteractiveFigure

CLOCK_POSITIONS = (0, 1, 2, 3, 4, 6, 8, 16, 64, 256, 1000, 4096)
"""The positions the clock's slider offers: every step at first, where the fast hands move visibly, then far ones."""
CLOCK_BASES = (100.0, 500.0, 1000.0, 5000.0, 10000.0, 50000.0, 500000.0, 1000000.0)
"""The bases its slider offers, from a short-range 100 through RoFormer's 10000 and Llama 3's 500000 to 10⁶."""
CLOCK_D = 16
"""The clock's head dimension: d/2 = 8 hands, from a second hand to an hour hand (fixed, so that 12 positions times
8 bases stay within MAX_FRAMES)."""


def clock_widget(*, lang: str = "en") -> InteractiveFigure:
    """12 positions × 8 bases = 96 frames of the d = 16 clock; its axes are fixed (the unit circle)."""
    require_language(lang)

    def draw(position, base):
        return plot_clock(position, CLOCK_D, base, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("position", text(lang, en="position m", zh="位置 m"), CLOCK_POSITIONS, 1),
            Control("base", text(lang, en="base", zh="底数"), CLOCK_BASES, 10000.0, fmt=lambda b: f"{b:g}"),
        ),
        lang=lang,
    )
