"""The 2D derivation of RoPE in sympy (RoFormer eqs. 11–13), chapter "RoPE in two dimensions".

`rope_2d()` builds f_q, f_k and g from symbols; the `assert_…` functions check
the identities the chapter states and raise AssertionError if one fails.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class Rope2D:
    """The symbols and expressions of the 2D solution."""

    m: sp.Symbol
    n: sp.Symbol
    theta: sp.Symbol
    q: sp.Matrix  # W_q x_m as a real 2-vector (q1, q2)
    k: sp.Matrix  # W_k x_n as a real 2-vector (k1, k2)
    f_q: sp.Matrix  # Re/Im of (q1 + i q2)·e^{i m θ}
    f_k: sp.Matrix  # Re/Im of (k1 + i k2)·e^{i n θ}
    g: sp.Expr  # Re[(q1 + i q2)·conj(k1 + i k2)·e^{i (m − n) θ}]


def as_complex(v: sp.Matrix) -> sp.Expr:
    """(a, b) → a + i·b."""
    return v[0] + sp.I * v[1]


def as_vector(z: sp.Expr) -> sp.Matrix:
    """a + i·b → (a, b), expanded with real symbols."""
    z = sp.expand_complex(sp.expand(z))
    return sp.Matrix([sp.re(z), sp.im(z)])


def rotation_matrix(angle: sp.Expr) -> sp.Matrix:
    """R(a) = [[cos a, −sin a], [sin a, cos a]]."""
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def rope_2d() -> Rope2D:
    """f_q = (W_q x_m) e^{imθ}, f_k = (W_k x_n) e^{inθ}, g = Re[(W_q x_m)(W_k x_n)^* e^{i(m−n)θ}] (eq. 12)."""
    m, n, theta = sp.symbols("m n theta", real=True)
    q = sp.Matrix(sp.symbols("q1 q2", real=True))
    k = sp.Matrix(sp.symbols("k1 k2", real=True))
    f_q = as_vector(as_complex(q) * sp.exp(sp.I * m * theta))
    f_k = as_vector(as_complex(k) * sp.exp(sp.I * n * theta))
    g = sp.re(sp.expand_complex(as_complex(q) * sp.conjugate(as_complex(k)) * sp.exp(sp.I * (m - n) * theta)))
    return Rope2D(m=m, n=n, theta=theta, q=q, k=k, f_q=f_q, f_k=f_k, g=g)


def assert_zero(expr: sp.Expr, what: str) -> None:
    """Raise AssertionError naming `what` unless expr simplifies to 0."""
    residue = sp.simplify(sp.expand_trig(sp.expand(expr)))
    if residue != 0:
        raise AssertionError(f"{what} does not hold: residue {residue}")


def assert_equal(lhs, rhs, what: str) -> None:
    """Element by element for matrices; raises AssertionError naming `what`."""
    lhs, rhs = sp.Matrix([lhs]) if not isinstance(lhs, sp.MatrixBase) else lhs, sp.Matrix([rhs]) if not isinstance(rhs, sp.MatrixBase) else rhs
    if lhs.shape != rhs.shape:
        raise AssertionError(f"{what}: shapes differ, {lhs.shape} vs {rhs.shape}")
    for a, b in zip(lhs, rhs):
        assert_zero(a - b, what)


def assert_f_is_rotation(r: Rope2D) -> None:
    """Eq. 13: f_q = R(mθ)·q and f_k = R(nθ)·k."""
    assert_equal(r.f_q, rotation_matrix(r.m * r.theta) * r.q, "f_q = R(mθ) q")
    assert_equal(r.f_k, rotation_matrix(r.n * r.theta) * r.k, "f_k = R(nθ) k")


def assert_inner_product_is_g(r: Rope2D) -> None:
    """⟨f_q(x_m, m), f_k(x_n, n)⟩ = g(x_m, x_n, m − n) (eq. 11 with the solution of eq. 12)."""
    assert_zero(r.f_q.dot(r.f_k) - r.g, "<f_q, f_k> = g")


def assert_relative_only(expr: sp.Expr, m: sp.Symbol, n: sp.Symbol) -> None:
    """expr depends on m and n only through m − n: written with m = n + r, it no longer depends on n."""
    r = sp.Dummy("r", real=True)
    assert_zero(sp.diff(expr.subs(m, n + r), n), "dependence on m − n only")


# The derivation of chapter "RoPE in two dimensions", one displayed equation at a time.
# Each step returns (lhs, rhs): lhs is built the way the previous step left it, rhs is
# typed as the chapter displays it, so a wrong sign or factor in either makes the check fail.


def step_complex_product(r: Rope2D) -> tuple:
    """(a + ib)(c + id) = (ac − bd) + i(ad + bc): the distributive law with i² = −1."""
    a, b, c, d = sp.symbols("a b c d", real=True)
    return (a + sp.I * b) * (c + sp.I * d), (a * c - b * d) + sp.I * (a * d + b * c)


def step_euler(r: Rope2D) -> tuple:
    """e^{imθ} = cos mθ + i sin mθ (Euler's formula at the angle mθ)."""
    a = r.m * r.theta
    return sp.exp(sp.I * a), sp.cos(a) + sp.I * sp.sin(a)


def step_query_product(r: Rope2D) -> tuple:
    """(q1 + i q2) e^{imθ} = (q1 cos mθ − q2 sin mθ) + i (q2 cos mθ + q1 sin mθ)."""
    q1, q2 = r.q
    a = r.m * r.theta
    return as_complex(r.q) * sp.exp(sp.I * a), (q1 * sp.cos(a) - q2 * sp.sin(a)) + sp.I * (q2 * sp.cos(a) + q1 * sp.sin(a))


def step_query_rotation(r: Rope2D) -> tuple:
    """Eq. 13: the real and imaginary parts of (q1 + i q2) e^{imθ} are R(mθ)·(q1, q2)."""
    a = r.m * r.theta
    written_out = sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]]) * r.q
    return r.f_q, written_out


def step_key_rotation(r: Rope2D) -> tuple:
    """The same for the key: (k1 + i k2) e^{inθ} read as a vector is R(nθ)·(k1, k2)."""
    a = r.n * r.theta
    written_out = sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]]) * r.k
    return r.f_k, written_out


def step_conjugate(r: Rope2D) -> tuple:
    """(k1 + i k2)* = k1 − i k2: conjugation flips the sign of the imaginary part."""
    k1, k2 = r.k
    return sp.conjugate(as_complex(r.k)), k1 - sp.I * k2


def step_query_times_conjugate(r: Rope2D) -> tuple:
    """(q1 + i q2)(k1 − i k2) = (q1 k1 + q2 k2) + i (q2 k1 − q1 k2)."""
    (q1, q2), (k1, k2) = r.q, r.k
    return as_complex(r.q) * sp.conjugate(as_complex(r.k)), (q1 * k1 + q2 * k2) + sp.I * (q2 * k1 - q1 * k2)


def step_g_real(r: Rope2D) -> tuple:
    """g = Re[(q1 + i q2)(k1 − i k2) e^{i(m−n)θ}] = (q1k1 + q2k2) cos((m−n)θ) + (q1k2 − q2k1) sin((m−n)θ)."""
    (q1, q2), (k1, k2) = r.q, r.k
    a = (r.m - r.n) * r.theta
    return r.g, (q1 * k1 + q2 * k2) * sp.cos(a) + (q1 * k2 - q2 * k1) * sp.sin(a)


def step_inner_product(r: Rope2D) -> tuple:
    """⟨f_q, f_k⟩ written out from the two rotated vectors of eq. 13."""
    (q1, q2), (k1, k2) = r.q, r.k
    cm, sm, cn, sn = sp.cos(r.m * r.theta), sp.sin(r.m * r.theta), sp.cos(r.n * r.theta), sp.sin(r.n * r.theta)
    written_out = (q1 * cm - q2 * sm) * (k1 * cn - k2 * sn) + (q2 * cm + q1 * sm) * (k2 * cn + k1 * sn)
    return r.f_q.dot(r.f_k), written_out


def _grouped(r: Rope2D) -> sp.Expr:
    (q1, q2), (k1, k2) = r.q, r.k
    cm, sm, cn, sn = sp.cos(r.m * r.theta), sp.sin(r.m * r.theta), sp.cos(r.n * r.theta), sp.sin(r.n * r.theta)
    return (q1 * k1 + q2 * k2) * (cm * cn + sm * sn) + (q1 * k2 - q2 * k1) * (sm * cn - cm * sn)


def step_group_terms(r: Rope2D) -> tuple:
    """Multiplying out and collecting the four products q_a k_b leaves two brackets of cosines and sines."""
    return r.f_q.dot(r.f_k), _grouped(r)


def step_cos_difference(r: Rope2D) -> tuple:
    """cos(a − b) = cos a cos b + sin a sin b."""
    a, b = sp.symbols("a b", real=True)
    return sp.cos(a - b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b)


def step_sin_difference(r: Rope2D) -> tuple:
    """sin(a − b) = sin a cos b − cos a sin b."""
    a, b = sp.symbols("a b", real=True)
    return sp.sin(a - b), sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b)


def step_apply_identities(r: Rope2D) -> tuple:
    """With a = mθ and b = nθ the two brackets become cos((m−n)θ) and sin((m−n)θ)."""
    (q1, q2), (k1, k2) = r.q, r.k
    a = (r.m - r.n) * r.theta
    return r.f_q.dot(r.f_k), (q1 * k1 + q2 * k2) * sp.cos(a) + (q1 * k2 - q2 * k1) * sp.sin(a)


def step_conclusion(r: Rope2D) -> tuple:
    """⟨f_q(x_m, m), f_k(x_n, n)⟩ = g(x_m, x_n, m − n): eq. 11 holds for the solution of eq. 12."""
    return r.f_q.dot(r.f_k), r.g


ROPE_2D_STEPS = {
    "rope2d-step-complex-product": step_complex_product,
    "rope2d-step-euler": step_euler,
    "rope2d-step-query-product": step_query_product,
    "rope2d-step-query-rotation": step_query_rotation,
    "rope2d-step-key-rotation": step_key_rotation,
    "rope2d-step-conjugate": step_conjugate,
    "rope2d-step-query-times-conjugate": step_query_times_conjugate,
    "rope2d-step-g-real": step_g_real,
    "rope2d-step-inner-product": step_inner_product,
    "rope2d-step-group-terms": step_group_terms,
    "rope2d-step-cos-difference": step_cos_difference,
    "rope2d-step-sin-difference": step_sin_difference,
    "rope2d-step-apply-identities": step_apply_identities,
    "rope2d-step-conclusion": step_conclusion,
}
"""Every displayed equation of the chapter's derivation, by the label it carries in the book."""


def assert_step(label: str, r: Rope2D | None = None) -> sp.Eq:
    """Assert the derivation step with this equation label; return it as an unevaluated sympy equation.

    Raises KeyError for an unknown label and AssertionError (naming the label) if the step is false.
    """
    if label not in ROPE_2D_STEPS:
        raise KeyError(f"no derivation step is labelled {label!r}; known labels: {sorted(ROPE_2D_STEPS)}")
    lhs, rhs = ROPE_2D_STEPS[label](rope_2d() if r is None else r)
    assert_equal(_real_and_imaginary(lhs), _real_and_imaginary(rhs), label)
    return sp.Eq(lhs, rhs, evaluate=False)


def _real_and_imaginary(expr):
    """Write exponentials and conjugates of real symbols as a + i·b, so simplify can compare the parts."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(sp.expand_complex)
    return sp.expand_complex(expr)


def abel_summation(pairs: int) -> tuple:
    """RoFormer eq. 36 for `pairs` terms: Σ_i h_i z_i = −Σ_i S_{i+1}(h_{i+1} − h_i), with h_pairs = 0,
    z_i standing for e^{i(m−n)θ_i} and S_j = z_0 + … + z_{j−1}. Returns (lhs, rhs) (chapter "RoPE in d dimensions")."""
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise ValueError(f"pairs must be a positive int, got {pairs!r}")
    h = list(sp.symbols(f"h0:{pairs}")) + [sp.Integer(0)]
    z = sp.symbols(f"z0:{pairs}")
    S = [sum(z[:j], sp.Integer(0)) for j in range(pairs + 1)]
    return sum(h[i] * z[i] for i in range(pairs)), -sum(S[i + 1] * (h[i + 1] - h[i]) for i in range(pairs))
