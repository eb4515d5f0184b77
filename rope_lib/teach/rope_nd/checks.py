"""The auto-checks of the exercises in the chapter "RoPE in d dimensions" (book/rope_nd.md)."""

from __future__ import annotations

import numpy as np

from ...frequencies import DEFAULT_BASE
from .decay import relative_upper_bound
from ..shared.checking import CheckResult, Hint, answer_integer, call_student, run_check, shown
from ..shared.language import Words

_FAR = 4096
"""How far the curve of Figure 2 is searched for its first dip below half: every tested d and base dips before 64."""


def _half_curve(d: int, base: float) -> tuple[np.ndarray, float]:
    """The curve of Figure 2 at distances 0 … _FAR, and half its value at 0."""
    curve = relative_upper_bound(np.arange(_FAR + 1), d, base)
    return curve, float(curve[0]) / 2


def _random_half_case(rng: np.random.Generator) -> tuple[int, float]:
    """A random (d, base) whose curve stays clear of half its start (beyond rounding) up to its first dip below it."""
    while True:
        d, base = 8 * int(rng.integers(1, 33)), float(rng.integers(100, 10**6 + 1))
        curve, half = _half_curve(d, base)
        first = int(np.argmax(curve < half))
        if np.abs(curve[: first + 1] - half).min() > 1e-9 * half:
            return d, base


def check_first_below_half(first_below_half, *, lang: str = "en") -> CheckResult:
    """Exercise ropend-ex-half: `first_below_half(d, base)` is the first distance where Figure 2's curve is below half its value at 0."""

    def body(fn):
        rng = np.random.default_rng(8)
        for d, base in [(128, 10000.0), (64, 10000.0), (128, 500000.0)] + [_random_half_case(rng) for _ in range(2)]:
            call = f"first_below_half({d}, {base:g})"
            r = answer_integer(call_student(fn, call, d, base), call)
            curve, half = _half_curve(d, base)
            first = int(np.argmax(curve < half))
            if r <= 0:
                raise Hint(f"{call} returned {shown(r)}: at distance 0 the curve is at its full value, so the answer is a positive distance",
                           f"{call} 返回了 {shown(r)}：在距离 0 处曲线取满值，所以答案是一个正的距离")
            if r < first:
                uses_base = base == DEFAULT_BASE or not relative_upper_bound(r, d) < float(relative_upper_bound(0, d)) / 2
                raise Hint(f"{call}: at your distance {r} the curve is {curve[r]:.3f}, not yet below half its value at 0 ({half:.3f})"
                           + ("" if uses_base else "; your answer fits base 10000: pass base on to the curve"),
                           f"{call}：在你给的距离 {r} 处，曲线值为 {curve[r]:.3f}，还没有低于它在 0 处的一半（{half:.3f}）"
                           + ("" if uses_base else "；你的答案符合底数 10000：请把 base 传给曲线"))
            if r > first:  # decided without using r to size anything: r may be 10**12
                raise Hint(f"{call}: {shown(r)} is not the first such distance: the curve already dips below {half:.3f} at a smaller one",
                           f"{call}：{shown(r)} 不是第一个这样的距离：曲线在更小的距离上就已低于 {half:.3f}")

    return run_check("ropend-ex-half", first_below_half, body,
                     Words("first_below_half finds the first distance below half for d = 64 and 128, bases 10000 and 500000 and two seeded random d and bases.",
                           "first_below_half 对 d = 64 和 128、底数 10000 和 500000，以及两组固定种子随机生成的 d 和底数，都找到了第一个低于一半的距离。"),
                     lang)
