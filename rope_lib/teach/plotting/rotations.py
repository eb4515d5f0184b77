"""Figures about 2D rotation matrices: composing rotations, and rotating q and k by their positions."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..complex_plane import pair_to_complex
from ..language import require_language, text
from ...rotation import rotation_matrix_2d
from .complex_plane import draw_arrow, draw_unit_circle
from .style import new_figure


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


def plot_rotated_query_key(q, k, m: int, n: int, theta: float, shift: int = 0, *, lang: str = "en") -> Figure:
    """q turned by (m+s)θ and k by (n+s)θ: the angle between them, and so their dot product, ignores s."""
    require_language(lang)
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    if q.shape != (2,) or k.shape != (2,):
        raise ValueError(f"q and k must be plane vectors of shape (2,), got {q.shape} and {k.shape}")
    rq = rotation_matrix_2d((m + shift) * theta) @ q
    rk = rotation_matrix_2d((n + shift) * theta) @ k
    dot = float(rq @ rk)
    between = float(np.degrees(np.angle(pair_to_complex(rk) / pair_to_complex(rq))))
    fig = new_figure(
        text(
            lang,
            en=f"The plane with the query q turned by (m + s) theta and the key k turned by (n + s) theta, for m = {m}, "
            f"n = {n}, theta = {np.degrees(theta):.0f} degrees and shift s = {shift}; the originals are drawn faintly. "
            f"The key sits {between:.1f} degrees from the query (counter-clockwise) and their dot product is {dot:.3f}, "
            f"the same for every shift s because both arrows turn by the same extra angle.",
            zh=f"平面上，查询 q 转过 (m + s)θ，键 k 转过 (n + s)θ，其中 m = {m}，n = {n}，θ = {np.degrees(theta):.0f} 度，"
            f"平移量 s = {shift}；转动前的原向量用浅色画出。键与查询相差 {between:.1f} 度（逆时针为正），两者的点积为 {dot:.3f}。"
            f"无论 s 取多少，点积都不变，因为两个箭头多转的角度相同。",
        ),
        figsize=(4.6, 4.4),
    )
    ax = fig.add_subplot()
    reach = max(np.linalg.norm(q), np.linalg.norm(k))
    draw_unit_circle(ax, float(reach))
    ax.plot([0, q[0]], [0, q[1]], color="0.75", linewidth=1)
    ax.plot([0, k[0]], [0, k[1]], color="0.75", linewidth=1, linestyle="--")
    comma = text(lang, en=", ", zh="，")
    draw_arrow(ax, complex(pair_to_complex(rq)), 0, f"R((m+s)θ) q{comma}m+s = {m + shift}")
    draw_arrow(ax, complex(pair_to_complex(rk)), 1, f"R((n+s)θ) k{comma}n+s = {n + shift}")
    ax.set_xlim(-reach - 0.3, reach + 0.3)
    ax.set_ylim(-reach - 0.3, reach + 0.3)
    ax.set_xlabel(text(lang, en="first coordinate", zh="第一个坐标"))
    ax.set_ylabel(text(lang, en="second coordinate", zh="第二个坐标"))
    ax.set_title(text(lang, en=f"dot product = {dot:.3f}   (angle k−q = {between:.1f}°)",
                      zh=f"点积 = {dot:.3f}   （k 与 q 的夹角 = {between:.1f}°）"), fontsize=10)
    ax.legend(loc="lower left", fontsize=8)
    return fig
