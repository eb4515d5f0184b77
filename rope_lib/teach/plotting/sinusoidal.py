"""Figures about the absolute sinusoidal encoding: the table P, one pair on its circle, and scores under a shift."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, inv_freq, wavelengths
from ...sinusoidal import absolute_position_score, sinusoidal_encoding, sinusoidal_pair, sinusoidal_position
from ..language import require_language, text
from .complex_plane import draw_unit_circle
from .style import DIVERGING_CMAP, new_figure, series_style, subscript


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
