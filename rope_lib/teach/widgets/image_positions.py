"""The patch-score map of chapter "RoPE for images and video": pick a query patch and a rule, see its scores."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.image_positions import PATCH_RULES, plot_patch_scores, rule_name
from . import Control, InteractiveFigure

PATCH_COORDINATES = (0, 2, 4, 6, 9, 11)
"""The rows and columns the static form offers on the 12 × 12 grid (the live form offers the same)."""


def patch_score_widget(*, lang: str = "en") -> InteractiveFigure:
    """6 rows × 6 columns × 2 rules = 72 frames."""
    require_language(lang)

    def draw(**values):
        return plot_patch_scores(**values, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("h", text(lang, en="query row h", zh="查询所在行 h"), PATCH_COORDINATES, 4),
            Control("w", text(lang, en="query column w", zh="查询所在列 w"), PATCH_COORDINATES, 6),
            Control("rule", text(lang, en="rule", zh="规则"), PATCH_RULES, "axial", fmt=lambda rule: rule_name(rule, lang=lang)),
        ),
        lang=lang,
    )
