"""The auto-checks of the exercises in the chapter "Complex numbers and Euler's formula" (book/complex_numbers.md)."""

from __future__ import annotations

from functools import cache

import numpy as np

from ..complex_plane import exp_partial_sums
from ..language import Words
from .checking import CheckResult, Hint, answer_integer, call_student, run_check, shown


_SERIES_TERMS = 100
"""Partial sums S_0 … S_99 of e^(ix): far more than any tested x ≤ 10 and tol ≥ 1e-12 needs (at most 46)."""

_X_RANGE = [round(0.01 * i, 2) for i in range(10, 801)]
_TOL_RANGE = [float(f"1e-{k}") for k in range(3, 11)]
"""The inputs a student may try, searched for those that tell two stopping rules apart: x from 0.10 to 8.00 in steps
of 0.01, tol from 1e-3 to 1e-10."""

_NEXT_TERM_CASES = 4
"""How many of the inputs where "stop when the next term is below tol" gives the wrong N the check tries."""


def _series(x: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """S_N(ix) for N = 0 … _SERIES_TERMS − 1, their distances |S_N(ix) − e^(ix)|, and the size of each one's next
    term |(ix)^(N+1) / (N+1)!|."""
    sums = exp_partial_sums(1j * x, _SERIES_TERMS)
    return sums, np.abs(sums - np.exp(1j * x)), np.abs(np.diff(sums))


def _first_below(values: np.ndarray, tol: float) -> int:
    """The first index whose value is below tol."""
    return int(np.argmax(values < tol))


def _clear_cut(values: np.ndarray, tol: float) -> bool:
    """No value up to one past the first below tol lies within rounding of tol, so that the first below it is clear."""
    return bool(np.abs(values[: _first_below(values, tol) + 2] - tol).min() > max(1e-3 * tol, 1e-11))


@cache
def _next_term_cases() -> tuple[tuple[float, float], ...]:
    """_NEXT_TERM_CASES inputs (x, tol), spread over the search, where the smallest N with |S_N(ix) − e^(ix)| < tol
    differs from the N at which the next term first falls below tol: the off-by-one stopping rule fails there only."""
    found = []
    for x in _X_RANGE:
        _, errors, next_terms = _series(x)
        for tol in _TOL_RANGE:
            if _clear_cut(errors, tol) and _clear_cut(next_terms, tol) and _first_below(errors, tol) != _first_below(next_terms, tol):
                found.append((x, tol))
    picks = np.linspace(0, len(found) - 1, _NEXT_TERM_CASES).round().astype(int)
    return tuple(found[i] for i in picks)


def check_terms_needed(terms_needed, *, lang: str = "en") -> CheckResult:
    """Exercise cx-ex-terms: `terms_needed(x, tol)` is the smallest N with |S_N(ix) − e^(ix)| < tol."""

    def body(fn):
        cases = [(1.0, 1e-8), (5.0, 1e-8), (10.0, 1e-8), (0.5, 1e-4), (3.0, 1e-12), *_next_term_cases()]
        for x, tol in cases:
            call = f"terms_needed({x!r}, {tol!r})"
            n = answer_integer(call_student(fn, call, x, tol), call)
            sums, errors, next_terms = _series(x)
            smallest = _first_below(errors, tol)
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
                if n == _first_below(next_terms, tol):
                    raise Hint(f"{call}: your N = {n} is not the smallest: it is where the next term falls below tol, but the "
                               "test is on the error of S_N itself, |S_N(ix) − e^(ix)|, which the next term only estimates",
                               f"{call}：你的 N = {n} 不是最小的：它是下一项小于 tol 的地方，但要检验的是 S_N 本身的误差 "
                               "|S_N(ix) − e^(ix)|，下一项只是对它的估计")
                raise Hint(f"{call}: your N = {shown(n)} is not the smallest: a smaller N is already within tol"
                           + (" (S_N = Σ_(k=0..N) has N + 1 terms: did you count terms instead of the last index?)" if n == smallest + 1 else ""),
                           f"{call}：你的 N = {shown(n)} 不是最小的：更小的 N 已经在 tol 之内"
                           + ("（S_N = Σ_(k=0..N) 有 N + 1 项：你是不是数了项数，而不是最后一项的下标？）" if n == smallest + 1 else ""))

    return run_check("cx-ex-terms", terms_needed, body,
                     Words(f"terms_needed returns the smallest N within tol for x = 0.5, 1, 3, 5 and 10 and for {_NEXT_TERM_CASES} inputs "
                           "where the next term is still above tol at that N.",
                           f"terms_needed 对 x = 0.5、1、3、5、10，以及 {_NEXT_TERM_CASES} 组在该 N 处下一项仍不小于 tol 的输入，"
                           "都返回了误差在 tol 之内的最小 N。"),
                     lang)
