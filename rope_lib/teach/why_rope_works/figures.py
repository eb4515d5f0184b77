"""Figures of chapter "Why does RoPE work?": the decay revisited, the roles of the frequencies, the bound on the base;
the RoPE score as a sum of turning arrows, and RoPE among its relatives, each an interactive figure.
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..._validate import require_positive_int
from ...frequencies import DEFAULT_BASE, inv_freq
from ...llama import causal_mask
from ...relative_bias import alibi_bias, alibi_slopes, t5_relative_bias, t5_relative_bucket
from ..rope_nd.decay import pair_products, phasor_terms, relative_upper_bound, rope_sum, unturned_pairs
from ..shared.figure_style import SEQUENTIAL_CMAP, new_figure, series_style
from ..shared.interactive import Control, InteractiveFigure
from ..shared.language import require_language, text
from .base_bound import b_m_theta, first_negative
from .frequency_roles import positional_head_score, retrieval_rate


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


# --- the RoPE score as a sum of turning arrows ------------------------------------------------------------------------

def phasor_limits(q, k, distances, bases) -> dict:
    """Fixed axes for every frame of `plot_phasor_sum(q, k, Δ, base)` over the given distances and bases: the square
    of the complex plane that holds every path, and the running panel out to the largest distance (log scale past
    1) with room for every score on the way. Keyword arguments for `plot_phasor_sum`."""
    h = pair_products(q, k)
    furthest = int(max(distances))
    paths = np.concatenate([phasor_terms(h, np.asarray(distances), base).ravel() for base in bases])
    corners = np.concatenate([paths, paths.real + 0j])
    scores = np.concatenate([rope_sum(h, np.arange(furthest + 1), base).real for base in bases])
    return {"plane_box": _square_around(corners), "running_box": (furthest, float(scores.min()), float(scores.max()))}


def _square_around(points: np.ndarray) -> tuple[float, float, float, float]:
    """(x₀, x₁, y₀, y₁) of a square with a margin around complex points, for an axes of equal aspect."""
    low, high = min(points.real.min(), points.imag.min()), max(points.real.max(), points.imag.max())
    margin = 0.08 * max(high - low, 1e-9)
    centre = ((points.real.min() + points.real.max()) / 2, (points.imag.min() + points.imag.max()) / 2)
    half = (max(np.ptp(points.real), np.ptp(points.imag)) / 2) + margin
    return centre[0] - half, centre[0] + half, centre[1] - half, centre[1] + half


def plot_phasor_sum(q, k, relative: int, base: float = DEFAULT_BASE, *, plane_box=None, running_box=None,
                    lang: str = "en") -> Figure:
    """Left: the d/2 terms h_i e^{iΔθ_i} laid tip to tail, shaded by pair, the resultant Σ and its real part,
    the score, on the real axis. Right: the score against the distance from 0 up to Δ.

    By default each panel fits its own frame. `plane_box` (x₀, x₁, y₀, y₁) fixes the complex plane and `running_box`
    (largest distance, lowest score, highest score) the running panel, on a distance axis logarithmic past 1, so that
    the frames of an interactive figure share their axes (`phasor_limits`)."""
    require_language(lang)
    h = pair_products(q, k)
    d = 2 * h.size
    path = phasor_terms(h, relative, base)  # (d/2 + 1,)
    tip = complex(path[-1])
    distance = np.arange(max(int(relative), 1) + 1)
    scores = rope_sum(h, distance, base).real  # (Δ + 1,)
    still = int(unturned_pairs(relative, d, base))
    fig = new_figure(
        text(
            lang,
            en=f"Two panels for d = {d}, base {base:g}, relative distance Δ = {relative}. Left: the complex plane with the "
            f"{d // 2} terms h_i e^(iΔθ_i) of the RoPE score drawn as arrows laid tip to tail, shaded from dark (pair 0, "
            f"the fastest) to light (pair {d // 2 - 1}, the slowest); {still} of the {d // 2} arrows have turned by less "
            f"than a quarter turn since distance 0. A thick arrow from 0 to their sum, {tip.real:.2f}{tip.imag:+.2f}i, "
            f"is the resultant; its real part {tip.real:.2f}, marked on the real axis, is the score. Right: the score "
            f"against the distance from 0 to {distance[-1]}: {scores[0]:.2f} at distance 0, {tip.real:.2f} at Δ = {relative}, "
            f"between {scores.min():.2f} and {scores.max():.2f} on the way.",
            zh=f"两幅图，d = {d}，底数 {base:g}，相对距离 Δ = {relative}。左图：复平面上，RoPE 得分的 {d // 2} 项 "
            f"h_i e^(iΔθ_i) 画成首尾相接的箭头，颜色从深（第 0 对，转得最快）到浅（第 {d // 2 - 1} 对，转得最慢）；"
            f"{d // 2} 个箭头中有 {still} 个自距离 0 以来转过的角度不到四分之一圈。一支从 0 指向它们之和 "
            f"{tip.real:.2f}{tip.imag:+.2f}i 的粗箭头是合向量；它的实部 {tip.real:.2f} 标在实轴上，就是得分。"
            f"右图：得分随距离从 0 到 {distance[-1]} 的变化：距离 0 处为 {scores[0]:.2f}，Δ = {relative} 处为 {tip.real:.2f}，"
            f"途中在 {scores.min():.2f} 与 {scores.max():.2f} 之间。",
        ),
        figsize=(8.5, 3.9),
    )
    plane, running = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.15, 1]})
    shade = ScalarMappable(Normalize(0, d // 2 - 1), colormaps[SEQUENTIAL_CMAP])
    arrows = np.diff(path)
    plane.quiver(path[:-1].real, path[:-1].imag, arrows.real, arrows.imag, color=shade.to_rgba(np.arange(d // 2)),
                 angles="xy", scale_units="xy", scale=1, width=0.006, headwidth=3.5, headlength=4, zorder=2)
    plane.annotate("", xy=(tip.real, tip.imag), xytext=(0, 0),
                   arrowprops={"arrowstyle": "-|>", "color": "black", "linewidth": 1.8, "shrinkA": 0, "shrinkB": 0}, zorder=1)
    plane.plot([tip.real, tip.real], [tip.imag, 0], color="0.35", linestyle=":", linewidth=1.2)
    score_style = series_style(3)
    plane.plot([tip.real], [0], linestyle="none", marker=score_style["marker"], color=score_style["color"], markersize=8,
               zorder=4, label=text(lang, en=f"score = Re Σ = {tip.real:.2f}", zh=f"得分 = Re Σ = {tip.real:.2f}"))
    plane.axhline(0, color="0.75", linewidth=0.7, zorder=0)
    plane.axvline(0, color="0.75", linewidth=0.7, zorder=0)
    x0, x1, y0, y1 = plane_box if plane_box is not None else _square_around(np.concatenate([path, [tip.real + 0j]]))
    plane.set_xlim(x0, x1)
    plane.set_ylim(y0, y1)
    plane.set_aspect("equal")
    plane.set_xlabel(text(lang, en="real part", zh="实部"), labelpad=1)
    plane.set_ylabel(text(lang, en="imaginary part", zh="虚部"))
    plane.set_title(text(lang, en=f"Δ = {relative}, base {base:g}: {still} of {d // 2} arrows within a quarter turn",
                         zh=f"Δ = {relative}，底数 {base:g}：{d // 2} 个箭头中有 {still} 个转过不到四分之一圈"), fontsize=9)
    plane.legend(loc="best", fontsize=8)
    fig.colorbar(shade, ax=plane, label=text(lang, en="pair i (0 = fastest)", zh="第 i 对（0 = 最快）"), location="bottom", shrink=0.7, aspect=30)
    line_style = series_style(0)
    running.plot(distance[: int(relative) + 1], scores[: int(relative) + 1], color=line_style["color"], linewidth=1)
    running.plot([relative], [tip.real], linestyle="none", marker=score_style["marker"], color=score_style["color"], markersize=8)
    running.axhline(0, color="0.3", linewidth=0.8)
    if running_box is None:
        running.set_xlim(-0.03 * distance[-1], 1.03 * distance[-1])
        running.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        running.set_xlabel(text(lang, en="relative distance m − n", zh="相对距离 m − n"))
    else:
        furthest, lowest, highest = running_box
        running.set_xscale("symlog", linthresh=1.0)
        running.set_xlim(0, 1.3 * furthest)
        margin = 0.06 * (highest - lowest)
        running.set_ylim(min(lowest, 0.0) - margin, highest + margin)
        running.set_xlabel(text(lang, en="relative distance m − n (log scale past 1)", zh="相对距离 m − n（大于 1 处取对数）"))
    running.set_ylabel(text(lang, en="score ⟨R^d_(Θ,m) q, R^d_(Θ,n) k⟩", zh="得分 ⟨R^d_(Θ,m) q, R^d_(Θ,n) k⟩"))
    running.set_title(text(lang, en=f"the score from distance 0 to {relative}", zh=f"从距离 0 到 {relative} 的得分"), fontsize=9)
    running.grid(True, alpha=0.3)
    return fig


PHASOR_DISTANCES = (0, 1, 4, 16, 64, 256, 1024, 16384)
PHASOR_BASES = (1000.0, 5000.0, 10000.0, 50000.0, 100000.0, 500000.0, 1000000.0, 10000000.0)
"""8 distances × 8 bases = 64 frames, each distance the chapter names among them: with the chapter's other interactive
figure (8 frames) the page stays within its byte budget."""


def phasor_widget(q, *, lang: str = "en") -> InteractiveFigure:
    """The arrows of the score of q against an identical key, ⟨R_m q, R_n q⟩, in d = len(q) dimensions, for 8
    distances × 8 bases = 64 frames. Every frame shares its axes: the complex plane holds every frame's arrows, the
    running score runs out to the largest distance."""
    require_language(lang)
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 1 or q.size < 2 or q.size % 2:
        raise ValueError(f"q must be a vector of an even number of coordinates, at least 2, got shape {q.shape}")
    limits = phasor_limits(q, q, PHASOR_DISTANCES, PHASOR_BASES)

    def draw(relative: int, base: float):
        return plot_phasor_sum(q, q, relative, base, **limits, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("relative", text(lang, en="distance Δ = m − n", zh="距离 Δ = m − n"), PHASOR_DISTANCES, 64, fmt=lambda r: f"{r:,}"),
            Control("base", text(lang, en="base", zh="底数"), PHASOR_BASES, 10000.0, fmt=lambda b: f"{b:,.0f}"),
        ),
        lang=lang,
    )


# --- RoPE among its relatives: the bias each scheme adds to a score against the distance ------------------------------

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


RELATIVE_BIAS_DISTANCE = 4096
"""The distances every frame shows, 0 … 4096 on a logarithmic axis: T5's first buckets and its last, the window of
the steepest ALiBi head (about 20 tokens) and of the gentlest (about 2,560)."""


def relative_bias_widget(*, lang: str = "en") -> InteractiveFigure:
    """8 ALiBi heads (a pick among the heads) = 8 frames, on the same axes."""
    require_language(lang)

    def draw(head: int):
        return plot_relative_biases(head, RELATIVE_BIAS_DISTANCE, log_distance=True, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(Control("head", text(lang, en="ALiBi head (of 8)", zh="ALiBi 的头（共 8 个）"), tuple(range(1, 9)), 1, choice=True),),
        lang=lang,
    )
