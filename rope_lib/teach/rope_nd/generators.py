"""From the goal to RoPE's matrix, numerically (chapter "RoPE in d dimensions").

The chapter asks which orthogonal matrices R_m satisfy R_mᵀ R_n = R_{n−m}. The goal alone gives R_m = R_1^m for any
orthogonal R_1, a mirror included; continuity makes det R_1 = +1, and a rotation is exp(A) for a skew-symmetric A, so
R_m = exp(mA). An orthogonal change of basis P turns A into 2×2 blocks θ_i·J. These functions compute each piece for
a concrete A, so the chapter (and its tests) can show that any skew-symmetric A is RoPE's block-diagonal matrix seen
in another basis.
"""

from __future__ import annotations

import numpy as np
import torch

QUARTER_TURN = np.array([[0.0, -1.0], [1.0, 0.0]])
"""J: the quarter turn (a, b) ↦ (−b, a), the 2×2 skew-symmetric block with θ = 1."""

SKEW_TOLERANCE = 1e-9
"""How far A + Aᵀ may be from zero, relative to the size of A, for A to count as skew-symmetric."""


def _require_skew(generator) -> np.ndarray:
    a = np.asarray(generator, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise ValueError(f"generator must be a square matrix, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("generator must hold finite numbers")
    if np.abs(a + a.T).max() > SKEW_TOLERANCE * (1.0 + np.abs(a).max()):
        raise ValueError(f"generator must be skew-symmetric (Aᵀ = −A); its largest |A + Aᵀ| is {np.abs(a + a.T).max():.3g}")
    return a


def random_skew(d: int, seed: int = 0) -> np.ndarray:
    """A random d×d skew-symmetric matrix, A = B − Bᵀ for a seeded Gaussian B."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    b = np.random.default_rng(seed).standard_normal((d, d))
    return b - b.T


def block_generator(thetas) -> np.ndarray:
    """diag(θ_0 J, θ_1 J, …): the skew-symmetric matrix whose exponential exp(mA) is R^d_{Θ,m}."""
    t = np.asarray(thetas, dtype=float)
    if t.ndim != 1 or t.size == 0 or not np.all(np.isfinite(t)):
        raise ValueError(f"thetas must be a non-empty 1-D array of finite frequencies, got {thetas!r}")
    a = np.zeros((2 * t.size, 2 * t.size))
    for i, theta in enumerate(t):
        a[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = theta * QUARTER_TURN
    return a


def rotation_family(generator, position) -> np.ndarray:
    """R_m = exp(m·A), the matrix exponential (power series), in float64."""
    a = _require_skew(generator)
    m = float(position)
    return torch.linalg.matrix_exp(torch.from_numpy(m * a)).numpy()


def canonical_form(generator) -> tuple[np.ndarray, np.ndarray]:
    """(P, θ): an orthogonal P and frequencies θ_0 ≥ θ_1 ≥ … > 0 with A = P · diag(θ_i J) · Pᵀ.

    iA is Hermitian, so it has orthonormal eigenvectors u with real eigenvalues; A u = iθ u for θ = −(eigenvalue).
    Writing u = a + ib, A b = θ a and A a = −θ b, so the columns (b, a), scaled to length 1, carry the block θ J.
    A needs an even size and no zero eigenvalue (every direction turns).
    """
    a = _require_skew(generator)
    d = a.shape[0]
    if d % 2:
        raise ValueError(f"generator must have an even size (pairs), got {d}×{d}")
    values, vectors = np.linalg.eigh(1j * a)  # ascending: −θ_0 ≤ … ≤ 0 ≤ … ≤ θ_0
    thetas = -values[: d // 2]
    if thetas.min() <= SKEW_TOLERANCE * (1.0 + np.abs(a).max()):
        raise ValueError("generator must have no zero eigenvalue: some direction would never turn")
    p = np.empty((d, d))
    for i in range(d // 2):
        u = vectors[:, i] * np.sqrt(2.0)
        p[:, 2 * i], p[:, 2 * i + 1] = u.imag, u.real
    return p, thetas
