"""Figures of chapter "The LLaMA implementation"."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE
from ...rope import rope_angles
from ..bf16_positions import bf16_angles
from ..language import require_language, text
from .style import new_figure, series_style


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
