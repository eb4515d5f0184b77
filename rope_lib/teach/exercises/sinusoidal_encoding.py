"""The auto-checks of the exercises in the chapter "Absolute sinusoidal encoding" (book/sinusoidal_encoding.md)."""

from __future__ import annotations

import numpy as np

from ...frequencies import DEFAULT_BASE
from ...sinusoidal import sinusoidal_encoding, sinusoidal_position
from ..language import Words, require_language
from .checking import CheckResult, F32_EPS, Hint, allclose_within, answer_array, call_student, diagnose, float32_hint, freqs_counted_from_one, run_check


def check_walk_encoding(walk_encoding, *, lang: str = "en") -> CheckResult:
    """Exercise sin-ex-walk: `walk_encoding(seq_len, d)` builds the (seq_len, d) table by repeated rotation from p_0.
    The hints and the verdict are shown in `lang`."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(7)
        sizes = [(200, 16), (50, 8)] + [(int(rng.integers(2, 301)), 2 * int(rng.integers(1, 17))) for _ in range(2)]
        close = allclose_within(1e-9)
        for seq_len, d in sizes:
            call = f"walk_encoding(seq_len={seq_len}, d={d})"
            expected = sinusoidal_encoding(seq_len, d)
            got = answer_array(call_student(fn, call, seq_len, d), call, (seq_len, d))
            if close(got, expected):
                continue
            m = np.arange(seq_len)
            swapped = expected.copy()
            swapped[:, 0::2], swapped[:, 1::2] = expected[:, 1::2], expected[:, 0::2]
            shifted = np.empty_like(expected)
            shifted[:, 0::2] = np.sin(np.outer(m, freqs_counted_from_one(d, DEFAULT_BASE)))
            shifted[:, 1::2] = np.cos(np.outer(m, freqs_counted_from_one(d, DEFAULT_BASE)))
            diagnose(got, [
                (lambda: swapped, Words(f"{call}: sin and cos swapped — p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines, odd columns cosines",
                                        f"{call}：sin 和 cos 放反了——p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)：偶数列是正弦，奇数列是余弦")),
                (lambda: sinusoidal_position(-m, d), Words(f"{call}: direction — row m holds p_(−m); one position forward is the rotation R^d_(Θ,−1), not R^d_(Θ,1)",
                                                           f"{call}：方向——第 m 行是 p_(−m)；向前走一个位置是旋转 R^d_(Θ,−1)，而不是 R^d_(Θ,1)")),
                (lambda: shifted, Words(f"{call}: frequencies — column pair i uses θ_i = 10000^(−2i/d) with i counted from 0, so columns 0 and 1 turn by one radian per position",
                                        f"{call}：频率——第 i 对列用 θ_i = 10000^(−2i/d)，i 从 0 开始数，所以第 0、1 列每个位置转 1 弧度")),
                (lambda: sinusoidal_position(m + 1, d), Words(f"{call}: off by one — row 0 must be p_0, the position 0; your table starts at p_1",
                                                              f"{call}：差了一位——第 0 行必须是位置 0 的 p_0；你的表从 p_1 开始")),
                (lambda: expected, float32_hint(call, np.abs(got - expected).max(), Words(
                    "float32 keeps about 7 digits, and every step of the walk adds its rounding",
                    "float32 只保留约 7 位有效数字，而逐步旋转的每一步都会累积舍入误差")),
                 allclose_within(4 * F32_EPS * seq_len)),
            ], close)
            if close(got[0], swapped[0]):
                raise Hint(f"{call}: sin and cos swapped — row 0 is (1, 0, 1, 0, …), but p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines",
                           f"{call}：sin 和 cos 放反了——第 0 行是 (1, 0, 1, 0, …)，但 p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)：偶数列是正弦")
            if not close(got[0], expected[0]):
                raise Hint(f"{call}: row 0 must be p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)",
                           f"{call}：第 0 行必须是 p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)")
            row = int(np.argmax(np.abs(got - expected).max(axis=1) > 1e-9))
            raise Hint(f"{call}: rows 0 to {row - 1} are right but row {row} is not p_{row}; check the step from one row to the next",
                       f"{call}：第 0 到 {row - 1} 行是对的，但第 {row} 行不是 p_{row}；请检查从一行到下一行的那一步")

    return run_check("sin-ex-walk", walk_encoding, body, Words(
        "walk_encoding matches rope_lib.sinusoidal.sinusoidal_encoding for 200 positions (d = 16), 50 positions (d = 8) and two seeded random sizes.",
        "walk_encoding 与 rope_lib.sinusoidal.sinusoidal_encoding 一致：200 个位置（d = 16）、50 个位置（d = 8）以及两个固定种子的随机尺寸。"), lang)
