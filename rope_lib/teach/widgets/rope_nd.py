"""The clock of chapter "RoPE in d dimensions": one hand per pair, turning as the position moves."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.rope_nd import plot_clock
from . import Control, InteractiveFigure

CLOCK_POSITIONS = (0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 32, 64, 100, 256, 1000, 4096)


def clock_widget(*, lang: str = "en") -> InteractiveFigure:
    """16 positions × 3 dimensions × 2 bases = 96 frames."""
    require_language(lang)

    def draw(position, d, base):
        return plot_clock(position, d, base, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("position", text(lang, en="position m", zh="位置 m"), CLOCK_POSITIONS, 1),
            Control("d", text(lang, en="dimension d", zh="维度 d"), (4, 8, 16), 8),
            Control("base", text(lang, en="base", zh="底数"), (100.0, 10000.0), 10000.0, fmt=lambda b: f"{b:g}"),
        ),
        lang=lang,
    )
