"""Figures about the absolute sinusoidal encoding: the table P, one pair on its circle, and scores under a shift."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, inv_freq, wavelengths
from ...sinusoidal import absolute_position_score, sinusoidal_encoding, sinusoidal_pair, sinusoidal_position
from .complex_plane import draw_unit_circle
from .style import DIVERGING_CMAP, new_figure, series_style


def plot_sinusoidal_encoding(seq_len: int, d: int, base: float = DEFAULT_BASE) -> Figure:
    """Heatmap of P: row i is p_i, column j one coordinate; columns oscillate more slowly from left to right."""
    table = sinusoidal_encoding(seq_len, d, base)
    lam = wavelengths(d, base)
    fig = new_figure(
        f"Heatmap of the sinusoidal position table P with {seq_len} positions as rows and d = {d} coordinates as "
        f"columns, coloured from -1 to 1. Even columns hold sines and odd columns cosines; the pattern changes fast "
        f"in the left columns (wavelength {lam[0]:.2f} positions) and slowly on the right (wavelength "
        f"{lam[-1]:,.0f} positions), where the columns look constant.",
        figsize=(6, 4),
    )
    ax = fig.add_subplot()
    image = ax.imshow(table, cmap=DIVERGING_CMAP, vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xlabel("coordinate j (even: sin, odd: cos)")
    ax.set_ylabel("position i")
    ax.set_title(f"sinusoidal encoding P, {seq_len} positions, d = {d}")
    fig.colorbar(image, ax=ax, label="$p_{i,j}$")
    return fig


def plot_sinusoidal_pair(m: int, t: int, d: int, base: float = DEFAULT_BASE, trail: int = 12) -> Figure:
    """The point (p_{m,2t}, p_{m,2t+1}) = (sin mω_t, cos mω_t) on the unit circle, with the positions before it."""
    omega = float(inv_freq(d, base)[t])
    previous = np.arange(max(0, m - trail), m + 1)
    points = sinusoidal_pair(previous, t, d, base)  # (len(previous), 2)
    here = points[-1]
    fig = new_figure(
        f"The unit circle with horizontal axis p_(m,2t) (the sine) and vertical axis p_(m,2t+1) (the cosine), for "
        f"pair t = {t} of d = {d} (frequency {omega:.4g} radians per position). The point of position m = {m} is "
        f"at ({here[0]:.3f}, {here[1]:.3f}), angle {np.degrees(m * omega) % 360:.1f} degrees clockwise from the "
        f"top; dots mark positions {previous[0]} to {m}, each {np.degrees(omega):.2f} degrees further clockwise.",
        figsize=(4.4, 4.2),
    )
    ax = fig.add_subplot()
    draw_unit_circle(ax)
    trail_style, point_style = series_style(0), series_style(1)
    ax.plot(points[:, 0], points[:, 1], linestyle=":", marker=".", color=trail_style["color"], label=f"positions {previous[0]}…{m}")
    ax.annotate("", xy=tuple(here), xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": point_style["color"], "linewidth": 1.8})
    ax.plot([here[0]], [here[1]], linestyle="none", marker=point_style["marker"], markersize=9, color=point_style["color"], label=f"position m = {m}")
    ax.set_xlim(-1.25, 1.25)
    ax.set_ylim(-1.25, 1.25)
    ax.set_xlabel(f"$p_{{m,{2 * t}}} = \\sin(m\\,\\omega_{t})$")
    ax.set_ylabel(f"$p_{{m,{2 * t + 1}}} = \\cos(m\\,\\omega_{t})$")
    ax.set_title(f"pair t = {t}, $\\omega_{t}$ = {omega:.4g}, m = {m}", fontsize=10)
    ax.legend(loc="lower left", fontsize=8)
    return fig


def plot_absolute_scores_under_shift(x_m, x_n, w_q, w_k, m: int, n: int, shifts, base: float = DEFAULT_BASE) -> Figure:
    """Shift both positions by s: p_{m+s}·p_{n+s} stays flat, the projected score (W_q(x_m+p))·(W_k(x_n+p)) moves."""
    shifts = np.asarray(shifts)
    d = len(x_m)
    p_only = np.array([sinusoidal_position(m + s, d, base) @ sinusoidal_position(n + s, d, base) for s in shifts])
    full = np.array([absolute_position_score(x_m, x_n, m + s, n + s, w_q, w_k, base) for s in shifts])
    fig = new_figure(
        f"Line chart against a shift s from {shifts[0]} to {shifts[-1]} applied to both positions (query at {m} + s, "
        f"key at {n} + s, d = {d}). The dot product of the two position vectors stays at {p_only[0]:.3f} for every s; "
        f"the score of the projected sums (W_q(x_m + p_m))·(W_k(x_n + p_n)) wanders between {full.min():.2f} and "
        f"{full.max():.2f}, so with the projections the score is no longer a function of m − n alone.",
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    ax.plot(shifts, p_only, markersize=4, label=r"$p_{m+s}\cdot p_{n+s}$", **series_style(0))
    ax.plot(shifts, full, markersize=4, label=r"$(W_q(x_m+p_{m+s}))\cdot(W_k(x_n+p_{n+s}))$", **series_style(1))
    ax.set_xlabel("shift s of both positions")
    ax.set_ylabel("score")
    ax.set_title(f"m − n = {m - n} throughout", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig
