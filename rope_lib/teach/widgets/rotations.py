"""q and k turned by their positions, and a shift of both that leaves the dot product alone (chapter "2D rotation matrices")."""

from __future__ import annotations

from functools import partial

import numpy as np

from ..plotting.rotations import plot_rotated_query_key
from . import Control, InteractiveFigure

THETAS = (float(np.pi / 8), float(np.pi / 4))
SHIFTS = (0, 3, 7)


def rotation_shift_widget(q=(1.0, 0.2), k=(0.3, 0.9)) -> InteractiveFigure:
    """Sliders m, n, θ and a shift s of both positions: 4 × 4 × 2 × 3 = 96 frames, one dot product per (m − n, θ)."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    controls = (
        Control("m", "query position m", (0, 1, 2, 3), 2),
        Control("n", "key position n", (0, 1, 2, 3), 0),
        Control("theta", "θ", THETAS, THETAS[1], fmt=lambda a: f"{np.degrees(a):.1f}°"),
        Control("shift", "shift both by s", SHIFTS, 0),
    )
    return InteractiveFigure(partial(plot_rotated_query_key, q, k), controls)
