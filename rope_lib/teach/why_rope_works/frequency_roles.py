"""Which frequencies do what (Barbero et al. 2024), on a small synthetic example; chapter "Why does RoPE work?".

Write a query and a key as d/2 complex pairs. Their RoPE score at distance
Δ = m − n is Re Σ_i q_i·conj(k_i)·e^{iΔθ_i} (RoFormer eq. 35, `rope_sum`).

* Fast pairs (large θ_i) can aim a head at one offset: choose k_i = q_i·e^{i·offset·θ_i}
  and the score Σ_i |q_i|² cos((Δ − offset)θ_i) peaks sharply there, a positional head.
* Slow pairs (tiny θ_i) hardly turn over a whole context, so a query that
  matches a key scores about the same at any distance: a semantic channel.
"""

from __future__ import annotations

import numpy as np

from ..._validate import require_even_dim, require_positive_int
from ...frequencies import DEFAULT_BASE, inv_freq
from ..rope_nd.decay import rope_sum

BANDS = ("fast", "slow")
"""The first pairs (highest frequencies) or the last pairs (lowest)."""


def band_pairs(d: int, band: str, n_pairs: int) -> np.ndarray:
    """Indices of the n_pairs fastest ("fast") or slowest ("slow") of the d/2 pairs."""
    d = require_even_dim(d, "d")
    n_pairs = require_positive_int(n_pairs, "n_pairs")
    if n_pairs > d // 2:
        raise ValueError(f"n_pairs must be at most d/2 = {d // 2}, got {n_pairs}")
    if band not in BANDS:
        raise ValueError(f"band must be one of {BANDS}, got {band!r}")
    return np.arange(n_pairs) if band == "fast" else np.arange(d // 2 - n_pairs, d // 2)


def positional_head_score(
    distances,
    d: int,
    base: float = DEFAULT_BASE,
    *,
    band: str = "fast",
    n_pairs: int = 8,
    offset: int = 1,
) -> np.ndarray:
    """The score, at each distance Δ, of a head whose query and key use
    only the chosen band, aimed at `offset`: q_i = 1, k_i = e^{i·offset·θ_i}
    on those pairs, so the score is Σ_band cos((Δ − offset)θ_i); shape
    distances.shape."""
    h = np.zeros(d // 2, dtype=np.complex128)
    pairs = band_pairs(d, band, n_pairs)
    theta = inv_freq(d, base)[pairs]
    h[pairs] = np.exp(-1j * offset * theta)  # q_i·conj(k_i)
    return rope_sum(h, np.asarray(distances), base).real


def retrieval_rate(
    distances,
    d: int,
    base: float = DEFAULT_BASE,
    *,
    band: str = "slow",
    n_pairs: int = 8,
    n_distractors: int = 31,
    noise: float = 0.5,
    n_trials: int = 400,
    seed: int = 0,
) -> np.ndarray:
    """How often a query finds its matching key among random ones, for content stored in one band.

    In each trial a content vector c (standard normal on the band's pairs) is the
    query; the matching key c + noise sits Δ positions back and the distractors
    (fresh random contents) at random distances in 0 … max(distances). A trial
    succeeds when the matching key scores highest. Returns the success rate per Δ.
    """
    distances = np.asarray(distances)
    if distances.ndim != 1 or not np.issubdtype(distances.dtype, np.integer) or (distances < 0).any():
        raise ValueError(f"distances must be a vector of non-negative integers, got {distances!r:.80}")
    n_trials = require_positive_int(n_trials, "n_trials")
    n_distractors = require_positive_int(n_distractors, "n_distractors")
    if not noise >= 0:
        raise ValueError(f"noise must be non-negative, got {noise}")
    pairs = band_pairs(d, band, n_pairs)
    theta = inv_freq(d, base)[pairs]  # (P,)
    rng = np.random.default_rng(seed)

    def contents(*shape):
        return rng.standard_normal(shape + (pairs.size,)) + 1j * rng.standard_normal(shape + (pairs.size,))

    q = contents(n_trials)  # (N, P)
    match = q + noise * contents(n_trials)  # (N, P)
    others = contents(n_trials, n_distractors)  # (N, K, P)
    other_distance = rng.integers(0, distances.max() + 1, size=(n_trials, n_distractors))  # (N, K)
    other_scores = (q[:, None, :] * np.conj(others) * np.exp(1j * other_distance[..., None] * theta)).real.sum(-1)  # (N, K)
    match_h = q * np.conj(match)  # (N, P)
    match_scores = (match_h[None] * np.exp(1j * distances[:, None, None] * theta)).real.sum(-1)  # (Δ, N)
    return (match_scores > other_scores.max(axis=1)).mean(axis=1)
