"""Figures of chapter "The LLaMA implementation": the bf16 pitfall, and the two ways of pairing a head's coordinates."""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..._validate import require_even_dim
from ...frequencies import DEFAULT_BASE
from ...layouts import permute_rows_to_half
from ...rope import rope_angles
from .bf16_positions import bf16_angles
from ..shared.figure_style import new_figure, series_style
from ..shared.language import require_language, text


def plot_bf16_angles(positions, d: int = 128, base: float = DEFAULT_BASE, *, lang: str = "en") -> Figure:
    """The angle of pair 0 (θ_0 = 1, so the angle is the position) in float64 and in bf16."""
    require_language(lang)
    positions = [int(p) for p in positions]
    exact = rope_angles(positions, d, base=base)[:, 0].numpy()  # (P,)
    careless = bf16_angles(positions, d, base)[:, 0].numpy()  # (P,)
    merged = len(positions) - len(np.unique(careless))
    fig = new_figure(
        text(
            lang,
            en=f"Line chart of the angle of pair 0 against the position, from {positions[0]} to {positions[-1]}. Computed "
            f"in float64 it rises by 1 rad per position, a straight staircase of distinct values; computed in bfloat16 it "
            f"moves in steps of 2 above 256, so {merged} of the {len(positions)} positions share their angle with a neighbour.",
            zh=f"折线图：第 0 个维度对的角度随位置的变化，位置从 {positions[0]} 到 {positions[-1]}。用 float64 计算时，"
            f"位置每加 1，角度就增加 1 弧度，是一道笔直的阶梯，每级取值都不同；用 bfloat16 计算时，256 以上每步跳 2，"
            f"于是 {len(positions)} 个位置中有 {merged} 个与相邻位置共用同一个角度。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    ax.plot(positions, exact, markersize=4, label="float64 (rope_lib)", **series_style(0))
    ax.plot(positions, careless, markersize=4, label="bfloat16", drawstyle="steps-mid", **series_style(1))
    ax.axvline(256, color="0.5", linewidth=0.8, linestyle=":")
    ax.set_xlabel(text(lang, en="position m", zh="位置 m"))
    ax.set_ylabel(text(lang, en="angle m·θ_0 (rad)", zh="角度 m·θ_0（弧度）"))
    ax.set_title(text(lang, en="Pair 0 angles: float64 vs bfloat16", zh="第 0 对的角度：float64 与 bfloat16"))
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


PAIRING_ROWS = {"interleaved": 3.0, "half": 0.0}
"""The height of each layout's row of boxes in plot_pairing_layouts (data units; the arrows run between them)."""


def plot_pairing_layouts(d: int = 8, *, lang: str = "en") -> Figure:
    """The coordinates of one head in Meta's interleaved layout (pair j = (2j, 2j+1)) and in Hugging Face's half
    layout (pair j = (j, j + d/2)), each pair in one colour, and arrows from each coordinate's place in the first to
    its place in the second: the row permutation `permute_rows_to_half`, run on the row numbers 0 … d−1."""
    require_language(lang)
    d = require_even_dim(d, "d")
    if d > 16:
        raise ValueError(f"d must be at most 16, so that every box stays readable, got {d}")
    half = d // 2
    rows = permute_rows_to_half(torch.arange(d)[:, None], 1)[:, 0].tolist()  # rows[p]: the row that lands at p
    moved_to = {row: p for p, row in enumerate(rows)}  # i → its place in the half layout
    pair_of = {"interleaved": [i // 2 for i in range(d)], "half": [rows[p] // 2 for p in range(d)]}
    moves = ", ".join(f"{i}→{moved_to[i]}" for i in range(d))
    e = min(1, half - 1)  # the pair the description spells out
    top_pair, bottom_pair = f"({2 * e}, {2 * e + 1})", f"({moved_to[2 * e]}, {moved_to[2 * e + 1]})"
    fig = new_figure(
        text(
            lang,
            en=f"Two rows of {d} boxes, the coordinates of one attention head, coloured by rotation pair. Top, Meta's "
            f"interleaved layout: pair i joins the neighbours 2i and 2i+1, so pair {e} is {top_pair}. Bottom, Hugging Face's half "
            f"layout (rotate_half): pair i joins i and i + {half}, so pair {e} is {bottom_pair}. Arrows between the rows show "
            f"where permute_rows_to_half moves each coordinate, {moves}; permute_rows_to_interleaved moves them back.",
            zh=f"两行各 {d} 个方框，是一个注意力头的各个坐标，按旋转维度对着色。上行是 Meta 的交错布局：第 i 对连接相邻的 2i 和 "
            f"2i+1，所以第 {e} 对是 {top_pair}。下行是 Hugging Face 的半分布局（rotate_half）：第 i 对连接 i 和 i + {half}，"
            f"所以第 {e} 对是 {bottom_pair}。两行之间的箭头表示 permute_rows_to_half 把每个坐标移到哪里：{moves}；"
            f"permute_rows_to_interleaved 再把它们移回来。",
        ),
        figsize=(max(6.0, 0.55 * d + 3.2), 4.2),
    )
    ax = fig.add_subplot()
    box = 0.36  # half the width and height of a box
    for layout, y in PAIRING_ROWS.items():
        for slot, pair in enumerate(pair_of[layout]):
            colour = series_style(pair)["color"]
            ax.add_patch(Rectangle((slot - box, y - box), 2 * box, 2 * box, facecolor=colour, alpha=0.3, edgecolor="none"))
            ax.add_patch(Rectangle((slot - box, y - box), 2 * box, 2 * box, fill=False, edgecolor=colour, linewidth=1.5,
                                   gid=f"{layout} box"))
            ax.text(slot, y, str(slot), ha="center", va="center", fontsize=10)
    for j in range(half):  # the pairs: a bracket over the interleaved row, one under the half row
        style = series_style(j)
        line = {"color": style["color"], "linestyle": style["linestyle"], "linewidth": 1.6}
        a, b = 2 * j, 2 * j + 1
        top = PAIRING_ROWS["interleaved"] + box
        ax.plot([a, a, b, b], [top + 0.05, top + 0.3, top + 0.3, top + 0.05], gid="interleaved pair", **line)
        ax.text((a + b) / 2, top + 0.38, text(lang, en=f"pair {j}", zh=f"第 {j} 对"), ha="center", va="bottom", fontsize=8)
        a, b = sorted((moved_to[2 * j], moved_to[2 * j + 1]))
        bottom, depth = PAIRING_ROWS["half"] - box - 0.05, 0.3 + 0.32 * j
        ax.plot([a, a, b, b], [bottom, bottom - depth, bottom - depth, bottom], gid="half pair", **line)
        ax.text(a + 0.5, bottom - depth - 0.05, text(lang, en=f"pair {j}", zh=f"第 {j} 对"), ha="center", va="top", fontsize=8)
    for i in range(d):  # the permutation, from each coordinate's place in one layout to its place in the other
        style = series_style(i // 2)
        ax.annotate("", xy=(moved_to[i], PAIRING_ROWS["half"] + box + 0.05), xytext=(i, PAIRING_ROWS["interleaved"] - box - 0.05),
                    arrowprops={"arrowstyle": "->", "color": style["color"], "linestyle": style["linestyle"], "linewidth": 1.2,
                                "shrinkA": 0, "shrinkB": 0}, gid="permutation")
    middle = (PAIRING_ROWS["interleaved"] + PAIRING_ROWS["half"]) / 2
    ax.text(d - 0.2, middle + 0.2, "↓ permute_rows_to_half", ha="left", va="bottom", fontsize=10)
    ax.text(d - 0.2, middle - 0.2, "↑ permute_rows_to_interleaved", ha="left", va="top", fontsize=10)
    ax.text(-0.5, PAIRING_ROWS["interleaved"] + box + 0.85,
            text(lang, en="Meta, interleaved: pair i = (2i, 2i+1)", zh="Meta，交错布局：第 i 对 = (2i, 2i+1)"),
            ha="left", va="bottom", fontsize=11)
    lowest = PAIRING_ROWS["half"] - box - 0.05 - 0.3 - 0.32 * (half - 1) - 0.35
    ax.text(-0.5, lowest,
            text(lang, en=f"Hugging Face, half (rotate_half): pair i = (i, i + {half})",
                 zh=f"Hugging Face，半分布局（rotate_half）：第 i 对 = (i, i + {half})"),
            ha="left", va="top", fontsize=11)
    ax.set_xlim(-0.6, d + 3.4)
    ax.set_ylim(lowest - 0.45, PAIRING_ROWS["interleaved"] + box + 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig
