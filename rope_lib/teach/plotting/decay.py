"""The long-term decay figure of chapter "RoPE in d dimensions" (RoFormer Fig. 2)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..decay import relative_upper_bound
from ...frequencies import DEFAULT_BASE
from ..language import require_language, text
from .style import new_figure, series_style


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
