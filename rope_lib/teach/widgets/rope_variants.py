"""The interactive figure of chapter "RoPE in today's models": pick a variant, a head size and a length, see each pair's wavelength."""

from __future__ import annotations

from ..plotting.rope_variants import VARIANTS, plot_variant_wavelengths
from . import Control, InteractiveFigure

HEAD_DIMS = (64, 128, 256)
LENGTHS = (2048, 4096, 8192, 131072)


def variant_explorer() -> InteractiveFigure:
    """4 variants × 3 head sizes × 4 lengths = 48 frames (trained length L = 4096, base 10000)."""
    return InteractiveFigure(
        draw=plot_variant_wavelengths,
        controls=(
            Control("variant", "variant", tuple(VARIANTS), "longrope", fmt=lambda v: VARIANTS[v]),
            Control("d", "head dimension d", HEAD_DIMS, 128),
            Control("seq_len", "current length T", LENGTHS, 8192, fmt=lambda t: f"{t:,}"),
        ),
    )
