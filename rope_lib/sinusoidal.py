"""Absolute sinusoidal position encoding (Vaswani et al. 2017), chapter
"Absolute sinusoidal encoding":

    p_{i,2t} = sin(i / base^(2t/d)),   p_{i,2t+1} = cos(i / base^(2t/d)).
"""

from __future__ import annotations

import math

import numpy as np

from .checks import check_even_dim, check_positive_int
from .frequencies import DEFAULT_BASE, angles


def sinusoidal_encoding_loop(seq_len: int, d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """The encoding one entry at a time, as the original article writes it: slow and obvious.

    Each column j uses the exponent 2·(j // 2)/d, so columns 2t and 2t+1 share
    one frequency; even columns take the sine, odd columns the cosine.
    """
    seq_len = check_positive_int(seq_len, "seq_len")
    d = check_even_dim(d, "d")
    table = np.empty((seq_len, d))
    for i in range(seq_len):
        for j in range(d):
            angle = i / base ** (2 * (j // 2) / d)
            table[i, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


def sinusoidal_encoding(seq_len: int, d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """The same (seq_len, d) table in one vectorised step from the shared angles m·θ_t."""
    seq_len = check_positive_int(seq_len, "seq_len")
    a = angles(np.arange(seq_len), d, base)  # (seq_len, d/2)
    table = np.empty((seq_len, d))
    table[:, 0::2] = np.sin(a)
    table[:, 1::2] = np.cos(a)
    return table
