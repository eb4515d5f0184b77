"""An example pair of LongRoPE factor sets for the chapter "RoPE in today's models", built from rules the book has tested.

A real model's sets are searched (Ding et al. 2024) and ship in its config; no such file is read here. The example's
short set is the NTK-aware squeeze of a factor 2 (λ_i from 1 to 2), its long set YaRN's at the full factor: rising
from 1 for the fast pairs to s for the slow ones, the shape searched sets have, and two of the rules LongRoPE's
search starts from.
"""

from __future__ import annotations

from ..frequencies import DEFAULT_BASE, inv_freq
from ..scaling import ntk_inv_freq, yarn_inv_freq

EXAMPLE_SHORT_NTK_FACTOR = 2.0
"""The NTK-aware factor behind the example's short set: a light squeeze for lengths within the trained context."""


def example_longrope_factors(d: int, base: float = DEFAULT_BASE, factor: float = 32.0, original_max_len: int = 4096) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(short_factor, long_factor): λ_i = θ_i / θ'_i of NTK-aware scaling at s = 2 and of YaRN at s = factor, as the
    tuples `RopeScaling("longrope", …)` takes."""
    theta = inv_freq(d, base)
    short = theta / ntk_inv_freq(d, base, EXAMPLE_SHORT_NTK_FACTOR)
    long = theta / yarn_inv_freq(d, base, factor, original_max_len=original_max_len)
    return tuple(short.tolist()), tuple(long.tolist())
