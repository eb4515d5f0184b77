"""Absolute sinusoidal position encoding (Vaswani et al. 2017), chapter
"Absolute sinusoidal encoding":

    p_{m,2i} = sin(m / base^(2i/d)),   p_{m,2i+1} = cos(m / base^(2i/d)):  position m, pair i.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._validate import arguments, checked_by, refuse, require_base, require_even_dim, require_matrix_for, require_positive_int
from .frequencies import DEFAULT_BASE, angles


@checked_by(arguments(seq_len=require_positive_int, d=require_even_dim, base=require_base))
def sinusoidal_encoding_loop(
    seq_len: int, d: int, base: float = DEFAULT_BASE
) -> np.ndarray:
    """The encoding one entry at a time, as the original article writes
    it: slow and obvious.

    Each column j uses the exponent 2·(j // 2)/d, so columns 2i and 2i+1
    share one frequency; even columns take the sine, odd columns the
    cosine.
    """
    table = np.empty((seq_len, d))
    for m in range(seq_len):
        for j in range(d):
            angle = m / base ** (2 * (j // 2) / d)
            table[m, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


def sinusoidal_encoding(seq_len: int, d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """The same (seq_len, d) table in one vectorised step from the shared angles m·θ_i."""
    require_positive_int(seq_len, "seq_len")
    return sinusoidal_position(np.arange(seq_len), d, base)  # (seq_len, d)


def sinusoidal_position(
    m, d: int, base: float = DEFAULT_BASE
) -> np.ndarray:
    """p_m for any position m (or array of positions): shape
    m.shape + (d,), sines in even, cosines in odd slots."""
    a = angles(m, d, base)  # m.shape + (d/2,)
    p = np.empty(a.shape[:-1] + (2 * a.shape[-1],))
    p[..., 0::2] = np.sin(a)
    p[..., 1::2] = np.cos(a)
    return p


def sinusoidal_pair(m, i: int, d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """(p_{m,2i}, p_{m,2i+1}) = (sin mθ_i, cos mθ_i), θ_i = base^(−2i/d): the point of pair i.

    m is a position or an array of them; the result has shape m.shape + (2,).
    As m grows the point walks round the unit circle, clockwise in these
    (sine, cosine) coordinates: pair i of p_{m+Δ} = R(−Δθ_i) · pair i of p_m.
    """
    require_even_dim(d, "d")
    if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < d // 2:
        refuse("i", f"be a pair index in [0, {d // 2}) for d = {d}", repr(i))
    return sinusoidal_position(m, d, base)[..., 2 * i : 2 * i + 2]  # m.shape + (2,)


def absolute_position_score_arguments(a) -> None:
    x_m, x_n = np.asarray(a["x_m"], dtype=np.float64), np.asarray(a["x_n"], dtype=np.float64)
    if x_m.ndim != 1 or x_m.shape != x_n.shape:
        refuse("x_m and x_n", "be vectors of one length d", f"shapes {x_m.shape} and {x_n.shape}")
    require_even_dim(x_m.size, "the length d of x_m and x_n")
    require_matrix_for(a["w_q"], x_m.size, "w_q"), require_matrix_for(a["w_k"], x_m.size, "w_k")
    require_base(a["base"])


@checked_by(absolute_position_score_arguments)
def absolute_position_score(
    x_m, x_n, m, n, w_q, w_k, base: float = DEFAULT_BASE
) -> float:
    """(W_q (x_m + p_m))·(W_k (x_n + p_n)): the query–key score when
    positions are added to the embeddings (RoFormer eq. 3 with the p_m of
    eq. 4, the Transformer's scheme), before the 1/√d scaling.

    It expands into four terms, and only the p_m·p_n part depends on
    m − n alone.
    """
    x_m, x_n = np.asarray(x_m, dtype=float), np.asarray(x_n, dtype=float)
    d = x_m.size
    q = w_q @ (x_m + sinusoidal_position(m, d, base))  # (d_out,)
    k = w_k @ (x_n + sinusoidal_position(n, d, base))  # (d_out,)
    return float(q @ k)
