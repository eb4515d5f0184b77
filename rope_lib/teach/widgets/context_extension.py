"""The interactive figure of chapter "Longer contexts": pick a rule and a factor, see its frequencies and its score curve."""

from __future__ import annotations

from functools import partial

from ...scaling import FACTOR_RULES
from ..language import require_language, text
from ..plotting.context_extension import method_name, plot_context_extension
from . import Control, InteractiveFigure

FACTORS = (2.0, 4.0, 8.0, 16.0)


def context_extension_explorer(*, lang: str = "en") -> InteractiveFigure:
    """Every rule of `FACTOR_RULES` (5) × 4 factors = 20 frames, each beside plain RoPE (d = 128, base 10000,
    trained length 4096)."""
    require_language(lang)
    return InteractiveFigure(
        draw=partial(plot_context_extension, lang=lang),
        controls=(
            Control("method", text(lang, en="rule", zh="规则"), FACTOR_RULES, "yarn", fmt=lambda m: method_name(m, lang)),
            Control("factor", text(lang, en="factor s", zh="缩放因子 s"), FACTORS, 4.0, fmt=lambda s: f"{s:g}"),
        ),
        lang=lang,
    )
