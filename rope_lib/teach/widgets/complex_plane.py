"""Multiplying z by e^{iθ} with a slider for θ (chapter "Complex numbers and Euler's formula")."""

from __future__ import annotations

import numpy as np

from ..language import require_language
from ..plotting.complex_plane import plot_complex_rotation
from . import Control, InteractiveFigure

ANGLES = tuple(float(a) for a in np.radians(np.arange(0, 360, 15)))
"""θ from 0° to 345° in steps of 15°."""


def complex_rotation_widget(zs=(1.2 + 0.5j, -0.6 + 0.8j, 0.7 - 0.3j), *, lang: str = "en") -> InteractiveFigure:
    """Choose z and θ; the figure shows z and z·e^{iθ}, of equal length, θ apart: 3 × 24 = 72 frames, all on the axes
    that hold the longest z."""
    require_language(lang)
    zs = tuple(complex(z) for z in zs)
    angle = Control("theta", "θ", ANGLES, ANGLES[3], fmt=lambda a: f"{np.degrees(a):.0f}°")
    number = Control("z", "z", zs, zs[0], fmt=lambda z: f"{z.real:g}{z.imag:+g}i", choice=True)
    reach = max(abs(z) for z in zs)

    def draw(z, theta):
        return plot_complex_rotation(z, theta, reach, lang=lang)

    return InteractiveFigure(draw, (number, angle), lang=lang)
