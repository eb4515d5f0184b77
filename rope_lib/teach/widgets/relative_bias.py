"""RoPE among its relatives: the bias of ALiBi, T5 and NoPE beside RoPE's, with sliders for the ALiBi head and
the range of distances (chapter "Why does RoPE work?")."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.relative_bias import plot_relative_biases
from . import Control, InteractiveFigure

RELATIVE_BIAS_RANGES = (64, 1024)


def relative_bias_widget(*, lang: str = "en") -> InteractiveFigure:
    """8 ALiBi heads × 2 ranges of distance = 16 frames."""
    require_language(lang)

    def draw(head: int, max_distance: int):
        return plot_relative_biases(head, max_distance, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("head", text(lang, en="ALiBi head (of 8)", zh="ALiBi 的头（共 8 个）"), tuple(range(1, 9)), 1),
            Control("max_distance", text(lang, en="distances up to", zh="距离上限"), RELATIVE_BIAS_RANGES, 1024, fmt=lambda n: f"{n:,}"),
        ),
        lang=lang,
    )
