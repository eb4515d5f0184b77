"""RoPE among its relatives: the bias of ALiBi, T5 and NoPE beside RoPE's, with a slider for the ALiBi head
(chapter "Why does RoPE work?")."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.relative_bias import plot_relative_biases
from . import Control, InteractiveFigure

RELATIVE_BIAS_DISTANCE = 4096
"""The distances every frame shows, 0 … 4096 on a logarithmic axis: T5's first buckets and its last, the window of
the steepest ALiBi head (about 20 tokens) and of the gentlest (about 2,560)."""


def relative_bias_widget(*, lang: str = "en") -> InteractiveFigure:
    """8 ALiBi heads (a pick among the heads) = 8 frames, on the same axes."""
    require_language(lang)

    def draw(head: int):
        return plot_relative_biases(head, RELATIVE_BIAS_DISTANCE, log_distance=True, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(Control("head", text(lang, en="ALiBi head (of 8)", zh="ALiBi 的头（共 8 个）"), tuple(range(1, 9)), 1, choice=True),),
        lang=lang,
    )
