r"""The displayed equations of chapter "2D rotation matrices" (book/rotation_matrices.md).

Each entry of `CHECKS` returns the `Check` of one labelled display: its sides in the page's order
and the rule that links them. `Page.check` parses the page's LaTeX and compares every side it reads
with these, so a wrong sign on the page fails the chapter.

The rotation matrix is not typed here: `rotation(angle)` is the matrix of the turn
(a + ib) ↦ (a + ib)·e^{i·angle}, read off the complex product (its Jacobian in a and b), which is
what eq. rot-matrix says. Every R(…) of the page stands for it.

sympy's LaTeX parser reads R(α) as an unknown function R applied to α, and ^\top as a power, so
the page's R(…), transposes, determinant and norms are `names`: exact LaTeX → the expression. The
parser cannot see inside a name; the sides around the names (the matrices written out, the
coordinates) are parsed and checked. A change inside a named piece makes the check fail too, since
the page no longer shows the piece the check names.
"""

from __future__ import annotations

import sympy as sp

from rope_lib.teach.displayed_equations import Check
from rope_lib.teach.language import Words
from rope_lib.teach.symbolic import as_complex, as_vector

CHAPTER = "rotation_matrices.md"

a, b, theta, alpha, beta, m, n = sp.symbols("a b theta alpha beta m n", real=True)
x1, x2, q1, q2, k1, k2 = sp.symbols("x_1 x_2 q_1 q_2 k_1 k_2", real=True)
_ab = sp.Matrix([a, b])
_angle = sp.Dummy("angle", real=True)
_ROTATION = as_vector(as_complex(_ab) * sp.exp(sp.I * _angle)).jacobian(_ab)
"""The matrix of the turn by `_angle`, read off the complex product (a + ib)e^{i·angle}."""


def rotation(angle) -> sp.Matrix:
    """R(angle): the matrix of (a, b) ↦ (Re, Im) of (a + ib)e^{i·angle}."""
    return _ROTATION.subs(_angle, angle)


def turned(angle) -> sp.Matrix:
    """(Re, Im) of (a + ib)e^{i·angle}: the point (a, b) turned by `angle`, from complex multiplication."""
    return as_vector(as_complex(_ab) * sp.exp(sp.I * angle))


def matrix() -> Check:
    """(a′, b′) = R(θ)(a, b) = [[cos θ, −sin θ], [sin θ, cos θ]](a, b), where a′ + ib′ = (a + ib)e^{iθ}."""
    a_turned, b_turned = turned(theta)
    return Check(
        turned(theta),
        rotation(theta) * _ab,
        rotation(theta) * _ab,  # the page writes the matrix out: its entries are compared with the ones read off
        rule=Words("a′ + i b′ = (a + i b) exp(iθ) by cx-turn; R(θ) is the matrix of that linear map, read off its coefficients", "由 cx-turn，a′ + i b′ = (a + i b) exp(iθ)；R(θ) 就是这个线性映射的矩阵，从系数直接读出"),
        names={"a'": a_turned, "b'": b_turned, r"R(\theta)": rotation(theta)},
    )


def compose() -> Check:
    """R(α)R(β) = (the product written out) = R(α + β)."""
    ca, sa, cb, sb = sp.cos(alpha), sp.sin(alpha), sp.cos(beta), sp.sin(beta)
    product = sp.Matrix([[ca * cb - sa * sb, -(sa * cb + ca * sb)], [sa * cb + ca * sb, ca * cb - sa * sb]])
    return Check(
        rotation(alpha) * rotation(beta),
        product,
        rotation(alpha + beta),
        rule=Words("multiply the matrices; the entries are the addition formulas of cos and sin", "把矩阵乘开；各元素正是 cos 和 sin 的和角公式"),
        names={r"R(\alpha)": rotation(alpha), r"R(\beta)": rotation(beta), r"R(\alpha + \beta)": rotation(alpha + beta)},
    )


def transpose() -> Check:
    """R(α)ᵀ = (the transpose written out) = R(−α) = R(α)⁻¹."""
    transposed = sp.Matrix([[sp.cos(alpha), sp.sin(alpha)], [-sp.sin(alpha), sp.cos(alpha)]])
    return Check(
        rotation(alpha).T,
        transposed,
        rotation(-alpha),
        rotation(alpha).inv(),
        rule=Words("swap rows and columns; cos is even and sin odd; R(α) R(−α) = R(0) = I by rot-compose", "交换行和列；cos 是偶函数，sin 是奇函数；由 rot-compose，R(α) R(−α) = R(0) = I"),
        names={r"R(\alpha)^\top": rotation(alpha).T, r"R(-\alpha)": rotation(-alpha), r"R(\alpha)^{-1}": rotation(alpha).inv()},
    )


def det() -> Check:
    """det R(α) = cos²α + sin²α = 1."""
    return Check(
        rotation(alpha).det(),
        sp.cos(alpha) ** 2 + sp.sin(alpha) ** 2,
        sp.Integer(1),
        rule=Words("the determinant of a 2 × 2 matrix is the product of the diagonal minus the product of the other two entries", "2 × 2 矩阵的行列式等于主对角线之积减去另两个元素之积"),
        names={r"\det R(\alpha)": rotation(alpha).det()},
    )


def norm() -> Check:
    """‖R(α)x‖² = (x₁cos α − x₂sin α)² + (x₁sin α + x₂cos α)² = x₁² + x₂² = ‖x‖²."""
    x = sp.Matrix([x1, x2])
    rotated = rotation(alpha) * x
    ca, sa = sp.cos(alpha), sp.sin(alpha)
    return Check(
        rotated.dot(rotated),
        (x1 * ca - x2 * sa) ** 2 + (x1 * sa + x2 * ca) ** 2,
        x1**2 + x2**2,
        x.dot(x),
        rule=Words("the squared length is the sum of the squared coordinates; the cross terms cancel and cos² + sin² = 1", "长度的平方是各坐标的平方和；交叉项相消，且 cos² + sin² = 1"),
        names={r"\lVert R(\alpha)\,\mathbf{x}\rVert": sp.sqrt(rotated.dot(rotated)), r"\lVert \mathbf{x} \rVert": sp.sqrt(x.dot(x))},
    )


def relative() -> Check:
    """(R(mθ)q)ᵀ(R(nθ)k) = qᵀR(mθ)ᵀR(nθ)k = qᵀR((n−m)θ)k = (q·k) cos((n−m)θ) + (q₂k₁ − q₁k₂) sin((n−m)θ)."""
    q, k = sp.Matrix([q1, q2]), sp.Matrix([k1, k2])
    scores = [
        ((rotation(m * theta) * q).T * (rotation(n * theta) * k))[0],
        (q.T * rotation(m * theta).T * rotation(n * theta) * k)[0],
        (q.T * rotation((n - m) * theta) * k)[0],
    ]
    angle = (n - m) * theta
    return Check(
        *scores,
        (q1 * k1 + q2 * k2) * sp.cos(angle) + (q2 * k1 - q1 * k2) * sp.sin(angle),
        rule=Words("(Av)ᵀ = vᵀAᵀ; R(mθ)ᵀ = R(−mθ) by rot-transpose and R(−mθ) R(nθ) = R((n − m)θ) by rot-compose; multiply out", "(Av)ᵀ = vᵀAᵀ；由 rot-transpose，R(mθ)ᵀ = R(−mθ)，由 rot-compose，R(−mθ) R(nθ) = R((n − m)θ)；再乘开"),
        names={
            r"\big(R(m\theta)\,\mathbf{q}\big)^\top \big(R(n\theta)\,\mathbf{k}\big)": scores[0],
            r"\mathbf{q}^\top R(m\theta)^\top R(n\theta)\,\mathbf{k}": scores[1],
            r"\mathbf{q}^\top R\big((n-m)\theta\big)\,\mathbf{k}": scores[2],
        },
    )


CHECKS = {
    "rot-matrix": matrix,
    "rot-compose": compose,
    "rot-transpose": transpose,
    "rot-det": det,
    "rot-norm": norm,
    "rot-relative": relative,
}
"""Every labelled display of the chapter, by label: each is checked as displayed."""

UNCHECKED: dict[str, Words] = {}
"""None: every labelled display of the chapter is checked."""
