"""Interactive figures about the rotary frequencies."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.frequencies import plot_wavelengths
from . import Control, InteractiveFigure

HEAD_DIMENSIONS = (16, 32, 64, 128, 256)
"""The head dimensions d to pick from: a choice among settings, 16 to the 256 of the widest common heads."""

BASES = (100.0, 500.0, 1_000.0, 5_000.0, 10_000.0, 50_000.0, 100_000.0, 500_000.0, 1_000_000.0)
"""The bases the slider steps through, from 100 to the 1,000,000 of recent long-context models, by factors of 5 and 2
(the original 10,000 and Llama 3's 500,000 among them): 9 stops × 5 head dimensions = 45 frames on the website."""


def wavelength_explorer(*, lang: str = "en") -> InteractiveFigure:
    """The wavelengths 2π/θ_i for a choice of head dimension d and base, on axes that hold every choice: a move of
    either control moves the curve, against the dashed limit 2π·base."""
    require_language(lang)
    limits = (max(HEAD_DIMENSIONS), max(BASES))

    def draw(d: int, base: float):
        return plot_wavelengths(d, base, lang=lang, limits_for=limits)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("d", text(lang, en="head dimension d", zh="头维度 d"), HEAD_DIMENSIONS, 128, choice=True),
            Control("base", text(lang, en="base", zh="底数"), BASES, 10_000.0, fmt=lambda b: f"{b:,.0f}"),
        ),
        lang=lang,
    )
