"""The RoPE score as turning arrows, with sliders for the distance and the base (chapter "Why does RoPE work?")."""

from __future__ import annotations

import numpy as np

from ..language import require_language, text
from ..plotting.phasors import phasor_limits, plot_phasor_sum
from . import Control, InteractiveFigure

PHASOR_DISTANCES = (0, 1, 4, 16, 64, 256, 1024, 16384)
PHASOR_BASES = (1000.0, 5000.0, 10000.0, 50000.0, 100000.0, 500000.0, 1000000.0, 10000000.0)
"""8 distances × 8 bases = 64 frames, each distance the chapter names among them: with the chapter's other interactive
figure (8 frames) the page stays within its byte budget."""


def phasor_widget(q, *, lang: str = "en") -> InteractiveFigure:
    """The arrows of the score of q against an identical key, ⟨R_m q, R_n q⟩, in d = len(q) dimensions, for 8
    distances × 8 bases = 64 frames. Every frame shares its axes: the complex plane holds every frame's arrows, the
    running score runs out to the largest distance."""
    require_language(lang)
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 1 or q.size < 2 or q.size % 2:
        raise ValueError(f"q must be a vector of an even number of coordinates, at least 2, got shape {q.shape}")
    limits = phasor_limits(q, q, PHASOR_DISTANCES, PHASOR_BASES)

    def draw(relative: int, base: float):
        return plot_phasor_sum(q, q, relative, base, **limits, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("relative", text(lang, en="distance Δ = m − n", zh="距离 Δ = m − n"), PHASOR_DISTANCES, 64, fmt=lambda r: f"{r:,}"),
            Control("base", text(lang, en="base", zh="底数"), PHASOR_BASES, 10000.0, fmt=lambda b: f"{b:,.0f}"),
        ),
        lang=lang,
    )
