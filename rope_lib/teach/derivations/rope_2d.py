"""Chapter "RoPE in two dimensions": the solution of RoFormer eq. 11 in the plane, found, then verified.

The first part derives eq. 12 from the goal and the initial condition f(x, 0) = W x, in polar form;
the second checks the solution step by step. Each entry of CHECKS gives one displayed equation's
sides as the page shows them; a step that continues the one before starts from that step's result.
"""

from __future__ import annotations

import sympy as sp

from ..displayed_equations import Check
from ..symbolic import as_complex, rope_2d, rotation_matrix

CHAPTER = "rope_2d.md"

_R = rope_2d()
Q1, Q2 = _R.q
K1, K2 = _R.k
M, N, THETA = _R.m, _R.n, _R.theta
R_Q, R_K, A = sp.symbols("r_q r_k a", positive=True)  # the lengths |q|, |k|, and a radial growth per position
THETA_Q, THETA_K = sp.symbols("theta_q theta_k", real=True)  # the angles of q and k
RQ_M, RK_N, PHI_Q, PHI_K = sp.symbols("R_q R_k Theta_q Theta_k", real=True)  # polar parts of f_q(x_m, m), f_k(x_n, n)
J = sp.Symbol("j", integer=True)

INNER = r"\langle f_q, f_k\rangle"
"""⟨f_q, f_k⟩: the parser does not read angle brackets; each check says which expression it stands for."""


def _rotated_query():
    return (Q1 * sp.cos(M * THETA) - Q2 * sp.sin(M * THETA)) + sp.I * (Q2 * sp.cos(M * THETA) + Q1 * sp.sin(M * THETA))


def _inner_product_written_out():
    cm, sm, cn, sn = sp.cos(M * THETA), sp.sin(M * THETA), sp.cos(N * THETA), sp.sin(N * THETA)
    return (Q1 * cm - Q2 * sm) * (K1 * cn - K2 * sn) + (Q2 * cm + Q1 * sm) * (K2 * cn + K1 * sn)


def _grouped():
    cm, sm, cn, sn = sp.cos(M * THETA), sp.sin(M * THETA), sp.cos(N * THETA), sp.sin(N * THETA)
    return (Q1 * K1 + Q2 * K2) * (cm * cn + sm * sn) + (Q1 * K2 - Q2 * K1) * (sm * cn - cm * sn)


def _relative_form():
    return (Q1 * K1 + Q2 * K2) * sp.cos((M - N) * THETA) + (Q1 * K2 - Q2 * K1) * sp.sin((M - N) * THETA)


# ---- Finding the solution --------------------------------------------------------------------


def polar_product() -> Check:
    return Check(
        RQ_M * sp.exp(sp.I * PHI_Q) * sp.conjugate(RK_N * sp.exp(sp.I * PHI_K)),
        RQ_M * RK_N * sp.exp(sp.I * (PHI_Q - PHI_K)),
        rule="the conjugate of exp(iΘ) is exp(−iΘ), and exponents add",
    )


def radial_with_growth() -> Check:
    return Check((R_Q * A**M) * (R_K * A ** (-N)), R_Q * R_K * A ** (M - N), rule="powers of a multiply by adding exponents")


def angle_linear() -> Check:
    return Check(sp.Sum(THETA, (J, 1, M)), M * THETA, rule="m equal terms θ")


def assembled_query() -> Check:
    return Check(
        R_Q * sp.exp(sp.I * (THETA_Q + M * THETA)),
        (R_Q * sp.exp(sp.I * THETA_Q)) * sp.exp(sp.I * M * THETA),
        rule="exp(i(α + β)) = exp(iα) exp(iβ)",
    )


# ---- Checking the solution -------------------------------------------------------------------


def complex_product() -> Check:
    a, b, c, d = sp.symbols("a b c d", real=True)
    return Check((a + sp.I * b) * (c + sp.I * d), (a * c - b * d) + sp.I * (a * d + b * c), rule="multiply out and use i² = −1")


def euler() -> Check:
    return Check(sp.exp(sp.I * M * THETA), sp.cos(M * THETA) + sp.I * sp.sin(M * THETA), rule="Euler's formula at the angle mθ")


def cos_difference() -> Check:
    a, b = sp.symbols("a b", real=True)
    return Check(sp.cos(a - b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b), rule="the addition theorem of the cosine")


def sin_difference() -> Check:
    a, b = sp.symbols("a b", real=True)
    return Check(sp.sin(a - b), sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b), rule="the addition theorem of the sine")


def query_product() -> Check:
    return Check(as_complex(_R.q) * sp.exp(sp.I * M * THETA), _rotated_query(), rule="Euler's formula, then the product rule with a = q₁, b = q₂")


def query_rotation() -> Check:
    rotated = _rotated_query()  # the previous step's result, read as (real part, imaginary part)
    return Check(
        sp.Matrix([sp.re(rotated), sp.im(rotated)]),
        rotation_matrix(M * THETA) * _R.q,
        rule="the real and imaginary parts of the previous result, written as a matrix times (q₁, q₂)",
        names={r"f_q(\mathbf{x}_m, m)": sp.Matrix([sp.re(rotated), sp.im(rotated)])},
    )


def key_rotation() -> Check:
    rotated = sp.expand_complex(as_complex(_R.k) * sp.exp(sp.I * N * THETA))
    return Check(
        sp.Matrix([sp.re(rotated), sp.im(rotated)]),
        rotation_matrix(N * THETA) * _R.k,
        rule="the query's steps with k and n in place of q and m",
        names={r"f_k(\mathbf{x}_n, n)": sp.Matrix([sp.re(rotated), sp.im(rotated)])},
    )


def conjugate() -> Check:
    return Check(sp.conjugate(as_complex(_R.k)), K1 - sp.I * K2, rule="conjugation flips the sign of the imaginary part")


def query_times_conjugate() -> Check:
    return Check(
        as_complex(_R.q) * (K1 - sp.I * K2), (Q1 * K1 + Q2 * K2) + sp.I * (Q2 * K1 - Q1 * K2), rule="the product rule with c = k₁, d = −k₂"
    )


def g_real() -> Check:
    g = sp.re(((Q1 * K1 + Q2 * K2) + sp.I * (Q2 * K1 - Q1 * K2)) * sp.exp(sp.I * (M - N) * THETA))  # from the previous step
    return Check(
        g, _relative_form(), rule="the product rule with exp(i(m − n)θ), keeping the real part", names={r"g(\mathbf{x}_m, \mathbf{x}_n, m-n)": g}
    )


def inner_product() -> Check:
    f_q = rotation_matrix(M * THETA) * _R.q  # the two rotated vectors of the previous steps
    f_k = rotation_matrix(N * THETA) * _R.k
    return Check(f_q.dot(f_k), _inner_product_written_out(), rule="coordinate by coordinate", names={INNER: f_q.dot(f_k)})


def group_terms() -> Check:
    return Check(
        _inner_product_written_out(), _grouped(), rule="multiply out and collect the four products of a q and a k", names={INNER: _inner_product_written_out()}
    )


def apply_identities() -> Check:
    return Check(_grouped(), _relative_form(), rule="the difference formulas with a = mθ, b = nθ", names={INNER: _grouped()})


CHECKS = {
    "rope2d-polar-product": polar_product,
    "rope2d-radial-growth": radial_with_growth,
    "rope2d-angle-linear": angle_linear,
    "rope2d-assembled-query": assembled_query,
    "rope2d-step-complex-product": complex_product,
    "rope2d-step-euler": euler,
    "rope2d-step-cos-difference": cos_difference,
    "rope2d-step-sin-difference": sin_difference,
    "rope2d-step-query-product": query_product,
    "rope2d-step-query-rotation": query_rotation,
    "rope2d-step-key-rotation": key_rotation,
    "rope2d-step-conjugate": conjugate,
    "rope2d-step-query-times-conjugate": query_times_conjugate,
    "rope2d-step-g-real": g_real,
    "rope2d-step-inner-product": inner_product,
    "rope2d-step-group-terms": group_terms,
    "rope2d-step-apply-identities": apply_identities,
}
"""Every displayed identity of the chapter, by its label."""

UNCHECKED = {
    "rope2d-goal": "the goal, a requirement on unknown functions",
    "rope2d-complex-goal": "the stronger goal the derivation assumes, a requirement",
    "rope2d-initial": "the initial condition, an assumption",
    "rope2d-polar-forms": "the names of the polar parts, definitions",
    "rope2d-conditions": "what the goal demands of the polar parts, read off two polar forms",
    "rope2d-solution": "the theorem's definitions of f_q, f_k and g, checked step by step below",
    "rope2d-step-conclusion": "the goal restated for the solution; its sides are the results of the two steps before",
}
"""The displayed equations that define or require rather than state an identity."""
