"""Interactive figures about the rotary frequencies."""

from __future__ import annotations

from ..language import require_language, text
from ..plotting.frequencies import plot_wavelengths
from . import Control, InteractiveFigure


def wavelength_explorer(*, lang: str = "en") -> InteractiveFigure:
    """The wavelengths 2π/θ_i for a choice of head dimension d and base."""
    require_language(lang)

    def draw(d: int, base: float):
        return plot_wavelengths(d, base, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("d", text(lang, en="head dimension d", zh="头维度 d"), (16, 32, 64, 128, 256), 128),
            Control("base", text(lang, en="base", zh="底数"), (100.0, 10000.0, 500000.0, 1000000.0), 10000.0, fmt=lambda b: f"{b:,.0f}"),
        ),
        lang=lang,
    )
