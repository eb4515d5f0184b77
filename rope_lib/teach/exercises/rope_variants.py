"""The auto-checks of the exercises in the chapter "RoPE in today's models" (book/rope_variants.md)."""

from __future__ import annotations

import numpy as np

from ...frequencies import DEFAULT_BASE, inv_freq
from ...scaling import RopeScaling
from ..language import Words, require_language
from .checking import CheckResult, answer_array, call_student, diagnose, mismatch, run_check


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
