"""Chapter "RoPE at a glance" (book/rope_at_a_glance.md): the rotary frequencies θ_i seen as wavelengths, in a figure
and an interactive figure; the query–key scores under RoPE, constant along diagonals; and the auto-check of the
chapter's exercise. "Absolute sinusoidal encoding" draws its wavelengths with `plot_wavelengths` too.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..frequencies import DEFAULT_BASE, angles, wavelengths
from ..rotation import rotary_matrix, score_grid
from .shared.checking import CheckResult, F32_EPS, FLOAT32_ANGLES, Hint, allclose_within, answer_array, call_student, case_seed, diagnose, float32_hint, inv_freq_counted_from_one, mismatch, normal_case, run_check, turn_adjacent_pairs
from .shared.figure_style import SEQUENTIAL_CMAP, new_figure, series_style
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text

# --- the wavelengths 2π/θ_i -------------------------------------------------------------------------------------------

FIXED_AXES_BOTTOM = 1.0
"""With fixed axes the vertical axis starts at 1 position: pair 0 turns 1 radian a position, so its wavelength is 2π
whatever d and base are, a little above the bottom."""

FIXED_AXES_HEADROOM = 4.0
"""With fixed axes the vertical axis ends at 4 × 2π·base for the largest base: room above its limit line and label."""


def plot_wavelengths(
    d: int,
    base: float = DEFAULT_BASE,
    *,
    lang: str = "en",
    limits_for: tuple[int, float] | None = None,
) -> Figure:
    """Wavelength 2π/θ_i of every pair on a log scale: a straight line, since they grow geometrically.

    By default the axes fit this d and base. `limits_for=(largest d, largest base)` fixes them to hold every curve up
    to those values instead, and draws the limit 2π·base that the longest wavelength approaches as d grows: an
    interactive figure passes the ends of its controls' ranges, so that a move of a slider moves the curve, not the
    axes.
    """
    require_language(lang)
    if limits_for is not None and (d > limits_for[0] or base > limits_for[1]):
        raise ValueError(f"limits_for={limits_for!r} must hold d = {d} and base = {base:.10g}")
    lam = wavelengths(d, base)
    limit = 2 * np.pi * base
    fig = new_figure(
        text(
            lang,
            en=f"Line chart on a logarithmic vertical axis of the wavelength of each of the {lam.size} rotation pairs "
            f"(d = {d}, base = {base:.10g}). The points lie on a straight line rising from {lam[0]:.2f} positions for "
            f"pair 0 to {lam[-1]:,.0f} positions for pair {lam.size - 1}: the wavelengths grow geometrically."
            + (f" A dashed line marks 2π·base = {limit:,.0f} positions, which the longest wavelength approaches as d "
               f"grows." if limits_for is not None else ""),
            zh=f"折线图，纵轴取对数，画出 {lam.size} 个旋转维度对各自的波长（d = {d}，底数 = {base:.10g}）。"
            f"这些点落在一条直线上，从第 0 对的 {lam[0]:.2f} 个位置升到第 {lam.size - 1} 对的 {lam[-1]:,.0f} 个位置："
            f"波长构成等比数列。"
            + (f"一条虚线标出 2π·底数 = {limit:,.0f} 个位置，d 越大，最长的波长越接近它。" if limits_for is not None else ""),
        ),
        figsize=(6, 3.2),
    )
    ax = fig.add_subplot()
    ax.semilogy(np.arange(lam.size), lam, markersize=3, **series_style(0))
    if limits_for is not None:
        largest_d, largest_base = limits_for
        ax.axhline(limit, color="black", linestyle="--", linewidth=1)
        ax.annotate(text(lang, en="2π·base", zh="2π·底数"), (0, limit), xytext=(2, 3), textcoords="offset points", fontsize=8)
        last_pair = largest_d // 2 - 1
        pad = ax.margins()[0] * last_pair  # matplotlib's own margin, as the axes would have for the largest d
        ax.set_xlim(-pad, last_pair + pad)
        ax.set_ylim(FIXED_AXES_BOTTOM, FIXED_AXES_HEADROOM * 2 * np.pi * largest_base)
    ax.set_xlabel(text(lang, en="pair index i", zh="维度对序号 i"))
    ax.set_ylabel(text(lang, en="wavelength 2π/θ_i (positions)", zh="波长 2π/θ_i（位置数）"))
    ax.set_title(text(lang, en=f"RoPE wavelengths, d = {d}, base = {base:.10g}", zh=f"RoPE 的波长，d = {d}，底数 = {base:.10g}"))
    ax.grid(True, which="major", alpha=0.3)
    return fig


HEAD_DIMENSIONS = (16, 32, 64, 128, 256)
"""The head dimensions d to pick from: a choice among settings, 16 to the 256 of the widest common heads."""

BASES = (100.0, 500.0, 1_000.0, 5_000.0, 10_000.0, 50_000.0, 100_000.0, 500_000.0, 1_000_000.0)
"""The bases the slider steps through, from 100 to the 1,000,000 of recent long-context models, by factors of 5 and 2
(the original 10,000 and Llama 3's 500,000 among them): 9 stops × 5 head dimensions = 45 frames on the website."""


def wavelength_explorer(*, lang: str = "en") -> InteractiveFigure:
    """The wavelengths 2π/θ_i for a choice of head dimension d and base, on axes that hold every choice: a move of
    either control moves the curve, against the dashed limit 2π·base."""
    require_language(lang)
    limits = (max(HEAD_DIMENSIONS), max(BASES))

    def draw(d: int, base: float):
        return plot_wavelengths(d, base, lang=lang, limits_for=limits)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("d", text(lang, en="head dimension d", zh="头维度 d"), HEAD_DIMENSIONS, 128, choice=True),
            Control("base", text(lang, en="base", zh="底数"), BASES, 10_000.0, fmt=lambda b: f"{b:,.0f}"),
        ),
        lang=lang,
    )


# --- query–key scores under RoPE --------------------------------------------------------------------------------------

def plot_score_grid(q: np.ndarray, k: np.ndarray, positions, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """Heatmap of ⟨R_m q, R_n k⟩ over positions m (rows) and n (columns): constant along diagonals."""
    require_language(lang)
    positions = np.asarray(positions)
    grid = score_grid(q, k, positions, base)
    fig = new_figure(
        text(
            lang,
            en=f"Heatmap of the score between a query rotated to position m (rows) and a key rotated to position n "
            f"(columns), for m and n from {positions[0]} to {positions[-1]}, in d = {len(q)}. The colours form "
            f"stripes parallel to the main diagonal: every cell with the same m − n has the same score, "
            f"from {grid.min():.2f} to {grid.max():.2f}.",
            zh=f"热力图：查询旋转到位置 m（行）、键旋转到位置 n（列）后的得分，m 和 n 都从 {positions[0]} 到 {positions[-1]}，"
            f"d = {len(q)}。颜色形成与主对角线平行的条纹：m − n 相同的格子得分都相同，"
            f"得分从 {grid.min():.2f} 到 {grid.max():.2f}。",
        ),
        figsize=(5, 4.2),
    )
    ax = fig.add_subplot()
    extent = (positions[0] - 0.5, positions[-1] + 0.5, positions[-1] + 0.5, positions[0] - 0.5)
    image = ax.imshow(grid, cmap=SEQUENTIAL_CMAP, extent=extent)
    ax.set_xlabel(text(lang, en="key position n", zh="键的位置 n"))
    ax.set_ylabel(text(lang, en="query position m", zh="查询的位置 m"))
    ax.set_title(text(lang, en="score ⟨R_m q, R_n k⟩", zh="得分 ⟨R_m q, R_n k⟩"))
    fig.colorbar(image, ax=ax, label=text(lang, en="score", zh="得分"))
    return fig


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

def check_rope_pairs(rope_pairs, *, lang: str = "en") -> CheckResult:
    """Exercise glance-ex-code: `rope_pairs(x, m, base=10000.0)` turns adjacent pairs of x to position m."""

    def body(fn):
        rng = np.random.default_rng(0)
        cases = [(rng.standard_normal(d), m, None, f"rope_pairs(x, m={m}) for x of length {d}") for d in (8, 32) for m in (0, 1, 257, 10**6)]
        cases.append((rng.standard_normal(16), 100, 500000.0, "rope_pairs(x, m=100, base=500000.0) for x of length 16"))
        for _ in range(3):
            d, m, base = 2 * int(rng.integers(1, 33)), int(rng.integers(0, 10**6)), float(rng.integers(100, 10**6))
            x, rebuild = normal_case(case_seed(rng), d)
            cases.append((x, m, base, f"rope_pairs(x, m={m}, base={base!r}) with x = {rebuild}"))
        for x, m, base, call in cases:
            one(fn, x, m, base, call)

    def one(fn, x, m, base, call):
        d, theta = len(x), DEFAULT_BASE if base is None else base
        value = call_student(fn, call, x, m) if base is None else call_student(fn, call, x, m, base=base)
        got = answer_array(value, call, (d,))
        expected = rotary_matrix(m, d, theta) @ x
        close = allclose_within(1e-8)
        if close(got, expected):
            return
        diagnose(got, [
            (lambda: rotary_matrix(m, d, theta, layout="half") @ x,
             Words(f"{call}: pairing — you turned x_i with x_(i+d/2) (the half layout); this exercise pairs neighbours (x_2i, x_2i+1), the interleaved layout",
                   f"{call}：配对——你把 x_i 和 x_(i+d/2) 配成一对来旋转（半分布局）；本练习把相邻的 (x_2i, x_2i+1) 配成一对，即交错布局")),
            (lambda: rotary_matrix(-m, d, theta) @ x,
             Words(f"{call}: direction — each pair turned clockwise, by −mθ_i; RoPE turns by +mθ_i (counter-clockwise)",
                   f"{call}：方向——每一对都按顺时针转了 −mθ_i；RoPE 转的是 +mθ_i（逆时针）")),
            (lambda: turn_adjacent_pairs(x, m * inv_freq_counted_from_one(d, theta)),
             Words(f"{call}: frequencies — pair i must use θ_i = base^(−2i/d) with i counted from 0, so pair 0 turns by exactly m radians",
                   f"{call}：频率——第 i 对要用 θ_i = base^(−2i/d)，i 从 0 开始数，所以第 0 对恰好转 m 弧度")),
            (lambda: turn_adjacent_pairs(x, m * theta ** (-np.arange(d // 2) / d)),
             Words(f"{call}: frequencies — the exponent of θ_i is −2i/d; yours uses −i/d",
                   f"{call}：频率——θ_i 的指数是 −2i/d；你用的是 −i/d")),
            (lambda: turn_adjacent_pairs(x, np.degrees(angles(m, d, theta))),
             Words(f"{call}: units — numpy's cos and sin take radians; the angle m·θ_i is already in radians",
                   f"{call}：单位——numpy 的 cos 和 sin 接受弧度；角度 m·θ_i 本来就是弧度")),
            (lambda: rotary_matrix(m, d, 1000.0) @ x,
             Words(f"{call}: base — your frequencies fit base 1000, but "
                   + ("the default base is 10000: is a zero missing?" if base is None else f"the base passed in is {base:g}: θ_i = base^(−2i/d) must use it"),
                   f"{call}：底数——你的频率对应底数 1000，但"
                   + ("默认底数是 10000：是不是少写了一个 0？" if base is None else f"传入的底数是 {base:g}：θ_i = base^(−2i/d) 必须用它"))),
            (lambda: rotary_matrix(m, d) @ x,
             Words(f"{call}: base — the base argument must set the frequencies θ_i = base^(−2i/d); your result fits base 10000, not {theta:g}",
                   f"{call}：底数——参数 base 必须决定频率 θ_i = base^(−2i/d)；你的结果对应底数 10000，而不是 {theta:g}")),
            (lambda: expected, float32_hint(call, np.abs(got - expected).max(), FLOAT32_ANGLES),
             allclose_within(4 * F32_EPS * (1 + abs(m)) * np.abs(x).max())),
        ], close)
        if m == 0:
            raise Hint(f"{call}: at position 0 every angle is 0, so x must come back unchanged",
                       f"{call}：在位置 0，所有角度都是 0，所以 x 应该原样返回")
        if not np.isclose(np.linalg.norm(got), np.linalg.norm(x)):
            raise Hint(f"{call}: a rotation keeps the length of x, but |result| = {np.linalg.norm(got):.4g} and |x| = {np.linalg.norm(x):.4g}",
                       f"{call}：旋转不改变 x 的长度，但 |结果| = {np.linalg.norm(got):.4g}，而 |x| = {np.linalg.norm(x):.4g}")
        raise mismatch(call, got, expected, Words("R^d_(Θ,m)·x", "R^d_(Θ,m)·x"),
                       Words("compare pair 0, which turns by m radians", "先对照第 0 对，它转 m 弧度"))

    return run_check("glance-ex-code", rope_pairs, body, Words(
        "rope_pairs matches R^d_(Θ,m)·x for d = 8, 16 and 32, positions 0 to 10^6, base 500000 and three seeded random cases.",
        "rope_pairs 与 R^d_(Θ,m)·x 一致：d = 8、16 和 32，位置 0 到 10^6，底数 500000，外加三个固定种子的随机用例。"), lang)
