"""The machinery every exercise check shares: the result, the hint, reading the student's answer, fresh inputs, and
naming the known mistakes."""

from __future__ import annotations

import numbers
import reprlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from ...frequencies import inv_freq
from ...rotation import rotation_matrix_2d
from ..language import Words, require_language, text

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
        return f"{verdict} ({self.exercise}): {self.message}"

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


# ---- the student's answer: called, then read, with every failure turned into a hint ----------------


class Described(NamedTuple):
    """The call a hint names, in each language."""

    en: str
    zh: str


def described(call: str | Words) -> Described:
    """The call a hint names, in both languages: Words where it has words ("x of shape (2, 9)" / "形状为 (2, 9) 的 x"),
    or a str of code (possibly empty), which reads the same in both."""
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


def call_student(function, call: str | Words, *args, **kwargs):
    """The student's function on one input; anything it raises becomes a hint naming that input."""
    c = described(call)
    try:
        return function(*args, **kwargs)
    except Exception as error:  # the student's code may raise anything: report it, never propagate it
        written = not isinstance(error, NotImplementedError)
        raise Hint(f"{c.en} raised {said(error)}" + ("" if written else " (is the function written yet?)"),
                   f"{c.zh} 抛出了 {said(error)}" + ("" if written else "（函数写好了吗？）")) from None


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
    """The student's answer at one more input, for diagnosis only: None where it raises or is not a valid answer."""
    try:
        return convert(function(*args))
    except Exception:  # noqa: BLE001  (any failure just means "no answer here")
        return None


# ---- fresh inputs --------------------------------------------------------------------------------


def fresh_rng() -> np.random.Generator:
    """A generator seeded from the operating system, so different on every call: the source of the fresh cases that
    each check adds to its fixed ones. A fresh case's hint names its input (arrays by the seed that rebuilds them)."""
    return np.random.default_rng()


def fresh_seed(fresh: np.random.Generator) -> int:
    """A seed for one fresh array: short enough to read off a hint and retype."""
    return int(fresh.integers(10**6))


def normal_case(seed: int, shape) -> tuple[np.ndarray, str]:
    """Standard normal numbers from `seed`, and the code that rebuilds them, for the hint of a fresh case."""
    return np.random.default_rng(seed).standard_normal(shape), f"np.random.default_rng({seed}).standard_normal({shape})"


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


def float32_hint(call: str | Words, gap: float, why: Words) -> Words:
    """The hint for an answer that is right but for float32 rounding (largest gap `gap`); `why`: where float32 shows."""
    c = described(call)
    return Words(
        f"{c.en}: precision — close but not equal (off by {gap:.2g}), as if computed in float32: compute in float64, NumPy's default; {why.en}",
        f"{c.zh}：精度问题——很接近但不相等（差 {gap:.2g}），像是用 float32 算的：请用 NumPy 默认的 float64 计算；{why.zh}",
    )


FLOAT32_ANGLES = Words(
    f"float32 angles mθ_i are off by about m·{F32_EPS / 2:.0e} radians, which shows at large positions",
    f"float32 的角度 mθ_i 大约偏差 m·{F32_EPS / 2:.0e} 弧度，在位置较大时就会显现",
)


def freqs_counted_from_one(d: int, base: float) -> np.ndarray:
    """The classic off-by-one: θ_i = base^(−2(i+1)/d) instead of base^(−2i/d)."""
    return inv_freq(d, base) * base ** (-2 / d)


def turn_adjacent_pairs(x: np.ndarray, pair_angles: np.ndarray) -> np.ndarray:
    """Each adjacent pair (x_{2i}, x_{2i+1}) turned by its own angle with R(a): for wrong answers."""
    return np.concatenate([rotation_matrix_2d(a) @ x[2 * i : 2 * i + 2] for i, a in enumerate(pair_angles)])

def fresh_heads(fresh: np.random.Generator, d_max: int) -> tuple[torch.Tensor, int, str]:
    """Fresh float64 head vectors (B, T, H, D), D even from 4 (NTK's least) to d_max, a fresh start position, and the code that rebuilds them."""
    shape = (int(fresh.integers(1, 3)), int(fresh.integers(1, 7)), int(fresh.integers(1, 4)), 2 * int(fresh.integers(2, d_max // 2 + 1)))
    x, rebuild = normal_case(fresh_seed(fresh), shape)
    return torch.from_numpy(x), int(fresh.integers(0, 5000)), f"torch.from_numpy({rebuild})"
