"""The interactive figure of chapter "Longer contexts": pick a rule and a factor, see its frequencies and its score curve."""

from __future__ import annotations

from functools import partial

from ...scaling import FACTOR_RULES
from ..language import require_language, text
from ..plotting.context_extension import context_extension_limits, method_name, plot_context_extension
from . import Control, InteractiveFigure

FACTORS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0, 16.0)
"""The scale factors s the figure offers: from doubling the context to sixteen times it (the score axis ends at 16·L)."""


def context_extension_explorer(*, lang: str = "en") -> InteractiveFigure:
    """Every rule of `FACTOR_RULES` (5) × 8 factors = 40 frames, each beside plain RoPE (d = 128, base 10000,
    trained length 4096), all on the same axes."""
    require_language(lang)
    limits = context_extension_limits(FACTOR_RULES, FACTORS)
    return InteractiveFigure(
        draw=partial(plot_context_extension, **limits, lang=lang),
        controls=(
            Control("method", text(lang, en="rule", zh="规则"), FACTOR_RULES, "yarn", fmt=lambda m: method_name(m, lang)),
            Control("factor", text(lang, en="factor s", zh="缩放因子 s"), FACTORS, 4.0, fmt=lambda s: f"{s:g}"),
        ),
        lang=lang,
    )
