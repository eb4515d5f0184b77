"""sympy helpers of the book's derivations: RoPE's 2D solution (RoFormer eqs. 11–13) as expressions, and checks.

`rope_2d()` builds f_q, f_k and g from symbols; the `assert_…` functions check
identities and raise AssertionError if one fails. The chapters' displayed equations
are checked as displayed by `rope_lib.teach.shared.displayed_equations`, from the
derivation in each chapter's module (`rope_lib.teach.rope_2d`).
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
    g = sp.collect(g, sorted(g.atoms(sp.cos, sp.sin), key=str))  # (q·k) cos((m−n)θ) + (…) sin((m−n)θ)
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


def abel_summation(pairs: int) -> tuple:
    """RoFormer eq. 36 for `pairs` terms: Σ_i h_i z_i = −Σ_i S_{i+1}(h_{i+1} − h_i), with h_pairs = 0,
    z_i standing for e^{i(m−n)θ_i} and S_j = z_0 + … + z_{j−1}. Returns (lhs, rhs) (chapter "RoPE in d dimensions")."""
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise ValueError(f"pairs must be a positive int, got {pairs!r}")
    h = list(sp.symbols(f"h0:{pairs}")) + [sp.Integer(0)]
    z = sp.symbols(f"z0:{pairs}")
    S = [sum(z[:j], sp.Integer(0)) for j in range(pairs + 1)]
    return sum(h[i] * z[i] for i in range(pairs)), -sum(S[i + 1] * (h[i + 1] - h[i]) for i in range(pairs))
