"""The interactive figure of chapter "Longer contexts": pick a rule and a factor, see its frequencies and its score curve."""

from __future__ import annotations

from ...scaling import FACTOR_RULES
from ..plotting.context_extension import METHOD_NAMES, plot_context_extension
from . import Control, InteractiveFigure

FACTORS = (2.0, 4.0, 8.0, 16.0)


def context_extension_explorer() -> InteractiveFigure:
    """Every rule of `FACTOR_RULES` (5) × 4 factors = 20 frames, each beside plain RoPE (d = 128, base 10000,
    trained length 4096)."""
    return InteractiveFigure(
        draw=plot_context_extension,
        controls=(
            Control("method", "rule", FACTOR_RULES, "yarn", fmt=lambda m: METHOD_NAMES[m]),
            Control("factor", "factor s", FACTORS, 4.0, fmt=lambda s: f"{s:g}"),
        ),
    )
