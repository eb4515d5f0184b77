"""The machinery every exercise check shares: the result, the hint, calling the student's function safely, reading
its answer, seeded random inputs, and naming the known mistakes without showing the right answer."""

from __future__ import annotations

import copy
import inspect
import math
import numbers
import reprlib
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from ...frequencies import inv_freq
from ...rotation import rotation_matrix_2d
from .language import Words, is_han, require_language, text

F32_EPS = float(np.finfo(np.float32).eps)

PASSED = Words("PASSED", "通过")
NOT_YET = Words("NOT YET", "尚未通过")
"""The verdict a check prints first, in each language."""


@dataclass(frozen=True)
class CheckResult:
    """What a check found: `passed`, and a message in `lang` that says why (a hint when it did not pass)."""

    exercise: str
    passed: bool
    message: str
    lang: str = "en"

    def __post_init__(self):
        require_language(self.lang)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        verdict = (PASSED if self.passed else NOT_YET).in_language(self.lang)
        return f"{verdict}{text(self.lang, en=': ', zh='：')}{self.message}"

    __repr__ = __str__


class Hint(Exception):
    """A failed property, carrying the hint shown to the student, in English and in Chinese (`words`): a check
    raises it before it knows which one `run_check` will show."""

    def __init__(self, en: str, zh: str):
        self.words = Words(en, zh)
        super().__init__(en)

    @classmethod
    def of(cls, words: Words) -> "Hint":
        return cls(words.en, words.zh)


def run_check(exercise: str, function, body, success: Words, lang: str = "en") -> CheckResult:
    """Run `body(function)`; print and return the result, with the hint or `success` in `lang`."""
    require_language(lang)
    if not isinstance(success, Words):
        raise TypeError(f"success must be Words (the message in both languages), got {type(success).__name__}")
    if function is None:
        result = CheckResult(exercise, False, text(lang, en="you passed None: define your function first, then pass it to the check",
                                                   zh="你传入的是 None：请先定义你的函数，再把它传给检查函数"), lang)
    elif not callable(function):
        raise TypeError(f"the check for exercise {exercise} expects your function, got {type(function).__name__} {shown(function)}")
    else:
        try:
            body(function)
        except Hint as hint:
            result = CheckResult(exercise, False, hint.words.in_language(lang), lang)
        else:
            result = CheckResult(exercise, True, success.in_language(lang), lang)
    print(result)
    return result


# ---- naming the call and the student's values in a hint ---------------------------------------------


class Described(NamedTuple):
    """The call a hint names, in each language."""

    en: str
    zh: str


def described(call: str | Words | Described) -> Described:
    """The call a hint names, in both languages: Words where it has words ("x of shape (2, 9)" / "形状为 (2, 9) 的 x"),
    or a str of code (possibly empty), which reads the same in both; a Described is kept as it is."""
    if isinstance(call, Described):
        return call
    return Described(call.en, call.zh) if isinstance(call, Words) else Described(call, call)


def shown(value) -> str:
    """The student's value in a hint: short (a 400-digit int is abbreviated), and a placeholder where repr fails."""
    try:
        return reprlib.repr(value)
    except Exception:  # noqa: BLE001  (the student's object may break repr too)
        return f"<{type(value).__name__}>"


def said(error: BaseException) -> str:
    """'Type: message' of an exception the student's code caused, kept short, and safe where its str() fails."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001
        text = ""
    text = text if len(text) <= 200 else text[:200] + "…"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


# ---- the student's function: called on copies, under a time limit, with every failure turned into a hint ----------


TIME_LIMIT_S = 10.0
"""How long one call of the student's function may run before the check stops it and says so: far more than any
exercise needs (each check's calls take milliseconds), so only a loop that never ends meets it."""


class _OutOfTime(BaseException):
    """Raised inside the student's function when its time is up: a BaseException, so that an `except Exception` in
    their code does not swallow it."""


@contextmanager
def time_limit(seconds: float):
    """Stop the code inside this block with _OutOfTime after `seconds`. The alarm is SIGALRM, which Python delivers to
    the main thread only: in a Jupyter kernel on Linux, or in pytest, the code runs there; in another thread, or where
    there is no SIGALRM, the block runs without a limit. A timer already set (by the caller) is restored afterwards,
    less the time the block took."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def alarm(signum, frame):
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, alarm)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)  # an alarm due at this very instant may still go off here
        finally:
            signal.signal(signal.SIGALRM, previous)
            if outer:  # the caller's timer goes on; one that came due meanwhile fires at once
                signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-6))


def _same(before, after) -> bool:
    """An argument as the check made it (`before`) and as the student's function left it (`after`) hold the same
    values. Numbers and strings cannot change; arrays, tensors and lists can."""
    if isinstance(before, torch.Tensor):
        return before.shape == after.shape and before.dtype == after.dtype and torch.equal(before, after)
    if isinstance(before, np.ndarray):
        return before.shape == after.shape and before.dtype == after.dtype and np.array_equal(before, after)
    if isinstance(before, (list, tuple)):
        return len(before) == len(after) and all(_same(b, a) for b, a in zip(before, after))
    return True


def _changed_argument(function, args: tuple, kwargs: dict, given_args: tuple, given_kwargs: dict) -> str | None:
    """The name of the first argument the student's function changed in place (its own parameter name where its
    signature says, else its position), or None."""
    for position, (before, after) in enumerate(zip(args, given_args)):
        if not _same(before, after):
            try:
                return list(inspect.signature(function).parameters)[position]
            except (TypeError, ValueError, IndexError):  # no readable signature, or *args
                return f"#{position + 1}"
    return next((name for name in kwargs if not _same(kwargs[name], given_kwargs[name])), None)


def call_student(function, call: str | Words, *args, **kwargs):
    """The student's function on one input. It gets copies of the arguments, so nothing it does can spoil the check's
    inputs, and TIME_LIMIT_S seconds. What it raises, an exit (SystemExit, which sys.exit() and exit() raise), running
    out of time and changing an argument in place each become a hint naming the input. Only KeyboardInterrupt, the
    student stopping the kernel, passes through."""
    c = described(call)
    given_args, given_kwargs = copy.deepcopy((args, kwargs))
    try:
        with time_limit(TIME_LIMIT_S):
            value = function(*given_args, **given_kwargs)
    except _OutOfTime:
        raise Hint(f"{c.en} did not return within {TIME_LIMIT_S:g} s: does a loop never end?",
                   f"{c.zh} 在 {TIME_LIMIT_S:g} 秒内没有返回：是不是有个循环永远不会结束？") from None
    except KeyboardInterrupt:
        raise
    except SystemExit as exit_:
        raise Hint(f"{c.en} called sys.exit() ({said(exit_)}): a function hands back its answer with return, not by exiting",
                   f"{c.zh} 调用了 sys.exit()（{said(exit_)}）：函数应当用 return 交回答案，而不是退出") from None
    except BaseException as error:  # the student's code may raise anything: report it, never propagate it
        written = not isinstance(error, NotImplementedError)
        raise Hint(f"{c.en} raised {said(error)}" + ("" if written else " (is the function written yet?)"),
                   f"{c.zh} 抛出了 {said(error)}" + ("" if written else "（函数写好了吗？）")) from None
    changed = _changed_argument(function, args, kwargs, given_args, given_kwargs)
    if changed is not None:
        raise Hint(f"{c.en} changed its argument {changed} in place: leave the inputs as they are and build the result anew "
                   f"({changed}.clone() copies a tensor, {changed}.copy() an array)",
                   f"{c.zh} 原地修改了参数 {changed}：请不要改动输入，把结果放进新的数组或张量"
                   f"（张量用 {changed}.clone() 复制，数组用 {changed}.copy()）")
    return value


# ---- the student's answer: read, with every failure turned into a hint ------------------------------


@contextmanager
def reading_answer(call: str | Words, value, expected: Words):
    """Read the student's answer `value` inside this block: None, and anything that raises while it is converted or
    inspected (a number too large for a float, an `__array__` that fails, a tensor without data), is a hint."""
    c = described(call)
    if value is None:
        raise Hint(f"{c.en} returned None: return the result (is a return statement missing?)",
                   f"{c.zh} 返回了 None：请返回结果（是不是少了 return 语句？）")
    try:
        yield
    except Hint:
        raise
    except OverflowError as error:
        raise Hint(f"{c.en} returned a number too large for a float ({said(error)}); expected {expected.en}",
                   f"{c.zh} 返回的数太大，float 装不下（{said(error)}）；应为{expected.zh}") from None
    except Exception as error:  # noqa: BLE001  (an answer of any type may fail in any way)
        raise Hint(f"{c.en} returned {type(value).__name__}, which could not be read as {expected.en} ({said(error)})",
                   f"{c.zh} 返回了 {type(value).__name__}，无法读作{expected.zh}（{said(error)}）") from None


def answer_array(value, call: str | Words, shape: tuple[int, ...], known_shapes=()) -> np.ndarray:
    """The answer as finite float64 numbers of `shape`, whatever array-like it came as; an answer of a shape in
    `known_shapes`, pairs (shape, hint) such as all the terms where their sum is asked for, gets that hint.

    A tensor is detached and moved to the CPU first, so one that requires grad reads as its numbers."""
    c = described(call)
    expected = Words("one real number", "一个实数") if shape == () else Words(f"real numbers of shape {shape}", f"形状为 {shape} 的实数")
    with reading_answer(call, value, expected):
        if isinstance(value, torch.Tensor):
            value = value.detach().cpu()
            value = (value.double() if value.is_floating_point() else value).numpy()
        array = np.asarray(value)
        if array.dtype == np.bool_:
            raise Hint(f"{c.en} returned True/False values; expected {expected.en}", f"{c.zh} 返回了 True/False；应为{expected.zh}")
        if np.iscomplexobj(array):
            if np.any(array.imag != 0):
                raise Hint(f"{c.en} returned complex numbers; expected {expected.en}", f"{c.zh} 返回了复数；应为{expected.zh}")
            array = array.real
        array = array.astype(np.float64)  # an object array (a huge int, a list of odd things) may fail here
    for wrong_shape, hint in known_shapes:
        if array.shape == wrong_shape:
            raise Hint.of(hint)
    if array.shape != shape:
        raise Hint(f"{c.en} returned shape {array.shape}, expected {shape}"
                   + (": one number (a 0-dimensional array or tensor will do)" if shape == () else ""),
                   f"{c.zh} 返回的形状是 {array.shape}，应为 {shape}"
                   + ("：一个数（0 维数组或张量也可以）" if shape == () else ""))
    if not np.isfinite(array).all():
        raise Hint(f"{c.en} returned nan or inf; expected finite numbers", f"{c.zh} 返回了 nan 或 inf；应为有限的数")
    return array


def answer_number(value, call: str | Words, known_shapes=()) -> float:
    """One real number: a Python or NumPy number, or a 0-dimensional array or tensor (see `answer_array`)."""
    return float(answer_array(value, call, (), known_shapes))


def answer_integer(value, call: str | Words) -> int:
    """A whole number (a Python or NumPy int): a count or a distance, so a float is refused, not rounded."""
    c = described(call)
    with reading_answer(call, value, Words("a whole number (int)", "一个整数（int）")):
        if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
            raise Hint(f"{c.en} returned {shown(value)} ({type(value).__name__}), expected a whole number (int)",
                       f"{c.zh} 返回了 {shown(value)}（{type(value).__name__}），应为一个整数（int）")
        return int(value)


def answer_tensor(value, call: str | Words, like: torch.Tensor, each: Words, whose: Words) -> torch.Tensor:
    """The answer as a plain CPU tensor, if it is a tensor of like's shape ("each": what one entry of it is) and dtype
    ("whose": like's owner)."""
    c = described(call)
    shape = tuple(like.shape)
    with reading_answer(call, value, Words(f"a torch.Tensor of shape {shape}", f"形状为 {shape} 的 torch.Tensor")):
        if not isinstance(value, torch.Tensor):
            raise Hint(f"{c.en} returned {type(value).__name__}, expected a torch.Tensor of shape {shape}",
                       f"{c.zh} 返回了 {type(value).__name__}，应为形状为 {shape} 的 torch.Tensor")
        if tuple(value.shape) != shape:
            raise Hint(f"{c.en} returned shape {tuple(value.shape)}, expected {shape}: {each.en}",
                       f"{c.zh} 返回的形状是 {tuple(value.shape)}，应为 {shape}：{each.zh}")
        if value.dtype != like.dtype:
            raise Hint(f"{c.en} returned dtype {value.dtype}; keep {whose.en} dtype ({like.dtype})",
                       f"{c.zh} 返回的 dtype 是 {value.dtype}；请保持{whose.zh}的 dtype（{like.dtype}）")
    return torch.from_numpy(answer_array(value, call, shape)).to(like.dtype)


def answer_or_none(convert, function, *args):
    """The student's answer at one more input, for diagnosis only: None where the call or `convert` gives a hint."""
    try:
        return convert(call_student(function, "", *args))
    except Hint:
        return None


# ---- seeded random inputs ------------------------------------------------------------------------
#
# Each check tries fixed inputs, among them the edge cases that tell the common mistakes apart, then random ones drawn
# from a generator with a fixed seed: the same inputs on every call, so that a wrong answer gets the same verdict and
# the same hint every time. A random case's hint names its input, arrays by the seed that rebuilds them.


def case_seed(rng: np.random.Generator) -> int:
    """A seed for one random array: short enough to read off a hint and retype."""
    return int(rng.integers(10**6))


def normal_case(seed: int, shape) -> tuple[np.ndarray, str]:
    """Standard normal numbers from `seed`, and the code that rebuilds them, for the hint of a random case."""
    return np.random.default_rng(seed).standard_normal(shape), f"np.random.default_rng({seed}).standard_normal({shape})"


def random_heads(rng: np.random.Generator, d_max: int) -> tuple[torch.Tensor, int, str]:
    """Random float64 head vectors (B, T, H, D), D even from 4 (NTK's least) to d_max, a random start position below
    5000, and the code that rebuilds the vectors."""
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 7)), int(rng.integers(1, 4)), 2 * int(rng.integers(2, d_max // 2 + 1)))
    x, rebuild = normal_case(case_seed(rng), shape)
    return torch.from_numpy(x), int(rng.integers(0, 5000)), f"torch.from_numpy({rebuild})"


# ---- known mistakes ----------------------------------------------------------------------------


def diagnose(got, mistakes, close) -> None:
    """Raise the hint of the first known mistake, (wrong answer, hint), whose output `got` matches. A mistake that only
    blurs the answer, such as float32 rounding, brings its own closeness as a third item."""
    for wrong, hint, *own in mistakes:
        if (own[0] if own else close)(got, wrong()):
            raise Hint.of(hint)


def diagnose_across(got, at, inputs, answer, mistakes, close) -> None:
    """Like `diagnose`, for answers that are single numbers, where two mistakes can give the same number at the
    failing input `at`: a mistake is named only if it also gives the student's answers at the other inputs
    (`answer(x)`; None where the student's function fails there), so that it explains the whole function."""
    here = [(wrong, hint) for wrong, hint in mistakes if close(got, wrong(at))]
    if not here:
        return
    answers = [(x, answer(x)) for x in inputs if x != at]
    for wrong, hint in here:
        if all(a is None or close(a, wrong(x)) for x, a in answers):
            raise Hint.of(hint)


def allclose_within(atol: float):
    return lambda a, b: np.allclose(np.asarray(a), np.asarray(b), rtol=0, atol=atol)


def _numbers(value) -> np.ndarray:
    """An array or tensor of any float dtype (bf16 included) as float64 numbers."""
    return value.detach().double().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value, dtype=np.float64)


def mismatch(call: str | Words, got, expected, what: Words, then: Words | None = None) -> Hint:
    """The last hint of a check, for a wrong answer that no known mistake explains: the result of `call` is not `what`,
    and for an array, how far its worst entry is off; `then`: where to look first. It never shows the right answer:
    for a single number not even the gap, since the student's number plus or minus the gap would be the answer."""
    c = described(call)
    got, expected = _numbers(got), _numbers(expected)
    gap = np.abs(got - expected).max() if expected.size > 1 else None
    en = f"{c.en}: the result is not {what.en}" + ("" if gap is None else f" (largest gap {gap:.3g})") + (f"; {then.en}" if then else "")
    space = "" if is_han(what.zh[0]) else " "  # Chinese sets a formula or a Latin word off with a space
    zh = f"{c.zh}：结果不是{space}{what.zh}" + ("" if gap is None else f"（最大差 {gap:.3g}）") + (f"；{then.zh}" if then else "")
    return Hint(en, zh)


def float32_hint(call: str | Words, gap: float, why: Words) -> Words:
    """The hint for an answer that is right but for float32 rounding (largest gap `gap`); `why`: where float32 shows."""
    c = described(call)
    return Words(
        f"{c.en}: precision — close but not equal (off by {gap:.2g}), as if computed in float32: compute in float64, NumPy's default; {why.en}",
        f"{c.zh}：精度问题——很接近但不相等（差 {gap:.2g}），像是用 float32 算的：请用 NumPy 默认的 float64 计算；{why.zh}",
    )


def significant_bits(dtype: torch.dtype) -> int:
    """Significant bits of a float type, the implicit leading one included: 8 for bf16, 11 for float16. Every whole
    number up to 2 ** significant_bits(dtype) is exact in it; past that they are rounded (bf16: 257 → 256)."""
    return round(-math.log2(torch.finfo(dtype).eps)) + 1


FLOAT32_ANGLES = Words(
    f"float32 angles mθ_i are off by about m·{F32_EPS / 2:.0e} radians, which shows at large positions",
    f"float32 的角度 mθ_i 大约偏差 m·{F32_EPS / 2:.0e} 弧度，在位置较大时就会显现",
)


def inv_freq_counted_from_one(d: int, base: float) -> np.ndarray:
    """The classic off-by-one: θ_i = base^(−2(i+1)/d) instead of base^(−2i/d)."""
    return inv_freq(d, base) * base ** (-2 / d)


def turn_adjacent_pairs(x: np.ndarray, pair_angles: np.ndarray) -> np.ndarray:
    """Each adjacent pair (x_{2i}, x_{2i+1}) turned by its own angle with R(a): for wrong answers."""
    return np.concatenate([rotation_matrix_2d(a) @ x[2 * i : 2 * i + 2] for i, a in enumerate(pair_angles)])
