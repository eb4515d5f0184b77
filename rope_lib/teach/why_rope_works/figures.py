"""Figures of chapter "Why does RoPE work?": decay revisited, what each band of frequencies does, and the base bound."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..base_bound import b_m_theta, first_negative
from ..decay import relative_upper_bound
from ...frequencies import DEFAULT_BASE, inv_freq
from ..frequency_roles import positional_head_score, retrieval_rate
from ..language import require_language, text
from .style import new_figure, series_style


def plot_decay_revisited(d: int = 128, base: float = DEFAULT_BASE, max_distance: int = 512, *, lang: str = "en") -> Figure:
    """RoFormer's bound and the expected score of a similar key, both relative to distance 0."""
    require_language(lang)
    distance = np.arange(max_distance + 1)
    bound = relative_upper_bound(distance, d, base)
    similar = b_m_theta(distance, inv_freq(d, base))
    bound, similar = bound / bound[0], similar / similar[0]
    fig = new_figure(
        text(
            lang,
            en=f"Line chart against the relative distance 0 to {max_distance} (horizontal axis), for d = {d} and base {base:g}, "
            f"of two curves scaled to 1 at distance 0: RoFormer's upper bound, which falls to {bound[-1]:.2f}, and the "
            f"expected score of a key that is a noisy copy of the query, proportional to B(Δ) = Σ cos(Δθ_i), which falls to "
            f"{similar[-1]:.2f} with ripples. The expected score of an unrelated key is 0 at every distance.",
            zh=f"折线图，横轴是相对距离 0 到 {max_distance}，d = {d}，底数 {base:g}。两条曲线都在距离 0 处缩放为 1："
            f"RoFormer 的上界降到 {bound[-1]:.2f}；键是查询加噪声的副本时，期望得分与 B(Δ) = Σ cos(Δθ_i) 成正比，"
            f"带着起伏降到 {similar[-1]:.2f}。无关的键在每个距离上的期望得分都是 0。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    ax.plot(distance, bound, markevery=64, markersize=4, label=text(lang, en="RoFormer bound (1/(d/2)) Σ|S_j|", zh="RoFormer 上界 (1/(d/2)) Σ|S_j|"), **series_style(0))
    ax.plot(distance, similar, markevery=64, markersize=4, label=text(lang, en="similar key: B(Δ) / (d/2)", zh="相似的键：B(Δ) / (d/2)"), **series_style(1))
    ax.axhline(0, markersize=0, label=text(lang, en="unrelated key", zh="无关的键"), **{**series_style(2), "marker": None})
    ax.set_xlabel(text(lang, en="relative distance m − n", zh="相对距离 m − n"))
    ax.set_ylabel(text(lang, en="relative to distance 0", zh="相对于距离 0 处的值"))
    ax.set_title(text(lang, en=f"Long-term decay, revisited (d = {d})", zh=f"再看远程衰减（d = {d}）"))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_frequency_roles(d: int = 64, base: float = DEFAULT_BASE, n_pairs: int = 8, max_distance: int = 1024, seed: int = 0,
                         *, lang: str = "en") -> Figure:
    """Top: a head aimed at offset 1 built from the fast or from the slow pairs. Bottom: how often a query
    finds its matching key among random ones, for content stored in the fast or the slow pairs."""
    require_language(lang)
    near = np.arange(0, 33)
    far = np.unique(np.geomspace(1, max_distance, 40).astype(np.int64))
    heads = {band: positional_head_score(near, d, base, band=band, n_pairs=n_pairs) / n_pairs for band in ("fast", "slow")}
    rates = {band: retrieval_rate(far, d, base, band=band, n_pairs=n_pairs, seed=seed) for band in ("fast", "slow")}
    slow_near, fast_far = rates["slow"][far <= 256].min(), rates["fast"][far >= 8].mean()
    fig = new_figure(
        text(
            lang,
            en=f"Two line charts for d = {d}, base {base:g}, using the {n_pairs} fastest or the {n_pairs} slowest pairs. "
            f"Top: the score of a head aimed at the previous token against distance 0 to {near[-1]}; built from the fast "
            f"pairs it peaks at distance 1 and drops to {heads['fast'].min():.2f}, built from the slow pairs it stays "
            f"between {heads['slow'].min():.2f} and 1 and cannot single out one position. Bottom: the share of trials in "
            f"which a query finds its matching key among random ones, against distance on a log axis up to {max_distance}: "
            f"content in the slow pairs is found {slow_near:.0%} of the time or more up to distance 256, "
            f"content in the fast pairs only {fast_far:.0%} of the time on average from distance 8 on.",
            zh=f"两幅折线图，d = {d}，底数 {base:g}，分别只用最快的 {n_pairs} 对或最慢的 {n_pairs} 对。"
            f"上图：一个瞄准前一个词元的注意力头，其得分随距离 0 到 {near[-1]} 的变化；用快的维度对搭建时，它在距离 1 处达到峰值，"
            f"最低降到 {heads['fast'].min():.2f}；用慢的维度对搭建时，它始终在 {heads['slow'].min():.2f} 到 1 之间，"
            f"挑不出某一个位置。下图：查询在一堆随机键中找到与它匹配的键的比例，横轴是距离，取对数，最大到 {max_distance}："
            f"内容存放在慢的维度对中时，直到距离 256 都至少有 {slow_near:.0%} 的次数能找到；"
            f"存放在快的维度对中时，从距离 8 起平均只有 {fast_far:.0%}。",
        ),
        figsize=(5.5, 5),
    )
    top, bottom = fig.subplots(2, 1)
    labels = {"fast": text(lang, en=f"{n_pairs} fastest pairs", zh=f"最快的 {n_pairs} 对"),
              "slow": text(lang, en=f"{n_pairs} slowest pairs", zh=f"最慢的 {n_pairs} 对")}
    for i, band in enumerate(("fast", "slow")):
        top.plot(near, heads[band], markersize=4, label=labels[band], **series_style(i))
        bottom.semilogx(far, rates[band], markersize=4, label=labels[band], **series_style(i))
    top.axvline(1, color="0.4", linestyle=":", linewidth=1)
    top.set_xlabel(text(lang, en="distance m − n", zh="距离 m − n"))
    top.set_ylabel(text(lang, en="score (1 = peak)", zh="得分（1 = 峰值）"))
    top.set_title(text(lang, en="A head aimed at the previous token", zh="瞄准前一个词元的注意力头"), fontsize=10)
    top.legend(fontsize=8)
    top.grid(True, alpha=0.3)
    bottom.set_xlabel(text(lang, en="distance to the matching key (log scale)", zh="到匹配键的距离（对数刻度）"))
    bottom.set_ylabel(text(lang, en="share found", zh="找到的比例"))
    bottom.set_ylim(-0.03, 1.03)
    bottom.set_title(text(lang, en="Finding a matching key among random ones", zh="在随机键中找出匹配的键"), fontsize=10)
    bottom.legend(fontsize=8)
    bottom.grid(True, alpha=0.3)
    return fig


def plot_b_m_theta(d: int = 128, bases=(1e4, 5e5), max_len: int = 32768, *, lang: str = "en") -> Figure:
    """B_{m,θ} = Σ_i cos(mθ_i) against m for a few bases, with the first m where each turns negative."""
    require_language(lang)
    m = np.arange(max_len + 1)
    curves = {float(b): b_m_theta(m, inv_freq(d, b)) for b in bases}
    firsts = {b: first_negative(d, b, max_len) for b in curves}
    summary = text(lang, en="; ", zh="；").join(
        (text(lang, en=f"base {b:g} first below 0 at Δ = {f}", zh=f"底数 {b:g} 在 Δ = {f} 处首次低于 0") if f <= max_len
         else text(lang, en=f"base {b:g} stays at or above 0", zh=f"底数 {b:g} 始终不低于 0"))
        for b, f in firsts.items()
    )
    fig = new_figure(
        text(
            lang,
            en=f"Line chart on a logarithmic horizontal axis of B(Δ) = Σ cos(Δθ_i) (vertical axis) against Δ from 1 to "
            f"{max_len}, for d = {d}; it starts at d/2 = {d // 2} and decays with ripples. {summary}.",
            zh=f"折线图，横轴取对数，画出 B(Δ) = Σ cos(Δθ_i)（纵轴）随 Δ 从 1 到 {max_len} 的变化，d = {d}；"
            f"它从 d/2 = {d // 2} 开始，带着起伏衰减。{summary}。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    for i, (b, curve) in enumerate(curves.items()):
        ax.semilogx(m[1:], curve[1:], markevery=0.1, markersize=4, linewidth=1, label=text(lang, en=f"base {b:g}", zh=f"底数 {b:g}"), **series_style(i))
        if firsts[b] <= max_len:
            ax.plot([firsts[b]], [curve[firsts[b]]], linestyle="none", marker="o", markersize=7, markerfacecolor="none", color=series_style(i)["color"])
    ax.axhline(0, color="0.3", linewidth=0.8)
    ax.set_xlabel(text(lang, en="relative distance Δ (log scale)", zh="相对距离 Δ（对数刻度）"))
    ax.set_ylabel("B(Δ) = Σ cos(Δθ_i)")
    ax.set_title(text(lang, en=f"When does a similar key stop scoring above a random one? d = {d}",
                      zh=f"相似的键何时不再比随机的键得分高？d = {d}"))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_base_reach(d: int = 128, low: float = 1e4, high: float = 1e5, points: int = 400, context_len: int = 4096,
                    *, lang: str = "en") -> Figure:
    """For each base on a fine log grid, the first m where B_{m,θ} < 0: jagged, so not monotone in the base."""
    require_language(lang)
    bases = np.geomspace(low, high, points)
    reach = np.array([first_negative(d, b, 4 * context_len) for b in bases])
    passing = bases[reach > context_len]
    drops = int(np.count_nonzero(np.diff(reach) < 0))
    fig = new_figure(
        text(
            lang,
            en=f"Scatter chart on logarithmic axes of the first distance Δ at which B(Δ) turns negative (vertical axis) for "
            f"{points} bases from {low:g} to {high:g} (horizontal axis), d = {d}. The points rise overall but jump down "
            f"{drops} times from one base to the next, so a larger base is not always safer. A horizontal line marks "
            f"L = {context_len}; the smallest base above it here is {passing.min():.4g}.",
            zh=f"散点图，两轴都取对数：横轴是从 {low:g} 到 {high:g} 的 {points} 个底数，纵轴是 B(Δ) 首次变为负数的距离 Δ，"
            f"d = {d}。这些点总体上升，但从一个底数到下一个底数有 {drops} 次向下跳，所以底数更大并不总是更安全。"
            f"一条水平线标出 L = {context_len}；这里高于它的最小底数是 {passing.min():.4g}。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    style = series_style(0)
    ax.loglog(bases, reach, linestyle="none", marker=style["marker"], color=style["color"], markersize=2.5,
              label=text(lang, en="first Δ with B(Δ) < 0", zh="B(Δ) < 0 的第一个 Δ"))
    ax.axhline(context_len, label=f"L = {context_len}", **{**series_style(1), "marker": None})
    ax.set_xlabel(text(lang, en="base", zh="底数"))
    ax.set_ylabel(text(lang, en="first Δ with B(Δ) < 0", zh="B(Δ) < 0 的第一个 Δ"))
    ax.set_title(text(lang, en="How far each base keeps B(Δ) ≥ 0", zh="每个底数能让 B(Δ) ≥ 0 保持多远"))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_base_bounds(context_lens, ours, published, fine=None, *, lang: str = "en") -> Figure:
    """The smallest base found for each context length beside the published lower bounds (log–log)."""
    require_language(lang)
    context_lens = np.asarray(context_lens)
    fig = new_figure(
        text(
            lang,
            en=f"Log–log chart of the smallest RoPE base keeping B(Δ) ≥ 0 up to the context length (vertical axis) against the "
            f"context length from {context_lens[0]:,} to {context_lens[-1]:,} (horizontal axis): rope_lib's coarse search "
            f"from {ours[0]:.2g} to {ours[-1]:.2g}, and the published bounds of Men et al. from {published[0]:.2g} to "
            f"{published[-1]:.2g}; both rise roughly as a power of the length.",
            zh=f"双对数图：横轴是从 {context_lens[0]:,} 到 {context_lens[-1]:,} 的上下文长度，纵轴是让 B(Δ) ≥ 0 "
            f"一直保持到该上下文长度的最小 RoPE 底数。rope_lib 的粗网格搜索结果从 {ours[0]:.2g} 到 {ours[-1]:.2g}，"
            f"Men 等人发表的下界从 {published[0]:.2g} 到 {published[-1]:.2g}；两者都大致随长度按幂律上升。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    ax.loglog(context_lens, ours, markersize=5, label=text(lang, en="rope_lib, 32 bases per decade", zh="rope_lib，每个数量级 32 个底数"), **series_style(0))
    if fine is not None:
        lens, values = fine
        ax.loglog(lens, values, markersize=5, label=text(lang, en="rope_lib, 512 bases per decade", zh="rope_lib，每个数量级 512 个底数"), **series_style(2))
    ax.loglog(context_lens, published, markersize=5, label=text(lang, en="Men et al. 2024", zh="Men 等人 2024"), **series_style(1))
    ax.set_xlabel(text(lang, en="context length L", zh="上下文长度 L"))
    ax.set_ylabel(text(lang, en="smallest base", zh="最小底数"))
    ax.set_title(text(lang, en="The base bounds the context length (d = 128)", zh="底数限定了上下文长度（d = 128）"))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
