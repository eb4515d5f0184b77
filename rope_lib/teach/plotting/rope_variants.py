"""Figures of chapter "RoPE in today's models": each pair's wavelength under a variant, and which layers rotate."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, inv_freq
from ...layer_schedule import rope_layers
from ...scaling import RopeScaling, longrope_uses_long_factors
from ..longrope_example import example_longrope_factors
from .style import OKABE_ITO, new_figure, series_style

VARIANTS = {"plain": "plain RoPE", "p0.25": "p-RoPE, p = 0.25", "p0.75": "p-RoPE, p = 0.75", "longrope": "LongRoPE (example sets)"}
"""The variants the wavelength figure offers, by key → how the figure names them."""


def variant_frequencies(variant: str, d: int, seq_len: int, *, base: float = DEFAULT_BASE, original_max_len: int = 4096, factor: float = 32.0) -> tuple[np.ndarray, str]:
    """θ'_i of one variant at the current length, through `RopeScaling`, and a few words on which set it used."""
    if variant == "plain":
        return inv_freq(d, base), "every pair turns"
    if variant in ("p0.25", "p0.75"):
        rule = RopeScaling("proportional", 1.0, proportion=float(variant[1:]))
        return rule.frequencies(d, base), "the slowest pairs never turn"
    if variant == "longrope":
        short, long = example_longrope_factors(d, base, factor, original_max_len)
        rule = RopeScaling("longrope", factor, original_max_len=original_max_len, short_factor=short, long_factor=long)
        chosen = "long" if longrope_uses_long_factors(seq_len, original_max_len) else "short"
        return rule.frequencies(d, base, seq_len), f"the {chosen} factor set (T {'>' if chosen == 'long' else '≤'} L)"
    raise ValueError(f"variant must be one of {tuple(VARIANTS)}, got {variant!r}")


def plot_variant_wavelengths(variant: str = "longrope", d: int = 128, seq_len: int = 8192, *, base: float = DEFAULT_BASE, original_max_len: int = 4096) -> Figure:
    """Wavelength 2π/θ'_i of each pair under one variant beside plain RoPE, with the trained length L and the current
    length T; pairs with θ' = 0 (p-RoPE's dropped ones) have no wavelength and are marked along the top."""
    plain = 2 * np.pi / inv_freq(d, base)
    freqs, note = variant_frequencies(variant, d, seq_len, base=base, original_max_len=original_max_len)
    turning = freqs > 0
    lam = np.full(d // 2, np.inf)
    lam[turning] = 2 * np.pi / freqs[turning]
    pairs = np.arange(d // 2)
    top = 10 ** np.ceil(np.log10(max(plain.max(), lam[turning].max(), seq_len) * 4))
    fig = new_figure(
        f"Line chart of the wavelength of each of the {d // 2} pairs (log scale) for {VARIANTS[variant]} beside plain RoPE, "
        f"head dimension {d}, trained length L = {original_max_len}, current length T = {seq_len}: {note}. "
        f"{int(turning.sum())} pairs turn, the longest wavelength is {lam[turning].max():,.0f} positions against "
        f"{plain.max():,.0f} for plain RoPE" + (f"; {int((~turning).sum())} pairs never turn." if (~turning).any() else "."),
        figsize=(5.6, 3.4),
    )
    ax = fig.subplots()
    ax.semilogy(pairs, plain, markevery=8, markersize=3, linewidth=1, label="plain RoPE", **series_style(0))
    if variant != "plain":
        ax.semilogy(pairs[turning], lam[turning], markevery=8, markersize=3, linewidth=1.4, label=VARIANTS[variant], **series_style(1))
    if (~turning).any():
        ax.plot(pairs[~turning], np.full((~turning).sum(), top / 2), linestyle="none", marker="x", color=OKABE_ITO[1], label="never turns (θ′ = 0)")
    ax.axhline(original_max_len, color="0.3", linestyle=":", linewidth=1)
    ax.text(0, original_max_len * 1.15, f"L = {original_max_len}", fontsize=7)
    ax.axhline(seq_len, color="0.3", linestyle="--", linewidth=1)
    ax.text(d // 4, seq_len * 1.15, f"T = {seq_len}", fontsize=7)
    ax.set_ylim(1, top)
    ax.set_xlabel("pair index i (fast → slow)")
    ax.set_ylabel("wavelength 2π/θ′_i (positions)")
    ax.set_title(f"{VARIANTS[variant]}, d = {d}, T = {seq_len}: {note}", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="major", alpha=0.3)
    return fig


def plot_layer_schedule(n_layers: int = 48, nope_layer_interval: int | None = 4) -> Figure:
    """One cell per layer: RoPE layers filled, NoPE layers hatched (Llama 4's every fourth layer)."""
    flags = rope_layers(n_layers, nope_layer_interval)
    nope = [layer for layer, rotates in enumerate(flags) if not rotates]
    fig = new_figure(
        f"A strip of {n_layers} cells, one per layer from 0 on the left: {n_layers - len(nope)} RoPE layers filled and "
        f"{len(nope)} NoPE layers hatched, every {nope_layer_interval}th layer (layers {nope[0]}, {nope[1]}, … {nope[-1]}) "
        "has no position encoding.",
        figsize=(6.0, 1.3),
    )
    ax = fig.subplots()
    for layer, rotates in enumerate(flags):
        ax.add_patch(_cell(layer, rotates))
    ax.set_xlim(0, n_layers)
    ax.set_ylim(0, 1)
    ax.set_yticks([])
    ax.set_xticks(np.arange(0, n_layers, 4) + 0.5, [str(layer) for layer in range(0, n_layers, 4)], fontsize=7)
    ax.set_xlabel("layer (filled: RoPE; hatched: NoPE)", fontsize=8)
    return fig


def _cell(layer: int, rotates: bool):
    from matplotlib.patches import Rectangle

    if rotates:
        return Rectangle((layer + 0.05, 0.1), 0.9, 0.8, facecolor=OKABE_ITO[0], edgecolor="black", linewidth=0.5)
    return Rectangle((layer + 0.05, 0.1), 0.9, 0.8, facecolor="white", edgecolor="black", hatch="////", linewidth=0.5)
