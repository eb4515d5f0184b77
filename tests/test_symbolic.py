import sympy as sp
import pytest

from rope_lib import symbolic


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
