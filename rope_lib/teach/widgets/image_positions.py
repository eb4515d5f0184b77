"""The patch-score map of chapter "RoPE for images and video": pick a query patch and a rule, see its scores."""

from __future__ import annotations

from ..plotting.image_positions import PATCH_RULES, plot_patch_scores
from . import Control, InteractiveFigure

PATCH_COORDINATES = (0, 2, 4, 6, 9, 11)
"""The rows and columns the static form offers on the 12 × 12 grid (the live form offers the same)."""


def patch_score_widget() -> InteractiveFigure:
    """6 rows × 6 columns × 2 rules = 72 frames."""
    return InteractiveFigure(
        draw=plot_patch_scores,
        controls=(
            Control("h", "query row h", PATCH_COORDINATES, 4),
            Control("w", "query column w", PATCH_COORDINATES, 6),
            Control("rule", "rule", PATCH_RULES, "axial"),
        ),
    )
