"""Figures of chapter "RoPE in d dimensions": d/2 pairs, each turning at its own speed, the clock of one hand a pair
(an interactive figure), and the long-term decay of RoFormer's Figure 2.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, angles, inv_freq
from ...rotation import rotary_matrix, rotation_matrix_2d
from .decay import relative_upper_bound
from ..shared.figure_style import DIVERGING_CMAP, new_figure, series_style
from ..shared.interactive import Control, InteractiveFigure
from ..shared.language import require_language, text


def plot_pair_rotations(x, positions, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """One panel per pair (x_{2i}, x_{2i+1}) of x, drawn turned to each of the positions:
    the first pair sweeps round quickly, the last one hardly moves (RoFormer Fig. 1, redrawn)."""
    require_language(lang)
    x = np.asarray(x, dtype=np.float64)
    positions = [int(p) for p in positions]
    if x.ndim != 1 or x.size % 2 or not 2 <= x.size <= 16:
        raise ValueError(f"x must be a vector of even length 2 … 16, got shape {x.shape}")
    d = x.size
    turns = angles(positions, d, base)  # (P, d/2)
    fig = new_figure(
        text(
            lang,
            en=f"{d // 2} small panels, one per coordinate pair of a {d}-dimensional vector; each shows the pair as an "
            f"arrow turned to positions {', '.join(map(str, positions))}. Pair 0 turns by {inv_freq(d, base)[0]:g} rad per "
            f"position and its arrows fan out around the circle; pair {d // 2 - 1} turns by {inv_freq(d, base)[-1]:.2g} rad "
            f"per position, so its arrows almost coincide, turned by only {turns[-1, -1]:.2f} rad at position {positions[-1]}.",
            zh=f"{d // 2} 个小图，一个 {d} 维向量的每个坐标维度对各占一个；每个小图把这一对画成箭头，分别转到位置 "
            f"{', '.join(map(str, positions))}。第 0 对每个位置转 {inv_freq(d, base)[0]:g} 弧度，它的箭头绕着圆散开；"
            f"第 {d // 2 - 1} 对每个位置只转 {inv_freq(d, base)[-1]:.2g} 弧度，箭头几乎重合，到位置 {positions[-1]} "
            f"也只转了 {turns[-1, -1]:.2f} 弧度。",
        ),
        figsize=(2.0 * d // 2 + 0.5, 2.7),
    )
    axes = np.atleast_1d(fig.subplots(1, d // 2))
    unit = np.linspace(0, 2 * np.pi, 121)
    for i, ax in enumerate(axes):
        pair = x[2 * i : 2 * i + 2]
        radius = np.linalg.norm(pair)
        ax.plot(radius * np.cos(unit), radius * np.sin(unit), color="0.85", linewidth=0.8)
        for j, position in enumerate(positions):
            style = series_style(j)
            turned = rotation_matrix_2d(turns[j, i]) @ pair
            ax.plot([0, turned[0]], [0, turned[1]], color=style["color"], linestyle=style["linestyle"], linewidth=1.5)
            ax.plot(*turned, marker=style["marker"], color=style["color"], linestyle="none", label=f"m = {position}" if i == 0 else None)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(text(lang, en=f"pair {i}\nθ_{i} = {inv_freq(d, base)[i]:.3g}", zh=f"第 {i} 对\nθ_{i} = {inv_freq(d, base)[i]:.3g}"), fontsize=9)
    fig.legend(loc="outside lower center", ncol=len(positions), fontsize=8)
    return fig


def plot_clock(position: int, d: int = 8, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """A clock with one hand per pair, hand i at the angle m·θ_i (counter-clockwise from 3 o'clock)."""
    require_language(lang)
    turns = angles(position, d, base)  # (d/2,)
    wrapped = np.mod(turns, 2 * np.pi)
    lengths = np.linspace(1.0, 0.35, turns.size)
    fig = new_figure(
        text(
            lang,
            en=f"A clock face with {turns.size} hands, one per pair of a d = {d} vector with base {base:g}, at position "
            f"m = {position}. Hand i points at the angle m·θ_i measured counter-clockwise from 3 o'clock; hand 0 "
            f"(longest) has turned {turns[0]:.2f} rad, {turns[0] / (2 * np.pi):.2f} full turns, while hand "
            f"{turns.size - 1} (shortest) has turned only {turns[-1]:.3f} rad: the pairs turn at geometrically slower speeds.",
            zh=f"一个有 {turns.size} 根指针的钟面，d = {d}、底数 {base:g} 的向量每个维度对一根，位置 m = {position}。"
            f"第 i 根指针指向角度 m·θ_i，从 3 点钟方向起逆时针量；第 0 根（最长）已转了 {turns[0]:.2f} 弧度，"
            f"即 {turns[0] / (2 * np.pi):.2f} 整圈，而第 {turns.size - 1} 根（最短）只转了 {turns[-1]:.3f} 弧度："
            f"各维度对的转速依次按同一比例变慢。",
        ),
        figsize=(4.6, 4.2),
    )
    ax = fig.add_subplot()
    unit = np.linspace(0, 2 * np.pi, 181)
    ax.plot(np.cos(unit), np.sin(unit), color="0.6", linewidth=1)
    for tick in range(12):
        a = tick * np.pi / 6
        ax.plot([0.93 * np.cos(a), np.cos(a)], [0.93 * np.sin(a), np.sin(a)], color="0.6", linewidth=1)
    for i, (a, length) in enumerate(zip(wrapped, lengths)):
        style = series_style(i)
        ax.plot([0, length * np.cos(a)], [0, length * np.sin(a)], color=style["color"], linestyle=style["linestyle"], linewidth=2.2)
        ax.plot(length * np.cos(a), length * np.sin(a), marker=style["marker"], color=style["color"], linestyle="none",
                label=text(lang, en=f"pair {i}: {turns[i]:.2f} rad", zh=f"第 {i} 对：{turns[i]:.2f} 弧度"))
    ax.plot(0, 0, marker="o", color="black")
    ax.set_aspect("equal")
    ax.set_xlim(-1.1, 1.1)
    ax.set_ylim(-1.1, 1.1)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(text(lang, en=f"position m = {position}, d = {d}, base = {base:g}", zh=f"位置 m = {position}，d = {d}，底数 = {base:g}"), fontsize=10)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7, frameon=False)
    return fig


def plot_rotary_matrix(m: int, d: int = 16, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """Heatmap of R^d_{Θ,m} (eq. 15): 2×2 rotation blocks on the diagonal, zeros everywhere else."""
    require_language(lang)
    matrix = rotary_matrix(m, d, base)
    zeros = d * d - 2 * d  # everything outside the d/2 blocks of 2×2
    fig = new_figure(
        text(
            lang,
            en=f"Heatmap of the {d} by {d} rotary matrix at position m = {m} (base {base:g}). Only the {d // 2} two-by-two "
            f"blocks on the diagonal are coloured, each the rotation by m·θ_i with entries between −1 and 1; the other "
            f"{zeros} of the {d * d} entries are zero, which is why multiplying by the whole matrix wastes work.",
            zh=f"位置 m = {m}（底数 {base:g}）处 {d}×{d} 旋转矩阵的热力图。只有对角线上的 {d // 2} 个 2×2 分块有颜色，"
            f"每块是转过 m·θ_i 的旋转，元素在 −1 和 1 之间；{d * d} 个元素中其余 {zeros} 个都是零，"
            f"所以乘整个矩阵是在做无用功。",
        ),
        figsize=(4.6, 4.0),
    )
    ax = fig.add_subplot()
    image = ax.imshow(matrix, cmap=DIVERGING_CMAP, vmin=-1, vmax=1)
    ax.set_xlabel(text(lang, en="column", zh="列"))
    ax.set_ylabel(text(lang, en="row", zh="行"))
    ax.set_title(text(lang, en=f"R^d_(Θ,m) for m = {m}, d = {d}", zh=f"R^d_(Θ,m)，m = {m}，d = {d}"), fontsize=10)
    fig.colorbar(image, ax=ax, label=text(lang, en="entry", zh="元素值"))
    return fig


# --- the clock, an interactive figure ---------------------------------------------------------------------------------

CLOCK_POSITIONS = (0, 1, 2, 3, 4, 6, 8, 16, 64, 256, 1000, 4096)
"""The positions the clock's slider offers: every step at first, where the fast hands move visibly, then far ones."""
CLOCK_BASES = (100.0, 500.0, 1000.0, 5000.0, 10000.0, 50000.0, 500000.0, 1000000.0)
"""The bases its slider offers, from a short-range 100 through RoFormer's 10000 and Llama 3's 500000 to 10⁶."""
CLOCK_D = 16
"""The clock's head dimension: d/2 = 8 hands, from a second hand to an hour hand (fixed, so that 12 positions times
8 bases stay within MAX_FRAMES)."""


def clock_widget(*, lang: str = "en") -> InteractiveFigure:
    """12 positions × 8 bases = 96 frames of the d = 16 clock; its axes are fixed (the unit circle)."""
    require_language(lang)

    def draw(position, base):
        return plot_clock(position, CLOCK_D, base, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("position", text(lang, en="position m", zh="位置 m"), CLOCK_POSITIONS, 1),
            Control("base", text(lang, en="base", zh="底数"), CLOCK_BASES, 10000.0, fmt=lambda b: f"{b:g}"),
        ),
        lang=lang,
    )


# --- long-term decay (RoFormer Fig. 2) --------------------------------------------------------------------------------

def plot_relative_upper_bound(d: int = 128, max_distance: int = 256, bases=(DEFAULT_BASE,), *, lang: str = "en") -> Figure:
    """(1/(d/2)) Σ_j |S_j| against the relative distance 0 … max_distance, one curve per base."""
    require_language(lang)
    distance = np.arange(max_distance + 1)
    curves = {float(b): relative_upper_bound(distance, d, b) for b in bases}
    fig = new_figure(
        text(
            lang,
            en=f"Line chart of the average size of the partial sums |S_j| (vertical axis) against the relative distance "
            f"m − n from 0 to {max_distance} (horizontal axis), for d = {d}. Every curve starts at (d/2 + 1)/2 and falls "
            f"with distance, with ripples: "
            + "; ".join(f"base {b:g}: {c[0]:.1f} at 0, {c[-1]:.2f} at {max_distance}" for b, c in curves.items()) + ".",
            zh=f"折线图：纵轴是部分和 |S_j| 的平均大小，横轴是相对距离 m − n，从 0 到 {max_distance}，d = {d}。"
            f"每条曲线都从 (d/2 + 1)/2 开始，随距离下降，并带有起伏："
            + "；".join(f"底数 {b:g} 在 0 处为 {c[0]:.1f}，在 {max_distance} 处为 {c[-1]:.2f}" for b, c in curves.items()) + "。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    for i, (b, curve) in enumerate(curves.items()):
        ax.plot(distance, curve, markevery=32, markersize=4, label=text(lang, en=f"base {b:g}", zh=f"底数 {b:g}"), **series_style(i))
    ax.set_xlabel(text(lang, en="relative distance m − n", zh="相对距离 m − n"))
    ax.set_ylabel("(1/(d/2)) Σ_j |S_j|")
    ax.set_title(text(lang, en=f"Long-term decay of the RoPE bound, d = {d}", zh=f"RoPE 上界的远程衰减，d = {d}"))
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig
