"""rope_lib.teach.symbolic: every step of the 2D derivation holds, the solution is a rotation whose inner
product is g, and every check can fail when fed a false step."""

import pytest
import sympy as sp

from rope_lib.teach import symbolic


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


@pytest.mark.parametrize("label", sorted(symbolic.ROPE_2D_STEPS))
def test_every_step_holds(label):
    equation = symbolic.assert_step(label)
    assert isinstance(equation, sp.Eq)


def _as_matrix(expr) -> sp.Matrix:
    return expr if isinstance(expr, sp.MatrixBase) else sp.Matrix([expr])


def _negate_last_term(expr):
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(_negate_last_term)
    expr = sp.expand(expr)
    return expr.func(*expr.args[:-1], -expr.args[-1]) if isinstance(expr, sp.Add) else -expr


def falsify(expr):
    """A typical slip: a sine with the wrong sign, an i with the wrong sign, or a term with the wrong sign,
    whichever first changes the expression."""
    slips = (lambda e: e.replace(sp.sin, lambda a: -sp.sin(a)), lambda e: e.subs(sp.I, -sp.I), _negate_last_term)
    for slip in slips:
        wrong = slip(expr)
        if any(sp.expand(x) != 0 for x in _as_matrix(wrong) - _as_matrix(expr)):
            return wrong
    raise AssertionError(f"no slip changes {expr}")


@pytest.mark.parametrize("label", sorted(symbolic.ROPE_2D_STEPS))
def test_every_step_can_fail(label, monkeypatch):
    step = symbolic.ROPE_2D_STEPS[label]
    monkeypatch.setitem(symbolic.ROPE_2D_STEPS, label, lambda r: (step(r)[0], falsify(step(r)[1])))
    with pytest.raises(AssertionError, match=label):
        symbolic.assert_step(label)


def test_the_steps_chain_into_the_theorem():
    """The steps are about the same objects: the proof's last right side is g itself."""
    r = symbolic.rope_2d()
    assert symbolic.step_conclusion(r)[1] == r.g
    assert symbolic.step_group_terms(r)[0] == symbolic.step_inner_product(r)[0] == r.f_q.dot(r.f_k)
    assert sp.simplify(symbolic.step_apply_identities(r)[1] - symbolic.step_g_real(r)[1]) == 0
    for name in ("step_complex_product", "step_euler", "step_query_product", "step_query_rotation", "step_key_rotation",
                 "step_conjugate", "step_query_times_conjugate", "step_cos_difference", "step_sin_difference"):
        assert getattr(symbolic, name) in symbolic.ROPE_2D_STEPS.values()


def test_unknown_label_is_refused():
    with pytest.raises(KeyError, match="no derivation step is labelled 'rope2d-step-nope'"):
        symbolic.assert_step("rope2d-step-nope")


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
