"""Interactive figures about the rotary frequencies."""

from __future__ import annotations

from ..plotting.frequencies import plot_wavelengths
from . import Control, InteractiveFigure


def wavelength_explorer() -> InteractiveFigure:
    """The wavelengths 2π/θ_i for a choice of head dimension d and base."""
    return InteractiveFigure(
        draw=plot_wavelengths,
        controls=(
            Control("d", "head dimension d", (16, 32, 64, 128, 256), 128),
            Control("base", "base", (100.0, 10000.0, 500000.0, 1000000.0), 10000.0, fmt=lambda b: f"{b:,.0f}"),
        ),
    )
