"""Figures of chapter "Why does RoPE work?": decay revisited, what each band of frequencies does, and the base bound."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..base_bound import b_m_theta, first_negative
from ..decay import relative_upper_bound
from ...frequencies import DEFAULT_BASE, inv_freq
from ..frequency_roles import positional_head_score, retrieval_rate
from .style import new_figure, series_style


def plot_decay_revisited(d: int = 128, base: float = DEFAULT_BASE, max_distance: int = 512) -> Figure:
    """RoFormer's bound and the expected score of a similar key, both relative to distance 0."""
    distance = np.arange(max_distance + 1)
    bound = relative_upper_bound(distance, d, base)
    similar = b_m_theta(distance, inv_freq(d, base))
    bound, similar = bound / bound[0], similar / similar[0]
    fig = new_figure(
        f"Line chart against the relative distance 0 to {max_distance} (horizontal axis), for d = {d} and base {base:g}, "
        f"of two curves scaled to 1 at distance 0: RoFormer's upper bound, which falls to {bound[-1]:.2f}, and the "
        f"expected score of a key that is a noisy copy of the query, proportional to B(m) = Σ cos(mθ_i), which falls to "
        f"{similar[-1]:.2f} with ripples. The expected score of an unrelated key is 0 at every distance.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    ax.plot(distance, bound, markevery=64, markersize=4, label="RoFormer bound (1/(d/2)) Σ|S_j|", **series_style(0))
    ax.plot(distance, similar, markevery=64, markersize=4, label="similar key: B(m) / (d/2)", **series_style(1))
    ax.axhline(0, markersize=0, label="unrelated key", **{**series_style(2), "marker": None})
    ax.set_xlabel("relative distance m − n")
    ax.set_ylabel("relative to distance 0")
    ax.set_title(f"Long-term decay, revisited (d = {d})")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_frequency_roles(d: int = 64, base: float = DEFAULT_BASE, n_pairs: int = 8, max_distance: int = 1024, seed: int = 0) -> Figure:
    """Top: a head aimed at offset 1 built from the fast or from the slow pairs. Bottom: how often a query
    finds its matching key among random ones, for content stored in the fast or the slow pairs."""
    near = np.arange(0, 33)
    far = np.unique(np.geomspace(1, max_distance, 40).astype(np.int64))
    heads = {band: positional_head_score(near, d, base, band=band, n_pairs=n_pairs) / n_pairs for band in ("fast", "slow")}
    rates = {band: retrieval_rate(far, d, base, band=band, n_pairs=n_pairs, seed=seed) for band in ("fast", "slow")}
    fig = new_figure(
        f"Two line charts for d = {d}, base {base:g}, using the {n_pairs} fastest or the {n_pairs} slowest pairs. "
        f"Top: the score of a head aimed at the previous token against distance 0 to {near[-1]}; built from the fast "
        f"pairs it peaks at distance 1 and drops to {heads['fast'].min():.2f}, built from the slow pairs it stays "
        f"between {heads['slow'].min():.2f} and 1 and cannot single out one position. Bottom: the share of trials in "
        f"which a query finds its matching key among random ones, against distance on a log axis up to {max_distance}: "
        f"content in the slow pairs is found {rates['slow'][far <= 256].min():.0%} of the time or more up to distance 256, "
        f"content in the fast pairs only {rates['fast'][far >= 8].mean():.0%} of the time on average from distance 8 on.",
        figsize=(5.5, 5),
    )
    top, bottom = fig.subplots(2, 1)
    labels = {"fast": f"{n_pairs} fastest pairs", "slow": f"{n_pairs} slowest pairs"}
    for i, band in enumerate(("fast", "slow")):
        top.plot(near, heads[band], markersize=4, label=labels[band], **series_style(i))
        bottom.semilogx(far, rates[band], markersize=4, label=labels[band], **series_style(i))
    top.axvline(1, color="0.4", linestyle=":", linewidth=1)
    top.set_xlabel("distance m − n")
    top.set_ylabel("score (1 = peak)")
    top.set_title("A head aimed at the previous token", fontsize=10)
    top.legend(fontsize=8)
    top.grid(True, alpha=0.3)
    bottom.set_xlabel("distance to the matching key (log scale)")
    bottom.set_ylabel("share found")
    bottom.set_ylim(-0.03, 1.03)
    bottom.set_title("Finding a matching key among random ones", fontsize=10)
    bottom.legend(fontsize=8)
    bottom.grid(True, alpha=0.3)
    return fig


def plot_b_m_theta(d: int = 128, bases=(1e4, 5e5), max_len: int = 32768) -> Figure:
    """B_{m,θ} = Σ_i cos(mθ_i) against m for a few bases, with the first m where each turns negative."""
    m = np.arange(max_len + 1)
    curves = {float(b): b_m_theta(m, inv_freq(d, b)) for b in bases}
    firsts = {b: first_negative(d, b, max_len) for b in curves}
    summary = "; ".join(
        f"base {b:g} first below 0 at m = {f}" if f <= max_len else f"base {b:g} stays at or above 0" for b, f in firsts.items()
    )
    fig = new_figure(
        f"Line chart on a logarithmic horizontal axis of B(m) = Σ cos(mθ_i) (vertical axis) against m from 1 to "
        f"{max_len}, for d = {d}; it starts at d/2 = {d // 2} and decays with ripples. {summary}.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    for i, (b, curve) in enumerate(curves.items()):
        ax.semilogx(m[1:], curve[1:], markevery=0.1, markersize=4, linewidth=1, label=f"base {b:g}", **series_style(i))
        if firsts[b] <= max_len:
            ax.plot([firsts[b]], [curve[firsts[b]]], linestyle="none", marker="o", markersize=7, markerfacecolor="none", color=series_style(i)["color"])
    ax.axhline(0, color="0.3", linewidth=0.8)
    ax.set_xlabel("relative distance m (log scale)")
    ax.set_ylabel("B(m) = Σ cos(mθ_i)")
    ax.set_title(f"When does a similar key stop scoring above a random one? d = {d}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_base_reach(d: int = 128, low: float = 1e4, high: float = 1e5, points: int = 400, context_len: int = 4096) -> Figure:
    """For each base on a fine log grid, the first m where B_{m,θ} < 0: jagged, so not monotone in the base."""
    bases = np.geomspace(low, high, points)
    reach = np.array([first_negative(d, b, 4 * context_len) for b in bases])
    passing = bases[reach > context_len]
    drops = int(np.count_nonzero(np.diff(reach) < 0))
    fig = new_figure(
        f"Scatter chart on logarithmic axes of the first distance m at which B(m) turns negative (vertical axis) for "
        f"{points} bases from {low:g} to {high:g} (horizontal axis), d = {d}. The points rise overall but jump down "
        f"{drops} times from one base to the next, so a larger base is not always safer. A horizontal line marks "
        f"L = {context_len}; the smallest base above it here is {passing.min():.4g}.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    style = series_style(0)
    ax.loglog(bases, reach, linestyle="none", marker=style["marker"], color=style["color"], markersize=2.5, label="first m with B(m) < 0")
    ax.axhline(context_len, label=f"L = {context_len}", **{**series_style(1), "marker": None})
    ax.set_xlabel("base")
    ax.set_ylabel("first m with B(m) < 0")
    ax.set_title("How far each base keeps B(m) ≥ 0")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_base_bounds(context_lens, ours, published, fine=None) -> Figure:
    """The smallest base found for each context length beside the published lower bounds (log–log)."""
    context_lens = np.asarray(context_lens)
    fig = new_figure(
        f"Log–log chart of the smallest RoPE base keeping B(m) ≥ 0 up to the context length (vertical axis) against the "
        f"context length from {context_lens[0]:,} to {context_lens[-1]:,} (horizontal axis): rope_lib's coarse search "
        f"from {ours[0]:.2g} to {ours[-1]:.2g}, and the published bounds of Men et al. from {published[0]:.2g} to "
        f"{published[-1]:.2g}; both rise roughly as a power of the length.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    ax.loglog(context_lens, ours, markersize=5, label="rope_lib, 32 bases per decade", **series_style(0))
    if fine is not None:
        lens, values = fine
        ax.loglog(lens, values, markersize=5, label="rope_lib, 512 bases per decade", **series_style(2))
    ax.loglog(context_lens, published, markersize=5, label="Men et al. 2024", **series_style(1))
    ax.set_xlabel("context length L")
    ax.set_ylabel("smallest base")
    ax.set_title("The base bounds the context length (d = 128)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
