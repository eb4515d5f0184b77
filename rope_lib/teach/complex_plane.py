"""Plane vectors as complex numbers, and Euler's formula as the limit of a power series,
chapters "Complex numbers and Euler's formula" and "2D rotation matrices".

The pair (a, b) is the complex number a + ib: the identification RoFormer
eq. 12 and Meta's LLaMA code make for every pair of coordinates.
"""

from __future__ import annotations

import numpy as np

from .._validate import arguments, checked_by, refuse, require_positive_int


def pair_to_complex_arguments(a) -> None:
    if np.ndim(a["v"]) == 0 or np.shape(a["v"])[-1] != 2:
        refuse("v", "have a last axis of length 2 (the pair (a, b))", f"shape {np.shape(a['v'])}")


@checked_by(pair_to_complex_arguments)
def pair_to_complex(v) -> np.ndarray:
    """(…, 2) real pairs (a, b) → (…) complex a + ib."""
    v = np.asarray(v, dtype=np.float64)  # a list too
    return v[..., 0] + 1j * v[..., 1]


def complex_to_pair(z) -> np.ndarray:
    """(…) complex a + ib → (…, 2) real pairs (a, b); the inverse of `pair_to_complex`."""
    z = np.asarray(z, dtype=np.complex128)
    return np.stack([z.real, z.imag], axis=-1)  # (…, 2)


def require_number(z, name: str) -> None:
    if not isinstance(z, (int, float, complex, np.number)) or isinstance(z, bool):
        refuse(name, "be a number", type(z).__name__, TypeError)


@checked_by(arguments(n_terms=require_positive_int, z=require_number))
def exp_partial_sums(z: complex, n_terms: int) -> np.ndarray:
    """S_N(z) = Σ_{k=0}^{N} z^k / k! for N = 0 … n_terms − 1,
    shape (n_terms,) complex.

    With z = ix these partial sums converge to e^{ix} = cos x + i sin x
    (Euler's formula). Each term is the previous one times z/k, so no
    factorial overflows.
    """
    term, total = complex(1.0), complex(0.0)
    sums = np.empty(n_terms, dtype=np.complex128)
    for k in range(n_terms):
        if k:
            term *= z / k
        total += term
        sums[k] = total
    return sums
