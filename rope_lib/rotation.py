"""The numpy reference: rotation matrices and RoPE as a matrix product
(RoFormer eqs. 13–15). Slow and obvious on purpose; the torch code is tested
against it. Chapters "2D rotation matrices" and "RoPE in d dimensions".
"""

from __future__ import annotations

import numpy as np

from ._validate import checked_by, inv_freq_or_base_arguments, require_even_dim, require_layout
from .frequencies import DEFAULT_BASE, angles
from .layouts import half_order


def rotation_matrix_2d(angle: float) -> np.ndarray:
    """R(a) = [[cos a, −sin a], [sin a, cos a]]: turns a plane vector by
    a radians."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def rotary_matrix_arguments(a) -> None:
    require_layout(a["layout"])
    require_even_dim(a["d"], "d")
    inv_freq_or_base_arguments(a, a["d"])


@checked_by(rotary_matrix_arguments)
def rotary_matrix(
    m,
    d: int,
    base: float = DEFAULT_BASE,
    layout: str = "interleaved",
    *,
    inv_freq=None,
) -> np.ndarray:
    """R^d_{Θ,m} (eq. 15): d/2 blocks R(m·θ_i) on the diagonal,
    shape (d, d).

    inv_freq: optional d/2 frequencies that replace base^(−2i/d) (a single
    θ for d = 2, say).

    With layout="half" the same matrix is written in the half-layout basis:
    P·R·Pᵀ, where P reorders interleaved coordinates into the half layout.
    """
    pair_angles = (
        angles(m, d, base)
        if inv_freq is None
        else float(m) * np.asarray(inv_freq, dtype=float)  # a list too
    )
    matrix = np.zeros((d, d))
    for i, a in enumerate(pair_angles):
        matrix[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = rotation_matrix_2d(a)
    if layout == "half":
        order = half_order(d)
        matrix = matrix[np.ix_(order, order)]
    return matrix


def apply_rope_matrix(x: np.ndarray, positions, base: float = DEFAULT_BASE, layout: str = "interleaved") -> np.ndarray:
    """R^d_{Θ,m}·x for every token: x (B, T, H, D), positions (T,) → (B, T, H, D).

    O(D²) work per vector: the reference that the O(D) elementwise form must match.
    """
    x = np.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"x must have shape (B, T, H, D), got {x.ndim} dimensions {x.shape}")
    positions = np.asarray(positions)
    if positions.shape != (x.shape[1],):
        raise ValueError(f"positions must have shape (T,) = ({x.shape[1]},), got {positions.shape}")
    d = x.shape[-1]
    matrices = np.stack([rotary_matrix(m, d, base, layout) for m in positions])  # (T, D, D)
    return np.einsum("tij,bthj->bthi", matrices, x)  # (B, T, H, D)


def score_grid(q: np.ndarray, k: np.ndarray, positions, base: float = DEFAULT_BASE, *, inv_freq=None) -> np.ndarray:
    """score[a, b] = ⟨R_{m_a} q, R_{m_b} k⟩ for every pair of positions: q, k (D,) → (P, P).

    RoPE makes each entry depend on m_a − m_b alone, so the grid is constant along its diagonals.
    """
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    if q.ndim != 1 or q.shape != k.shape:
        raise ValueError(f"q and k must be vectors of one length D, got shapes {q.shape} and {k.shape}")
    rotated_q = np.stack([rotary_matrix(m, q.size, base, inv_freq=inv_freq) @ q for m in positions])  # (P, D)
    rotated_k = np.stack([rotary_matrix(m, k.size, base, inv_freq=inv_freq) @ k for m in positions])  # (P, D)
    return rotated_q @ rotated_k.T  # (P, P)
