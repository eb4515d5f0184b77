"""q and k turned by their positions, and a shift of both that leaves the dot product alone (chapter "2D rotation matrices")."""

from __future__ import annotations

from functools import partial

import numpy as np

from ..language import require_language, text
from ..plotting.rotations import plot_rotated_query_key
from . import Control, InteractiveFigure

THETAS = (float(np.pi / 8), float(np.pi / 4))
SHIFTS = (0, 3, 7)


def rotation_shift_widget(q=(1.0, 0.2), k=(0.3, 0.9), *, lang: str = "en") -> InteractiveFigure:
    """Sliders m, n, θ and a shift s of both positions: 4 × 4 × 2 × 3 = 96 frames, one dot product per (m − n, θ)."""
    require_language(lang)
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    controls = (
        Control("m", text(lang, en="query position m", zh="查询的位置 m"), (0, 1, 2, 3), 2),
        Control("n", text(lang, en="key position n", zh="键的位置 n"), (0, 1, 2, 3), 0),
        Control("theta", "θ", THETAS, THETAS[1], fmt=lambda a: f"{np.degrees(a):.1f}°"),
        Control("shift", text(lang, en="shift both by s", zh="两者同时平移 s"), SHIFTS, 0),
    )
    return InteractiveFigure(partial(plot_rotated_query_key, q, k, lang=lang), controls, lang=lang)
