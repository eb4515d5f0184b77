"""Long-term decay (RoFormer §3.4.3, eqs. 35–37), chapter "RoPE in d dimensions".

Write the RoPE score as a sum over the d/2 pairs, Σ_i h_i e^{i(m−n)θ_i}, with
h_i = (q_{2i} + i q_{2i+1})·conj(k_{2i} + i k_{2i+1}). Abel summation moves the
rotating factors into the partial sums S_j = Σ_{i<j} e^{i(m−n)θ_i}, and the
average size of those partial sums falls as the distance m − n grows. Laid tip to tail, the terms
themselves draw the score as a path in the complex plane (`phasor_terms`, chapter "Why does RoPE work?").
Pairs are counted from 0 here, as in `inv_freq`; the paper counts them from 1.
"""

from __future__ import annotations

import numpy as np

from ..._validate import arguments, checked_by, require_base, require_even_dim
from ...frequencies import DEFAULT_BASE, angles


def _pairs_as_complex(x, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"{name} must be a vector of even length d, got shape {x.shape}")
    require_even_dim(x.size, f"the length of {name}")
    return x[0::2] + 1j * x[1::2]  # (d/2,)


def pair_products(q, k) -> np.ndarray:
    """h_i = q_{[2i:2i+1]} · conj(k_{[2i:2i+1]}) as complex numbers, shape (d/2,) (eq. 35)."""
    q_pairs, k_pairs = _pairs_as_complex(q, "q"), _pairs_as_complex(k, "k")
    if q_pairs.shape != k_pairs.shape:
        raise ValueError(f"q and k must have one length d, got {2 * q_pairs.size} and {2 * k_pairs.size}")
    return q_pairs * np.conj(k_pairs)


def _rotations(relative, d: int, base: float) -> np.ndarray:
    """e^{i·r·θ_i} for every relative distance r and pair i, shape relative.shape + (d/2,)."""
    return np.exp(1j * angles(relative, d, base))


def _as_pair_products(h) -> np.ndarray:
    h = np.asarray(h, dtype=np.complex128)
    if h.ndim != 1 or h.size == 0:
        raise ValueError(f"h must be a non-empty vector of d/2 pair products, got shape {h.shape}")
    return h


def _tip_to_tail(terms: np.ndarray) -> np.ndarray:
    """0 and the running sums of terms along the last axis: the points of the arrows laid tip to tail."""
    zero = np.zeros(terms.shape[:-1] + (1,), dtype=np.complex128)
    return np.concatenate([zero, np.cumsum(terms, axis=-1)], axis=-1)


def rope_sum(h, relative, base: float = DEFAULT_BASE) -> np.ndarray:
    """Σ_i h_i e^{i(m−n)θ_i} (eq. 35): its real part is the RoPE score
    ⟨R_m q, R_n k⟩; shape relative.shape."""
    h = _as_pair_products(h)
    return _rotations(relative, 2 * h.size, base) @ h


def phasor_terms(h, relative, base: float = DEFAULT_BASE) -> np.ndarray:
    """The terms h_i e^{i(m−n)θ_i} of `rope_sum` laid tip to tail:
    P_0 = 0, P_j = Σ_{i<j} h_i e^{i(m−n)θ_i}.

    Shape relative.shape + (d/2 + 1,). Arrow i runs from P_i to P_{i+1};
    the last point is `rope_sum` and its real part the score. With every
    h_i = 1 these are the partial sums S_j of the bound.
    """
    h = _as_pair_products(h)
    return _tip_to_tail(_rotations(relative, 2 * h.size, base) * h)


def unturned_pairs(relative, d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """How many of the d/2 pairs have turned by less than a quarter turn, |m − n|·θ_i < π/2; shape relative.shape.

    Their arrows in `phasor_terms` still point within 90° of where they pointed at distance 0; the faster
    pairs have turned further and, at a large distance, point every which way.
    """
    return np.count_nonzero(np.abs(angles(relative, d, base)) < np.pi / 2, axis=-1)


def partial_sums(relative, d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """S_j = Σ_{i=0}^{j−1} e^{i(m−n)θ_i} for j = 0 … d/2, shape relative.shape + (d/2 + 1,); S_0 = 0."""
    return _tip_to_tail(_rotations(relative, d, base))


def abel_sum(h, relative, base: float = DEFAULT_BASE) -> np.ndarray:
    """−Σ_{i=0}^{d/2−1} S_{i+1}(h_{i+1} − h_i) with h_{d/2} = 0 (eq. 36): the same number as `rope_sum`."""
    h = _as_pair_products(h)
    steps = np.diff(np.append(h, 0))  # h_{i+1} − h_i, (d/2,)
    return -partial_sums(relative, 2 * h.size, base)[..., 1:] @ steps


def abel_bound(h, relative, base: float = DEFAULT_BASE) -> np.ndarray:
    """(max_i |h_{i+1} − h_i|) · Σ_{j=1}^{d/2} |S_j| (eq. 37): an upper bound on |rope_sum|."""
    h = _as_pair_products(h)
    largest_step = np.abs(np.diff(np.append(h, 0))).max()
    return largest_step * np.abs(partial_sums(relative, 2 * h.size, base)[..., 1:]).sum(axis=-1)


@checked_by(arguments(d=require_even_dim, base=require_base))
def relative_upper_bound(
    relative, d: int, base: float = DEFAULT_BASE
) -> np.ndarray:
    """(1/(d/2)) Σ_{j=1}^{d/2} |S_j|, the curve of RoFormer Fig. 2; shape
    relative.shape.

    At distance 0 every S_j = j, so the curve starts at (d/2 + 1)/2: 32.5
    for d = 128.
    """
    return np.abs(partial_sums(relative, d, base)[..., 1:]).mean(axis=-1)
