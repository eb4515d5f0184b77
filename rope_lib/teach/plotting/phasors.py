"""The RoPE score as a sum of turning arrows (chapter "Why does RoPE work?")."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..decay import pair_products, phasor_terms, rope_sum, unturned_pairs
from ...frequencies import DEFAULT_BASE
from ..language import require_language, text
from .style import SEQUENTIAL_CMAP, new_figure, series_style


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
