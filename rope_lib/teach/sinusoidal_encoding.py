"""Chapter "Absolute sinusoidal encoding" (book/sinusoidal_encoding.md): the identities of the Transformer's table of
sines and cosines, checked with sympy; its figures and interactive figure; and the auto-check of its exercise.

Each entry of CHECKS gives one displayed equation's sides as the page shows them (the chapter builds
`displayed_equations.Page.of(sinusoidal_encoding)`). Where the page writes a sum over the d/2 pairs, the check takes
d = 4 (two pairs) and says so; where it writes the bilinear forms x^⊤A y of the attention score, the check takes d = 2
with every entry a symbol.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import sympy as sp
from matplotlib.figure import Figure

from .._validate import require_even_dim
from ..frequencies import DEFAULT_BASE, inv_freq, wavelengths
from ..sinusoidal import absolute_position_score, sinusoidal_encoding, sinusoidal_pair, sinusoidal_position
from .shared.checking import CheckResult, F32_EPS, Hint, allclose_within, answer_array, call_student, diagnose, float32_hint, inv_freq_counted_from_one, run_check
from .shared.displayed_equations import Check
from .shared.figure_style import DIVERGING_CMAP, draw_unit_circle, new_figure, series_style, subscript
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text
from .shared.symbolic import rotation_matrix

# --- the derivation: the sinusoidal table's identities, checked as displayed ------------------------------------------

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


# --- figures: the table P, one pair on its circle, and scores under a shift -------------------------------------------

def plot_sinusoidal_encoding(seq_len: int, d: int, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """Heatmap of P: row m is p_m, column j one coordinate; columns oscillate more slowly from left to right."""
    require_language(lang)
    table = sinusoidal_encoding(seq_len, d, base)
    lam = wavelengths(d, base)
    fig = new_figure(
        text(
            lang,
            en=f"Heatmap of the sinusoidal position table P with {seq_len} positions as rows and d = {d} coordinates as "
            f"columns, coloured from -1 to 1. Even columns hold sines and odd columns cosines; the pattern changes fast "
            f"in the left columns (wavelength {lam[0]:.2f} positions) and slowly on the right (wavelength "
            f"{lam[-1]:,.0f} positions), where the columns look constant.",
            zh=f"正弦位置编码表 P 的热力图：{seq_len} 个位置为行，d = {d} 个坐标为列，颜色从 -1 到 1。"
            f"偶数列是正弦，奇数列是余弦；左侧各列变化很快（波长 {lam[0]:.2f} 个位置），越往右变化越慢"
            f"（波长 {lam[-1]:,.0f} 个位置），最右边的列看起来几乎不变。",
        ),
        figsize=(6, 4),
    )
    ax = fig.add_subplot()
    image = ax.imshow(table, cmap=DIVERGING_CMAP, vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xlabel(text(lang, en="coordinate j (even: sin, odd: cos)", zh="坐标 j（偶数：sin，奇数：cos）"))
    ax.set_ylabel(text(lang, en="position m", zh="位置 m"))
    ax.set_title(text(lang, en=f"sinusoidal encoding P, {seq_len} positions, d = {d}", zh=f"正弦位置编码 P，{seq_len} 个位置，d = {d}"))
    fig.colorbar(image, ax=ax, label="$p_{m,j}$")
    return fig


def plot_sinusoidal_pair(m: int, i: int, d: int, base: float = DEFAULT_BASE, trail: int = 12, *, lang: str = "en") -> Figure:
    """The point (p_{m,2i}, p_{m,2i+1}) = (sin mθ_i, cos mθ_i) of pair i on the unit circle, with the positions before it."""
    require_language(lang)
    theta = float(inv_freq(d, base)[i])
    previous = np.arange(max(0, m - trail), m + 1)
    points = sinusoidal_pair(previous, i, d, base)  # (len(previous), 2)
    here = points[-1]
    fig = new_figure(
        text(
            lang,
            en=f"The unit circle with horizontal axis p_(m,2i) (the sine) and vertical axis p_(m,2i+1) (the cosine), for "
            f"pair i = {i} of d = {d} (frequency {theta:.4g} radians per position). The point of position m = {m} is "
            f"at ({here[0]:.3f}, {here[1]:.3f}), angle {np.degrees(m * theta) % 360:.1f} degrees clockwise from the "
            f"top; dots mark positions {previous[0]} to {m}, each {np.degrees(theta):.2f} degrees further clockwise.",
            zh=f"单位圆，横轴为 p_(m,2i)（正弦），纵轴为 p_(m,2i+1)（余弦），画的是 d = {d} 中的第 i = {i} 对"
            f"（频率为每个位置 {theta:.4g} 弧度）。位置 m = {m} 的点位于 ({here[0]:.3f}, {here[1]:.3f})，"
            f"从正上方顺时针转过 {np.degrees(m * theta) % 360:.1f} 度；圆点标出位置 {previous[0]} 到 {m}，"
            f"每个比前一个再顺时针转 {np.degrees(theta):.2f} 度。",
        ),
        figsize=(4.4, 4.2),
    )
    ax = fig.add_subplot()
    draw_unit_circle(ax)
    trail_style, point_style = series_style(0), series_style(1)
    ax.plot(points[:, 0], points[:, 1], linestyle=":", marker=".", color=trail_style["color"], label=text(lang, en=f"positions {previous[0]}…{m}", zh=f"位置 {previous[0]}…{m}"))
    ax.annotate("", xy=tuple(here), xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": point_style["color"], "linewidth": 1.8})
    ax.plot([here[0]], [here[1]], linestyle="none", marker=point_style["marker"], markersize=9, color=point_style["color"], label=text(lang, en=f"position m = {m}", zh=f"位置 m = {m}"))
    ax.set_xlim(-1.25, 1.25)
    ax.set_ylim(-1.25, 1.25)
    ax.set_xlabel(f"$p_{{m,{2 * i}}} = \\sin(m\\,\\theta_{i})$")
    ax.set_ylabel(f"$p_{{m,{2 * i + 1}}} = \\cos(m\\,\\theta_{i})$")
    # mathtext has no Chinese glyphs: the Chinese title writes θ in Unicode
    ax.set_title(text(lang, en=f"pair i = {i}, $\\theta_{i}$ = {theta:.4g}, m = {m}", zh=f"第 i = {i} 对，θ{subscript(i)} = {theta:.4g}，m = {m}"), fontsize=10)
    ax.legend(loc="lower left", fontsize=8)
    return fig


def plot_absolute_scores_under_shift(x_m, x_n, w_q, w_k, m: int, n: int, shifts, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """Shift both positions by s: p_{m+s}·p_{n+s} stays flat, the projected score (W_q(x_m+p))·(W_k(x_n+p)) moves."""
    require_language(lang)
    shifts = np.asarray(shifts)
    d = len(x_m)
    p_only = np.array([sinusoidal_position(m + s, d, base) @ sinusoidal_position(n + s, d, base) for s in shifts])
    full = np.array([absolute_position_score(x_m, x_n, m + s, n + s, w_q, w_k, base) for s in shifts])
    fig = new_figure(
        text(
            lang,
            en=f"Line chart against a shift s from {shifts[0]} to {shifts[-1]} applied to both positions (query at {m} + s, "
            f"key at {n} + s, d = {d}). The dot product of the two position vectors stays at {p_only[0]:.3f} for every s; "
            f"the score of the projected sums (W_q(x_m + p_m))·(W_k(x_n + p_n)) wanders between {full.min():.2f} and "
            f"{full.max():.2f}, so with the projections the score is no longer a function of m − n alone.",
            zh=f"折线图，横轴是同时施加在两个位置上的平移量 s，从 {shifts[0]} 到 {shifts[-1]}（查询在 {m} + s，"
            f"键在 {n} + s，d = {d}）。两个位置向量的点积对每个 s 都保持为 {p_only[0]:.3f}；而投影后的和的得分 "
            f"(W_q(x_m + p_m))·(W_k(x_n + p_n)) 在 {full.min():.2f} 与 {full.max():.2f} 之间波动，"
            f"所以有了投影之后，得分不再只是 m − n 的函数。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    ax.plot(shifts, p_only, markersize=4, label=r"$p_{m+s}\cdot p_{n+s}$", **series_style(0))
    ax.plot(shifts, full, markersize=4, label=r"$(W_q(x_m+p_{m+s}))\cdot(W_k(x_n+p_{n+s}))$", **series_style(1))
    ax.set_xlabel(text(lang, en="shift s of both positions", zh="两个位置的平移量 s"))
    ax.set_ylabel(text(lang, en="score", zh="得分"))
    ax.set_title(text(lang, en=f"m − n = {m - n} throughout", zh=f"始终有 m − n = {m - n}"), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def sinusoidal_pair_widget(d: int = 8, positions=tuple(range(16)), base: float = DEFAULT_BASE, *, lang: str = "en") -> InteractiveFigure:
    """A slider for the position m and a pick of the pair i; the point (sin mθ_i, cos mθ_i) on the unit circle.

    The pair is a choice among the d/2 frequencies (4 for d = 8), not a quantity to sweep: 16 positions × 4 pairs = 64
    frames."""
    require_language(lang)
    d = require_even_dim(d, "d")
    position = Control("m", text(lang, en="position m", zh="位置 m"), tuple(positions), tuple(positions)[min(5, len(positions) - 1)])
    pair = Control("i", text(lang, en="pair i", zh="维度对 i"), tuple(range(d // 2)), 0, choice=True)
    return InteractiveFigure(partial(plot_sinusoidal_pair, d=d, base=base, lang=lang), (position, pair), lang=lang)


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

def check_walk_encoding(walk_encoding, *, lang: str = "en") -> CheckResult:
    """Exercise sin-ex-walk: `walk_encoding(seq_len, d)` builds the (seq_len, d) table by repeated rotation from p_0.
    The hints and the verdict are shown in `lang`."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(7)
        sizes = [(200, 16), (50, 8)] + [(int(rng.integers(2, 301)), 2 * int(rng.integers(1, 17))) for _ in range(2)]
        close = allclose_within(1e-9)
        for seq_len, d in sizes:
            call = f"walk_encoding(seq_len={seq_len}, d={d})"
            expected = sinusoidal_encoding(seq_len, d)
            got = answer_array(call_student(fn, call, seq_len, d), call, (seq_len, d))
            if close(got, expected):
                continue
            m = np.arange(seq_len)
            swapped = expected.copy()
            swapped[:, 0::2], swapped[:, 1::2] = expected[:, 1::2], expected[:, 0::2]
            shifted = np.empty_like(expected)
            shifted[:, 0::2] = np.sin(np.outer(m, inv_freq_counted_from_one(d, DEFAULT_BASE)))
            shifted[:, 1::2] = np.cos(np.outer(m, inv_freq_counted_from_one(d, DEFAULT_BASE)))
            diagnose(got, [
                (lambda: swapped, Words(f"{call}: sin and cos swapped — p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines, odd columns cosines",
                                        f"{call}：sin 和 cos 放反了——p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)：偶数列是正弦，奇数列是余弦")),
                (lambda: sinusoidal_position(-m, d), Words(f"{call}: direction — row m holds p_(−m); one position forward is the rotation R^d_(Θ,−1), not R^d_(Θ,1)",
                                                           f"{call}：方向——第 m 行是 p_(−m)；向前走一个位置是旋转 R^d_(Θ,−1)，而不是 R^d_(Θ,1)")),
                (lambda: shifted, Words(f"{call}: frequencies — column pair i uses θ_i = 10000^(−2i/d) with i counted from 0, so columns 0 and 1 turn by one radian per position",
                                        f"{call}：频率——第 i 对列用 θ_i = 10000^(−2i/d)，i 从 0 开始数，所以第 0、1 列每个位置转 1 弧度")),
                (lambda: sinusoidal_position(m + 1, d), Words(f"{call}: off by one — row 0 must be p_0, the position 0; your table starts at p_1",
                                                              f"{call}：差了一位——第 0 行必须是位置 0 的 p_0；你的表从 p_1 开始")),
                (lambda: expected, float32_hint(call, np.abs(got - expected).max(), Words(
                    "float32 keeps about 7 digits, and every step of the walk adds its rounding",
                    "float32 只保留约 7 位有效数字，而逐步旋转的每一步都会累积舍入误差")),
                 allclose_within(4 * F32_EPS * seq_len)),
            ], close)
            if close(got[0], swapped[0]):
                raise Hint(f"{call}: sin and cos swapped — row 0 is (1, 0, 1, 0, …), but p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines",
                           f"{call}：sin 和 cos 放反了——第 0 行是 (1, 0, 1, 0, …)，但 p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)：偶数列是正弦")
            if not close(got[0], expected[0]):
                raise Hint(f"{call}: row 0 must be p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)",
                           f"{call}：第 0 行必须是 p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)")
            row = int(np.argmax(np.abs(got - expected).max(axis=1) > 1e-9))
            raise Hint(f"{call}: rows 0 to {row - 1} are right but row {row} is not p_{row}; check the step from one row to the next",
                       f"{call}：第 0 到 {row - 1} 行是对的，但第 {row} 行不是 p_{row}；请检查从一行到下一行的那一步")

    return run_check("sin-ex-walk", walk_encoding, body, Words(
        "walk_encoding matches rope_lib.sinusoidal.sinusoidal_encoding for 200 positions (d = 16), 50 positions (d = 8) and two seeded random sizes.",
        "walk_encoding 与 rope_lib.sinusoidal.sinusoidal_encoding 一致：200 个位置（d = 16）、50 个位置（d = 8）以及两个固定种子的随机尺寸。"), lang)
