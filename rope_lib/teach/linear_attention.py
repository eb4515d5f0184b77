"""RoPE with linear attention (RoFormer §3.3, eq. 19), chapter "RoPE in today's models".

Linear attention replaces the softmax's exp(qᵀk) by φ(q)ᵀφ(k), with a feature map φ whose values are positive
(here φ(x) = elu(x) + 1). Then Σ_n φ(q_m)ᵀφ(k_n) v_nᵀ = φ(q_m)ᵀ (Σ_n φ(k_n) v_nᵀ): the sum over the keys is made
once, a d × d_v matrix, instead of once per query, and a causal layer keeps it as a running (prefix) sum. RoFormer
rotates φ(q_m) and φ(k_n) in the numerator only:

    o_m = Σ_n (R_m φ(q_m))ᵀ (R_n φ(k_n)) v_n  /  Σ_n φ(q_m)ᵀ φ(k_n)

The denominator is left unrotated, so it stays a sum of positive numbers; the price is that the numerator's weights
can be negative and need not sum to 1: the output is no longer a weighted average of the values.

`rope_linear_attention` is the linear form (one pass over the keys); `rope_linear_attention_weights` writes every
weight out with rotation matrices, one query and one key at a time, the slow and obvious reference it is tested
against. Positions are given, not implied, so that shifting them all by one constant can be tried.
"""

from __future__ import annotations

import numpy as np

from .._validate import require_base, require_bool, require_even_dim, require_real_array
from ..frequencies import DEFAULT_BASE, angles
from ..rotation import rotary_matrix


def elu_feature_map(x) -> np.ndarray:
    """φ(x) = elu(x) + 1: x + 1 for x > 0, eˣ otherwise; positive everywhere (Katharopoulos et al.'s choice)."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def _matrix(x, name: str, rows: int | None = None) -> np.ndarray:
    array = require_real_array(x, name)
    if array.ndim != 2:
        raise ValueError(f"{name} must have shape (T, d): one row per token, got shape {array.shape}")
    if rows is not None and array.shape[0] != rows:
        raise ValueError(f"{name} must have one row per token, T = {rows}, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must hold finite numbers, got NaN or infinity")
    return array


def _positions(positions, tokens: int) -> np.ndarray:
    if isinstance(positions, range):
        positions = list(positions)
    array = np.asarray(positions)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"positions must hold integers (token indices), got dtype {array.dtype}")
    if array.shape != (tokens,):
        raise ValueError(f"positions must have shape (T,) = ({tokens},), one per token, got {array.shape}")
    return array.astype(np.int64)


def _features(q: np.ndarray, k: np.ndarray, feature_map) -> tuple[np.ndarray, np.ndarray]:
    """φ(q), φ(k), refused unless φ keeps the shape and gives finite numbers above 0 (the denominator must be > 0)."""
    if not callable(feature_map):
        raise TypeError(f"feature_map must be a function of an array, got {type(feature_map).__name__}")
    out = []
    for name, x in (("q", q), ("k", k)):
        phi = np.asarray(feature_map(x), dtype=np.float64)
        if phi.shape != x.shape:
            raise ValueError(f"feature_map must keep the shape of {name}, {x.shape}, got {phi.shape}")
        if not (np.isfinite(phi).all() and (phi > 0).all()):
            raise ValueError(f"feature_map must give finite numbers above 0 (the denominator is a sum of their products), "
                             f"got min {phi.min()} on {name}")
        out.append(phi)
    return out[0], out[1]


def _inputs(q, k, positions, base, causal, feature_map):
    q = _matrix(q, "q")
    k = _matrix(k, "k", rows=None)
    if k.shape != q.shape:
        raise ValueError(f"q and k must have one shape (T, d), got {q.shape} and {k.shape}")
    require_even_dim(q.shape[1], "d, the width of q and k,")
    positions = _positions(positions, q.shape[0])
    base = require_base(base)
    causal = require_bool(causal, "causal")
    phi_q, phi_k = _features(q, k, feature_map)
    return phi_q, phi_k, positions, base, causal


def _rotate(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """Row t of x turned by R^d_{Θ,m_t}, in the elementwise form (interleaved pairs)."""
    a = angles(positions, x.shape[1], base)  # (T, d/2)
    cos, sin = np.cos(a), np.sin(a)
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 1::2] * cos + x[:, 0::2] * sin
    return out


def rope_linear_attention(
    q,
    k,
    v,
    positions,
    *,
    base: float = DEFAULT_BASE,
    causal: bool = False,
    feature_map=elu_feature_map,
) -> np.ndarray:
    """RoFormer eq. 19 in its linear form: q, k (T, d), v (T, d_v),
    positions (T,) → outputs (T, d_v).

    The keys are summed once, Σ_n R_n φ(k_n) v_nᵀ (d × d_v) and Σ_n φ(k_n)
    (d,); with causal=True each as a running sum over n ≤ m. The rotation
    is in the numerator only.
    """
    phi_q, phi_k, positions, base, causal = _inputs(
        q, k, positions, base, causal, feature_map
    )
    v = _matrix(v, "v", rows=phi_q.shape[0])
    turned_q = _rotate(phi_q, positions, base)  # (T, d)
    turned_k = _rotate(phi_k, positions, base)  # (T, d)
    if causal:
        # (T, d, d_v): Σ_{n ≤ m}
        key_values = np.cumsum(turned_k[:, :, None] * v[:, None, :], axis=0)
        key_sums = np.cumsum(phi_k, axis=0)  # (T, d): Σ_{n ≤ m}, unrotated
        # (T, d_v)
        numerator = np.einsum("td,tde->te", turned_q, key_values)
        denominator = np.einsum("td,td->t", phi_q, key_sums)  # (T,)
    else:
        numerator = turned_q @ (turned_k.T @ v)  # (T, d_v)
        denominator = phi_q @ phi_k.sum(axis=0)  # (T,)
    return numerator / denominator[:, None]


def rope_linear_attention_weights(q, k, positions, *, base: float = DEFAULT_BASE, causal: bool = False,
                                  feature_map=elu_feature_map) -> np.ndarray:
    """The weight of key n in output m, written out (T, T): (R_m φ(q_m))ᵀ(R_n φ(k_n)) / Σ_j φ(q_m)ᵀφ(k_j), the
    sums over j ≤ m and the weights of later keys 0 when causal. One rotation matrix per token, one loop per weight:
    slow on purpose, the reference for `rope_linear_attention` (outputs = weights @ v)."""
    phi_q, phi_k, positions, base, causal = _inputs(q, k, positions, base, causal, feature_map)
    tokens, d = phi_q.shape
    turned_q = [rotary_matrix(int(m), d, base) @ phi_q[t] for t, m in enumerate(positions)]
    turned_k = [rotary_matrix(int(n), d, base) @ phi_k[t] for t, n in enumerate(positions)]
    weights = np.zeros((tokens, tokens))
    for m in range(tokens):
        seen = range(m + 1) if causal else range(tokens)
        denominator = sum(float(phi_q[m] @ phi_k[j]) for j in seen)
        for n in seen:
            weights[m, n] = float(turned_q[m] @ turned_k[n]) / denominator
    return weights
