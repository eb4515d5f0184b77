"""rope_lib.teach.shared.symbolic: the 2D solution is a rotation whose inner product is g, Abel summation, and
every check can fail when fed something false."""

import pytest
import sympy as sp

from rope_lib.teach.shared import symbolic


def test_2d_solution_is_a_rotation_and_its_inner_product_is_g():
    r = symbolic.rope_2d()
    symbolic.assert_f_is_rotation(r)
    symbolic.assert_inner_product_is_g(r)
    symbolic.assert_relative_only(r.g, r.m, r.n)
    symbolic.assert_relative_only(r.f_q.dot(r.f_k), r.m, r.n)


def test_the_checks_can_fail():
    """A check that cannot fail proves nothing: feed each one something false."""
    r = symbolic.rope_2d()
    with pytest.raises(AssertionError, match="dependence on m − n only"):
        symbolic.assert_relative_only(sp.cos(r.m * r.theta + r.n * r.theta), r.m, r.n)
    with pytest.raises(AssertionError, match="R"):
        symbolic.assert_equal(r.f_q, symbolic.rotation_matrix(-r.m * r.theta) * r.q, "f_q = R(−mθ) q")
    wrong = symbolic.Rope2D(r.m, r.n, r.theta, r.q, r.k, r.f_q, r.f_k, sp.re(r.g.subs(r.n, -r.n)))
    with pytest.raises(AssertionError, match="<f_q, f_k> = g"):
        symbolic.assert_inner_product_is_g(wrong)


@pytest.mark.parametrize("pairs", [1, 2, 3, 6])
def test_abel_summation(pairs):
    lhs, rhs = symbolic.abel_summation(pairs)
    symbolic.assert_equal(lhs, rhs, "Abel summation")
    with pytest.raises(AssertionError, match="Abel summation"):
        symbolic.assert_equal(lhs, -rhs, "Abel summation")


def test_abel_summation_refuses_bad_counts():
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="pairs must be a positive int"):
            symbolic.abel_summation(bad)


def test_complex_and_vector_views_are_inverse():
    a, b = sp.symbols("a b", real=True)
    assert symbolic.as_vector(symbolic.as_complex(sp.Matrix([a, b]))) == sp.Matrix([a, b])
    symbolic.assert_zero(symbolic.as_complex(symbolic.as_vector((a + sp.I * b) * sp.I)) - (-b + sp.I * a), "i·(a + ib)")
    with pytest.raises(AssertionError, match="i·z is not z"):
        symbolic.assert_zero(symbolic.as_complex(sp.Matrix([a, b])) * sp.I - (a + sp.I * b), "i·z is not z")
