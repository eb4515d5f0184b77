"""Chapter "Absolute sinusoidal encoding": the identities of the Transformer's table of sines and cosines.

Each entry of CHECKS gives one displayed equation's sides as the page shows them. Where the page writes
a sum over the d/2 pairs, the check takes d = 4 (two pairs) and says so; where it writes the bilinear
forms x^⊤A y of the attention score, the check takes d = 2 with every entry a symbol.
"""

from __future__ import annotations

import sympy as sp

from ..displayed_equations import Check
from ..language import Words
from ..symbolic import rotation_matrix

CHAPTER = "sinusoidal_encoding.md"

M, N = sp.symbols("m n", real=True)  # positions
DELTA = sp.Symbol("Delta", real=True)  # an offset between positions: m + Δ is Δ positions on from m
THETA = sp.Symbol("theta_i", positive=True)  # the frequency θ_i of one pair
I = sp.Symbol("i", integer=True, nonnegative=True)  # a pair index
D = sp.Symbol("d", positive=True, even=True)  # the dimension
I_SUM = sp.Symbol("i")  # the summation index as sympy's parser writes it (a sum binds a plain symbol)
D_SMALL = 4
"""The dimension at which a sum over the pairs is checked: d = 4, pairs i = 0 and 1."""


def _frequency(i, d=D):
    """θ_i = 10000^(−2i/d) (eq. sin-encoding)."""
    return sp.Integer(10000) ** (-2 * i / sp.sympify(d))


def _wavelength(i):
    """λ_i = 2π/θ_i: the positions pair i takes to come back to the same values."""
    return 2 * sp.pi / _frequency(i)


def _pair(position) -> sp.Matrix:
    """(p_{m,2i}, p_{m,2i+1}) = (sin mθ_i, cos mθ_i) at position m (eq. sin-encoding)."""
    return sp.Matrix([sp.sin(position * THETA), sp.cos(position * THETA)])


def _wavelengths() -> Check:
    return Check(
        _wavelength(I + 1) / _wavelength(I),
        sp.Integer(10000) ** (2 / D),
        rule=Words("λ_i = 2π/θ_i with θ_i of eq. sin-encoding: 2π cancels, and the exponents subtract", "λ_i = 2π/θ_i，θ_i 取自公式 sin-encoding：2π 约去，指数相减"),
    )


def _shift() -> Check:
    step = sp.Matrix([[sp.cos(DELTA * THETA), sp.sin(DELTA * THETA)], [-sp.sin(DELTA * THETA), sp.cos(DELTA * THETA)]])
    return Check(
        _pair(M + DELTA),
        step * _pair(M),
        rotation_matrix(-DELTA * THETA) * _pair(M),
        rule=Words("the addition formulas of sin and cos at mθ_i + Δθ_i; the matrix is R(α) at α = −Δθ_i, as cos is even and sin odd", "在 mθ_i + Δθ_i 处用 sin 和 cos 的和角公式；由于 cos 是偶函数、sin 是奇函数，这个矩阵就是 α = −Δθ_i 时的 R(α)"),
        names={r"R(-\Delta\,\theta_i)": rotation_matrix(-DELTA * THETA)},
    )


def _dot() -> Check:
    frequencies = [_frequency(i, D_SMALL) for i in range(D_SMALL // 2)]
    by_coordinates = sum(sp.sin(M * w) * sp.sin(N * w) + sp.cos(M * w) * sp.cos(N * w) for w in frequencies)
    return Check(
        by_coordinates,
        sum(sp.cos((M - N) * w) for w in frequencies),
        rule=Words(f"d = {D_SMALL}, pairs i = 0, 1: each pair adds sin mθ_i sin nθ_i + cos mθ_i cos nθ_i, which is cos((m − n)θ_i)", f"d = {D_SMALL}，维度对 i = 0, 1：每一对贡献 sin mθ_i sin nθ_i + cos mθ_i cos nθ_i，即 cos((m − n)θ_i)"),
        names={r"\mathbf{p}_m^\top \mathbf{p}_n": by_coordinates, r"\theta_i": _frequency(I_SUM, D_SMALL), "d/2": sp.Integer(D_SMALL // 2)},
    )


def _vector(name: str) -> sp.Matrix:
    return sp.Matrix(sp.symbols(f"{name}_1 {name}_2", real=True))


def _four_terms() -> Check:
    x_m, x_n, p_m, p_n = _vector("x_m"), _vector("x_n"), _vector("p_m"), _vector("p_n")
    w_q = sp.Matrix(2, 2, sp.symbols("w_q11 w_q12 w_q21 w_q22", real=True))
    w_k = sp.Matrix(2, 2, sp.symbols("w_k11 w_k12 w_k21 w_k22", real=True))
    a = w_q.T * w_k
    form = lambda u, v: (u.T * a * v)[0]  # noqa: E731  u^⊤ A v
    score = (w_q * (x_m + p_m)).dot(w_k * (x_n + p_n))  # q_m^⊤ k_n with eq. sin-additive
    return Check(
        score,
        form(x_m, x_n) + form(x_m, p_n) + form(p_m, x_n) + form(p_m, p_n),
        rule=Words("d = 2, a symbol for every entry: q_m = W_q(x_m + p_m), k_n = W_k(x_n + p_n) and A = W_qᵀW_k, multiplied out", "d = 2，每个元素各取一个符号：q_m = W_q(x_m + p_m)，k_n = W_k(x_n + p_n)，A = W_qᵀW_k，乘开"),
        names={
            r"\mathbf{q}_m^\top \mathbf{k}_n": score,
            r"\mathbf{x}_m^\top A\,\mathbf{x}_n": form(x_m, x_n),
            r"\mathbf{x}_m^\top A\,\mathbf{p}_n": form(x_m, p_n),
            r"\mathbf{p}_m^\top A\,\mathbf{x}_n": form(p_m, x_n),
            r"\mathbf{p}_m^\top A\,\mathbf{p}_n": form(p_m, p_n),
        },
    )


CHECKS = {
    "sin-wavelengths": _wavelengths,
    "sin-shift": _shift,
    "sin-dot": _dot,
    "sin-four-terms": _four_terms,
}
"""Every displayed identity of the chapter, by its label."""

UNCHECKED = {
    "sin-additive": Words("a definition: the additive encoding, f_q(x_m, m) = W_q(x_m + p_m) and likewise for k and v",
                          "定义：加性编码，f_q(x_m, m) = W_q(x_m + p_m)，k 和 v 同理"),
    "sin-encoding": Words("a definition: the table of sines and cosines and its frequencies θ_i", "定义：正弦余弦表及其频率 θ_i"),
}
"""The displayed equations that define rather than state an identity: each reason says first what kind of line it is
("a definition"), then what it defines. There is nothing for sympy to prove in a definition; the chapter's cells assert that
rope_lib computes the table and the frequencies as defined."""


def _shift_in_cosine_first_order() -> Check:
    swap = sp.Matrix([[0, 1], [1, 0]])  # (sin, cos) ↦ (cos, sin)
    return Check(
        swap * _pair(M + DELTA),
        rotation_matrix(DELTA * THETA) * (swap * _pair(M)),
        rule=Words(
            "the step of eq. sin-shift with the cosine written first: the same addition formulas give R(+Δθ_i), the counter-clockwise turn RoPE uses",
            "把公式 sin-shift 的这一步改成余弦在前：同样的和角公式给出 R(+Δθ_i)，即 RoPE 所用的逆时针转动",
        ),
    )


CONFIRMATIONS = {
    "the step in (cos, sin) order": _shift_in_cosine_first_order,
}
"""A step the page states in words and does not display; sympy confirms it."""
