"""q and k turned by their positions, and a shift of both that leaves the dot product alone (chapter "2D rotation matrices")."""

from __future__ import annotations

from functools import partial

import numpy as np

from ..language import require_language, text
from ..plotting.rotations import SHIFTS, plot_rotated_query_key
from . import Control, InteractiveFigure

THETAS = tuple(float(a) for a in np.radians(np.arange(15, 181, 15)))
"""θ from 15° to 180° in steps of 15°: 12 stops, 45° among them."""


def rotation_shift_widget(q=(1.0, 0.2), k=(0.3, 0.9), m: int = 2, n: int = 0, *, lang: str = "en") -> InteractiveFigure:
    """Sliders for θ and a shift s of both positions (query at m + s, key at n + s): 12 × 8 = 96 frames. θ turns the
    arrows apart and moves the dot product; s turns both together and leaves it where it is."""
    require_language(lang)
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    controls = (
        Control("theta", "θ", THETAS, THETAS[2], fmt=lambda a: f"{np.degrees(a):.0f}°"),
        Control("shift", text(lang, en="shift both by s", zh="两者同时平移 s"), SHIFTS, 0),
    )
    return InteractiveFigure(partial(plot_rotated_query_key, q, k, m, n, shifts=SHIFTS, lang=lang), controls, lang=lang)
