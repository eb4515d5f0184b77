"""Figures about 2D rotation matrices: composing rotations, and rotating q and k by their positions."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..complex_plane import pair_to_complex
from ..language import require_language, text
from ...rotation import rotation_matrix_2d
from .complex_plane import draw_arrow, draw_unit_circle
from .style import new_figure, series_style


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
