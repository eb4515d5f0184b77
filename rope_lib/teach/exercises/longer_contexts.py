"""The auto-checks of the exercises in the chapter "Longer contexts" (book/longer_contexts.md)."""

from __future__ import annotations

import numpy as np
import torch

from ...frequencies import DEFAULT_BASE
from ...rope import apply_rope
from ...scaling import dynamic_ntk_inv_freq, ntk_inv_freq, position_interpolation_inv_freq
from ..language import Words, require_language
from .checking import CheckResult, Hint, answer_tensor, call_student, diagnose, mismatch, random_heads, run_check


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
    """Exercise lc-ex-fix-cache: `rotate_cache(keys, start, freqs)` rotates unrotated keys (B, T, H, D), which sit at
    positions start … start+T−1, with the frequencies freqs (d/2 of them) in the interleaved layout. The hints and
    the verdict are shown in `lang`."""
    require_language(lang)

    def body(fn):
        gen, rng = torch.Generator().manual_seed(6), np.random.default_rng(6)
        cases = []
        for shape, start, rule, freqs in [
            ((2, 6, 3, 16), 37, "NTK-aware s = 4", ntk_inv_freq(16, DEFAULT_BASE, 4.0)),
            ((1, 4, 2, 8), 0, "position interpolation s = 8", position_interpolation_inv_freq(8, DEFAULT_BASE, 8.0)),
            ((1, 5, 1, 32), 1000, "dynamic NTK s = 4 at length 1005", dynamic_ntk_inv_freq(32, DEFAULT_BASE, 4.0, seq_len=1005, original_max_len=16)),
        ]:
            keys = torch.randn(*shape, generator=gen, dtype=torch.float64)  # (B, T, H, D)
            cases.append((keys, start, freqs, f"rotate_cache(keys of shape {shape}, start={start}, freqs of {rule})"))
        for _ in range(2):
            keys, start, rebuild = random_heads(rng, 32)
            freqs, rule = _random_rule(rng, keys.shape[-1], start + keys.shape[1])
            cases.append((keys, start, freqs, f"rotate_cache(keys, start={start}, freqs) with keys = {rebuild} and freqs = {rule}"))
        close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for keys, start, freqs, call in cases:
            positions = torch.arange(start, start + keys.shape[1])  # (T,)
            value = answer_tensor(call_student(fn, call, keys, start, freqs), call, keys, Words("one rotated key per token and head", "每个词元、每个头各一个旋转后的键"), Words("the keys'", "键"))
            expected = apply_rope(keys, positions, inv_freq=freqs, layout="interleaved")
            if close(value, expected):
                continue
            diagnose(value, [
                (lambda: apply_rope(keys, torch.arange(keys.shape[1]), inv_freq=freqs, layout="interleaved"),
                 Words(f"{call}: positions — your keys are turned to positions 0 … T−1; they sit at start, start+1, … (here from {start})",
                       f"{call}：位置——你的键被转到了位置 0 … T−1；它们实际位于 start, start+1, …（这里从 {start} 开始）")),
                (lambda: apply_rope(keys, positions, layout="interleaved"),
                 Words(f"{call}: frequencies — you rotated with the default θ_i = 10000^(−2i/d); use the frequencies freqs you are given, the rule's θ'_i",
                       f"{call}：频率——你用的是默认的 θ_i = 10000^(−2i/d)；请使用传入的频率 freqs，即该规则的 θ'_i")),
                (lambda: apply_rope(keys, positions, inv_freq=freqs, layout="half"),
                 Words(f"{call}: pairing — you paired x_i with x_(i+d/2), the half layout; the cache here uses the interleaved layout (x_2i, x_2i+1), apply_rope's default",
                       f"{call}：配对——你把 x_i 与 x_(i+d/2) 配成一对，这是半分布局；这里的缓存用交错布局 (x_2i, x_2i+1)，即 apply_rope 的默认布局")),
                (lambda: apply_rope(keys, -positions, inv_freq=freqs, layout="interleaved"),
                 Words(f"{call}: direction — each pair turned by −mθ'_i; RoPE turns by +mθ'_i",
                       f"{call}：方向——每个维度对转了 −mθ'_i；RoPE 转的是 +mθ'_i")),
                (lambda: apply_rope(keys, positions + 1, inv_freq=freqs, layout="interleaved"),
                 Words(f"{call}: off by one — the first key sits at position start = {start}, not start + 1",
                       f"{call}：差了一位——第一个键位于位置 start = {start}，而不是 start + 1")),
                (lambda: apply_rope(keys, positions - 1, inv_freq=freqs, layout="interleaved"),
                 Words(f"{call}: off by one — the first key sits at position start = {start}, not start − 1",
                       f"{call}：差了一位——第一个键位于位置 start = {start}，而不是 start − 1")),
            ], close)
            if start == 0 and not close(value[:, :1], keys[:, :1]):
                raise Hint(f"{call}: the key at position 0 must come back unchanged", f"{call}：位置 0 的键必须原样返回")
            raise mismatch(call, value, expected, Words(f"the keys turned to positions {start} … {start + keys.shape[1] - 1} with freqs",
                                                        f"用 freqs 转到位置 {start} … {start + keys.shape[1] - 1} 的键"))

    return run_check("lc-ex-fix-cache", rotate_cache, body, Words(
        "rotate_cache turns the keys to positions start, start+1, … with the given frequencies, for three rules and starts 0, 37 and 1000 "
        "and two seeded random cases.",
        "rotate_cache 用给定的频率把键转到位置 start, start+1, …：三种规则、起点 0、37 和 1000，以及两个固定种子的随机用例，全部正确。"), lang)
