"""The auto-checks of the exercises in the chapter "Complex numbers and Euler's formula" (book/complex_numbers.md)."""

from __future__ import annotations

import numpy as np

from ..complex_plane import exp_partial_sums
from ..language import Words
from .checking import CheckResult, Hint, answer_integer, call_student, fresh_rng, run_check, shown


_SERIES_TERMS = 100
"""Partial sums S_0 … S_99 of e^(ix): far more than any tested x ≤ 10 and tol ≥ 1e-12 needs (at most 46)."""


def _series_errors(x: float) -> tuple[np.ndarray, np.ndarray]:
    """S_N(ix) for N = 0 … _SERIES_TERMS − 1, and their distances |S_N(ix) − e^(ix)|."""
    sums = exp_partial_sums(1j * x, _SERIES_TERMS)
    return sums, np.abs(sums - np.exp(1j * x))


def _fresh_terms_case(fresh: np.random.Generator) -> tuple[float, float]:
    """A fresh (x, tol), both printed exactly, with no partial sum within rounding of tol (so that its N is clear-cut)."""
    while True:
        x, tol = round(float(fresh.uniform(0.1, 8.0)), 2), float(f"1e-{int(fresh.integers(3, 11))}")
        errors = _series_errors(x)[1]
        if np.abs(errors[: int(np.argmax(errors < tol)) + 2] - tol).min() > max(1e-3 * tol, 1e-11):
            return x, tol


def check_terms_needed(terms_needed, *, lang: str = "en") -> CheckResult:
    """Exercise cx-ex-terms: `terms_needed(x, tol)` is the smallest N with |S_N(ix) − e^(ix)| < tol."""

    def body(fn):
        fresh = fresh_rng()
        cases = [(1.0, 1e-8), (5.0, 1e-8), (10.0, 1e-8), (0.5, 1e-4), (3.0, 1e-12)] + [_fresh_terms_case(fresh) for _ in range(3)]
        for x, tol in cases:
            call = f"terms_needed({x!r}, {tol!r})"
            n = answer_integer(call_student(fn, call, x, tol), call)
            sums, errors = _series_errors(x)
            smallest = int(np.argmax(errors < tol))
            if n < 0:
                raise Hint(f"{call} returned {shown(n)}: N counts the terms after the first, so it is never negative",
                           f"{call} 返回了 {shown(n)}：N 数的是第一项之后的项，所以不可能是负数")
            if n < smallest:
                real_only = abs(sums[n].real - np.cos(x)) < tol
                raise Hint(f"{call}: S_N(ix) for your N = {n} is not yet within tol of e^(ix) (error {errors[n]:.2g})"
                           + (": compare the whole complex number, the imaginary part too" if real_only else ""),
                           f"{call}：取你的 N = {n} 时，S_N(ix) 与 e^(ix) 的距离还没有小于 tol（误差 {errors[n]:.2g}）"
                           + ("：要比较整个复数，虚部也要比" if real_only else ""))
            if n > smallest:  # decided without using n to size anything: n may be 10**12
                raise Hint(f"{call}: your N = {shown(n)} is not the smallest: a smaller N is already within tol"
                           + (" (S_N = Σ_(k=0..N) has N + 1 terms: did you count terms instead of the last index?)" if n == smallest + 1 else ""),
                           f"{call}：你的 N = {shown(n)} 不是最小的：更小的 N 已经在 tol 之内"
                           + ("（S_N = Σ_(k=0..N) 有 N + 1 项：你是不是数了项数，而不是最后一项的下标？）" if n == smallest + 1 else ""))

    return run_check("cx-ex-terms", terms_needed, body,
                     Words("terms_needed returns the smallest N within tol for x = 0.5, 1, 3, 5 and 10 and for three fresh random x and tol.",
                           "terms_needed 对 x = 0.5、1、3、5、10 以及三组新随机生成的 x 和 tol，都返回了误差在 tol 之内的最小 N。"),
                     lang)
