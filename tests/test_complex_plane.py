"""Pairs as complex numbers, and the partial sums of Euler's series."""

import cmath
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rope_lib.rotation import rotation_matrix_2d
from rope_lib.teach.complex_numbers import complex_to_pair, exp_partial_sums, pair_to_complex

real = st.floats(min_value=-100, max_value=100, allow_nan=False)


def test_pairs_and_complex_numbers_round_trip():
    v = np.array([[1.0, 2.0], [-3.0, 0.5]])
    np.testing.assert_array_equal(pair_to_complex(v), [1 + 2j, -3 + 0.5j])
    np.testing.assert_array_equal(complex_to_pair(pair_to_complex(v)), v)


@given(real, real, st.floats(min_value=-10, max_value=10, allow_nan=False))
def test_multiplying_by_e_i_theta_is_the_rotation_matrix(a, b, theta):
    turned = pair_to_complex([a, b]) * cmath.exp(1j * theta)
    np.testing.assert_allclose(complex_to_pair(turned), rotation_matrix_2d(theta) @ [a, b], atol=1e-9 * (1 + abs(a) + abs(b)))


@given(real, real, real, real)
def test_real_part_of_z1_times_conjugate_z2_is_the_dot_product(a, b, c, d):
    z1, z2 = pair_to_complex([a, b]), pair_to_complex([c, d])
    np.testing.assert_allclose((z1 * np.conj(z2)).real, a * c + b * d, rtol=1e-12, atol=1e-9)


def test_partial_sums_match_the_factorial_formula():
    z = 0.7 - 1.3j
    slow = [sum(z**k / math.factorial(k) for k in range(n + 1)) for n in range(12)]
    np.testing.assert_allclose(exp_partial_sums(z, 12), slow, rtol=1e-14)


@pytest.mark.parametrize("x", [0.0, 1.0, -2.5, math.pi, 6.0])
def test_partial_sums_converge_to_cos_plus_i_sin(x):
    sums = exp_partial_sums(1j * x, 40)
    assert abs(sums[-1] - complex(math.cos(x), math.sin(x))) < 1e-13
    assert sums[0] == 1


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="v must have a last axis of length 2"):
        pair_to_complex([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="n_terms must be a positive integer"):
        exp_partial_sums(1j, 0)
    with pytest.raises(TypeError, match="z must be a number"):
        exp_partial_sums("1j", 3)


def test_sympy_reads_the_rotation_matrix_off_the_complex_product():
    """The chapter's symbolic step, and a false version of it that must be caught."""
    import sympy as sp

    from rope_lib.teach.shared import symbolic

    a, b, theta = sp.symbols("a b theta", real=True)
    v = sp.Matrix([a, b])
    turned = symbolic.as_vector(symbolic.as_complex(v) * sp.exp(sp.I * theta))
    symbolic.assert_equal(turned.jacobian(v), symbolic.rotation_matrix(theta), "R(θ) from (a + ib)e^{iθ}")
    with pytest.raises(AssertionError, match="R"):
        symbolic.assert_equal(turned.jacobian(v), symbolic.rotation_matrix(-theta), "R(−θ) from (a + ib)e^{iθ}")
