"""The centrepiece of chapter "RoPE in two dimensions": move the query's position, or both positions at once."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.rope_2d import plot_rope_2d
from . import Control, InteractiveFigure

QUERY_POSITIONS = tuple(range(8))
"""The query positions m the first slider offers."""
SHIFTS = tuple(range(8))
"""The shifts s the second slider offers: both tokens move by s."""
KEY_POSITION = 1
"""The key's position n, fixed: moving m alone already changes m − n."""
THETA = 0.35
"""The angle per position θ (radians), fixed, so that 8 × 8 frames show every m − n and every shift."""
GRID_POSITIONS = max(QUERY_POSITIONS) + max(SHIFTS) + 1
"""The heatmap's side: room for the query at m + s with the largest m and s."""


def rope_2d_widget(*, lang: str = "en") -> InteractiveFigure:
    """8 × 8 = 64 frames: q at m + s, k at n + s (n = 1, θ = 0.35); the score changes with m − n, never with s."""
    require_language(lang)

    def draw(m, shift):
        return plot_rope_2d(m, KEY_POSITION, THETA, shift, positions=GRID_POSITIONS, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("m", text(lang, en="query position m", zh="查询位置 m"), QUERY_POSITIONS, 3),
            Control("shift", text(lang, en="shift both by s", zh="两者同时平移 s"), SHIFTS, 0),
        ),
        lang=lang,
    )
