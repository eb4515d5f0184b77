"""Figures of chapter "Longer contexts": unseen angles, rescaled frequencies, and the score against distance."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, inv_freq
from ...scaling import FACTOR_RULES, angle_coverage, scaled_frequencies
from ..base_bound import similarity_curve
from .style import new_figure, series_style

_RULE_LABELS = {
    "linear": "position interpolation",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK at s·L",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
}

METHOD_NAMES = {"none": "plain RoPE", **{method: _RULE_LABELS[method] for method in FACTOR_RULES}}
"""How the figures name each rule: "none" (no rescaling), then every rule of `FACTOR_RULES`, in its order."""


def _distances(max_distance: int, count: int = 1200) -> np.ndarray:
    """Integer distances from 1 to max_distance, spaced evenly on a log scale."""
    return np.unique(np.geomspace(1, max_distance, count).astype(np.int64))


def plot_angle_coverage(d: int = 128, base: float = DEFAULT_BASE, context_len: int = 4096, factor: float = 4.0) -> Figure:
    """Per pair, the share of a full turn its angle sweeps in training (L) and in a context s times longer."""
    trained = angle_coverage(d, base, context_len)
    longer = angle_coverage(d, base, int(factor * context_len))
    new = int(np.count_nonzero(longer > trained))
    first = int(np.argmax(trained < 1))
    fig = new_figure(
        f"Line chart of the share of a full turn (vertical axis, 0 to 1) that each of the {d // 2} rotation pairs "
        f"(horizontal axis, pair index) sweeps over a context, for d = {d} and base {base:g}. Over the training length "
        f"{context_len} every pair up to {first - 1} turns fully, and the slower pairs cover less and less of the circle; "
        f"over {int(factor * context_len)} positions those {new} slow pairs reach angles they never reached in training.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    pairs = np.arange(d // 2)
    ax.fill_between(pairs, trained, longer, color=series_style(1)["color"], alpha=0.25, label="angles never seen in training")
    ax.plot(pairs, trained, markevery=4, markersize=4, label=f"trained, L = {context_len}", **series_style(0))
    ax.plot(pairs, longer, markevery=4, markersize=4, label=f"longer, {factor:g}·L = {int(factor * context_len)}", **series_style(1))
    ax.set_xlabel("pair index i (fast → slow)")
    ax.set_ylabel("share of a full turn swept")
    ax.set_title(f"Which angles a context reaches, d = {d}, base {base:g}")
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left", fontsize=8)
    return fig


def plot_scaled_frequencies(
    d: int = 128, base: float = DEFAULT_BASE, factor: float = 4.0, original_max_len: int = 4096, methods=("linear", "ntk", "yarn", "llama3")
) -> Figure:
    """θ'_i/θ_i per pair for several rules on one log axis: 1 means kept, 1/s means fully interpolated."""
    theta = inv_freq(d, base)
    ratios = {m: scaled_frequencies(m, factor, d, base, original_max_len)[0] / theta for m in methods}
    summary = "; ".join(f"{METHOD_NAMES[m]} from {r[0]:.2f} to {r[-1]:.3f}" for m, r in ratios.items())
    fig = new_figure(
        f"Line chart on a logarithmic vertical axis of the ratio of each pair's new frequency to its old one "
        f"(horizontal axis: pair index, fast to slow), for d = {d}, base {base:g}, factor s = {factor:g} and trained "
        f"length {original_max_len}. A ratio of 1 keeps the pair, 1/s = {1 / factor:.3f} interpolates it fully: {summary}.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    pairs = np.arange(d // 2)
    for i, (m, r) in enumerate(ratios.items()):
        ax.semilogy(pairs, r, markevery=6, markersize=4, label=METHOD_NAMES[m], **series_style(i))
    ax.axhline(1 / factor, color="0.4", linewidth=0.8)
    ax.set_xlabel("pair index i (fast → slow)")
    ax.set_ylabel("θ′_i / θ_i")
    ax.set_title(f"How each rule rescales the frequencies, s = {factor:g}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_similarity_vs_distance(
    d: int = 128, base: float = DEFAULT_BASE, factor: float = 4.0, original_max_len: int = 4096, methods=("none", "linear", "ntk", "yarn")
) -> Figure:
    """The expected score of a key that copies the query against distance, out to s·L, for several rules."""
    distances = _distances(int(factor * original_max_len))
    curves = {m: similarity_curve(*scaled_frequencies(m, factor, d, base, original_max_len), distances) for m in methods}
    summary = "; ".join(f"{METHOD_NAMES[m]} {c.min():.2f}" for m, c in curves.items())
    fig = new_figure(
        f"Line chart of the expected score of a key that copies the query (vertical axis, 1 at distance 0 for plain "
        f"RoPE) against the distance on a logarithmic axis from 1 to {distances[-1]}, for d = {d}, base {base:g}, "
        f"factor {factor:g}; a vertical line marks the trained length {original_max_len}. The lowest value each curve "
        f"reaches is: {summary}. Rescaled curves stretch the trained shape over the longer context.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    for i, (m, c) in enumerate(curves.items()):
        ax.semilogx(distances, c, markevery=150, markersize=4, linewidth=1.2, label=METHOD_NAMES[m], **series_style(i))
    ax.axvline(original_max_len, color="0.3", linestyle=":", linewidth=1)
    ax.axhline(0, color="0.5", linewidth=0.8)
    ax.set_xlabel("distance m − n (log scale)")
    ax.set_ylabel("score of a similar key")
    ax.set_title(f"Similar-key score against distance, s = {factor:g}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_context_extension(method: str = "yarn", factor: float = 4.0, *, d: int = 128, base: float = DEFAULT_BASE, original_max_len: int = 4096) -> Figure:
    """One rule beside plain RoPE: its frequency ratios (top) and its similar-key score against distance (bottom)."""
    theta = inv_freq(d, base)
    freqs, attention = scaled_frequencies(method, factor, d, base, original_max_len)
    distances = _distances(int(factor * original_max_len), 600)
    plain, scaled = similarity_curve(theta, 1.0, distances), similarity_curve(freqs, attention, distances)
    ratio = freqs / theta
    beyond = distances > original_max_len
    fig = new_figure(
        f"Two line charts for {METHOD_NAMES[method]} with factor s = {factor:g} (d = {d}, base {base:g}, trained length "
        f"{original_max_len}). Top: the ratio of new to old frequency per pair runs from {ratio[0]:.2f} for the fastest "
        f"pair to {ratio[-1]:.3f} for the slowest. Bottom: the expected score of a key that copies the query against "
        f"distance out to {int(factor * original_max_len)}; beyond the trained length plain RoPE falls to "
        f"{plain[beyond].min():.2f} and the rescaled rule to {scaled[beyond].min():.2f}.",
        figsize=(5, 4.2),
    )
    top, bottom = fig.subplots(2, 1)
    top.semilogy(np.arange(d // 2), ratio, markevery=8, markersize=3, label=METHOD_NAMES[method], **series_style(1))
    top.axhline(1, color="0.4", linewidth=0.8)
    top.axhline(1 / factor, color="0.4", linestyle=":", linewidth=0.8)
    top.set_ylim(min(ratio.min(), 1 / factor) / 1.6, 1.6)
    top.set_xlabel("pair index i")
    top.set_ylabel("θ′_i / θ_i")
    top.set_title(f"{METHOD_NAMES[method]}, s = {factor:g}", fontsize=10)
    top.grid(True, which="major", alpha=0.3)
    bottom.semilogx(distances, plain, markevery=120, markersize=3, linewidth=1, label="plain RoPE", **series_style(0))
    bottom.semilogx(distances, scaled, markevery=120, markersize=3, linewidth=1, label=METHOD_NAMES[method], **series_style(1))
    bottom.axvline(original_max_len, color="0.3", linestyle=":", linewidth=1)
    bottom.axhline(0, color="0.5", linewidth=0.8)
    bottom.set_xlim(1, 16 * original_max_len)
    bottom.set_ylim(-0.35, 1.6)
    bottom.set_xlabel("distance m − n (log scale)")
    bottom.set_ylabel("similar-key score")
    bottom.legend(fontsize=7, loc="upper right")
    bottom.grid(True, alpha=0.3)
    return fig


def plot_cache_gaps(gaps: dict, original_max_len: int) -> Figure:
    """Largest difference between cached step-by-step decoding and one full pass, per decoding step, for each rule.

    gaps: label → (positions, differences), as measured in the chapter with `rope_lib.Attention`.
    """
    summary = "; ".join(f"{label}: largest {np.max(g):.1e}" for label, (_, g) in gaps.items())
    fig = new_figure(
        f"Line chart on a logarithmic vertical axis of the largest difference between the output of cached "
        f"step-by-step decoding and of one full pass (vertical axis) at each decoded position (horizontal axis); a "
        f"vertical line marks the trained length {original_max_len}; differences below 1e-9 are drawn at 1e-9. {summary}.",
        figsize=(6, 3.2),
    )
    ax = fig.add_subplot()
    for i, (label, (positions, g)) in enumerate(gaps.items()):
        ax.semilogy(positions, np.maximum(g, 1e-9), markersize=4, label=label, **series_style(i))
    ax.axvline(original_max_len - 0.5, color="0.3", linestyle=":", linewidth=1)
    ax.set_xlabel("position of the decoded token")
    ax.set_ylabel("largest |cached − full| (≥ 1e-9)")
    ax.set_title("Cached decoding against one full pass")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
