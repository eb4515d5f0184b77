"""Figures of chapter "RoPE in today's models": each pair's wavelength under a variant, and which layers rotate."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...frequencies import DEFAULT_BASE, inv_freq
from ...layer_schedule import rope_layers
from ...scaling import RopeScaling, longrope_uses_long_factors
from ..language import require_language, text
from ..longrope_example import example_longrope_factors
from .style import OKABE_ITO, new_figure, series_style

VARIANTS = {"plain": "plain RoPE", "p0.25": "p-RoPE, p = 0.25", "p0.75": "p-RoPE, p = 0.75", "longrope": "LongRoPE (example sets)"}
"""The variants the wavelength figure offers, by key → how the figure names them."""

VARIANTS_ZH = {"plain": "标准 RoPE", "p0.25": "p-RoPE，p = 0.25", "p0.75": "p-RoPE，p = 0.75", "longrope": "LongRoPE（示例因子组）"}
"""The same variants as the Chinese edition names them."""


def variant_name(variant: str, *, lang: str = "en") -> str:
    """How the figure and the interactive figure name one variant, in `lang`."""
    return text(lang, en=VARIANTS[variant], zh=VARIANTS_ZH[variant])


def variant_frequencies(variant: str, d: int, seq_len: int, *, base: float = DEFAULT_BASE, original_max_len: int = 4096, factor: float = 32.0,
                        lang: str = "en") -> tuple[np.ndarray, str]:
    """θ'_i of one variant at the current length, through `RopeScaling`, and a few words (in `lang`) on which set it used."""
    require_language(lang)
    if variant == "plain":
        return inv_freq(d, base), text(lang, en="every pair turns", zh="每个维度对都旋转")
    if variant in ("p0.25", "p0.75"):
        rule = RopeScaling("proportional", 1.0, proportion=float(variant[1:]))
        return rule.frequencies(d, base), text(lang, en="the slowest pairs never turn", zh="最慢的维度对不再旋转")
    if variant == "longrope":
        short, long = example_longrope_factors(d, base, factor, original_max_len)
        rule = RopeScaling("longrope", factor, original_max_len=original_max_len, short_factor=short, long_factor=long)
        chosen = "long" if longrope_uses_long_factors(seq_len, original_max_len) else "short"
        sign = ">" if chosen == "long" else "≤"
        return rule.frequencies(d, base, seq_len), text(lang, en=f"the {chosen} factor set (T {sign} L)",
                                                        zh=f"{'长' if chosen == 'long' else '短'}因子组（T {sign} L）")
    raise ValueError(f"variant must be one of {tuple(VARIANTS)}, got {variant!r}")


def _wavelengths(variant: str, d: int, seq_len: int, base: float, original_max_len: int, lang: str = "en"):
    """(plain RoPE's wavelengths, the variant's with inf where θ' = 0, the words on its factor set)."""
    freqs, note = variant_frequencies(variant, d, seq_len, base=base, original_max_len=original_max_len, lang=lang)
    lam = np.full(d // 2, np.inf)
    lam[freqs > 0] = 2 * np.pi / freqs[freqs > 0]
    return 2 * np.pi / inv_freq(d, base), lam, note


def _top(longest: float) -> float:
    """The top of the wavelength axis: a power of ten at least four times the longest wavelength or length shown."""
    return float(10 ** np.ceil(np.log10(longest * 4)))


def variant_wavelength_top(variants, dims, lengths, *, base: float = DEFAULT_BASE, original_max_len: int = 4096) -> float:
    """The top of the wavelength axis that holds every frame over the given variants, head sizes and lengths, so that
    the frames of an interactive figure share their axes (`plot_variant_wavelengths(top=…)`)."""
    longest = max(lengths)
    for variant in variants:
        for d in dims:
            for seq_len in lengths:
                plain, lam, _ = _wavelengths(variant, d, seq_len, base, original_max_len)
                longest = max(longest, plain.max(), lam[np.isfinite(lam)].max())
    return _top(longest)


def plot_variant_wavelengths(variant: str = "longrope", d: int = 128, seq_len: int = 8192, *, base: float = DEFAULT_BASE, original_max_len: int = 4096,
                             top: float | None = None, lang: str = "en") -> Figure:
    """Wavelength 2π/θ'_i of each pair under one variant beside plain RoPE, with the trained length L and the current
    length T; pairs with θ' = 0 (p-RoPE's dropped ones) have no wavelength and are marked along the top.

    The horizontal axis is the pair's place 2i/d, from 0 (the fastest) towards 1, the same for every head size; `top`
    fixes the top of the wavelength axis (`variant_wavelength_top`), which by default fits this frame."""
    require_language(lang)
    plain, lam, note = _wavelengths(variant, d, seq_len, base, original_max_len, lang)
    name = variant_name(variant, lang=lang)
    turning = np.isfinite(lam)
    pairs = 2 * np.arange(d // 2) / d  # 2i/d
    top = top if top is not None else _top(max(plain.max(), lam[turning].max(), seq_len))
    fig = new_figure(
        text(
            lang,
            en=f"Line chart of the wavelength of each of the {d // 2} pairs (log scale) against its place 2i/d in the head, "
            f"for {VARIANTS[variant]} beside plain RoPE, "
            f"head dimension {d}, trained length L = {original_max_len}, current length T = {seq_len}: {note}. "
            f"{int(turning.sum())} pairs turn, the longest wavelength is {lam[turning].max():,.0f} positions against "
            f"{plain.max():,.0f} for plain RoPE" + (f"; {int((~turning).sum())} pairs never turn." if (~turning).any() else "."),
            zh=f"折线图，纵轴取对数，横轴为维度对在头中的位置 2i/d，画出 {name} 下 {d // 2} 个维度对各自的波长，"
            f"旁边是标准 RoPE 的波长；"
            f"头维度 {d}，训练长度 L = {original_max_len}，当前长度 T = {seq_len}：{note}。"
            f"{int(turning.sum())} 个维度对在旋转，最长的波长是 {lam[turning].max():,.0f} 个位置，标准 RoPE 则是 "
            f"{plain.max():,.0f} 个位置" + (f"；{int((~turning).sum())} 个维度对不旋转。" if (~turning).any() else "。"),
        ),
        figsize=(5.6, 3.4),
    )
    ax = fig.subplots()
    every = max(1, d // 16)  # 8 markers a line, whatever d
    ax.semilogy(pairs, plain, markevery=every, markersize=3, linewidth=1, label=variant_name("plain", lang=lang), **series_style(0))
    if variant != "plain":
        ax.semilogy(pairs[turning], lam[turning], markevery=every, markersize=3, linewidth=1.4, label=name, **series_style(1))
    if (~turning).any():
        ax.plot(pairs[~turning], np.full((~turning).sum(), top / 2), linestyle="none", marker="x", color=OKABE_ITO[1],
                label=text(lang, en="never turns (θ′ = 0)", zh="不旋转（θ′ = 0）"))
    ax.axhline(original_max_len, color="0.3", linestyle=":", linewidth=1)
    ax.text(0, original_max_len * 1.15, f"L = {original_max_len}", fontsize=7)
    ax.axhline(seq_len, color="0.3", linestyle="--", linewidth=1)
    ax.text(0.5, seq_len * 1.15, f"T = {seq_len}", fontsize=7)
    ax.set_ylim(1, top)
    ax.set_xlim(-0.03, 1.0)
    ax.set_xlabel(text(lang, en="pair i as a share of the head, 2i/d (fast → slow)", zh="维度对 i 在头中的位置 2i/d（快 → 慢）"))
    ax.set_ylabel(text(lang, en="wavelength 2π/θ′_i (positions)", zh="波长 2π/θ′_i（位置数）"))
    ax.set_title(text(lang, en=f"{name}, d = {d}, T = {seq_len}: {note}", zh=f"{name}，d = {d}，T = {seq_len}：{note}"), fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="major", alpha=0.3)
    return fig


def plot_layer_schedule(n_layers: int = 48, nope_layer_interval: int | None = 4, *, lang: str = "en") -> Figure:
    """One cell per layer: RoPE layers filled, NoPE layers hatched (Llama 4's every fourth layer)."""
    require_language(lang)
    flags = rope_layers(n_layers, nope_layer_interval)
    nope = [layer for layer, rotates in enumerate(flags) if not rotates]
    fig = new_figure(
        text(
            lang,
            en=f"A strip of {n_layers} cells, one per layer from 0 on the left: {n_layers - len(nope)} RoPE layers filled and "
            f"{len(nope)} NoPE layers hatched, every {nope_layer_interval}th layer (layers {nope[0]}, {nope[1]}, … {nope[-1]}) "
            "has no position encoding.",
            zh=f"一排 {n_layers} 个格子，每层一格，最左边是第 0 层：{n_layers - len(nope)} 个 RoPE 层涂满，"
            f"{len(nope)} 个 NoPE 层画斜线；每 {nope_layer_interval} 层中的最后一层（第 {nope[0]}、{nope[1]}、… {nope[-1]} 层）"
            "不用位置编码。",
        ),
        figsize=(6.0, 1.3),
    )
    ax = fig.subplots()
    for layer, rotates in enumerate(flags):
        ax.add_patch(_cell(layer, rotates))
    ax.set_xlim(0, n_layers)
    ax.set_ylim(0, 1)
    ax.set_yticks([])
    ax.set_xticks(np.arange(0, n_layers, 4) + 0.5, [str(layer) for layer in range(0, n_layers, 4)], fontsize=7)
    ax.set_xlabel(text(lang, en="layer (filled: RoPE; hatched: NoPE)", zh="层（涂满：RoPE；斜线：NoPE）"), fontsize=8)
    return fig


def _cell(layer: int, rotates: bool):
    from matplotlib.patches import Rectangle

    if rotates:
        return Rectangle((layer + 0.05, 0.1), 0.9, 0.8, facecolor=OKABE_ITO[0], edgecolor="black", linewidth=0.5)
    return Rectangle((layer + 0.05, 0.1), 0.9, 0.8, facecolor="white", edgecolor="black", hatch="////", linewidth=0.5)
