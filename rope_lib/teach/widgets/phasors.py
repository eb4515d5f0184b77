"""The RoPE score as turning arrows, with sliders for the distance, the base and d (chapter "Why does RoPE work?")."""

from __future__ import annotations

import numpy as np

from ..language import require_language, text
from ..plotting.phasors import plot_phasor_sum
from . import Control, InteractiveFigure

PHASOR_DISTANCES = (0, 1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096, 16384)
PHASOR_DIMS = (16, 128)
PHASOR_BASES = (10000.0, 500000.0)


def phasor_widget(q, *, lang: str = "en") -> InteractiveFigure:
    """The arrows of the score of q against an identical key, ⟨R_m q, R_n q⟩, for d = 16 or 128 (the first d
    coordinates of q): 12 distances × 2 bases × 2 dimensions = 48 frames."""
    require_language(lang)
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 1 or q.size < max(PHASOR_DIMS):
        raise ValueError(f"q must be a vector of at least {max(PHASOR_DIMS)} coordinates, got shape {q.shape}")

    def draw(relative: int, base: float, d: int):
        return plot_phasor_sum(q[:d], q[:d], relative, base, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("relative", text(lang, en="distance Δ = m − n", zh="距离 Δ = m − n"), PHASOR_DISTANCES, 64),
            Control("base", text(lang, en="base", zh="底数"), PHASOR_BASES, 10000.0, fmt=lambda b: f"{b:,.0f}"),
            Control("d", text(lang, en="dimension d", zh="维度 d"), PHASOR_DIMS, 128),
        ),
        lang=lang,
    )
