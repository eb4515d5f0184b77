"""Chapter "Longer contexts" (book/longer_contexts.md): its figures (unseen angles, rescaled frequencies, and the score
against distance), its interactive figure and the auto-check of its exercise.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import torch
from matplotlib.figure import Figure

from ..frequencies import DEFAULT_BASE, inv_freq
from ..rope import apply_rope
from ..scaling import FACTOR_RULES, angle_coverage, dynamic_ntk_inv_freq, ntk_inv_freq, position_interpolation_inv_freq, scaled_frequencies
from .shared.checking import CheckResult, Hint, answer_tensor, call_student, diagnose, mismatch, random_heads, run_check
from .shared.figure_style import new_figure, series_style
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text
from .why_rope_works.base_bound import similarity_curve

# --- figures: unseen angles, rescaled frequencies, and the score against distance -------------------------------------

_RULE_LABELS = {
    "linear": "position interpolation",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK at s·L",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
}

METHOD_NAMES = {"none": "plain RoPE", **{method: _RULE_LABELS[method] for method in FACTOR_RULES}}
"""How the figures name each rule: "none" (no rescaling), then every rule of `FACTOR_RULES`, in its order."""

METHOD_NAMES_ZH = {
    "none": "原始 RoPE",
    "linear": "位置插值",
    "ntk": "NTK-aware",
    "dynamic": "动态 NTK（长度 s·L）",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
}
"""The same names in the Chinese edition, with the same keys as METHOD_NAMES."""


def method_name(method: str, lang: str = "en") -> str:
    """The name of a rule ("none" or a key of `FACTOR_RULES`) in `lang`."""
    return text(lang, en=METHOD_NAMES[method], zh=METHOD_NAMES_ZH[method])


def _distances(max_distance: int, count: int = 1200) -> np.ndarray:
    """Integer distances from 1 to max_distance, spaced evenly on a log scale."""
    return np.unique(np.geomspace(1, max_distance, count).astype(np.int64))


def plot_angle_coverage(d: int = 128, base: float = DEFAULT_BASE, context_len: int = 4096, factor: float = 4.0, *, lang: str = "en") -> Figure:
    """Per pair, the share of a full turn its angle sweeps in training (L) and in a context s times longer."""
    require_language(lang)
    trained = angle_coverage(d, base, context_len)
    longer = angle_coverage(d, base, int(factor * context_len))
    new = int(np.count_nonzero(longer > trained))
    first = int(np.argmax(trained < 1))
    fig = new_figure(
        text(
            lang,
            en=f"Line chart of the share of a full turn (vertical axis, 0 to 1) that each of the {d // 2} rotation pairs "
            f"(horizontal axis, pair index) sweeps over a context, for d = {d} and base {base:g}. Over the training length "
            f"{context_len} every pair up to {first - 1} turns fully, and the slower pairs cover less and less of the circle; "
            f"over {int(factor * context_len)} positions those {new} slow pairs reach angles they never reached in training.",
            zh=f"折线图：d = {d}、底数 {base:g} 时，{d // 2} 个旋转维度对（横轴为维度对序号）在一段上下文中扫过的角度"
            f"占整圈的比例（纵轴，0 到 1）。在训练长度 {context_len} 内，序号不超过 {first - 1} 的维度对都转满了一圈，"
            f"更慢的维度对只覆盖圆周越来越小的一部分；在 {int(factor * context_len)} 个位置上，这 {new} 个慢维度对"
            f"会转到训练时从未到达的角度。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    pairs = np.arange(d // 2)
    ax.fill_between(pairs, trained, longer, color=series_style(1)["color"], alpha=0.25,
                    label=text(lang, en="angles never seen in training", zh="训练中从未见过的角度"))
    ax.plot(pairs, trained, markevery=4, markersize=4, label=text(lang, en=f"trained, L = {context_len}", zh=f"训练长度，L = {context_len}"),
            **series_style(0))
    ax.plot(pairs, longer, markevery=4, markersize=4,
            label=text(lang, en=f"longer, {factor:g}·L = {int(factor * context_len)}", zh=f"更长，{factor:g}·L = {int(factor * context_len)}"),
            **series_style(1))
    ax.set_xlabel(text(lang, en="pair index i (fast → slow)", zh="维度对序号 i（快 → 慢）"))
    ax.set_ylabel(text(lang, en="share of a full turn swept", zh="扫过整圈的比例"))
    ax.set_title(text(lang, en=f"Which angles a context reaches, d = {d}, base {base:g}", zh=f"上下文能到达哪些角度，d = {d}，底数 {base:g}"))
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left", fontsize=8)
    return fig


def plot_scaled_frequencies(
    d: int = 128, base: float = DEFAULT_BASE, factor: float = 4.0, original_max_len: int = 4096, methods=("linear", "ntk", "yarn", "llama3"),
    *, lang: str = "en",
) -> Figure:
    """θ'_i/θ_i per pair for several rules on one log axis: 1 means kept, 1/s means fully interpolated."""
    require_language(lang)
    theta = inv_freq(d, base)
    ratios = {m: scaled_frequencies(m, factor, d, base, original_max_len)[0] / theta for m in methods}
    summary = text(lang, en="; ", zh="；").join(
        text(lang, en=f"{METHOD_NAMES[m]} from {r[0]:.2f} to {r[-1]:.3f}", zh=f"{METHOD_NAMES_ZH[m]}从 {r[0]:.2f} 到 {r[-1]:.3f}")
        for m, r in ratios.items())
    fig = new_figure(
        text(
            lang,
            en=f"Line chart on a logarithmic vertical axis of the ratio of each pair's new frequency to its old one "
            f"(horizontal axis: pair index, fast to slow), for d = {d}, base {base:g}, factor s = {factor:g} and trained "
            f"length {original_max_len}. A ratio of 1 keeps the pair, 1/s = {1 / factor:.3f} interpolates it fully: {summary}.",
            zh=f"折线图，纵轴为对数刻度：每个维度对的新频率与原频率之比（横轴为维度对序号，从快到慢），"
            f"d = {d}，底数 {base:g}，缩放因子 s = {factor:g}，训练长度 {original_max_len}。比值为 1 表示该维度对保持不变，"
            f"为 1/s = {1 / factor:.3f} 表示完全插值：{summary}。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    pairs = np.arange(d // 2)
    for i, (m, r) in enumerate(ratios.items()):
        ax.semilogy(pairs, r, markevery=6, markersize=4, label=method_name(m, lang), **series_style(i))
    ax.axhline(1 / factor, color="0.4", linewidth=0.8)
    ax.set_xlabel(text(lang, en="pair index i (fast → slow)", zh="维度对序号 i（快 → 慢）"))
    ax.set_ylabel("θ′_i / θ_i")
    ax.set_title(text(lang, en=f"How each rule rescales the frequencies, s = {factor:g}", zh=f"各规则如何缩放频率，s = {factor:g}"))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_similarity_vs_distance(
    d: int = 128, base: float = DEFAULT_BASE, factor: float = 4.0, original_max_len: int = 4096, methods=("none", "linear", "ntk", "yarn"),
    *, lang: str = "en",
) -> Figure:
    """The expected score of a key that copies the query against distance, out to s·L, for several rules."""
    require_language(lang)
    distances = _distances(int(factor * original_max_len))
    curves = {m: similarity_curve(*scaled_frequencies(m, factor, d, base, original_max_len), distances) for m in methods}
    summary = text(lang, en="; ", zh="；").join(
        text(lang, en=f"{METHOD_NAMES[m]} {c.min():.2f}", zh=f"{METHOD_NAMES_ZH[m]} {c.min():.2f}") for m, c in curves.items())
    fig = new_figure(
        text(
            lang,
            en=f"Line chart of the expected score of a key that copies the query (vertical axis, 1 at distance 0 for plain "
            f"RoPE) against the distance on a logarithmic axis from 1 to {distances[-1]}, for d = {d}, base {base:g}, "
            f"factor {factor:g}; a vertical line marks the trained length {original_max_len}. The lowest value each curve "
            f"reaches is: {summary}. Rescaled curves stretch the trained shape over the longer context.",
            zh=f"折线图：与查询相似的键（查询的带噪副本）的期望得分（纵轴，原始 RoPE 在距离 0 处为 1）随距离的变化，"
            f"横轴为对数刻度，从 1 到 {distances[-1]}；d = {d}，底数 {base:g}，缩放因子 {factor:g}；一条竖线标出训练长度 "
            f"{original_max_len}。各曲线的最低值为：{summary}。缩放后的曲线把训练时的形状拉伸到更长的上下文上。",
        ),
        figsize=(6, 3.4),
    )
    ax = fig.add_subplot()
    for i, (m, c) in enumerate(curves.items()):
        ax.semilogx(distances, c, markevery=150, markersize=4, linewidth=1.2, label=method_name(m, lang), **series_style(i))
    ax.axvline(original_max_len, color="0.3", linestyle=":", linewidth=1)
    ax.axhline(0, color="0.5", linewidth=0.8)
    ax.set_xlabel(text(lang, en="distance m − n (log scale)", zh="距离 m − n（对数刻度）"))
    ax.set_ylabel(text(lang, en="score of a similar key", zh="相似键的得分"))
    ax.set_title(text(lang, en=f"Similar-key score against distance, s = {factor:g}", zh=f"相似键得分随距离的变化，s = {factor:g}"))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def context_extension_limits(methods, factors, *, d: int = 128, base: float = DEFAULT_BASE, original_max_len: int = 4096) -> dict:
    """Fixed vertical limits for every frame of `plot_context_extension` over the given rules and factors: the
    smallest frequency ratio any of them reaches, and the highest similar-key score (YaRN's attention factor lifts
    it above 1). Keyword arguments for `plot_context_extension`."""
    lowest, highest = 1.0, 1.0
    for method in methods:
        for factor in factors:
            scaled, attention = scaled_frequencies(method, factor, d, base, original_max_len)
            lowest = min(lowest, (scaled / inv_freq(d, base)).min(), 1 / factor)
            highest = max(highest, attention**2)  # the score at distance 0
    return {"ratio_limits": (lowest / 1.6, 1.6), "score_limits": (-0.35, highest + 0.15)}


def plot_context_extension(method: str = "yarn", factor: float = 4.0, *, d: int = 128, base: float = DEFAULT_BASE, original_max_len: int = 4096,
                           ratio_limits=None, score_limits=None, lang: str = "en") -> Figure:
    """One rule beside plain RoPE: its frequency ratios (top) and its similar-key score against distance (bottom).

    `ratio_limits` and `score_limits` fix the vertical axes of the two panels (`context_extension_limits`), so that
    the frames of an interactive figure share their axes; by default the top panel fits its rule and factor."""
    require_language(lang)
    theta = inv_freq(d, base)
    scaled_theta, attention = scaled_frequencies(method, factor, d, base, original_max_len)
    distances = _distances(int(factor * original_max_len), 600)
    plain, scaled = similarity_curve(theta, 1.0, distances), similarity_curve(scaled_theta, attention, distances)
    ratio = scaled_theta / theta
    beyond = distances > original_max_len
    name = method_name(method, lang)
    fig = new_figure(
        text(
            lang,
            en=f"Two line charts for {METHOD_NAMES[method]} with factor s = {factor:g} (d = {d}, base {base:g}, trained length "
            f"{original_max_len}). Top: the ratio of new to old frequency per pair runs from {ratio[0]:.2f} for the fastest "
            f"pair to {ratio[-1]:.3f} for the slowest. Bottom: the expected score of a key that copies the query against "
            f"distance out to {int(factor * original_max_len)}; beyond the trained length plain RoPE falls to "
            f"{plain[beyond].min():.2f} and the rescaled rule to {scaled[beyond].min():.2f}.",
            zh=f"两幅折线图，规则为{name}，缩放因子 s = {factor:g}（d = {d}，底数 {base:g}，训练长度 {original_max_len}）。"
            f"上图：每个维度对的新旧频率之比，从最快维度对的 {ratio[0]:.2f} 到最慢维度对的 {ratio[-1]:.3f}。"
            f"下图：与查询相似的键的期望得分随距离的变化，直到 {int(factor * original_max_len)}；超出训练长度后，"
            f"原始 RoPE 降到 {plain[beyond].min():.2f}，缩放后的规则降到 {scaled[beyond].min():.2f}。",
        ),
        figsize=(5, 4.2),
    )
    top, bottom = fig.subplots(2, 1)
    top.semilogy(np.arange(d // 2), ratio, markevery=8, markersize=3, label=name, **series_style(1))
    top.axhline(1, color="0.4", linewidth=0.8)
    top.axhline(1 / factor, color="0.4", linestyle=":", linewidth=0.8)
    top.set_ylim(*(ratio_limits if ratio_limits is not None else (min(ratio.min(), 1 / factor) / 1.6, 1.6)))
    top.set_xlabel(text(lang, en="pair index i", zh="维度对序号 i"))
    top.set_ylabel("θ′_i / θ_i")
    top.set_title(text(lang, en=f"{name}, s = {factor:g}", zh=f"{name}，s = {factor:g}"), fontsize=10)
    top.grid(True, which="major", alpha=0.3)
    bottom.semilogx(distances, plain, markevery=120, markersize=3, linewidth=1, label=method_name("none", lang), **series_style(0))
    bottom.semilogx(distances, scaled, markevery=120, markersize=3, linewidth=1, label=name, **series_style(1))
    bottom.axvline(original_max_len, color="0.3", linestyle=":", linewidth=1)
    bottom.axhline(0, color="0.5", linewidth=0.8)
    bottom.set_xlim(1, 16 * original_max_len)
    bottom.set_ylim(*(score_limits if score_limits is not None else (-0.35, 1.6)))
    bottom.set_xlabel(text(lang, en="distance m − n (log scale)", zh="距离 m − n（对数刻度）"))
    bottom.set_ylabel(text(lang, en="similar-key score", zh="相似键得分"))
    bottom.legend(fontsize=7, loc="upper right")
    bottom.grid(True, alpha=0.3)
    return fig


def plot_cache_gaps(gaps: dict, original_max_len: int, *, lang: str = "en") -> Figure:
    """Largest difference between cached step-by-step decoding and one full pass, per decoding step, for each rule.

    gaps: label → (positions, differences), as measured in the chapter with `rope_lib.llama.Attention`; the labels are
    shown as given (the chapter writes them in its language).
    """
    require_language(lang)
    summary = text(lang, en="; ", zh="；").join(
        text(lang, en=f"{label}: largest {np.max(g):.1e}", zh=f"{label}：最大 {np.max(g):.1e}") for label, (_, g) in gaps.items())
    fig = new_figure(
        text(
            lang,
            en=f"Line chart on a logarithmic vertical axis of the largest difference between the output of cached "
            f"step-by-step decoding and of one full pass (vertical axis) at each decoded position (horizontal axis); a "
            f"vertical line marks the trained length {original_max_len}; differences below 1e-9 are drawn at 1e-9. {summary}.",
            zh=f"折线图，纵轴为对数刻度：在每个解码位置（横轴），使用缓存逐步解码的输出与一次完整前向计算的输出之间的"
            f"最大差异（纵轴）；一条竖线标出训练长度 {original_max_len}；小于 1e-9 的差异画在 1e-9 处。{summary}。",
        ),
        figsize=(6, 3.2),
    )
    ax = fig.add_subplot()
    for i, (label, (positions, g)) in enumerate(gaps.items()):
        ax.semilogy(positions, np.maximum(g, 1e-9), markersize=4, label=label, **series_style(i))
    ax.axvline(original_max_len - 0.5, color="0.3", linestyle=":", linewidth=1)
    ax.set_xlabel(text(lang, en="position of the decoded token", zh="被解码词元的位置"))
    ax.set_ylabel(text(lang, en="largest |cached − full| (≥ 1e-9)", zh="最大 |缓存 − 完整|（≥ 1e-9）"))
    ax.set_title(text(lang, en="Cached decoding against one full pass", zh="缓存解码与一次完整计算的对比"))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


# --- the interactive figure: pick a rule and a factor, see its frequencies and its score curve ------------------------

FACTORS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0, 16.0)
"""The scale factors s the figure offers: from doubling the context to sixteen times it (the score axis ends at 16·L)."""


def context_extension_explorer(*, lang: str = "en") -> InteractiveFigure:
    """Every rule of `FACTOR_RULES` (5) × 8 factors = 40 frames, each beside plain RoPE (d = 128, base 10000,
    trained length 4096), all on the same axes."""
    require_language(lang)
    limits = context_extension_limits(FACTOR_RULES, FACTORS)
    return InteractiveFigure(
        draw=partial(plot_context_extension, **limits, lang=lang),
        controls=(
            Control("method", text(lang, en="rule", zh="规则"), FACTOR_RULES, "yarn", fmt=lambda m: method_name(m, lang)),
            Control("factor", text(lang, en="factor s", zh="缩放因子 s"), FACTORS, 4.0, fmt=lambda s: f"{s:g}"),
        ),
        lang=lang,
    )


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

def _random_rule(rng: np.random.Generator, d: int, length: int) -> tuple[np.ndarray, str]:
    """The frequencies of a random context-extension rule for head size d and sequence length `length`, and their code."""
    s = float(rng.choice([2.0, 4.0, 8.0, 16.0]))
    rule = int(rng.integers(3))
    if rule == 0:
        return ntk_inv_freq(d, DEFAULT_BASE, s), f"rope_lib.scaling.ntk_inv_freq({d}, {DEFAULT_BASE}, {s})"
    if rule == 1:
        return position_interpolation_inv_freq(d, DEFAULT_BASE, s), f"rope_lib.scaling.position_interpolation_inv_freq({d}, {DEFAULT_BASE}, {s})"
    return (dynamic_ntk_inv_freq(d, DEFAULT_BASE, s, seq_len=length, original_max_len=16),
            f"rope_lib.scaling.dynamic_ntk_inv_freq({d}, {DEFAULT_BASE}, {s}, seq_len={length}, original_max_len=16)")


def check_rotate_cache(rotate_cache, *, lang: str = "en") -> CheckResult:
    """Exercise lc-ex-fix-cache: `rotate_cache(keys, start, inv_freq)` rotates unrotated keys (B, T, H, D), which sit at
    positions start … start+T−1, with the frequencies inv_freq (d/2 of them) in the interleaved layout. The hints and
    the verdict are shown in `lang`."""
    require_language(lang)

    def body(fn):
        gen, rng = torch.Generator().manual_seed(6), np.random.default_rng(6)
        cases = []
        for shape, start, rule, inv_freq in [
            ((2, 6, 3, 16), 37, "NTK-aware s = 4", ntk_inv_freq(16, DEFAULT_BASE, 4.0)),
            ((1, 4, 2, 8), 0, "position interpolation s = 8", position_interpolation_inv_freq(8, DEFAULT_BASE, 8.0)),
            ((1, 5, 1, 32), 1000, "dynamic NTK s = 4 at length 1005", dynamic_ntk_inv_freq(32, DEFAULT_BASE, 4.0, seq_len=1005, original_max_len=16)),
        ]:
            keys = torch.randn(*shape, generator=gen, dtype=torch.float64)  # (B, T, H, D)
            cases.append((keys, start, inv_freq, f"rotate_cache(keys of shape {shape}, start={start}, inv_freq of {rule})"))
        for _ in range(2):
            keys, start, rebuild = random_heads(rng, 32)
            inv_freq, rule = _random_rule(rng, keys.shape[-1], start + keys.shape[1])
            cases.append((keys, start, inv_freq, f"rotate_cache(keys, start={start}, inv_freq) with keys = {rebuild} and inv_freq = {rule}"))
        close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for keys, start, inv_freq, call in cases:
            positions = torch.arange(start, start + keys.shape[1])  # (T,)
            value = answer_tensor(call_student(fn, call, keys, start, inv_freq), call, keys, Words("one rotated key per token and head", "每个词元、每个头各一个旋转后的键"), Words("the keys'", "键"))
            expected = apply_rope(keys, positions, inv_freq=inv_freq, layout="interleaved")
            if close(value, expected):
                continue
            diagnose(value, [
                (lambda: apply_rope(keys, torch.arange(keys.shape[1]), inv_freq=inv_freq, layout="interleaved"),
                 Words(f"{call}: positions — your keys are turned to positions 0 … T−1; they sit at start, start+1, … (here from {start})",
                       f"{call}：位置——你的键被转到了位置 0 … T−1；它们实际位于 start, start+1, …（这里从 {start} 开始）")),
                (lambda: apply_rope(keys, positions, layout="interleaved"),
                 Words(f"{call}: frequencies — you rotated with the default θ_i = 10000^(−2i/d); use the frequencies inv_freq you are given, the rule's θ'_i",
                       f"{call}：频率——你用的是默认的 θ_i = 10000^(−2i/d)；请使用传入的频率 inv_freq，即该规则的 θ'_i")),
                (lambda: apply_rope(keys, positions, inv_freq=inv_freq, layout="half"),
                 Words(f"{call}: pairing — you paired x_i with x_(i+d/2), the half layout; the cache here uses the interleaved layout (x_2i, x_2i+1), apply_rope's default",
                       f"{call}：配对——你把 x_i 与 x_(i+d/2) 配成一对，这是半分布局；这里的缓存用交错布局 (x_2i, x_2i+1)，即 apply_rope 的默认布局")),
                (lambda: apply_rope(keys, -positions, inv_freq=inv_freq, layout="interleaved"),
                 Words(f"{call}: direction — each pair turned by −mθ'_i; RoPE turns by +mθ'_i",
                       f"{call}：方向——每个维度对转了 −mθ'_i；RoPE 转的是 +mθ'_i")),
                (lambda: apply_rope(keys, positions + 1, inv_freq=inv_freq, layout="interleaved"),
                 Words(f"{call}: off by one — the first key sits at position start = {start}, not start + 1",
                       f"{call}：差了一位——第一个键位于位置 start = {start}，而不是 start + 1")),
                (lambda: apply_rope(keys, positions - 1, inv_freq=inv_freq, layout="interleaved"),
                 Words(f"{call}: off by one — the first key sits at position start = {start}, not start − 1",
                       f"{call}：差了一位——第一个键位于位置 start = {start}，而不是 start − 1")),
            ], close)
            if start == 0 and not close(value[:, :1], keys[:, :1]):
                raise Hint(f"{call}: the key at position 0 must come back unchanged", f"{call}：位置 0 的键必须原样返回")
            raise mismatch(call, value, expected, Words(f"the keys turned to positions {start} … {start + keys.shape[1] - 1} with inv_freq",
                                                        f"用 inv_freq 转到位置 {start} … {start + keys.shape[1] - 1} 的键"))

    return run_check("lc-ex-fix-cache", rotate_cache, body, Words(
        "rotate_cache turns the keys to positions start, start+1, … with the given frequencies, for three rules and starts 0, 37 and 1000 "
        "and two seeded random cases.",
        "rotate_cache 用给定的频率把键转到位置 start, start+1, …：三种规则、起点 0、37 和 1000，以及两个固定种子的随机用例，全部正确。"), lang)
