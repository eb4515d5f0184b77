"""Chapter "RoPE in today's models" (book/rope_variants.md): RoPE with linear attention, an example pair of LongRoPE
factor sets, the chapter's figures and interactive figure, and the auto-check of its exercise.

Linear attention replaces the softmax's exp(qᵀk) by φ(q)ᵀφ(k), with a feature map φ whose values are positive
(here φ(x) = elu(x) + 1). Then Σ_n φ(q_m)ᵀφ(k_n) v_nᵀ = φ(q_m)ᵀ (Σ_n φ(k_n) v_nᵀ): the sum over the keys is made
once, a d × d_v matrix, instead of once per query, and a causal layer keeps it as a running (prefix) sum. RoFormer
rotates φ(q_m) and φ(k_n) in the numerator only:

    o_m = Σ_n (R_m φ(q_m))ᵀ (R_n φ(k_n)) v_n  /  Σ_n φ(q_m)ᵀ φ(k_n)

The denominator is left unrotated, so it stays a sum of positive numbers; the price is that the numerator's weights
can be negative and need not sum to 1: the output is no longer a weighted average of the values.

`rope_linear_attention` is the linear form (one pass over the keys); `rope_linear_attention_weights` writes every
weight out with rotation matrices, one query and one key at a time, the slow and obvious reference it is tested
against. Positions are given, not implied, so that shifting them all by one constant can be tried.

A real model's LongRoPE factor sets are searched (Ding et al. 2024) and ship in its config; no such file is read here.
The example's short set (`example_longrope_factors`) is the NTK-aware squeeze of a factor 2 (λ_i from 1 to 2), its long
set YaRN's at the full factor: rising from 1 for the fast pairs to s for the slow ones, the shape searched sets have,
and two of the rules LongRoPE's search starts from, rules the book has tested.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from matplotlib.figure import Figure

from .._validate import require_base, require_bool, require_even_dim, require_real_array
from ..frequencies import DEFAULT_BASE, angles, inv_freq
from ..layer_schedule import rope_layers
from ..rotation import rotary_matrix
from ..scaling import RopeScaling, longrope_uses_long_factors, ntk_inv_freq, yarn_inv_freq
from .shared.checking import CheckResult, answer_array, call_student, diagnose, mismatch, run_check
from .shared.figure_style import OKABE_ITO, new_figure, series_style
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text

# --- RoPE with linear attention (RoFormer §3.3, eq. 19) ---------------------------------------------------------------

def elu_feature_map(x) -> np.ndarray:
    """φ(x) = elu(x) + 1: x + 1 for x > 0, eˣ otherwise; positive everywhere (Katharopoulos et al.'s choice)."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def _matrix(x, name: str, rows: int | None = None) -> np.ndarray:
    array = require_real_array(x, name)
    if array.ndim != 2:
        raise ValueError(f"{name} must have shape (T, d): one row per token, got shape {array.shape}")
    if rows is not None and array.shape[0] != rows:
        raise ValueError(f"{name} must have one row per token, T = {rows}, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must hold finite numbers, got NaN or infinity")
    return array


def _positions(positions, tokens: int) -> np.ndarray:
    if isinstance(positions, range):
        positions = list(positions)
    array = np.asarray(positions)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"positions must hold integers (token indices), got dtype {array.dtype}")
    if array.shape != (tokens,):
        raise ValueError(f"positions must have shape (T,) = ({tokens},), one per token, got {array.shape}")
    return array.astype(np.int64)


def _features(q: np.ndarray, k: np.ndarray, feature_map) -> tuple[np.ndarray, np.ndarray]:
    """φ(q), φ(k), refused unless φ keeps the shape and gives finite numbers above 0 (the denominator must be > 0)."""
    if not callable(feature_map):
        raise TypeError(f"feature_map must be a function of an array, got {type(feature_map).__name__}")
    out = []
    for name, x in (("q", q), ("k", k)):
        phi = np.asarray(feature_map(x), dtype=np.float64)
        if phi.shape != x.shape:
            raise ValueError(f"feature_map must keep the shape of {name}, {x.shape}, got {phi.shape}")
        if not (np.isfinite(phi).all() and (phi > 0).all()):
            raise ValueError(f"feature_map must give finite numbers above 0 (the denominator is a sum of their products), "
                             f"got min {phi.min()} on {name}")
        out.append(phi)
    return out[0], out[1]


def _inputs(q, k, positions, base, causal, feature_map):
    q = _matrix(q, "q")
    k = _matrix(k, "k", rows=None)
    if k.shape != q.shape:
        raise ValueError(f"q and k must have one shape (T, d), got {q.shape} and {k.shape}")
    require_even_dim(q.shape[1], "d, the width of q and k,")
    positions = _positions(positions, q.shape[0])
    base = require_base(base)
    causal = require_bool(causal, "causal")
    phi_q, phi_k = _features(q, k, feature_map)
    return phi_q, phi_k, positions, base, causal


def _rotate(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """Row t of x turned by R^d_{Θ,m_t}, in the elementwise form (interleaved pairs)."""
    a = angles(positions, x.shape[1], base)  # (T, d/2)
    cos, sin = np.cos(a), np.sin(a)
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 1::2] * cos + x[:, 0::2] * sin
    return out


def rope_linear_attention(
    q,
    k,
    v,
    positions,
    *,
    base: float = DEFAULT_BASE,
    causal: bool = False,
    feature_map=elu_feature_map,
) -> np.ndarray:
    """RoFormer eq. 19 in its linear form: q, k (T, d), v (T, d_v),
    positions (T,) → outputs (T, d_v).

    The keys are summed once, Σ_n R_n φ(k_n) v_nᵀ (d × d_v) and Σ_n φ(k_n)
    (d,); with causal=True each as a running sum over n ≤ m. The rotation
    is in the numerator only.
    """
    phi_q, phi_k, positions, base, causal = _inputs(
        q, k, positions, base, causal, feature_map
    )
    v = _matrix(v, "v", rows=phi_q.shape[0])
    turned_q = _rotate(phi_q, positions, base)  # (T, d)
    turned_k = _rotate(phi_k, positions, base)  # (T, d)
    if causal:
        # (T, d, d_v): Σ_{n ≤ m}
        key_values = np.cumsum(turned_k[:, :, None] * v[:, None, :], axis=0)
        key_sums = np.cumsum(phi_k, axis=0)  # (T, d): Σ_{n ≤ m}, unrotated
        # (T, d_v)
        numerator = np.einsum("td,tde->te", turned_q, key_values)
        denominator = np.einsum("td,td->t", phi_q, key_sums)  # (T,)
    else:
        numerator = turned_q @ (turned_k.T @ v)  # (T, d_v)
        denominator = phi_q @ phi_k.sum(axis=0)  # (T,)
    return numerator / denominator[:, None]


def rope_linear_attention_weights(q, k, positions, *, base: float = DEFAULT_BASE, causal: bool = False,
                                  feature_map=elu_feature_map) -> np.ndarray:
    """The weight of key n in output m, written out (T, T): (R_m φ(q_m))ᵀ(R_n φ(k_n)) / Σ_j φ(q_m)ᵀφ(k_j), the
    sums over j ≤ m and the weights of later keys 0 when causal. One rotation matrix per token, one loop per weight:
    slow on purpose, the reference for `rope_linear_attention` (outputs = weights @ v)."""
    phi_q, phi_k, positions, base, causal = _inputs(q, k, positions, base, causal, feature_map)
    tokens, d = phi_q.shape
    turned_q = [rotary_matrix(int(m), d, base) @ phi_q[t] for t, m in enumerate(positions)]
    turned_k = [rotary_matrix(int(n), d, base) @ phi_k[t] for t, n in enumerate(positions)]
    weights = np.zeros((tokens, tokens))
    for m in range(tokens):
        seen = range(m + 1) if causal else range(tokens)
        denominator = sum(float(phi_q[m] @ phi_k[j]) for j in seen)
        for n in seen:
            weights[m, n] = float(turned_q[m] @ turned_k[n]) / denominator
    return weights


# --- an example pair of LongRoPE factor sets --------------------------------------------------------------------------

EXAMPLE_SHORT_NTK_FACTOR = 2.0
"""The NTK-aware factor behind the example's short set: a light squeeze for lengths within the trained context."""


def example_longrope_factors(d: int, base: float = DEFAULT_BASE, factor: float = 32.0, original_max_len: int = 4096) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(short_factor, long_factor): λ_i = θ_i / θ'_i of NTK-aware scaling at s = 2 and of YaRN at s = factor, as the
    tuples `RopeScaling("longrope", …)` takes."""
    theta = inv_freq(d, base)
    short = theta / ntk_inv_freq(d, base, EXAMPLE_SHORT_NTK_FACTOR)
    long = theta / yarn_inv_freq(d, base, factor, original_max_len=original_max_len)
    return tuple(short.tolist()), tuple(long.tolist())


# --- figures: each pair's wavelength under a variant, and which layers rotate -----------------------------------------

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
    theta, note = variant_frequencies(variant, d, seq_len, base=base, original_max_len=original_max_len, lang=lang)
    lam = np.full(d // 2, np.inf)
    lam[theta > 0] = 2 * np.pi / theta[theta > 0]
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


HEAD_DIMS = (64, 128, 256)
LENGTHS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
"""The current lengths T the figure offers, doubling from a quarter of the trained length L = 4096 to 32 L."""


def variant_explorer(*, lang: str = "en") -> InteractiveFigure:
    """4 variants × 3 head sizes (a pick among settings) × 8 lengths = 96 frames (trained length L = 4096, base
    10000), all on the same axes."""
    require_language(lang)
    top = variant_wavelength_top(VARIANTS, HEAD_DIMS, LENGTHS)
    return InteractiveFigure(
        draw=partial(plot_variant_wavelengths, top=top, lang=lang),
        controls=(
            Control("variant", text(lang, en="variant", zh="变体"), tuple(VARIANTS), "longrope", fmt=lambda v: variant_name(v, lang=lang)),
            Control("d", text(lang, en="head dimension d", zh="头维度 d"), HEAD_DIMS, 128, choice=True),
            Control("seq_len", text(lang, en="current length T", zh="当前长度 T"), LENGTHS, 8192, fmt=lambda t: f"{t:,}"),
        ),
        lang=lang,
    )


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

def _random_sets(rng: np.random.Generator, n_pairs: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Random rising short (1 to ~2) and long (1 to ~40) factor sets."""
    short = np.sort(rng.uniform(1.0, 2.0, n_pairs))
    long = np.sort(rng.uniform(1.0, 40.0, n_pairs))
    return tuple(short.round(4).tolist()), tuple(long.round(4).tolist())


def check_longrope_frequencies(longrope_frequencies, *, lang: str = "en") -> CheckResult:
    """Exercise rv-ex-longrope: `longrope_frequencies(d, base, short_factor, long_factor, seq_len, original_max_len)`
    returns the d/2 frequencies LongRoPE uses at the current length seq_len."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(10)
        cases = [(16, DEFAULT_BASE, 64, 64), (16, DEFAULT_BASE, 65, 64), (32, 500000.0, 1, 4096), (32, 500000.0, 100000, 4096)]
        for _ in range(2):
            original = int(rng.choice([256, 1024, 4096]))
            cases.append((int(rng.choice([8, 24, 64])), float(rng.choice([DEFAULT_BASE, 500000.0])), int(original + rng.integers(-2, 3)), original))
        for d, base, seq_len, original in cases:
            short, long = _random_sets(rng, d // 2)
            call = f"longrope_frequencies({d}, {base:g}, short_factor, long_factor, seq_len={seq_len}, original_max_len={original})"
            value = answer_array(call_student(fn, call, d, base, short, long, seq_len, original), call, (d // 2,))
            rule = RopeScaling("longrope", 2.0, original_max_len=original, short_factor=short, long_factor=long)
            expected = rule.frequencies(d, base, seq_len)
            close = lambda a, b: np.allclose(a, b, rtol=1e-9, atol=0)  # noqa: E731
            if close(value, expected):
                continue
            theta = inv_freq(d, base)
            other = long if seq_len <= original else short
            diagnose(value, [
                (lambda: theta / np.array(other),
                 Words(f"{call}: factor set — at seq_len = {seq_len} against original_max_len = {original}, compare the two lengths again: "
                       "which set applies when the sequence still fits in the trained context, and which only past it?",
                       f"{call}：因子组——seq_len = {seq_len}，original_max_len = {original}，请再比较一下这两个长度："
                       "序列还在训练上下文之内时用哪一组，超出之后才用哪一组？")),
                (lambda: theta * np.array(long if seq_len > original else short),
                 Words(f"{call}: direction — a factor λ_i above 1 makes pair i turn more slowly",
                       f"{call}：方向——大于 1 的因子 λ_i 应让第 i 对转得更慢")),
                (lambda: theta,
                 Words(f"{call}: you returned the plain frequencies; every pair is rescaled by its own factor",
                       f"{call}：你返回的是未缩放的原始频率；每个维度对都要按它自己的因子缩放")),
            ], close)
            raise mismatch(call, value, expected, Words("LongRoPE's frequencies", "LongRoPE 的频率"))

    return run_check("rv-ex-longrope", longrope_frequencies, body,
                     Words("longrope_frequencies picks the right factor set and rescales every pair, at lengths on both sides of the "
                           "trained context (and exactly at it), for fixed and seeded random settings.",
                           "longrope_frequencies 选对了因子组，并缩放了每个维度对：在训练上下文两侧（以及恰好等于它）的长度上，"
                           "固定的设置和固定种子的随机设置都通过了。"),
                     lang)
