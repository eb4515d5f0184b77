"""RoPE among its relatives: the bias each scheme adds to a score against the distance (chapter "Why does RoPE work?")."""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from ..base_bound import b_m_theta
from ...llama import causal_mask
from ..._validate import require_positive_int
from ...frequencies import DEFAULT_BASE, inv_freq
from ...relative_bias import alibi_bias, alibi_slopes, t5_relative_bias, t5_relative_bucket
from ..language import require_language, text
from .style import new_figure, series_style


def t5_table_following(bias_by_distance: np.ndarray, num_buckets: int, max_distance: int) -> np.ndarray:
    """A decoder's T5 table (num_buckets,) that holds, for each bucket, the given bias at the bucket's first
    distance: what a table would have to learn to follow that curve as closely as its buckets let it."""
    distance = np.arange(bias_by_distance.size)
    buckets = t5_relative_bucket(torch.from_numpy(-distance), bidirectional=False, num_buckets=num_buckets, max_distance=max_distance).numpy()
    table = np.full(num_buckets, bias_by_distance[-1])  # buckets the distances shown never reach
    used, first = np.unique(buckets, return_index=True)
    table[used] = bias_by_distance[first]
    return table


LOG_DISTANCE_FROM = 8
"""On a logarithmic distance axis, distances run linearly up to 8 and logarithmically beyond, so that the first
distances, where the steepest ALiBi heads and T5's one-distance buckets differ, are not crushed against 0."""


def plot_relative_biases(head: int = 1, max_distance: int = 256, *, n_heads: int = 8, d: int = 128, base: float = DEFAULT_BASE,
                         num_buckets: int = 32, t5_max_distance: int = 128, log_distance: bool = False,
                         lang: str = "en") -> Figure:
    """The bias each scheme adds to the score of a key Δ tokens before the query, Δ = 0 … max_distance, on a
    symmetric log scale: ALiBi's lines (one per head), T5's steps (with a table that follows the chosen ALiBi
    head), NoPE's zero, RoPE's expected gain for a similar key relative to Δ = 0; the causal mask's −∞ to the left.

    The axes depend on max_distance alone, not on the head, so the frames of one range share them; `log_distance`
    draws the distance on a symmetric log scale (linear up to LOG_DISTANCE_FROM), so that a range of thousands still
    shows T5's first buckets and the steepest ALiBi heads."""
    require_language(lang)
    n_heads = require_positive_int(n_heads, "n_heads")
    head = require_positive_int(head, "head")
    max_distance = require_positive_int(max_distance, "max_distance")
    if head > n_heads:
        raise ValueError(f"head must be one of the heads 1 … {n_heads}, got {head}")
    future = 2 if log_distance else max(1, max_distance // 12)  # keys after the query, to show the causal mask
    keys = np.arange(-future, max_distance + 1)  # Δ = m − n: negative for keys after the query
    query = max_distance  # one query, keys before and after it
    positions = query - keys
    behind = keys >= 0
    slopes = alibi_slopes(n_heads).numpy()
    alibi = alibi_bias([query], torch.from_numpy(positions), n_heads, dtype=torch.float64)[:, 0].numpy()  # (H, keys)
    chosen = alibi[head - 1]
    table = t5_table_following(chosen[behind], num_buckets, t5_max_distance)
    t5 = t5_relative_bias([query], torch.from_numpy(positions), torch.from_numpy(table[:, None]), bidirectional=False,
                          max_distance=t5_max_distance)[0, 0].numpy()
    mask = causal_mask(query + future + 1, 0)[query, torch.from_numpy(positions)].numpy()  # the query's row: −∞ for keys after it
    rope = 2 * (b_m_theta(keys[behind], inv_freq(d, base)) - d / 2) / np.sqrt(d)  # 2σ²(B_Δ − B_0)/√d with σ = 1
    buckets = t5_relative_bucket(torch.from_numpy(-keys[behind]), bidirectional=False, num_buckets=num_buckets, max_distance=t5_max_distance).numpy()
    t5_flat_from = int(np.argmax(buckets == num_buckets - 1)) if buckets[-1] == num_buckets - 1 else None
    fig = new_figure(
        text(
            lang,
            en=f"Line chart of the bias each scheme adds to the attention score of a key Δ tokens before the query (horizontal "
            f"axis, Δ from 0 to {max_distance}; keys after the query, to the left, are set to minus infinity by the causal "
            f"mask), on a symmetric logarithmic vertical axis. NoPE adds 0. ALiBi with {n_heads} heads adds −slope·Δ: head "
            f"{head} of slope {slopes[head - 1]:.4g} reaches {chosen[-1]:.4g} at Δ = {max_distance}, the other heads are "
            f"thin grey lines. T5 with {num_buckets} buckets adds a learned bias per bucket; here its table follows ALiBi "
            f"head {head} bucket by bucket, giving steps that widen with distance"
            + (f" and stay at {t5[-1]:.4g} from Δ = {t5_flat_from} on" if t5_flat_from is not None else "")
            + f". RoPE adds no bias; its expected effect on a similar key, 2σ²(B_Δ − B_0)/√d for d = {d} and σ = 1, "
            f"starts at 0, lies between {rope.min():.3g} and 0, and ends at {rope[-1]:.3g}.",
            zh=f"折线图：每种方案给查询之前 Δ 个词元处的键的注意力得分加上的偏置（横轴 Δ 从 0 到 {max_distance}；"
            f"查询之后的键在左侧，被因果掩码设为负无穷），纵轴为对称对数刻度。NoPE 加 0。有 {n_heads} 个头的 ALiBi 加 −slope·Δ："
            f"第 {head} 个头的斜率为 {slopes[head - 1]:.4g}，在 Δ = {max_distance} 处达到 {chosen[-1]:.4g}，其余的头画成灰色细线。"
            f"有 {num_buckets} 个桶的 T5 给每个桶加一个学习得到的偏置；这里它的表逐桶跟随 ALiBi 的第 {head} 个头，"
            f"得到随距离变宽的台阶"
            + (f"，从 Δ = {t5_flat_from} 起保持在 {t5[-1]:.4g}" if t5_flat_from is not None else "")
            + f"。RoPE 不加偏置；它对相似键的期望作用 2σ²(B_Δ − B_0)/√d（d = {d}，σ = 1）从 0 开始，"
            f"在 {rope.min():.3g} 与 0 之间，最后为 {rope[-1]:.3g}。",
        ),
        figsize=(6.0, 4.3),
    )
    ax = fig.add_subplot()
    for h in range(n_heads):
        if h != head - 1:
            ax.plot(keys[behind], alibi[h][behind], color="0.75", linewidth=0.8, zorder=1)
    ax.plot([], [], color="0.75", linewidth=0.8, label=text(lang, en="ALiBi, the other heads", zh="ALiBi，其余的头"))
    styles = [series_style(i) for i in range(4)]
    if log_distance:  # markers evenly spread along a logarithmic axis
        marks = {"markevery": sorted(set(np.geomspace(1, max_distance, 10).round().astype(int).tolist()) | {0})}
    else:
        marks = {"markevery": 0.1}
    ax.plot(keys[behind], chosen[behind], **marks, markersize=4, label=text(lang, en=f"ALiBi head {head}: −{slopes[head - 1]:.4g}·Δ", zh=f"ALiBi 第 {head} 个头：−{slopes[head - 1]:.4g}·Δ"), **styles[0])
    ax.plot(keys[behind], t5[behind], drawstyle="steps-post", **marks, markersize=4,
            label=text(lang, en=f"T5, {num_buckets} buckets (table following head {head})", zh=f"T5，{num_buckets} 个桶（表跟随第 {head} 个头）"), **styles[1])
    ax.plot(keys[behind], np.zeros(behind.sum()), **marks, markersize=4, label="NoPE: 0", **styles[2])
    ax.plot(keys[behind], rope, **marks, markersize=4, label=text(lang, en="RoPE, similar key: 2σ²(B_Δ − B_0)/√d", zh="RoPE，相似的键：2σ²(B_Δ − B_0)/√d"), **styles[3])
    if t5_flat_from is not None:
        ax.axvline(t5_flat_from, color=styles[1]["color"], linestyle=":", linewidth=1)
        ax.text(t5_flat_from, 0.3, text(lang, en=f"T5: one bucket from Δ = {t5_flat_from} on ", zh=f"T5：从 Δ = {t5_flat_from} 起只有一个桶 "),
                fontsize=7, va="center", ha="right", color="0.2")
    masked = keys[np.isneginf(mask)]
    ax.axvspan(masked.min(), masked.max() + 1, color="0.85", zorder=0)
    low = 1.6 * min(alibi[:, behind].min(), rope.min(), -1.0)  # every head's line fits, whichever is chosen
    ax.text(masked.min() + 0.15 * future, -3.0, text(lang, en="future keys: −∞ (causal mask)", zh="未来的键：−∞（因果掩码）"), fontsize=7, rotation=90, va="center")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_yticks([0.0] + [-step * 10.0**power for power in range(0, 6) for step in (1, 3) if step * 10.0**power <= -low])
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.set_ylim(low, 0.8)
    ax.set_xlim(keys[0], max_distance)
    if log_distance:
        ax.set_xscale("symlog", linthresh=LOG_DISTANCE_FROM)
        ax.set_xticks([0] + [4**k for k in range(1, 20) if 4**k <= max_distance])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
        ax.set_xlabel(text(lang, en=f"distance Δ = m − n from the query back to the key\n(linear to {LOG_DISTANCE_FROM}, logarithmic beyond)",
                           zh=f"从查询往回到键的距离 Δ = m − n\n（0 到 {LOG_DISTANCE_FROM} 线性，{LOG_DISTANCE_FROM} 以上取对数）"))
    else:
        ax.set_xlabel(text(lang, en="distance Δ = m − n from the query back to the key", zh="从查询往回到键的距离 Δ = m − n"))
    ax.set_ylabel(text(lang, en="bias added to the score\n(linear to −1, logarithmic beyond)", zh="加到得分上的偏置\n（0 到 −1 线性，−1 以下取对数）"))
    ax.set_title(text(lang, en=f"What each scheme adds to a score, up to Δ = {max_distance}", zh=f"各方案给得分加了什么（直到 Δ = {max_distance}）"), fontsize=10)
    ax.grid(True, alpha=0.3)
    fig.legend(fontsize=7, loc="outside lower center", ncols=2)
    return fig
