"""Context extension: the rescaled rotary frequencies θ'_i (chapter "Longer contexts").

A model trained on contexts of L positions has only seen the angles m·θ_i for
m < L. Each rule below changes the frequencies θ_i = base^(−2i/d) so that a
longer context L' = s·L (s, the `factor`) reuses angles the model has seen, at
least for the slow pairs whose wavelength is longer than L. Every function is a
pure function of (d, base, factor, …) returning a float64 vector of d/2
frequencies, the `inv_freq=` that `apply_rope`, `rope_cos_sin` and `Attention`
accept; d is the rotary dimension (all of the head, or its rotated part).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .checks import require_base, require_bool, require_even_dim, require_factor, require_frequencies, require_positive_int, require_real
from .frequencies import DEFAULT_BASE, inv_freq

LLAMA3_BASE = 500000.0
"""The RoPE base of Llama 3 and 3.1."""

METHODS = ("linear", "ntk", "dynamic", "yarn", "llama3")
"""Rescalings by the names Hugging Face gives them (its `rope_type`); "ntk" is the static NTK-aware rule."""


def partial_rotary_dim(head_dim: int, partial_rotary_factor: float) -> int:
    """int(head_dim · fraction): the rotated part of a head (GPT-NeoX, Phi); it must be even."""
    head_dim = require_even_dim(head_dim, "head_dim")
    fraction = require_real(partial_rotary_factor, "partial_rotary_factor")
    if not 0 < fraction <= 1:
        raise ValueError(f"partial_rotary_factor must lie in (0, 1], got {fraction}")
    return require_even_dim(int(head_dim * fraction), f"int(head_dim · partial_rotary_factor) = int({head_dim} · {fraction})")


def position_interpolation_inv_freq(d: int, base: float = DEFAULT_BASE, factor: float = 2.0) -> np.ndarray:
    """θ'_i = θ_i / s: position interpolation (Chen et al. 2023) squeezes positions m ↦ m·L/L'.

    Every angle the long context needs, m·θ_i/s with m < s·L, is one the model saw
    for some m < L; the price is that neighbouring tokens move s times closer.
    """
    return inv_freq(d, base) / require_factor(factor)


def ntk_base(d: int, base: float = DEFAULT_BASE, factor: float = 2.0) -> float:
    """base' = base · s^(d/(d−2)): the NTK-aware base (bloc97, 2023).

    With this base the slowest pair i = d/2 − 1 turns exactly s times slower and
    the fastest, i = 0, is untouched: high frequencies extrapolate, low ones interpolate.
    """
    d = require_even_dim(d, "d")
    if d < 4:
        raise ValueError(f"d must be at least 4 for the NTK-aware exponent d/(d−2), got {d}")
    return require_base(base, "base") * require_factor(factor) ** (d / (d - 2))


def ntk_inv_freq(d: int, base: float = DEFAULT_BASE, factor: float = 2.0) -> np.ndarray:
    """θ'_i = base'^(−2i/d) with the NTK-aware base' of `ntk_base`."""
    return inv_freq(d, ntk_base(d, base, factor))


def dynamic_ntk_factor(factor: float, seq_len: int, original_max_len: int) -> float:
    """The NTK factor dynamic NTK uses at the current length: s·max(T, L)/L − (s − 1).

    It is 1 while the sequence fits in the original context L (frequencies unchanged)
    and grows with the length T beyond it (emozilla, 2023; Hugging Face's "dynamic").
    """
    factor = require_factor(factor)
    seq_len = require_positive_int(seq_len, "seq_len")
    original_max_len = require_positive_int(original_max_len, "original_max_len")
    if seq_len <= original_max_len:
        return 1.0  # exactly: the formula would give 1 up to rounding
    return factor * seq_len / original_max_len - (factor - 1)


def dynamic_ntk_inv_freq(d: int, base: float = DEFAULT_BASE, factor: float = 2.0, *, seq_len: int, original_max_len: int) -> np.ndarray:
    """NTK-aware frequencies for the current length T: recomputed as the sequence grows."""
    return ntk_inv_freq(d, base, dynamic_ntk_factor(factor, seq_len, original_max_len))


def yarn_correction_pair(n_rotations: float, d: int, base: float, original_max_len: int) -> float:
    """The (fractional) pair index i whose angle turns n_rotations times over L positions:
    L·θ_i / 2π = n  ⇔  i = d·ln(L / (2π·n)) / (2·ln base)."""
    return d * math.log(original_max_len / (2 * math.pi * n_rotations)) / (2 * math.log(base))


def yarn_ramp(d: int, base: float = DEFAULT_BASE, *, original_max_len: int, beta_fast: float = 32.0, beta_slow: float = 1.0, truncate: bool = True) -> np.ndarray:
    """γ_i: the share of pair i that keeps its own frequency in YaRN (Peng et al. 2023), shape (d/2,).

    Pairs that turn more than β = beta_fast times over the original context keep
    θ_i (γ = 1); pairs that turn fewer than α = beta_slow times are interpolated
    (γ = 0). Between them γ falls linearly in the pair index, as in the authors'
    code and Hugging Face's (the paper writes the same ramp in r = L/λ); with
    truncate=True the two ends are rounded outwards to whole pairs.
    """
    d = require_even_dim(d, "d")
    base = require_base(base, "base")
    original_max_len = require_positive_int(original_max_len, "original_max_len")
    beta_fast, beta_slow = require_real(beta_fast, "beta_fast"), require_real(beta_slow, "beta_slow")
    if not 0 < beta_slow < beta_fast:
        raise ValueError(f"beta_slow and beta_fast must satisfy 0 < beta_slow < beta_fast, got {beta_slow} and {beta_fast}")
    start = yarn_correction_pair(beta_fast, d, base, original_max_len)  # γ starts falling here
    stop = yarn_correction_pair(beta_slow, d, base, original_max_len)  # and reaches 0 here
    if truncate:
        start, stop = math.floor(start), math.ceil(stop)
    start, stop = max(start, 0), min(stop, d - 1)
    if start == stop:
        stop += 0.001  # a one-pair ramp: avoid dividing by zero
    fraction = np.clip((np.arange(d // 2, dtype=np.float64) - start) / (stop - start), 0.0, 1.0)
    return 1.0 - fraction


def yarn_inv_freq(
    d: int,
    base: float = DEFAULT_BASE,
    factor: float = 2.0,
    *,
    original_max_len: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> np.ndarray:
    """θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i: YaRN's "NTK-by-parts" frequencies (Peng et al. 2023)."""
    gamma = yarn_ramp(d, base, original_max_len=original_max_len, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate)
    theta = inv_freq(d, base)
    return (1 - gamma) * theta / require_factor(factor) + gamma * theta


def yarn_attention_factor(factor: float) -> float:
    """√(1/t) = 0.1·ln s + 1 (Peng et al. 2023): cos and sin are multiplied by it, so every
    logit by its square, sharpening attention that the longer context would flatten."""
    return 0.1 * math.log(require_factor(factor)) + 1.0


def llama3_scale_freqs(freqs, factor: float = 8.0, *, low_freq_factor: float = 1.0, high_freq_factor: float = 4.0, original_max_len: int = 8192) -> np.ndarray:
    """Meta's Llama 3.1 rule on any frequencies (the `apply_scaling` of llama-models; Dubey et al. 2024).

    Wavelengths shorter than L/high_freq_factor (2048) are kept, longer than
    L/low_freq_factor (8192) divided by the factor; between them the frequency
    blends the two with weight (L/λ − low)/(high − low), continuous at both ends.
    """
    freqs = require_frequencies(freqs, np.size(freqs), "freqs")
    factor = require_factor(factor)
    low, high = require_real(low_freq_factor, "low_freq_factor"), require_real(high_freq_factor, "high_freq_factor")
    if not 0 < low < high:
        raise ValueError(f"low_freq_factor and high_freq_factor must satisfy 0 < low < high, got {low} and {high}")
    original_max_len = require_positive_int(original_max_len, "original_max_len")
    wavelength = 2 * np.pi / freqs
    smooth = (original_max_len / wavelength - low) / (high - low)
    blended = (1 - smooth) * freqs / factor + smooth * freqs
    kept = wavelength < original_max_len / high
    divided = wavelength > original_max_len / low
    return np.where(kept, freqs, np.where(divided, freqs / factor, blended))


def llama3_inv_freq(
    d: int,
    base: float = LLAMA3_BASE,
    factor: float = 8.0,
    *,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_len: int = 8192,
) -> np.ndarray:
    """The Llama 3.1 frequencies: `llama3_scale_freqs` applied to base^(−2i/d)."""
    return llama3_scale_freqs(
        inv_freq(d, base), factor, low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor, original_max_len=original_max_len
    )


@dataclass(frozen=True)
class RopeScaling:
    """One context-extension rule and its settings, for `Attention(..., scaling=...)`.

    method: one of METHODS. original_max_len is the trained context L; the
    "dynamic", "yarn" and "llama3" rules need it.
    """

    method: str
    factor: float
    original_max_len: int | None = None
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    truncate: bool = True
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        require_factor(self.factor)
        if self.original_max_len is not None:
            require_positive_int(self.original_max_len, "original_max_len")
        elif self.method in ("dynamic", "yarn", "llama3"):
            raise ValueError(f"original_max_len (the trained context length) is needed by method {self.method!r}")

    @property
    def is_dynamic(self) -> bool:
        """True when the frequencies depend on the current length (and so must be recomputed)."""
        return self.method == "dynamic"

    @property
    def attention_factor(self) -> float:
        """The multiplier of cos and sin: YaRN's 0.1·ln s + 1, and 1 for the other rules."""
        return yarn_attention_factor(self.factor) if self.method == "yarn" else 1.0

    def frequencies(self, d: int, base: float = DEFAULT_BASE, seq_len: int | None = None) -> np.ndarray:
        """θ'_i for a rotary dimension d; seq_len is the current length, used by "dynamic" only."""
        if self.method == "linear":
            return position_interpolation_inv_freq(d, base, self.factor)
        if self.method == "ntk":
            return ntk_inv_freq(d, base, self.factor)
        if self.method == "dynamic":
            length = self.original_max_len if seq_len is None else seq_len
            return dynamic_ntk_inv_freq(d, base, self.factor, seq_len=length, original_max_len=self.original_max_len)
        if self.method == "yarn":
            return yarn_inv_freq(
                d, base, self.factor, original_max_len=self.original_max_len, beta_fast=self.beta_fast, beta_slow=self.beta_slow, truncate=self.truncate
            )
        return llama3_inv_freq(
            d, base, self.factor, low_freq_factor=self.low_freq_factor, high_freq_factor=self.high_freq_factor, original_max_len=self.original_max_len
        )


def scaled_frequencies(method: str, factor: float, d: int, base: float, original_max_len: int) -> tuple[np.ndarray, float]:
    """θ'_i and the attention factor of one rule at the length s·L (dynamic NTK takes its frequencies there);
    method "none" gives plain RoPE. What the chapter's figures compare, rule by rule."""
    if method == "none":
        return inv_freq(d, base), 1.0
    rule = RopeScaling(method, factor, original_max_len=original_max_len)
    return rule.frequencies(d, base, seq_len=int(factor * original_max_len)), rule.attention_factor


def angle_coverage(d: int, base: float = DEFAULT_BASE, context_len: int = 4096, *, freqs=None) -> np.ndarray:
    """The share of a full turn that pair i sweeps over positions 0 … L−1: min(1, (L−1)·θ_i / 2π), shape (d/2,).

    Pairs with coverage 1 have met every angle in training; the others meet new
    angles as soon as the context grows past L.
    """
    d = require_even_dim(d, "d")
    context_len = require_positive_int(context_len, "context_len")
    theta = inv_freq(d, base) if freqs is None else require_frequencies(freqs, d // 2, "freqs")
    return np.minimum(1.0, (context_len - 1) * theta / (2 * np.pi))
