"""The rotary frequencies θ_i, the angles m·θ_i and the wavelengths 2π/θ_i.

Everything here is float64 numpy: the single source of the frequencies that the
numpy reference and the torch code both use (chapter "RoPE in d dimensions").
"""

from __future__ import annotations

import numpy as np

from ._validate import arguments, checked_by, require_base, require_even_dim

DEFAULT_BASE = 10000.0
"""The base of RoFormer (eq. 15), of the Transformer's sinusoids and of LLaMA 1/2."""


@checked_by(arguments(d=require_even_dim, base=require_base))
def inv_freq(d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """θ_i = base^(−2i/d) for i = 0 … d/2 − 1, shape (d/2,).

    RoFormer eq. 15 writes θ_i = 10000^(−2(i−1)/d) with i counted
    from 1; this is the same list counted from 0, under the name
    Hugging Face gives it.
    """
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


def angles(positions, d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """m·θ_i for every position m and pair i, shape positions.shape + (d/2,)."""
    m = np.asarray(positions)
    if not (np.issubdtype(m.dtype, np.integer) or np.issubdtype(m.dtype, np.floating)):
        raise TypeError(f"positions must be integers or reals, got dtype {m.dtype}")
    return m.astype(np.float64)[..., None] * inv_freq(d, base)


def wavelengths(d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """2π/θ_i: how many positions pair i takes to turn once, shape (d/2,).

    They form a geometric progression from 2π up to 2π·base^((d−2)/d).
    """
    return 2 * np.pi / inv_freq(d, base)
