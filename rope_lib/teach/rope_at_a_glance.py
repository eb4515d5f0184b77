"""The auto-checks of the exercises in the chapter "RoPE at a glance" (book/rope_at_a_glance.md)."""

from __future__ import annotations

import numpy as np

from ...frequencies import DEFAULT_BASE, angles
from ...rotation import rotary_matrix
from ..language import Words
from .checking import CheckResult, F32_EPS, FLOAT32_ANGLES, Hint, allclose_within, answer_array, call_student, diagnose, case_seed, float32_hint, freqs_counted_from_one, mismatch, normal_case, run_check, turn_adjacent_pairs


def check_rope_pairs(rope_pairs, *, lang: str = "en") -> CheckResult:
    """Exercise glance-ex-code: `rope_pairs(x, m, base=10000.0)` turns adjacent pairs of x to position m."""

    def body(fn):
        rng = np.random.default_rng(0)
        cases = [(rng.standard_normal(d), m, None, f"rope_pairs(x, m={m}) for x of length {d}") for d in (8, 32) for m in (0, 1, 257, 10**6)]
        cases.append((rng.standard_normal(16), 100, 500000.0, "rope_pairs(x, m=100, base=500000.0) for x of length 16"))
        for _ in range(3):
            d, m, base = 2 * int(rng.integers(1, 33)), int(rng.integers(0, 10**6)), float(rng.integers(100, 10**6))
            x, rebuild = normal_case(case_seed(rng), d)
            cases.append((x, m, base, f"rope_pairs(x, m={m}, base={base!r}) with x = {rebuild}"))
        for x, m, base, call in cases:
            one(fn, x, m, base, call)

    def one(fn, x, m, base, call):
        d, theta = len(x), DEFAULT_BASE if base is None else base
        value = call_student(fn, call, x, m) if base is None else call_student(fn, call, x, m, base=base)
        got = answer_array(value, call, (d,))
        expected = rotary_matrix(m, d, theta) @ x
        close = allclose_within(1e-8)
        if close(got, expected):
            return
        diagnose(got, [
            (lambda: rotary_matrix(m, d, theta, layout="half") @ x,
             Words(f"{call}: pairing — you turned x_i with x_(i+d/2) (the half layout); this exercise pairs neighbours (x_2i, x_2i+1), the interleaved layout",
                   f"{call}：配对——你把 x_i 和 x_(i+d/2) 配成一对来旋转（半分布局）；本练习把相邻的 (x_2i, x_2i+1) 配成一对，即交错布局")),
            (lambda: rotary_matrix(-m, d, theta) @ x,
             Words(f"{call}: direction — each pair turned clockwise, by −mθ_i; RoPE turns by +mθ_i (counter-clockwise)",
                   f"{call}：方向——每一对都按顺时针转了 −mθ_i；RoPE 转的是 +mθ_i（逆时针）")),
            (lambda: turn_adjacent_pairs(x, m * freqs_counted_from_one(d, theta)),
             Words(f"{call}: frequencies — pair i must use θ_i = base^(−2i/d) with i counted from 0, so pair 0 turns by exactly m radians",
                   f"{call}：频率——第 i 对要用 θ_i = base^(−2i/d)，i 从 0 开始数，所以第 0 对恰好转 m 弧度")),
            (lambda: turn_adjacent_pairs(x, m * theta ** (-np.arange(d // 2) / d)),
             Words(f"{call}: frequencies — the exponent of θ_i is −2i/d; yours uses −i/d",
                   f"{call}：频率——θ_i 的指数是 −2i/d；你用的是 −i/d")),
            (lambda: turn_adjacent_pairs(x, np.degrees(angles(m, d, theta))),
             Words(f"{call}: units — numpy's cos and sin take radians; the angle m·θ_i is already in radians",
                   f"{call}：单位——numpy 的 cos 和 sin 接受弧度；角度 m·θ_i 本来就是弧度")),
            (lambda: rotary_matrix(m, d, 1000.0) @ x,
             Words(f"{call}: base — your frequencies fit base 1000, but "
                   + ("the default base is 10000: is a zero missing?" if base is None else f"the base passed in is {base:g}: θ_i = base^(−2i/d) must use it"),
                   f"{call}：底数——你的频率对应底数 1000，但"
                   + ("默认底数是 10000：是不是少写了一个 0？" if base is None else f"传入的底数是 {base:g}：θ_i = base^(−2i/d) 必须用它"))),
            (lambda: rotary_matrix(m, d) @ x,
             Words(f"{call}: base — the base argument must set the frequencies θ_i = base^(−2i/d); your result fits base 10000, not {theta:g}",
                   f"{call}：底数——参数 base 必须决定频率 θ_i = base^(−2i/d)；你的结果对应底数 10000，而不是 {theta:g}")),
            (lambda: expected, float32_hint(call, np.abs(got - expected).max(), FLOAT32_ANGLES),
             allclose_within(4 * F32_EPS * (1 + abs(m)) * np.abs(x).max())),
        ], close)
        if m == 0:
            raise Hint(f"{call}: at position 0 every angle is 0, so x must come back unchanged",
                       f"{call}：在位置 0，所有角度都是 0，所以 x 应该原样返回")
        if not np.isclose(np.linalg.norm(got), np.linalg.norm(x)):
            raise Hint(f"{call}: a rotation keeps the length of x, but |result| = {np.linalg.norm(got):.4g} and |x| = {np.linalg.norm(x):.4g}",
                       f"{call}：旋转不改变 x 的长度，但 |结果| = {np.linalg.norm(got):.4g}，而 |x| = {np.linalg.norm(x):.4g}")
        raise mismatch(call, got, expected, Words("R^d_(Θ,m)·x", "R^d_(Θ,m)·x"),
                       Words("compare pair 0, which turns by m radians", "先对照第 0 对，它转 m 弧度"))

    return run_check("glance-ex-code", rope_pairs, body, Words(
        "rope_pairs matches R^d_(Θ,m)·x for d = 8, 16 and 32, positions 0 to 10^6, base 500000 and three seeded random cases.",
        "rope_pairs 与 R^d_(Θ,m)·x 一致：d = 8、16 和 32，位置 0 到 10^6，底数 500000，外加三个固定种子的随机用例。"), lang)
