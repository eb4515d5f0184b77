"""Chapter "RoPE in two dimensions": the solution of RoFormer eq. 11 in the plane, found, then verified.

The first part derives eq. 12 from the goal and the initial condition f(x, 0) = W x, in polar form;
the second checks the solution in one line, with the rotation matrices of "Rotation matrices". Each entry of
CHECKS gives one displayed equation's sides as the page shows them. CONFIRMATIONS hold the same verification
done the long way, by complex products and the difference formulas, step by step (a step that continues the one
before starts from its result): the page does not display them, its collapsed block "How this page is checked"
shows them as sympy confirmed them.
"""

from __future__ import annotations

import sympy as sp

from ..displayed_equations import Check
from ..language import Words
from ..symbolic import as_complex, rope_2d, rotation_matrix

CHAPTER = "rope_2d.md"

_R = rope_2d()
Q1, Q2 = _R.q
K1, K2 = _R.k
M, N, THETA = _R.m, _R.n, _R.theta
R_Q, R_K, A = sp.symbols("|q| |k| a", positive=True)  # the lengths of q and k, and a radial growth per position
ARG_Q = sp.Symbol("arg_q", real=True)  # the angle of q
R_1, R_2 = sp.symbols("r_1 r_2", positive=True)  # two lengths and two angles: any two complex numbers in polar form
PHI_1, PHI_2 = sp.symbols("varphi_1 varphi_2", real=True)
LENGTHS = {"|q|": R_Q, "|k|": R_K}
"""The page writes the lengths of q and k as |q| and |k|."""
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
        R_1 * sp.exp(sp.I * PHI_1) * sp.conjugate(R_2 * sp.exp(sp.I * PHI_2)),
        R_1 * R_2 * sp.exp(sp.I * (PHI_1 - PHI_2)),
        rule=Words("the conjugate of exp(iφ) is exp(−iφ), and exponents add", "exp(iφ) 的共轭是 exp(−iφ)，指数相加"),
    )


def radial_with_growth() -> Check:
    return Check(
        (R_Q * A**M) * (R_K * A ** (-N)), R_Q * R_K * A ** (M - N), rule=Words("powers of a multiply by adding exponents", "a 的幂相乘，指数相加"), names=LENGTHS
    )


def angle_linear() -> Check:
    return Check(sp.Sum(THETA, (J, 1, M)), M * THETA, rule=Words("m equal terms θ", "m 个相同的项 θ"))


def assembled_query() -> Check:
    return Check(
        R_Q * sp.exp(sp.I * (ARG_Q + M * THETA)),
        (R_Q * sp.exp(sp.I * ARG_Q)) * sp.exp(sp.I * M * THETA),
        rule=Words("exp(i(α + β)) = exp(iα) exp(iβ)", "exp(i(α + β)) = exp(iα) exp(iβ)"),
        names={"|q|": R_Q, r"\arg q": ARG_Q},
    )


# ---- What assumption 1 buys ------------------------------------------------------------------

MIRROR_PAIRS = ((2, 0), (3, 1), (13, 11), (103, 101))
"""The query and key positions at which the chapter compares the mirror rule's scores and complex products."""


def mirror_at_odd_positions(z: complex, position: int) -> complex:
    """z at an even position, its conjugate (z mirrored in the real axis) at an odd one.

    A rule the real goal (RoFormer eq. 11) lets through and the complex goal (assumption 1 of "RoPE in two
    dimensions") does not: it never changes a length, treats queries and keys alike and leaves position 0 alone,
    and Re[f_q f_k*] depends on m − n only (on its parity), but f_q f_k* itself does not.
    """
    return complex(z).conjugate() if position % 2 else complex(z)


def mirror_products(q: complex, k: complex, pairs=MIRROR_PAIRS) -> list[complex]:
    """f_q f_k* under `mirror_at_odd_positions` at each (m, n) of `pairs`; its real part is the score."""
    return [mirror_at_odd_positions(q, m) * mirror_at_odd_positions(k, n).conjugate() for m, n in pairs]


# ---- Checking the solution -------------------------------------------------------------------


def complex_product() -> Check:
    a, b, c, d = sp.symbols("a b c d", real=True)
    return Check((a + sp.I * b) * (c + sp.I * d), (a * c - b * d) + sp.I * (a * d + b * c), rule=Words("multiply out and use i² = −1", "展开相乘，并用 i² = −1"))


def euler() -> Check:
    return Check(sp.exp(sp.I * M * THETA), sp.cos(M * THETA) + sp.I * sp.sin(M * THETA), rule=Words("Euler's formula at the angle mθ", "角度为 mθ 时的欧拉公式"))


def cos_difference() -> Check:
    a, b = sp.symbols("a b", real=True)
    return Check(sp.cos(a - b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b), rule=Words("the addition theorem of the cosine", "余弦的差角公式"))


def sin_difference() -> Check:
    a, b = sp.symbols("a b", real=True)
    return Check(sp.sin(a - b), sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b), rule=Words("the addition theorem of the sine", "正弦的差角公式"))


def query_product() -> Check:
    return Check(as_complex(_R.q) * sp.exp(sp.I * M * THETA), _rotated_query(), rule=Words("Euler's formula, then the product rule with a = q₁, b = q₂", "先用欧拉公式，再用乘法规则，取 a = q₁，b = q₂"))


def query_rotation() -> Check:
    rotated = _rotated_query()  # the previous step's result, read as (real part, imaginary part)
    return Check(
        sp.Matrix([sp.re(rotated), sp.im(rotated)]),
        rotation_matrix(M * THETA) * _R.q,
        rule=Words("the real and imaginary parts of the previous result, written as a matrix times (q₁, q₂)", "上一步结果的实部和虚部，写成一个矩阵乘以 (q₁, q₂)"),
        names={r"f_q(\mathbf{x}_m, m)": sp.Matrix([sp.re(rotated), sp.im(rotated)])},
    )


def key_rotation() -> Check:
    rotated = sp.expand_complex(as_complex(_R.k) * sp.exp(sp.I * N * THETA))
    return Check(
        sp.Matrix([sp.re(rotated), sp.im(rotated)]),
        rotation_matrix(N * THETA) * _R.k,
        rule=Words("the query's steps with k and n in place of q and m", "与查询相同的步骤，把 q 和 m 换成 k 和 n"),
        names={r"f_k(\mathbf{x}_n, n)": sp.Matrix([sp.re(rotated), sp.im(rotated)])},
    )


def conjugate() -> Check:
    return Check(sp.conjugate(as_complex(_R.k)), K1 - sp.I * K2, rule=Words("conjugation flips the sign of the imaginary part", "取共轭就是把虚部变号"))


def query_times_conjugate() -> Check:
    return Check(
        as_complex(_R.q) * (K1 - sp.I * K2), (Q1 * K1 + Q2 * K2) + sp.I * (Q2 * K1 - Q1 * K2), rule=Words("the product rule with c = k₁, d = −k₂", "乘法规则，取 c = k₁，d = −k₂")
    )


def g_real() -> Check:
    g = sp.re(((Q1 * K1 + Q2 * K2) + sp.I * (Q2 * K1 - Q1 * K2)) * sp.exp(sp.I * (M - N) * THETA))  # from the previous step
    return Check(
        g, _relative_form(), rule=Words("the product rule with exp(i(m − n)θ), keeping the real part", "对 exp(i(m − n)θ) 用乘法规则，取实部"), names={r"g(\mathbf{x}_m, \mathbf{x}_n, m-n)": g}
    )


def inner_product() -> Check:
    f_q = rotation_matrix(M * THETA) * _R.q  # the two rotated vectors of the previous steps
    f_k = rotation_matrix(N * THETA) * _R.k
    return Check(f_q.dot(f_k), _inner_product_written_out(), rule=Words("coordinate by coordinate", "逐个坐标相乘再相加"), names={INNER: f_q.dot(f_k)})


def group_terms() -> Check:
    return Check(
        _inner_product_written_out(), _grouped(), rule=Words("multiply out and collect the four products of a q and a k", "展开相乘，按 q 与 k 的四种乘积归并"), names={INNER: _inner_product_written_out()}
    )


def apply_identities() -> Check:
    return Check(_grouped(), _relative_form(), rule=Words("the difference formulas with a = mθ, b = nθ", "差角公式，取 a = mθ，b = nθ"), names={INNER: _grouped()})


def one_line() -> Check:
    """⟨f_q, f_k⟩ = (R(mθ)q)ᵀ(R(nθ)k) = qᵀR((n − m)θ)k = g, the one-line proof with the rotation chapter's rot-relative."""
    f_q, f_k = rotation_matrix(M * THETA) * _R.q, rotation_matrix(N * THETA) * _R.k
    turned = (f_q.T * f_k)[0]
    relative = (_R.q.T * rotation_matrix((N - M) * THETA) * _R.k)[0]
    return Check(
        f_q.dot(f_k), turned, relative, _relative_form(),
        rule=Words("the rotated vectors; R(mθ)ᵀR(nθ) = R((n − m)θ), proved in the chapter Rotation matrices; multiply out",
                   "转过之后的向量；R(mθ)ᵀR(nθ) = R((n − m)θ)，已在“旋转矩阵”一章证明；再乘开"),
        names={
            INNER: f_q.dot(f_k),
            r"\big(R(m\theta)\,\mathbf{q}\big)^\top \big(R(n\theta)\,\mathbf{k}\big)": turned,
            r"\mathbf{q}^\top R\big((n-m)\theta\big)\,\mathbf{k}": relative,
        },
    )


CHECKS = {
    "rope2d-polar-product": polar_product,
    "rope2d-radial-growth": radial_with_growth,
    "rope2d-angle-linear": angle_linear,
    "rope2d-assembled-query": assembled_query,
    "rope2d-step-query-rotation": query_rotation,
    "rope2d-check": one_line,
}
"""Every displayed identity of the chapter, by its label."""

CONFIRMATIONS = {
    "complex-product": complex_product,
    "euler": euler,
    "cos-difference": cos_difference,
    "sin-difference": sin_difference,
    "query-product": query_product,
    "query-rotation": query_rotation,
    "key-rotation": key_rotation,
    "conjugate": conjugate,
    "query-times-conjugate": query_times_conjugate,
    "g-real": g_real,
    "inner-product": inner_product,
    "group-terms": group_terms,
    "apply-identities": apply_identities,
}
"""The verification the long way, by complex numbers and trigonometry, which the page does not display: the query
multiplied by exp(imθ) is the rotated query; g written out in real terms; and the inner product of the two rotated
vectors, its eight products multiplied out and grouped, turned into g by the difference formulas."""

KINDS = Words("a definition", "定义"), Words("the goal", "目标"), Words("a statement whose proof is the text", "由正文证明的命题")
"""What an unchecked displayed line is; each reason of UNCHECKED begins with one, then a colon (issue 36)."""
DEFINITION, GOAL, PROVED_IN_TEXT = range(3)


def _unchecked(kind: int, en: str, zh: str) -> Words:
    """A reason of UNCHECKED: the kind of line (an index into KINDS), then what it is."""
    return Words(f"{KINDS[kind].en}: {en}", f"{KINDS[kind].zh}：{zh}")


UNCHECKED = {
    "rope2d-goal": _unchecked(
        GOAL, "RoFormer's requirement (eq. 11) on the unknown functions f_q, f_k and g",
        "RoFormer 对未知函数 f_q、f_k 和 g 提出的要求（式 11）",
    ),
    "rope2d-complex-goal": _unchecked(
        GOAL, "the stronger, complex form of the goal that the derivation assumes (assumption 1)",
        "推导所假设的更强的复数形式的目标（假设 1）",
    ),
    "rope2d-initial": _unchecked(
        GOAL, "what the encoding must do at position 0 (assumption 2), a requirement on f_q and f_k",
        "编码在位置 0 必须做到的事（假设 2），是对 f_q 和 f_k 的要求",
    ),
    "rope2d-polar-forms": _unchecked(
        DEFINITION, "the names r and φ of the lengths and angles of f_q, f_k and g",
        "f_q、f_k 和 g 的长度与角度的名字 r 和 φ",
    ),
    "rope2d-conditions": _unchecked(
        PROVED_IN_TEXT,
        "the complex goal, {eq}`rope2d-complex-goal`, with the polar forms multiplied by {eq}`rope2d-polar-product` "
        "(checked); two complex numbers are equal when their lengths and their angles are",
        "把极坐标形式按式 {eq}`rope2d-polar-product`（已检验）相乘，代入复数形式的目标 {eq}`rope2d-complex-goal`；"
        "两个复数相等，就是长度和角度分别相等",
    ),
    "rope2d-solution": _unchecked(
        DEFINITION,
        "the functions f_q, f_k and g the theorem names; that they meet the goal is {eq}`rope2d-check`, checked as "
        "displayed",
        "定理所给出的函数 f_q、f_k 和 g；它们满足目标即式 {eq}`rope2d-check`，已按页面上的写法检验",
    ),
}
"""The displayed equations sympy does not check as displayed, each with the kind of line it is: the goal and its
assumptions (requirements on unknown functions), definitions, and the one statement the text proves."""
