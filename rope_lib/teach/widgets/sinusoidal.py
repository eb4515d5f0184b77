"""One pair of the sinusoidal encoding moving on its circle as the position grows (chapter "Absolute sinusoidal encoding")."""

from __future__ import annotations

from functools import partial

from ..._validate import require_even_dim
from ...frequencies import DEFAULT_BASE
from ..language import require_language, text
from ..plotting.sinusoidal import plot_sinusoidal_pair
from . import Control, InteractiveFigure


def sinusoidal_pair_widget(d: int = 8, positions=tuple(range(16)), base: float = DEFAULT_BASE, *, lang: str = "en") -> InteractiveFigure:
    """A slider for the position m and a pick of the pair i; the point (sin mθ_i, cos mθ_i) on the unit circle.

    The pair is a choice among the d/2 frequencies (4 for d = 8), not a quantity to sweep: 16 positions × 4 pairs = 64
    frames."""
    require_language(lang)
    d = require_even_dim(d, "d")
    position = Control("m", text(lang, en="position m", zh="位置 m"), tuple(positions), tuple(positions)[min(5, len(positions) - 1)])
    pair = Control("i", text(lang, en="pair i", zh="维度对 i"), tuple(range(d // 2)), 0, choice=True)
    return InteractiveFigure(partial(plot_sinusoidal_pair, d=d, base=base, lang=lang), (position, pair), lang=lang)
