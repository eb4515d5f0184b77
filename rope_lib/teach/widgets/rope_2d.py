"""The centrepiece of chapter "RoPE in two dimensions": move m, n, θ, or both positions at once."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.rope_2d import plot_rope_2d
from . import Control, InteractiveFigure


def rope_2d_widget(*, lang: str = "en") -> InteractiveFigure:
    """4 × 4 × 2 × 3 = 96 frames: q at m + s, k at n + s; the score changes with m − n and θ, never with s."""
    require_language(lang)

    def draw(**values):
        return plot_rope_2d(**values, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("m", text(lang, en="query position m", zh="查询位置 m"), (0, 1, 2, 3), 3),
            Control("n", text(lang, en="key position n", zh="键位置 n"), (0, 1, 2, 3), 1),
            Control("theta", text(lang, en="angle per position θ (rad)", zh="每个位置转过的角度 θ（弧度）"), (0.35, 0.9), 0.35,
                    fmt=lambda t: f"{t:g}"),
            Control("shift", text(lang, en="shift both by s", zh="两者同时平移 s"), (0, 2, 4), 0),
        ),
        lang=lang,
    )
