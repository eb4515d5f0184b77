"""The patch-score maps of chapter "RoPE for images and video": pick a query patch, see its scores under both rules."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.image_positions import plot_patch_scores_by_rule
from . import Control, InteractiveFigure

PATCH_COORDINATES = (0, 2, 3, 5, 6, 8, 9, 11)
"""The rows and columns the figure offers on the 12 × 12 grid: 8 of them, both edges included."""


def patch_score_widget(*, lang: str = "en") -> InteractiveFigure:
    """8 rows × 8 columns = 64 frames, each showing both rules side by side on the same axes."""
    require_language(lang)

    def draw(h: int, w: int):
        return plot_patch_scores_by_rule(h, w, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("h", text(lang, en="query row h", zh="查询所在行 h"), PATCH_COORDINATES, 3),
            Control("w", text(lang, en="query column w", zh="查询所在列 w"), PATCH_COORDINATES, 6),
        ),
        lang=lang,
    )
