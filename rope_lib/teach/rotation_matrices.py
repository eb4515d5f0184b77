r"""Chapter "2D rotation matrices" (book/rotation_matrices.md): its displayed equations, checked with sympy; its figures
and interactive figure; and the auto-check of its exercise.

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

from functools import partial

import numpy as np
import sympy as sp
from matplotlib.figure import Figure

from ..rotation import rotation_matrix_2d
from .complex_numbers import pair_to_complex
from .shared.checking import CheckResult, Hint, allclose_within, answer_array, call_student, diagnose, mismatch, run_check, shown
from .shared.displayed_equations import Check
from .shared.figure_style import draw_arrow, draw_unit_circle, new_figure, series_style
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text
from .shared.symbolic import as_complex, as_vector

# --- the derivation: the rotation matrix read off the complex product, checked as displayed ---------------------------

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


def _matrix() -> Check:
    """(a′, b′) = R(θ)(a, b) = [[cos θ, −sin θ], [sin θ, cos θ]](a, b), where a′ + ib′ = (a + ib)e^{iθ}."""
    a_turned, b_turned = turned(theta)
    return Check(
        turned(theta),
        rotation(theta) * _ab,
        rotation(theta) * _ab,  # the page writes the matrix out: its entries are compared with the ones read off
        rule=Words("a′ + i b′ = (a + i b) exp(iθ) by cx-turn; R(θ) is the matrix of that linear map, read off its coefficients", "由 cx-turn，a′ + i b′ = (a + i b) exp(iθ)；R(θ) 就是这个线性映射的矩阵，从系数直接读出"),
        names={"a'": a_turned, "b'": b_turned, r"R(\theta)": rotation(theta)},
    )


def _compose() -> Check:
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


def _transpose() -> Check:
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


def _det() -> Check:
    """det R(α) = cos²α + sin²α = 1."""
    return Check(
        rotation(alpha).det(),
        sp.cos(alpha) ** 2 + sp.sin(alpha) ** 2,
        sp.Integer(1),
        rule=Words("the determinant of a 2 × 2 matrix is the product of the diagonal minus the product of the other two entries", "2 × 2 矩阵的行列式等于主对角线之积减去另两个元素之积"),
        names={r"\det R(\alpha)": rotation(alpha).det()},
    )


def _norm() -> Check:
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


def _relative() -> Check:
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
    "rot-matrix": _matrix,
    "rot-compose": _compose,
    "rot-transpose": _transpose,
    "rot-det": _det,
    "rot-norm": _norm,
    "rot-relative": _relative,
}
"""Every labelled display of the chapter, by label: each is checked as displayed."""

UNCHECKED: dict[str, Words] = {}
"""None: every labelled display of the chapter is checked."""


# --- figures: composing rotations, and rotating q and k by their positions --------------------------------------------

def plot_rotation_composition(x, a: float, b: float, *, lang: str = "en") -> Figure:
    """x, R(a)x and R(b)R(a)x next to R(a+b)x: two turns are one turn by the sum, and the length never changes."""
    require_language(lang)
    x = np.asarray(x, dtype=np.float64)
    once = rotation_matrix_2d(a) @ x
    twice = rotation_matrix_2d(b) @ once
    direct = rotation_matrix_2d(a + b) @ x
    fig = new_figure(
        text(
            lang,
            en=f"The plane with a circle of radius |x| = {np.linalg.norm(x):.2f} and three arrows: x = ({x[0]:.2f}, {x[1]:.2f}), "
            f"R(a)x for a = {np.degrees(a):.0f} degrees, and R(b)R(a)x for b = {np.degrees(b):.0f} degrees, which ends at "
            f"({twice[0]:.2f}, {twice[1]:.2f}), the same point as R(a+b)x (open circle). All three arrows have the same length.",
            zh=f"平面上画着一个半径 |x| = {np.linalg.norm(x):.2f} 的圆和三个箭头：x = ({x[0]:.2f}, {x[1]:.2f})，"
            f"a = {np.degrees(a):.0f} 度时的 R(a)x，以及 b = {np.degrees(b):.0f} 度时的 R(b)R(a)x。最后这个箭头终点在 "
            f"({twice[0]:.2f}, {twice[1]:.2f})，与 R(a+b)x（空心圆圈）是同一个点。三个箭头长度相同。",
        ),
        figsize=(4.6, 4.2),
    )
    ax = fig.add_subplot()
    draw_unit_circle(ax, float(np.linalg.norm(x)))
    comma = text(lang, en=", ", zh="，")
    for i, (v, label) in enumerate([(x, "x"), (once, f"R(a)x{comma}a = {np.degrees(a):.0f}°"), (twice, f"R(b)R(a)x{comma}b = {np.degrees(b):.0f}°")]):
        draw_arrow(ax, complex(pair_to_complex(v)), i, label)
    ax.plot([direct[0]], [direct[1]], linestyle="none", marker="o", markersize=16, markerfacecolor="none", color="black", label="R(a+b)x")
    reach = np.linalg.norm(x) + 0.3
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-reach, reach)
    ax.set_xlabel(text(lang, en="first coordinate", zh="第一个坐标"))
    ax.set_ylabel(text(lang, en="second coordinate", zh="第二个坐标"))
    ax.set_title(text(lang, en="R(b)R(a) = R(a+b)", zh="两次旋转：R(b)R(a) = R(a+b)"), fontsize=10)
    ax.legend(loc="lower left", fontsize=8)
    return fig


def turn_text(degrees: float, *, lang: str = "en", digits: int = 1) -> str:
    """A signed angle as a reader says it: 29.7 degrees clockwise for −29.7, counter-clockwise for +29.7
    (the plane's positive turn), and no direction where it rounds to 0."""
    require_language(lang)
    size = round(abs(float(degrees)), digits)
    shown = f"{size:.{digits}f}"
    if size == 0:
        return text(lang, en=f"{shown} degrees", zh=f"{shown} 度")
    if degrees > 0:
        return text(lang, en=f"{shown} degrees counter-clockwise", zh=f"逆时针方向 {shown} 度")
    return text(lang, en=f"{shown} degrees clockwise", zh=f"顺时针方向 {shown} 度")


SHIFTS = tuple(range(8))
"""The shifts s the right panel of `plot_rotated_query_key` draws: 0 to 7."""


def plot_rotated_query_key(q, k, m: int, n: int, theta: float, shift: int = 0, shifts=SHIFTS, *, lang: str = "en") -> Figure:
    """Left: q turned by (m+s)θ and k by (n+s)θ. Right: their dot product against the shift s, flat, beside the dot
    product when the query alone moves on by s, which is not: the score ignores a shift of both."""
    require_language(lang)
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    if q.shape != (2,) or k.shape != (2,):
        raise ValueError(f"q and k must be plane vectors of shape (2,), got {q.shape} and {k.shape}")
    shifts = np.asarray(shifts)
    rq = rotation_matrix_2d((m + shift) * theta) @ q
    rk = rotation_matrix_2d((n + shift) * theta) @ k
    dot = float(rq @ rk)
    both = np.array([(rotation_matrix_2d((m + s) * theta) @ q) @ (rotation_matrix_2d((n + s) * theta) @ k) for s in shifts])
    alone = np.array([(rotation_matrix_2d((m + s) * theta) @ q) @ (rotation_matrix_2d(n * theta) @ k) for s in shifts])
    between = float(np.degrees(np.angle(pair_to_complex(rk) / pair_to_complex(rq))))
    fig = new_figure(
        text(
            lang,
            en=f"Two panels. Left: the plane with the query q turned by (m + s) theta and the key k turned by (n + s) "
            f"theta, for m = {m}, n = {n}, theta = {np.degrees(theta):.1f} degrees and shift s = {shift}; the originals "
            f"are drawn faintly. The key sits {turn_text(between, lang=lang)} from the query and their dot product is "
            f"{dot:.3f}. Right: the dot product against the shift s from {shifts[0]} to {shifts[-1]}: with both positions "
            f"shifted it stays at {dot:.3f}, because both arrows turn by the same extra angle; with the query alone "
            f"moved on by s it goes from {alone.min():.3f} to {alone.max():.3f}.",
            zh=f"两个子图。左图：平面上，查询 q 转过 (m + s)θ，键 k 转过 (n + s)θ，其中 m = {m}，n = {n}，"
            f"θ = {np.degrees(theta):.1f} 度，平移量 s = {shift}；转动前的原向量用浅色画出。键位于查询的"
            f"{turn_text(between, lang=lang)}处，两者的点积为 {dot:.3f}。右图：点积随平移量 s（从 {shifts[0]} 到 "
            f"{shifts[-1]}）的变化：两个位置同时平移时，点积始终是 {dot:.3f}，因为两个箭头多转的角度相同；"
            f"只把查询往后移 s 时，点积在 {alone.min():.3f} 与 {alone.max():.3f} 之间变化。",
        ),
        figsize=(6.0, 3.3),
    )
    plane, scores = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.1]})
    reach = max(np.linalg.norm(q), np.linalg.norm(k))
    draw_unit_circle(plane, float(reach))
    plane.plot([0, q[0]], [0, q[1]], color="0.75", linewidth=1)
    plane.plot([0, k[0]], [0, k[1]], color="0.75", linewidth=1, linestyle="--")
    draw_arrow(plane, complex(pair_to_complex(rq)), 0, f"q: m+s = {m + shift}")
    draw_arrow(plane, complex(pair_to_complex(rk)), 1, f"k: n+s = {n + shift}")
    plane.set_xlim(-reach - 0.3, reach + 0.3)
    plane.set_ylim(-reach - 0.3, reach + 0.3)
    plane.set_xlabel(text(lang, en="first coordinate", zh="第一个坐标"))
    plane.set_ylabel(text(lang, en="second coordinate", zh="第二个坐标"))
    plane.set_title(text(lang, en=f"dot product = {dot:.3f}", zh=f"点积 = {dot:.3f}"), fontsize=10)
    plane.legend(loc="lower left", fontsize=7)
    top = float(np.linalg.norm(q) * np.linalg.norm(k)) * 1.1  # |q·k| never exceeds |q||k|: the same axes for every θ
    scores.plot(shifts, both, markersize=4, label=text(lang, en="both shifted by s", zh="两者同时平移 s"), **series_style(0))
    scores.plot(shifts, alone, markersize=4, label=text(lang, en="query alone moved by s", zh="只移动查询 s"), **series_style(3))
    scores.plot([shift], [dot], linestyle="none", marker="o", markersize=11, markerfacecolor="none", color="black")
    scores.set_xlim(shifts[0] - 0.5, shifts[-1] + 0.5)
    scores.set_ylim(-top, top)
    scores.axhline(0, color="0.8", linewidth=0.6)
    scores.set_xlabel(text(lang, en="shift s", zh="平移量 s"))
    scores.set_ylabel(text(lang, en="dot product", zh="点积"))
    scores.set_title(text(lang, en=f"θ = {np.degrees(theta):.0f}°, m − n = {m - n}", zh=f"θ = {np.degrees(theta):.0f}°，m − n = {m - n}"), fontsize=10)
    scores.grid(True, alpha=0.3)
    scores.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7)  # below: the curves fill the axes
    return fig


THETAS = tuple(float(a) for a in np.radians(np.arange(15, 181, 15)))
"""θ from 15° to 180° in steps of 15°: 12 stops, 45° among them."""


def rotation_shift_widget(q=(1.0, 0.2), k=(0.3, 0.9), m: int = 2, n: int = 0, *, lang: str = "en") -> InteractiveFigure:
    """Sliders for θ and a shift s of both positions (query at m + s, key at n + s): 12 × 8 = 96 frames. θ turns the
    arrows apart and moves the dot product; s turns both together and leaves it where it is."""
    require_language(lang)
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    controls = (
        Control("theta", "θ", THETAS, THETAS[2], fmt=lambda a: f"{np.degrees(a):.0f}°"),
        Control("shift", text(lang, en="shift both by s", zh="两者同时平移 s"), SHIFTS, 0),
    )
    return InteractiveFigure(partial(plot_rotated_query_key, q, k, m, n, shifts=SHIFTS, lang=lang), controls, lang=lang)


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

def _plane_case(rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """A random plane vector and angle, rounded so that the hint prints them exactly."""
    return np.round(rng.standard_normal(2), 3), round(float(rng.uniform(-10, 10)), 4)


def check_rotate(rotate, *, lang: str = "en") -> CheckResult:
    """Exercise rot-ex-complex-code: `rotate(vec, angle)` turns a plane vector counter-clockwise by angle radians."""

    def body(fn):
        rng = np.random.default_rng(3)
        close = allclose_within(1e-9)
        trials = [(np.array([1.0, 0.0]), np.pi / 2), (np.array([0.0, 2.0]), np.pi / 3)]
        trials += [_plane_case(rng) for _ in range(25)]
        for vec, angle in trials:
            call = f"rotate({vec.tolist()}, {angle!r})"
            value = call_student(fn, call, vec, angle)
            if isinstance(value, complex):
                raise Hint(f"{call} returned the complex number {shown(value)}; return the plane vector (x, y), e.g. an array of its real and imaginary parts",
                           f"{call} 返回了复数 {shown(value)}；请返回平面向量 (x, y)，例如由它的实部和虚部组成的数组")
            got = answer_array(value, call, (2,))
            expected = rotation_matrix_2d(angle) @ vec
            if close(got, expected):
                continue
            diagnose(got, [
                (lambda: rotation_matrix_2d(-angle) @ vec,
                 Words(f"{call}: direction — a positive angle turns counter-clockwise: (1, 0) by π/2 gives (0, 1)",
                       f"{call}：方向反了——正角度是逆时针转：(1, 0) 转 π/2 得到 (0, 1)")),
                (lambda: rotation_matrix_2d(np.radians(angle)) @ vec,
                 Words(f"{call}: units — angle is in radians, not degrees", f"{call}：单位不对——angle 的单位是弧度，不是度")),
            ], close)
            if not np.isclose(np.linalg.norm(got), np.linalg.norm(vec)):
                raise Hint(f"{call}: a rotation keeps lengths, but |result| = {np.linalg.norm(got):.4g} and |vec| = {np.linalg.norm(vec):.4g}",
                           f"{call}：旋转不改变长度，但 |result| = {np.linalg.norm(got):.4g}，而 |vec| = {np.linalg.norm(vec):.4g}")
            raise mismatch(call, got, expected, Words("R(angle)·vec", "R(angle)·vec"))

    success = Words("rotate matches rope_lib.rotation.rotation_matrix_2d on 27 vectors and angles, 25 of them seeded random ones.",
                    "rotate 在 27 组向量和角度上（其中 25 组是固定种子的随机输入）都与 rope_lib.rotation.rotation_matrix_2d 一致。")
    return run_check("rot-ex-complex-code", rotate, body, success, lang)
