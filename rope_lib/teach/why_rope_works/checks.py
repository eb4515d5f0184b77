"""The auto-checks of the exercises in the chapter "Why does RoPE work?" (book/why_rope_works.md)."""

from __future__ import annotations

import numpy as np

from ...frequencies import DEFAULT_BASE, inv_freq
from ..shared.checking import CheckResult, FLOAT32_ANGLES, Hint, allclose_within, answer_number, answer_or_none, call_student, diagnose_across, float32_hint, mismatch, run_check
from ..shared.language import Words
from .base_bound import b_m_theta


def check_b_m(b_m, *, lang: str = "en") -> CheckResult:
    """Exercise wr-ex-bound-by-hand: `b_m(m, d, base)` is B_{m,θ} = Σ_{i=0}^{d/2−1} cos(m·θ_i) with θ_i = base^(−2i/d)."""
    fixed = [(0, 8, DEFAULT_BASE), (1, 8, DEFAULT_BASE), (7, 16, DEFAULT_BASE), (2, 2, DEFAULT_BASE), (100, 128, DEFAULT_BASE),
             (1707, 128, DEFAULT_BASE), (3000, 128, 500000.0), (40, 64, 100.0)]

    def b(case) -> float:
        m, d, base = case
        return float(b_m_theta(m, inv_freq(d, base)))

    def terms(case, *, first=0, step=2, count=None, f=np.cos) -> float:
        """Σ f(m·base^(−step·i/d)) over i = first … first + count − 1 (count = d/2 by default): the formula, or a slip in it."""
        m, d, base = case
        i = np.arange(first, first + (d // 2 if count is None else count))
        return float(f(m * base ** (-step * i / d)).sum())

    def read(value, call: str, d: int) -> float:
        return answer_number(value, call, [((d // 2,), Words(f"{call} returned the d/2 = {d // 2} terms cos(mθ_i); B_(m,θ) is their sum, one number",
                                                             f"{call} 返回的是 d/2 = {d // 2} 个项 cos(mθ_i)；B_(m,θ) 是它们的和，只是一个数"))] if d > 2 else [])

    def body(fn):
        rng = np.random.default_rng(9)
        cases = fixed + [(int(rng.integers(0, 5001)), 2 * int(rng.integers(1, 129)), float(rng.integers(100, 10**6 + 1))) for _ in range(3)]
        close = allclose_within(1e-8)
        for case in cases:
            m, d, base = case
            call = f"b_m({m}, {d}, {base:g})"
            got = read(call_student(fn, call, m, d, base), call, d)
            expected = b(case)
            if close(got, expected):
                continue
            diagnose_across(got, case, cases, lambda c: answer_or_none(lambda v: read(v, "", c[1]), fn, *c), [
                (lambda c: terms(c, f=np.sin),
                 Words(f"{call}: cos, not sin — B_(m,θ) sums cos(mθ_i); at m = 0 every term is cos 0 = 1",
                       f"{call}：应该用 cos，而不是 sin——B_(m,θ) 是 cos(mθ_i) 的和；m = 0 时每一项都是 cos 0 = 1")),
                (lambda c: terms(c, first=1),
                 Words(f"{call}: frequencies — θ_i = base^(−2i/d) with i counted from 0 to d/2 − 1, so θ_0 = 1",
                       f"{call}：频率——θ_i = base^(−2i/d)，i 从 0 数到 d/2 − 1，所以 θ_0 = 1")),
                (lambda c: terms(c, step=1),
                 Words(f"{call}: frequencies — the exponent of θ_i is −2i/d; yours uses −i/d",
                       f"{call}：频率——θ_i 的指数是 −2i/d；你用的是 −i/d")),
                (lambda c: b(c) / (c[1] // 2),
                 Words(f"{call}: normalisation — B_(m,θ) is the plain sum of the d/2 cosines, B_(0,θ) = d/2; yours is scaled to 1 at m = 0",
                       f"{call}：归一化——B_(m,θ) 就是 d/2 个余弦的直接求和，B_(0,θ) = d/2；你的结果在 m = 0 处被缩放成了 1")),
                (lambda c: b(c) / c[1],
                 Words(f"{call}: normalisation — B_(m,θ) is the plain sum of the d/2 cosines, B_(0,θ) = d/2; yours is divided by d",
                       f"{call}：归一化——B_(m,θ) 就是 d/2 个余弦的直接求和，B_(0,θ) = d/2；你的结果除以了 d")),
                (lambda c: 2 * b(c),
                 Words(f"{call}: normalisation — twice B_(m,θ): B is the sum of the cosines alone, without the factor 2σ² of the expected score",
                       f"{call}：归一化——你的结果是 B_(m,θ) 的两倍：B 只是余弦之和，不带期望得分里的因子 2σ²")),
                (lambda c: terms(c, count=c[1]),
                 Words(f"{call}: the sum runs over the d/2 pairs, i = 0 … d/2 − 1, not over all d coordinates",
                       f"{call}：求和遍历 d/2 个维度对，i = 0 … d/2 − 1，而不是全部 d 个坐标")),
                (lambda c: b((c[0], c[1], DEFAULT_BASE)),
                 Words(f"{call}: base — θ_i = base^(−2i/d) with the base passed in; your answer fits base {DEFAULT_BASE:g}",
                       f"{call}：底数——θ_i = base^(−2i/d) 要用传入的底数；你的结果对应的是底数 {DEFAULT_BASE:g}")),
            ], close)
            if m == 0:
                raise Hint(f"{call}: at m = 0 every cosine is 1, so B_(0,θ) = d/2; yours is {got:.6g}",
                           f"{call}：m = 0 时每个余弦都是 1，所以 B_(0,θ) = d/2；你的结果是 {got:.6g}")
            if abs(got - expected) < 1e-3 * d:
                raise Hint.of(float32_hint(call, abs(got - expected), FLOAT32_ANGLES))
            raise mismatch(call, got, expected, Words("Σ_i cos(mθ_i)", "Σ_i cos(mθ_i)"),
                           Words("compare the term of pair 0, cos(m)", "先对照第 0 对的那一项 cos(m)"))

    return run_check("wr-ex-bound-by-hand", b_m, body, Words(
        "b_m matches rope_lib.b_m_theta for d = 2 to 128, m up to 3000, bases 100, 10000 and 500000 and three seeded random cases.",
        "b_m 与 rope_lib.b_m_theta 一致：d 从 2 到 128，m 最大到 3000，底数 100、10000 和 500000，外加三个固定种子的随机用例。"), lang)
