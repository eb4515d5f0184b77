"""Chapter "RoPE in two dimensions" (book/rope_2d.md): the solution of RoFormer eq. 11 in the plane, found, then
verified with sympy; the chapter's figure and its centrepiece, the interactive figure; and the auto-checks of its
exercises.

The first part derives eq. 12 from the goal and the initial condition f(x, 0) = W x, in polar form;
the second checks the solution in one line, with the rotation matrices of "Rotation matrices". Each entry of
CHECKS gives one displayed equation's sides as the page shows them. CONFIRMATIONS hold the same verification
done the long way, by complex products and the difference formulas, step by step (a step that continues the one
before starts from its result): the page does not display them, its collapsed block "How this page is checked"
shows them as sympy confirmed them.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..rotation import rotation_matrix_2d, score_grid
from .shared.checking import CheckResult, Hint, answer_array, answer_number, call_student, diagnose, mismatch, run_check
from .shared.displayed_equations import Check
from .shared.figure_style import SEQUENTIAL_CMAP, new_figure, series_style
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text
from .shared.symbolic import as_complex, rope_2d, rotation_matrix

# --- the derivation: RoFormer eq. 11 solved in the plane, then verified -----------------------------------------------

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


def _polar_product() -> Check:
    return Check(
        R_1 * sp.exp(sp.I * PHI_1) * sp.conjugate(R_2 * sp.exp(sp.I * PHI_2)),
        R_1 * R_2 * sp.exp(sp.I * (PHI_1 - PHI_2)),
        rule=Words("the conjugate of exp(iφ) is exp(−iφ), and exponents add", "exp(iφ) 的共轭是 exp(−iφ)，指数相加"),
    )


def _radial_with_growth() -> Check:
    return Check(
        (R_Q * A**M) * (R_K * A ** (-N)), R_Q * R_K * A ** (M - N), rule=Words("powers of a multiply by adding exponents", "a 的幂相乘，指数相加"), names=LENGTHS
    )


def _angle_linear() -> Check:
    return Check(sp.Sum(THETA, (J, 1, M)), M * THETA, rule=Words("m equal terms θ", "m 个相同的项 θ"))


def _assembled_query() -> Check:
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


def _complex_product() -> Check:
    a, b, c, d = sp.symbols("a b c d", real=True)
    return Check((a + sp.I * b) * (c + sp.I * d), (a * c - b * d) + sp.I * (a * d + b * c), rule=Words("multiply out and use i² = −1", "展开相乘，并用 i² = −1"))


def _euler() -> Check:
    return Check(sp.exp(sp.I * M * THETA), sp.cos(M * THETA) + sp.I * sp.sin(M * THETA), rule=Words("Euler's formula at the angle mθ", "角度为 mθ 时的欧拉公式"))


def _cos_difference() -> Check:
    a, b = sp.symbols("a b", real=True)
    return Check(sp.cos(a - b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b), rule=Words("the addition theorem of the cosine", "余弦的差角公式"))


def _sin_difference() -> Check:
    a, b = sp.symbols("a b", real=True)
    return Check(sp.sin(a - b), sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b), rule=Words("the addition theorem of the sine", "正弦的差角公式"))


def _query_product() -> Check:
    return Check(as_complex(_R.q) * sp.exp(sp.I * M * THETA), _rotated_query(), rule=Words("Euler's formula, then the product rule with a = q₁, b = q₂", "先用欧拉公式，再用乘法规则，取 a = q₁，b = q₂"))


def _query_rotation() -> Check:
    rotated = _rotated_query()  # the previous step's result, read as (real part, imaginary part)
    return Check(
        sp.Matrix([sp.re(rotated), sp.im(rotated)]),
        rotation_matrix(M * THETA) * _R.q,
        rule=Words("the real and imaginary parts of the previous result, written as a matrix times (q₁, q₂)", "上一步结果的实部和虚部，写成一个矩阵乘以 (q₁, q₂)"),
        names={r"f_q(\mathbf{x}_m, m)": sp.Matrix([sp.re(rotated), sp.im(rotated)])},
    )


def _key_rotation() -> Check:
    rotated = sp.expand_complex(as_complex(_R.k) * sp.exp(sp.I * N * THETA))
    return Check(
        sp.Matrix([sp.re(rotated), sp.im(rotated)]),
        rotation_matrix(N * THETA) * _R.k,
        rule=Words("the query's steps with k and n in place of q and m", "与查询相同的步骤，把 q 和 m 换成 k 和 n"),
        names={r"f_k(\mathbf{x}_n, n)": sp.Matrix([sp.re(rotated), sp.im(rotated)])},
    )


def _conjugate() -> Check:
    return Check(sp.conjugate(as_complex(_R.k)), K1 - sp.I * K2, rule=Words("conjugation flips the sign of the imaginary part", "取共轭就是把虚部变号"))


def _query_times_conjugate() -> Check:
    return Check(
        as_complex(_R.q) * (K1 - sp.I * K2), (Q1 * K1 + Q2 * K2) + sp.I * (Q2 * K1 - Q1 * K2), rule=Words("the product rule with c = k₁, d = −k₂", "乘法规则，取 c = k₁，d = −k₂")
    )


def _g_real() -> Check:
    g = sp.re(((Q1 * K1 + Q2 * K2) + sp.I * (Q2 * K1 - Q1 * K2)) * sp.exp(sp.I * (M - N) * THETA))  # from the previous step
    return Check(
        g, _relative_form(), rule=Words("the product rule with exp(i(m − n)θ), keeping the real part", "对 exp(i(m − n)θ) 用乘法规则，取实部"), names={r"g(\mathbf{x}_m, \mathbf{x}_n, m-n)": g}
    )


def _inner_product() -> Check:
    f_q = rotation_matrix(M * THETA) * _R.q  # the two rotated vectors of the previous steps
    f_k = rotation_matrix(N * THETA) * _R.k
    return Check(f_q.dot(f_k), _inner_product_written_out(), rule=Words("coordinate by coordinate", "逐个坐标相乘再相加"), names={INNER: f_q.dot(f_k)})


def _group_terms() -> Check:
    return Check(
        _inner_product_written_out(), _grouped(), rule=Words("multiply out and collect the four products of a q and a k", "展开相乘，按 q 与 k 的四种乘积归并"), names={INNER: _inner_product_written_out()}
    )


def _apply_identities() -> Check:
    return Check(_grouped(), _relative_form(), rule=Words("the difference formulas with a = mθ, b = nθ", "差角公式，取 a = mθ，b = nθ"), names={INNER: _grouped()})


def _one_line() -> Check:
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
    "rope2d-polar-product": _polar_product,
    "rope2d-radial-growth": _radial_with_growth,
    "rope2d-angle-linear": _angle_linear,
    "rope2d-assembled-query": _assembled_query,
    "rope2d-step-query-rotation": _query_rotation,
    "rope2d-check": _one_line,
}
"""Every displayed identity of the chapter, by its label."""

CONFIRMATIONS = {
    "complex-product": _complex_product,
    "euler": _euler,
    "cos-difference": _cos_difference,
    "sin-difference": _sin_difference,
    "query-product": _query_product,
    "query-rotation": _query_rotation,
    "key-rotation": _key_rotation,
    "conjugate": _conjugate,
    "query-times-conjugate": _query_times_conjugate,
    "g-real": _g_real,
    "inner-product": _inner_product,
    "group-terms": _group_terms,
    "apply-identities": _apply_identities,
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


# --- figures: a query and a key turned to their positions -------------------------------------------------------------

DEFAULT_Q = (1.0, 0.35)
"""The query W_q x_m of the chapter's pictures, a plane vector."""
DEFAULT_K = (0.45, 0.8)
"""The key W_k x_n of the chapter's pictures."""


def _vector(v, name: str) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    if v.shape != (2,):
        raise ValueError(f"{name} must be a plane vector of shape (2,), got shape {v.shape}")
    return v


def plot_rope_2d(m: int, n: int, theta: float, shift: int = 0, *, q=DEFAULT_Q, k=DEFAULT_K, positions: int = 8, lang: str = "en") -> Figure:
    """Left: q turned by (m+s)θ and k by (n+s)θ, their score in the title. Right: score(m, n) for
    every pair of positions, with the chosen pair marked; moving both by s slides along a diagonal."""
    require_language(lang)
    q, k = _vector(q, "q"), _vector(k, "k")
    if not 0 <= m + shift < positions or not 0 <= n + shift < positions:
        raise ValueError(f"m + shift and n + shift must lie in 0 … {positions - 1}, got m={m}, n={n}, shift={shift}")
    grid = score_grid(q, k, range(positions), inv_freq=[theta])  # (P, P)
    pm, pn = m + shift, n + shift
    score = grid[pm, pn]
    fig = new_figure(
        text(
            lang,
            en=f"Two panels. Left: a query arrow turned by (m + s)·θ = {pm}·{theta:g} rad and a key arrow turned by "
            f"(n + s)·θ = {pn}·{theta:g} rad, for m = {m}, n = {n}, shift s = {shift}; their dot product is {score:.3f}, "
            f"and it stays {score:.3f} for every shift because both arrows turn by the same extra angle. Right: heatmap "
            f"of the score for query positions 0 to {positions - 1} (rows) and key positions 0 to {positions - 1} "
            f"(columns), constant along each diagonal m − n; a marker sits at ({pm}, {pn}) on the diagonal m − n = {m - n}.",
            zh=f"左右两幅图。左图：查询箭头转过 (m + s)·θ = {pm}·{theta:g} 弧度，键箭头转过 (n + s)·θ = {pn}·{theta:g} 弧度，"
            f"其中 m = {m}，n = {n}，平移 s = {shift}；二者的点积为 {score:.3f}，而且无论平移多少都保持 {score:.3f}，"
            f"因为两个箭头多转了同一个角度。右图：热力图，行是查询位置 0 到 {positions - 1}，列是键位置 0 到 {positions - 1}，"
            f"画出每对位置的得分，沿每条 m − n 为常数的对角线取值不变；圆圈标在 ({pm}, {pn})，位于 m − n = {m - n} 的对角线上。",
        ),
        figsize=(8.0, 3.8),
    )
    arrows, heat = fig.subplots(1, 2, width_ratios=(1, 1.15))

    unit = np.linspace(0, 2 * np.pi, 121)
    arrows.plot(np.cos(unit), np.sin(unit), color="0.85", linewidth=0.8)
    for i, (name, vector, position) in enumerate((("q", q, pm), ("k", k, pn))):
        style = series_style(i)
        turned = rotation_matrix_2d(position * theta) @ vector
        arrows.annotate("", xy=vector, xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": style["color"], "alpha": 0.35, "linestyle": style["linestyle"]})
        arrows.annotate("", xy=turned, xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": style["color"], "linewidth": 2, "linestyle": style["linestyle"]})
        arrows.plot(*turned, marker=style["marker"], color=style["color"], linestyle="none", label=text(lang, en=f"{name} at position {position}", zh=f"位置 {position} 处的 {name}"))
    arrows.set_aspect("equal")
    arrows.set_xlim(-1.25, 1.25)
    arrows.set_ylim(-1.25, 1.25)
    arrows.legend(loc="lower left", fontsize=8)
    arrows.set_title(text(lang, en=f"score = {score:.3f}   (m − n = {m - n})", zh=f"得分 = {score:.3f}   （m − n = {m - n}）"), fontsize=10)

    extent = (-0.5, positions - 0.5, positions - 0.5, -0.5)
    image = heat.imshow(grid, cmap=SEQUENTIAL_CMAP, extent=extent)
    offsets = np.arange(positions)
    heat.plot(offsets, offsets + (m - n), color="white", linestyle="--", linewidth=1)
    heat.plot(pn, pm, marker="o", markersize=10, markerfacecolor="none", markeredgecolor="white", markeredgewidth=2)
    heat.set_xlim(-0.5, positions - 0.5)
    heat.set_ylim(positions - 0.5, -0.5)
    heat.xaxis.set_major_locator(MaxNLocator(integer=True))  # positions are whole numbers
    heat.yaxis.set_major_locator(MaxNLocator(integer=True))
    heat.set_xlabel(text(lang, en="key position n + s", zh="键位置 n + s"))
    heat.set_ylabel(text(lang, en="query position m + s", zh="查询位置 m + s"))
    heat.set_title(text(lang, en=f"score for every pair, θ = {theta:g}", zh=f"每对位置的得分，θ = {theta:g}"), fontsize=10)
    fig.colorbar(image, ax=heat, label=text(lang, en="score", zh="得分"))
    return fig


QUERY_POSITIONS = tuple(range(8))
"""The query positions m the first slider offers."""
SHIFTS = tuple(range(8))
"""The shifts s the second slider offers: both tokens move by s."""
KEY_POSITION = 1
"""The key's position n, fixed: moving m alone already changes m − n."""
WIDGET_THETA = 0.35
"""The interactive figure's angle per position θ (radians), fixed, so that 8 × 8 frames show every m − n and every
shift. (THETA is the derivation's symbol θ.)"""
GRID_POSITIONS = max(QUERY_POSITIONS) + max(SHIFTS) + 1
"""The heatmap's side: room for the query at m + s with the largest m and s."""


def rope_2d_widget(*, lang: str = "en") -> InteractiveFigure:
    """8 × 8 = 64 frames: q at m + s, k at n + s (n = 1, θ = 0.35); the score changes with m − n, never with s."""
    require_language(lang)

    def draw(m, shift):
        return plot_rope_2d(m, KEY_POSITION, WIDGET_THETA, shift, positions=GRID_POSITIONS, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("m", text(lang, en="query position m", zh="查询位置 m"), QUERY_POSITIONS, 3),
            Control("shift", text(lang, en="shift both by s", zh="两者同时平移 s"), SHIFTS, 0),
        ),
        lang=lang,
    )


# --- the exercises' auto-checks ---------------------------------------------------------------------------------------

def _score_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int, int, float]:
    """Random q, k, m, n and θ for the 2D score, rounded so that the hint prints them exactly."""
    q, k = np.round(rng.standard_normal(2), 3), np.round(rng.standard_normal(2), 3)
    m, n = (int(v) for v in rng.integers(0, 5000, size=2))
    return q, k, m, n, round(float(rng.uniform(-3, 3)), 4)


def check_score_complex(score_complex, *, lang: str = "en") -> CheckResult:
    """Exercise rope2d-ex-code: `score_complex(q, k, m, n, theta)` = Re[q k* e^(i(m−n)θ)], the 2D RoPE score."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(5)
        close = lambda a, b: np.isclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for q, k, m, n, theta in [_score_case(rng) for _ in range(200)]:
            call = f"score_complex(q={q.tolist()}, k={k.tolist()}, m={m}, n={n}, theta={theta!r})"
            value = call_student(fn, call, q, k, m, n, theta)
            if isinstance(value, complex) and value.imag != 0:
                raise Hint(f"{call} returned a complex number; the score is the real part (eq. rope2d-solution)",
                           f"{call} 返回了复数；得分是实部（式 rope2d-solution）")
            got = answer_number(value, call)
            expected = (rotation_matrix_2d(m * theta) @ q) @ (rotation_matrix_2d(n * theta) @ k)
            if close(got, expected):
                continue
            zq, zk = complex(*q), complex(*k)
            diagnose(got, [
                (lambda: (zq * zk.conjugate() * np.exp(1j * (n - m) * theta)).real,
                 Words(f"{call}: sign — your score at (m, n) is the true score at (n, m): the angle is (m − n)θ, not (n − m)θ",
                       f"{call}：符号错了——你在 (m, n) 处的得分其实是 (n, m) 处的正确得分：角度是 (m − n)θ，不是 (n − m)θ")),
                (lambda: (zq * zk * np.exp(1j * (m - n) * theta)).real,
                 Words(f"{call}: conjugate — the key enters as its conjugate k*, as in ⟨a, b⟩ = Re[a b*]",
                       f"{call}：共轭——键要取共轭 k* 再参与运算，正如 ⟨a, b⟩ = Re[a b*]")),
                (lambda: (zq * zk.conjugate() * np.exp(1j * (m + n) * theta)).real,
                 Words(f"{call}: the score must depend on m − n only; yours depends on m + n",
                       f"{call}：得分只能依赖 m − n；你的结果依赖 m + n")),
                (lambda: abs(zq * zk.conjugate() * np.exp(1j * (m - n) * theta)),
                 Words(f"{call}: take the real part, not the modulus", f"{call}：要取实部，而不是模")),
            ], close)
            raise mismatch(call, got, expected, Words("the dot product of q turned by mθ and k turned by nθ", "q 转过 mθ 与 k 转过 nθ 之后的点积"))

    return run_check("rope2d-ex-code", score_complex, body,
                     Words("score_complex matches the rotation-matrix score on 200 seeded random queries, keys and positions.",
                           "score_complex 在 200 组随机的查询、键和位置（固定种子）上，都与旋转矩阵算出的得分一致。"), lang)


def _rule_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """Random q, k (rounded so that a hint prints them exactly), positions m, n and a shift s of both."""
    q, k = np.round(rng.standard_normal(2), 3), np.round(rng.standard_normal(2), 3)
    m, n, s = (int(v) for v in rng.integers(0, 30, size=3))
    return q, k, m, n, s


def check_real_goal_rule(real_goal_rule, *, lang: str = "en") -> CheckResult:
    """Exercise rope2d-ex-real-goal: `real_goal_rule(q, k, m, n)` returns (f_q, f_k), two plane vectors, by a rule that leaves
    position 0 alone, whose dot product depends on m − n only (the real goal, RoFormer eq. 11), whose query length
    changes with its position, and whose complex product f_q f_k* does not depend on m − n only (so the complex goal,
    assumption 1 of the chapter, rules it out)."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(11)
        close = lambda a, b: bool(np.isclose(a, b, rtol=1e-9, atol=1e-9))  # noqa: E731
        length_changes = complex_moves = False
        for q, k, m, n, s in [_rule_case(rng) for _ in range(60)]:
            def encoded(m_, n_):
                call = f"real_goal_rule(q={q.tolist()}, k={k.tolist()}, m={m_}, n={n_})"
                value = call_student(fn, call, q.copy(), k.copy(), m_, n_)
                if value is None:
                    raise Hint(f"{call} returned None: return the result, (f_q, f_k) (is a return statement missing?)",
                               f"{call} 返回了 None：请返回结果 (f_q, f_k)（是不是少了 return 语句？）")
                if not isinstance(value, (tuple, list)) or len(value) != 2:
                    raise Hint(f"{call} must return two plane vectors, (f_q, f_k); got {type(value).__name__}",
                               f"{call} 应返回两个平面向量 (f_q, f_k)；得到的是 {type(value).__name__}")
                return call, answer_array(value[0], call + "[0]", (2,)), answer_array(value[1], call + "[1]", (2,))
            call, f_q, f_k = encoded(0, 0)
            if not (np.allclose(f_q, q, rtol=0, atol=1e-12) and np.allclose(f_k, k, rtol=0, atol=1e-12)):
                raise Hint(f"{call} should return q and k unchanged: position 0 changes nothing (assumption 2)",
                           f"{call} 应原样返回 q 和 k：位置 0 什么都不改变（假设 2）")
            call, f_q, f_k = encoded(m, n)
            shifted, g_q, g_k = encoded(m + s, n + s)
            if not close(f_q @ f_k, g_q @ g_k):
                raise Hint(f"{call} and {shifted} give different dot products, though m − n is the same: the real goal fails",
                           f"{call} 与 {shifted} 的 m − n 相同，点积却不同：实数形式的目标不成立")
            length_changes |= not close(np.linalg.norm(f_q), np.linalg.norm(q))
            complex_moves |= not close(complex(*f_q) * complex(*f_k).conjugate(), complex(*g_q) * complex(*g_k).conjugate())
        if not length_changes:
            raise Hint("your query keeps its length at every position, as RoPE's does; the exercise asks for a rule that changes it",
                       "你的查询在每个位置都保持长度，和 RoPE 一样；本题要的是一个会改变查询长度的规则")
        if not complex_moves:
            raise Hint("your rule meets the complex goal too (f_q f_k* depends on m − n only), as xPos's growth does; look for one "
                       "that meets only the real goal: stretch one coordinate and shrink the other",
                       "你的规则连复数形式的目标也满足（f_q f_k* 只依赖 m − n），就像 xPos 的增长那样；请找一个只满足实数目标的规则："
                       "把一个坐标拉长，另一个缩短")

    return run_check("rope2d-ex-real-goal", real_goal_rule, body,
                     Words("on 60 seeded random queries, keys and positions your rule leaves position 0 alone, its dot product "
                           "depends on m − n only and its query length changes with position, yet its complex product does not "
                           "depend on m − n only: the real goal alone does not force RoPE.",
                           "在 60 组随机的查询、键和位置（固定种子）上，你的规则不改变位置 0，点积只依赖 m − n，查询长度随位置变化，"
                           "而复数乘积却不只依赖 m − n：单凭实数形式的目标推不出 RoPE。"), lang)
