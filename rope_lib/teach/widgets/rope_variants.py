"""The interactive figure of chapter "RoPE in today's models": pick a variant, a head size and a length, see each pair's wavelength."""

from __future__ import annotations

from functools import partial

from ..language import require_language, text
from ..plotting.rope_variants import VARIANTS, plot_variant_wavelengths, variant_name, variant_wavelength_top
from . import Control, InteractiveFigure

HEAD_DIMS = (64, 128, 256)
LENGTHS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
"""The current lengths T the figure offers, doubling from a quarter of the trained length L = 4096 to 32 L."""


def variant_explorer(*, lang: str = "en") -> InteractiveFigure:
    """4 variants × 3 head sizes (a pick among settings) × 8 lengths = 96 frames (trained length L = 4096, base
    10000), all on the same axes."""
    require_language(lang)
    top = variant_wavelength_top(VARIANTS, HEAD_DIMS, LENGTHS)
    return InteractiveFigure(
        draw=partial(plot_variant_wavelengths, top=top, lang=lang),
        controls=(
            Control("variant", text(lang, en="variant", zh="变体"), tuple(VARIANTS), "longrope", fmt=lambda v: variant_name(v, lang=lang)),
            Control("d", text(lang, en="head dimension d", zh="头维度 d"), HEAD_DIMS, 128, choice=True),
            Control("seq_len", text(lang, en="current length T", zh="当前长度 T"), LENGTHS, 8192, fmt=lambda t: f"{t:,}"),
        ),
        lang=lang,
    )
