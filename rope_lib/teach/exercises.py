"""Auto-checks for the book's coding exercises: pass your function, get a pass or a hint.

Each `check_…` runs the student's function on fixed inputs and on a few fresh ones drawn anew on every call (so that
no table of the tested inputs passes), compares the result with rope_lib's reference and reports the first property
that fails, for which input (a fresh one so that it can be rebuilt), and, when the answer matches a mistake people
often make, which one. It never shows the solution. A wrong answer (one that raises, returns None or returns something
unreadable) is reported, never raised, and so is None in place of the function; only something else that is not
callable raises TypeError. The result prints itself and is truthy when the answer passes, so a solution cell can
`assert check_…(my_function)`.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from .base_bound import b_m_theta
from .complex_plane import exp_partial_sums
from .decay import relative_upper_bound
from ..frequencies import DEFAULT_BASE, angles, inv_freq
from ..rope import apply_rope, rope_cos_sin, rotate_pairs
from ..rotation import rotary_matrix, rotation_matrix_2d
from ..scaling import dynamic_ntk_inv_freq, ntk_inv_freq, position_interpolation_inv_freq
from ..sinusoidal import sinusoidal_encoding, sinusoidal_position
from .tokens import attention_outputs, build_vocab, embed, embedding_table, projection, self_attention, softmax, token_ids, tokenize

_F32_EPS = float(np.finfo(np.float32).eps)


@dataclass(frozen=True)
class CheckResult:
    """What a check found: `passed`, and a message that says why (a hint when it did not pass)."""

    exercise: str
    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return f"{'PASSED' if self.passed else 'NOT YET'} ({self.exercise}): {self.message}"

    __repr__ = __str__


class _Hint(Exception):
    """A failed property, carrying the hint shown to the student."""


def _run(exercise: str, function, body, success: str) -> CheckResult:
    if function is None:
        result = CheckResult(exercise, False, "you passed None: define your function first, then pass it to the check")
    elif not callable(function):
        raise TypeError(f"the check for exercise {exercise} expects your function, got {type(function).__name__} {_shown(function)}")
    else:
        try:
            body(function)
        except _Hint as hint:
            result = CheckResult(exercise, False, str(hint))
        else:
            result = CheckResult(exercise, True, success)
    print(result)
    return result


# ---- the student's answer: called, then read, with every failure turned into a hint ----------------


def _shown(value) -> str:
    """The student's value in a hint: short (a 400-digit int is abbreviated), and a placeholder where repr fails."""
    try:
        return reprlib.repr(value)
    except Exception:  # noqa: BLE001  (the student's object may break repr too)
        return f"<{type(value).__name__}>"


def _said(error: BaseException) -> str:
    """'Type: message' of an exception the student's code caused, kept short, and safe where its str() fails."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001
        text = ""
    text = text if len(text) <= 200 else text[:200] + "…"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _call(function, call: str, *args, **kwargs):
    """The student's function on one input; anything it raises becomes a hint naming that input."""
    try:
        return function(*args, **kwargs)
    except Exception as error:  # the student's code may raise anything: report it, never propagate it
        unwritten = " (is the function written yet?)" if isinstance(error, NotImplementedError) else ""
        raise _Hint(f"{call} raised {_said(error)}{unwritten}") from None


@contextmanager
def _reading(call: str, value, expected: str):
    """Read the student's answer `value` inside this block: None, and anything that raises while it is converted or
    inspected (a number too large for a float, an `__array__` that fails, a tensor without data), is a hint."""
    if value is None:
        raise _Hint(f"{call} returned None: return the result (is a return statement missing?)")
    try:
        yield
    except _Hint:
        raise
    except OverflowError as error:
        raise _Hint(f"{call} returned a number too large for a float ({_said(error)}); expected {expected}") from None
    except Exception as error:  # noqa: BLE001  (an answer of any type may fail in any way)
        raise _Hint(f"{call} returned {type(value).__name__}, which could not be read as {expected} ({_said(error)})") from None


def _numpy(value, call: str, shape: tuple[int, ...], known_shapes=()) -> np.ndarray:
    """The answer as finite float64 numbers of `shape`, whatever array-like it came as; an answer of a shape in
    `known_shapes`, pairs (shape, hint) such as all the terms where their sum is asked for, gets that hint.

    A tensor is detached and moved to the CPU first, so one that requires grad reads as its numbers."""
    expected = "one real number" if shape == () else f"real numbers of shape {shape}"
    with _reading(call, value, expected):
        if isinstance(value, torch.Tensor):
            value = value.detach().cpu()
            value = (value.double() if value.is_floating_point() else value).numpy()
        array = np.asarray(value)
        if array.dtype == np.bool_:
            raise _Hint(f"{call} returned True/False values; expected {expected}")
        if np.iscomplexobj(array):
            if np.any(array.imag != 0):
                raise _Hint(f"{call} returned complex numbers; expected {expected}")
            array = array.real
        array = array.astype(np.float64)  # an object array (a huge int, a list of odd things) may fail here
    for wrong_shape, hint in known_shapes:
        if array.shape == wrong_shape:
            raise _Hint(hint)
    if array.shape != shape:
        raise _Hint(f"{call} returned shape {array.shape}, expected {shape}"
                    + (": one number (a 0-dimensional array or tensor will do)" if shape == () else ""))
    if not np.isfinite(array).all():
        raise _Hint(f"{call} returned nan or inf; expected finite numbers")
    return array


def _number(value, call: str, known_shapes=()) -> float:
    """One real number: a Python or NumPy number, or a 0-dimensional array or tensor (see `_numpy`)."""
    return float(_numpy(value, call, (), known_shapes))


def _integer(value, call: str) -> int:
    """A whole number (a Python or NumPy int): a count or a distance, so a float is refused, not rounded."""
    with _reading(call, value, "a whole number (int)"):
        if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
            raise _Hint(f"{call} returned {_shown(value)} ({type(value).__name__}), expected a whole number (int)")
        return int(value)


def _tensor_like(value, call: str, like: torch.Tensor, each: str, whose: str) -> torch.Tensor:
    """The answer as a plain CPU tensor, if it is a tensor of like's shape ("each": what one entry of it is) and dtype
    ("whose": like's owner)."""
    shape = tuple(like.shape)
    with _reading(call, value, f"a torch.Tensor of shape {shape}"):
        if not isinstance(value, torch.Tensor):
            raise _Hint(f"{call} returned {type(value).__name__}, expected a torch.Tensor of shape {shape}")
        if tuple(value.shape) != shape:
            raise _Hint(f"{call} returned shape {tuple(value.shape)}, expected {shape}: {each}")
        if value.dtype != like.dtype:
            raise _Hint(f"{call} returned dtype {value.dtype}; keep {whose} dtype ({like.dtype})")
    return torch.from_numpy(_numpy(value, call, shape)).to(like.dtype)


def _quietly(convert, function, *args):
    """The student's answer at one more input, for diagnosis only: None where it raises or is not a valid answer."""
    try:
        return convert(function(*args))
    except Exception:  # noqa: BLE001  (any failure just means "no answer here")
        return None


# ---- fresh inputs --------------------------------------------------------------------------------


def _fresh() -> np.random.Generator:
    """A generator seeded from the operating system, so different on every call: the source of the fresh cases that
    each check adds to its fixed ones. A fresh case's hint names its input (arrays by the seed that rebuilds them)."""
    return np.random.default_rng()


def _seed(fresh: np.random.Generator) -> int:
    """A seed for one fresh array: short enough to read off a hint and retype."""
    return int(fresh.integers(10**6))


def _normal(seed: int, shape) -> tuple[np.ndarray, str]:
    """Standard normal numbers from `seed`, and the code that rebuilds them, for the hint of a fresh case."""
    return np.random.default_rng(seed).standard_normal(shape), f"np.random.default_rng({seed}).standard_normal({shape})"


# ---- known mistakes ----------------------------------------------------------------------------


def _diagnose(got, mistakes, close) -> None:
    """Raise the hint of the first known mistake, (wrong answer, hint), whose output `got` matches. A mistake that only
    blurs the answer, such as float32 rounding, brings its own closeness as a third item."""
    for wrong, hint, *own in mistakes:
        if (own[0] if own else close)(got, wrong()):
            raise _Hint(hint)


def _diagnose_across(got, at, inputs, answer, mistakes, close) -> None:
    """Like `_diagnose`, for answers that are single numbers, where two mistakes can give the same number at the
    failing input `at`: a mistake is named only if it also gives the student's answers at the other inputs
    (`answer(x)`; None where the student's function fails there), so that it explains the whole function."""
    here = [(wrong, hint) for wrong, hint in mistakes if close(got, wrong(at))]
    if not here:
        return
    answers = [(x, answer(x)) for x in inputs if x != at]
    for wrong, hint in here:
        if all(a is None or close(a, wrong(x)) for x, a in answers):
            raise _Hint(hint)


def _allclose(atol: float):
    return lambda a, b: np.allclose(np.asarray(a), np.asarray(b), rtol=0, atol=atol)


def _float32_hint(call: str, gap: float, why: str) -> str:
    """The hint for an answer that is right but for float32 rounding (largest gap `gap`); `why`: where float32 shows."""
    return f"{call}: precision — close but not equal (off by {gap:.2g}), as if computed in float32: compute in float64, NumPy's default; {why}"


_FLOAT32_ANGLES = f"float32 angles mθ_i are off by about m·{_F32_EPS / 2:.0e} radians, which shows at large positions"


def _freqs_counted_from_one(d: int, base: float) -> np.ndarray:
    """The classic off-by-one: θ_i = base^(−2(i+1)/d) instead of base^(−2i/d)."""
    return inv_freq(d, base) * base ** (-2 / d)


def _turn_adjacent_pairs(x: np.ndarray, pair_angles: np.ndarray) -> np.ndarray:
    """Each adjacent pair (x_{2i}, x_{2i+1}) turned by its own angle with R(a): for wrong answers."""
    return np.concatenate([rotation_matrix_2d(a) @ x[2 * i : 2 * i + 2] for i, a in enumerate(pair_angles)])


# ---- RoPE at a glance -------------------------------------------------------------------------


def check_rope_pairs(rope_pairs) -> CheckResult:
    """Exercise glance-ex-code: `rope_pairs(x, m, base=10000.0)` turns adjacent pairs of x to position m."""

    def body(fn):
        rng, fresh = np.random.default_rng(0), _fresh()
        cases = [(rng.standard_normal(d), m, None, f"rope_pairs(x, m={m}) for x of length {d}") for d in (8, 32) for m in (0, 1, 257, 10**6)]
        cases.append((rng.standard_normal(16), 100, 500000.0, "rope_pairs(x, m=100, base=500000.0) for x of length 16"))
        for _ in range(3):
            d, m, base = 2 * int(fresh.integers(1, 33)), int(fresh.integers(0, 10**6)), float(fresh.integers(100, 10**6))
            x, rebuild = _normal(_seed(fresh), d)
            cases.append((x, m, base, f"rope_pairs(x, m={m}, base={base!r}) with x = {rebuild}"))
        for x, m, base, call in cases:
            one(fn, x, m, base, call)

    def one(fn, x, m, base, call):
        d, theta = len(x), DEFAULT_BASE if base is None else base
        value = _call(fn, call, x.copy(), m) if base is None else _call(fn, call, x.copy(), m, base=base)
        got = _numpy(value, call, (d,))
        expected = rotary_matrix(m, d, theta) @ x
        close = _allclose(1e-8)
        if close(got, expected):
            return
        _diagnose(got, [
            (lambda: rotary_matrix(m, d, theta, layout="half") @ x,
             f"{call}: pairing — you turned x_i with x_(i+d/2) (the half layout); this exercise pairs neighbours (x_2i, x_2i+1), the interleaved layout"),
            (lambda: rotary_matrix(-m, d, theta) @ x,
             f"{call}: direction — each pair turned clockwise, by −mθ_i; RoPE turns by +mθ_i (counter-clockwise)"),
            (lambda: _turn_adjacent_pairs(x, m * _freqs_counted_from_one(d, theta)),
             f"{call}: frequencies — pair i must use θ_i = base^(−2i/d) with i counted from 0, so pair 0 turns by exactly m radians"),
            (lambda: _turn_adjacent_pairs(x, m * theta ** (-np.arange(d // 2) / d)),
             f"{call}: frequencies — the exponent of θ_i is −2i/d; yours uses −i/d"),
            (lambda: _turn_adjacent_pairs(x, np.degrees(angles(m, d, theta))),
             f"{call}: units — numpy's cos and sin take radians; the angle m·θ_i is already in radians"),
            (lambda: rotary_matrix(m, d, 1000.0) @ x,
             f"{call}: base — your frequencies fit base 1000, but "
             + ("the default base is 10000: is a zero missing?" if base is None else f"the base passed in is {base:g}: θ_i = base^(−2i/d) must use it")),
            (lambda: rotary_matrix(m, d) @ x,
             f"{call}: base — the base argument must set the frequencies θ_i = base^(−2i/d); your result fits base 10000, not {theta:g}"),
            (lambda: expected, _float32_hint(call, np.abs(got - expected).max(), _FLOAT32_ANGLES),
             _allclose(4 * _F32_EPS * (1 + abs(m)) * np.abs(x).max())),
        ], close)
        if m == 0:
            raise _Hint(f"{call}: at position 0 every angle is 0, so x must come back unchanged")
        if not np.isclose(np.linalg.norm(got), np.linalg.norm(x)):
            raise _Hint(f"{call}: a rotation keeps the length of x, but |result| = {np.linalg.norm(got):.4g} and |x| = {np.linalg.norm(x):.4g}")
        raise _Hint(f"{call}: the result is not R^d_(Θ,m)·x (largest gap {np.abs(got - expected).max():.3g}); compare pair 0, which turns by m radians")

    return _run("glance-ex-code", rope_pairs, body,
                "rope_pairs matches R^d_(Θ,m)·x for d = 8, 16 and 32, positions 0 to 10^6, base 500000 and three fresh random cases.")


# ---- Tokens and attention ---------------------------------------------------------------------


def check_attention_by_hand(attention_by_hand) -> CheckResult:
    """Exercise tok-ex-loop: `attention_by_hand(x, w_q, w_k, w_v)` returns the outputs o_m of one head, shape (N, d_v)."""

    def body(fn):
        rose = tokenize("A rose is a rose is a rose.")
        sentence = embed(token_ids(rose, build_vocab(rose)), embedding_table(len(build_vocab(rose)), 8, seed=3))
        cases = [
            ("the sentence 'A rose is a rose is a rose.' (N = 9, d = 8, d_v = 8)", sentence,
             projection(8, 8, seed=1), projection(8, 8, seed=2), projection(8, 8, seed=4)),
            ("random x with N = 4, d = 6, d_k = 4, d_v = 3", np.random.default_rng(1).standard_normal((4, 6)),
             projection(6, 4, seed=5), projection(6, 4, seed=6), projection(6, 3, seed=7)),
        ]
        fresh = _fresh()
        n_tok, d, d_k, d_v = (int(v) for v in fresh.integers(2, 7, size=4))
        seed = _seed(fresh)
        sizes = {"x": (d, n_tok), "w_q": (d, d_k), "w_k": (d, d_k), "w_v": (d, d_v)}
        made = {name: projection(d_in, d_out, seed=seed + j) for j, (name, (d_in, d_out)) in enumerate(sizes.items())}
        cases.append(("x, w_q, w_k, w_v = " + ", ".join(f"teach.projection({a}, {b}, seed={seed + j})" for j, (a, b) in enumerate(sizes.values())),
                      *made.values()))
        close = _allclose(1e-9)
        for name, x, w_q, w_k, w_v in cases:
            call = f"attention_by_hand on {name}"
            expected, weights = self_attention(x, w_q, w_k, w_v)
            got = _numpy(_call(fn, call, x.copy(), w_q.copy(), w_k.copy(), w_v.copy()), call, expected.shape)
            if close(got, expected):
                continue
            q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
            _diagnose(got, [
                (lambda: attention_outputs(softmax(q @ k.T), v),
                 f"{call}: scaling — divide each score q_m·k_n by √d_k (d_k = {w_q.shape[0]}) before the softmax"),
                (lambda: attention_outputs(softmax(q @ k.T / w_q.shape[0]), v),
                 f"{call}: scaling — the scores are divided by √d_k, not by d_k"),
                (lambda: attention_outputs(softmax((q @ k.T / np.sqrt(w_q.shape[0])).T).T, v),
                 f"{call}: normalisation — each query's weights a_(m,n) must sum to 1 over the keys n, not over the queries"),
                (lambda: attention_outputs(weights.T, v),
                 f"{call}: indices — o_m sums a_(m,n)·v_n over n; your sum runs over the wrong index of a"),
            ], close)
            row = int(np.abs(got - expected).max(axis=1).argmax())
            raise _Hint(f"{call}: output o_{row} (token {row}) differs from softmax(q·k/√d_k)-weighted values by {np.abs(got - expected).max():.3g}")

    return _run("tok-ex-loop", attention_by_hand, body,
                "attention_by_hand matches rope_lib.self_attention on the rose sentence, on a rectangular head and on a fresh random head.")


# ---- Sinusoidal encoding ----------------------------------------------------------------------


def check_walk_encoding(walk_encoding) -> CheckResult:
    """Exercise sin-ex-walk: `walk_encoding(seq_len, d)` builds the (seq_len, d) table by repeated rotation from p_0."""

    def body(fn):
        fresh = _fresh()
        sizes = [(200, 16), (50, 8)] + [(int(fresh.integers(2, 301)), 2 * int(fresh.integers(1, 17))) for _ in range(2)]
        close = _allclose(1e-9)
        for seq_len, d in sizes:
            call = f"walk_encoding(seq_len={seq_len}, d={d})"
            expected = sinusoidal_encoding(seq_len, d)
            got = _numpy(_call(fn, call, seq_len, d), call, (seq_len, d))
            if close(got, expected):
                continue
            m = np.arange(seq_len)
            swapped = expected.copy()
            swapped[:, 0::2], swapped[:, 1::2] = expected[:, 1::2], expected[:, 0::2]
            shifted = np.empty_like(expected)
            shifted[:, 0::2] = np.sin(np.outer(m, _freqs_counted_from_one(d, DEFAULT_BASE)))
            shifted[:, 1::2] = np.cos(np.outer(m, _freqs_counted_from_one(d, DEFAULT_BASE)))
            _diagnose(got, [
                (lambda: swapped, f"{call}: sin and cos swapped — p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines, odd columns cosines"),
                (lambda: sinusoidal_position(-m, d), f"{call}: direction — row m holds p_(−m); one position forward is the rotation R^d_(Θ,−1), not R^d_(Θ,1)"),
                (lambda: shifted, f"{call}: frequencies — column pair t uses ω_t = 10000^(−2t/d) with t counted from 0, so columns 0 and 1 turn by one radian per position"),
                (lambda: sinusoidal_position(m + 1, d), f"{call}: off by one — row 0 must be p_0, the position 0; your table starts at p_1"),
                (lambda: expected, _float32_hint(call, np.abs(got - expected).max(), "float32 keeps about 7 digits, and every step of the walk adds its rounding"),
                 _allclose(4 * _F32_EPS * seq_len)),
            ], close)
            if close(got[0], swapped[0]):
                raise _Hint(f"{call}: sin and cos swapped — row 0 is (1, 0, 1, 0, …), but p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines")
            if not close(got[0], expected[0]):
                raise _Hint(f"{call}: row 0 must be p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)")
            row = int(np.argmax(np.abs(got - expected).max(axis=1) > 1e-9))
            raise _Hint(f"{call}: rows 0 to {row - 1} are right but row {row} is not p_{row}; check the step from one row to the next")

    return _run("sin-ex-walk", walk_encoding, body,
                "walk_encoding matches rope_lib.sinusoidal_encoding for 200 positions (d = 16), 50 positions (d = 8) and two fresh random sizes.")


# ---- Complex numbers --------------------------------------------------------------------------

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


def check_terms_needed(terms_needed) -> CheckResult:
    """Exercise cx-ex-terms: `terms_needed(x, tol)` is the smallest N with |S_N(ix) − e^(ix)| < tol."""

    def body(fn):
        fresh = _fresh()
        cases = [(1.0, 1e-8), (5.0, 1e-8), (10.0, 1e-8), (0.5, 1e-4), (3.0, 1e-12)] + [_fresh_terms_case(fresh) for _ in range(3)]
        for x, tol in cases:
            call = f"terms_needed({x!r}, {tol!r})"
            n = _integer(_call(fn, call, x, tol), call)
            sums, errors = _series_errors(x)
            smallest = int(np.argmax(errors < tol))
            if n < 0:
                raise _Hint(f"{call} returned {_shown(n)}: N counts the terms after the first, so it is never negative")
            if n < smallest:
                real_only = abs(sums[n].real - np.cos(x)) < tol
                raise _Hint(f"{call}: S_N(ix) for your N = {n} is not yet within tol of e^(ix) (error {errors[n]:.2g})"
                            + (": compare the whole complex number, the imaginary part too" if real_only else ""))
            if n > smallest:  # decided without using n to size anything: n may be 10**12
                raise _Hint(f"{call}: your N = {_shown(n)} is not the smallest: a smaller N is already within tol"
                            + (" (S_N = Σ_(k=0..N) has N + 1 terms: did you count terms instead of the last index?)" if n == smallest + 1 else ""))

    return _run("cx-ex-terms", terms_needed, body,
                "terms_needed returns the smallest N within tol for x = 0.5, 1, 3, 5 and 10 and for three fresh random x and tol.")


# ---- Rotation matrices ------------------------------------------------------------------------


def _plane_case(rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """A random plane vector and angle, rounded so that the hint prints them exactly."""
    return np.round(rng.standard_normal(2), 3), round(float(rng.uniform(-10, 10)), 4)


def check_rotate(rotate) -> CheckResult:
    """Exercise rot-ex-complex-code: `rotate(vec, angle)` turns a plane vector counter-clockwise by angle radians."""

    def body(fn):
        rng, fresh = np.random.default_rng(3), _fresh()
        close = _allclose(1e-9)
        trials = [(np.array([1.0, 0.0]), np.pi / 2), (np.array([0.0, 2.0]), np.pi / 3)]
        trials += [_plane_case(rng) for _ in range(20)] + [_plane_case(fresh) for _ in range(5)]
        for vec, angle in trials:
            call = f"rotate({vec.tolist()}, {angle!r})"
            value = _call(fn, call, vec.copy(), angle)
            if isinstance(value, complex):
                raise _Hint(f"{call} returned the complex number {_shown(value)}; return the plane vector (x, y), e.g. an array of its real and imaginary parts")
            got = _numpy(value, call, (2,))
            expected = rotation_matrix_2d(angle) @ vec
            if close(got, expected):
                continue
            _diagnose(got, [
                (lambda: rotation_matrix_2d(-angle) @ vec, f"{call}: direction — a positive angle turns counter-clockwise: (1, 0) by π/2 gives (0, 1)"),
                (lambda: rotation_matrix_2d(np.radians(angle)) @ vec, f"{call}: units — angle is in radians, not degrees"),
            ], close)
            if not np.isclose(np.linalg.norm(got), np.linalg.norm(vec)):
                raise _Hint(f"{call}: a rotation keeps lengths, but |result| = {np.linalg.norm(got):.4g} and |vec| = {np.linalg.norm(vec):.4g}")
            raise _Hint(f"{call}: the result is not R(angle)·vec (largest gap {np.abs(got - expected).max():.3g})")

    return _run("rot-ex-complex-code", rotate, body, "rotate matches rope_lib.rotation_matrix_2d on 22 vectors and angles and on 5 fresh random ones.")


# ---- RoPE in two dimensions -------------------------------------------------------------------


def _score_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int, int, float]:
    """Random q, k, m, n and θ for the 2D score, rounded so that the hint prints them exactly."""
    q, k = np.round(rng.standard_normal(2), 3), np.round(rng.standard_normal(2), 3)
    m, n = (int(v) for v in rng.integers(0, 5000, size=2))
    return q, k, m, n, round(float(rng.uniform(-3, 3)), 4)


def check_score_complex(score_complex) -> CheckResult:
    """Exercise rope2d-ex-code: `score_complex(q, k, m, n, theta)` = Re[q k* e^(i(m−n)θ)], the 2D RoPE score."""

    def body(fn):
        rng, fresh = np.random.default_rng(5), _fresh()
        close = lambda a, b: np.isclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for q, k, m, n, theta in [_score_case(rng) for _ in range(200)] + [_score_case(fresh) for _ in range(20)]:
            call = f"score_complex(q={q.tolist()}, k={k.tolist()}, m={m}, n={n}, theta={theta!r})"
            value = _call(fn, call, q.copy(), k.copy(), m, n, theta)
            if isinstance(value, complex) and value.imag != 0:
                raise _Hint(f"{call} returned a complex number; the score is the real part (eq. rope2d-solution)")
            got = _number(value, call)
            expected = (rotation_matrix_2d(m * theta) @ q) @ (rotation_matrix_2d(n * theta) @ k)
            if close(got, expected):
                continue
            zq, zk = complex(*q), complex(*k)
            _diagnose(got, [
                (lambda: (zq * zk.conjugate() * np.exp(1j * (n - m) * theta)).real,
                 f"{call}: sign — your score at (m, n) is the true score at (n, m): the angle is (m − n)θ, not (n − m)θ"),
                (lambda: (zq * zk * np.exp(1j * (m - n) * theta)).real,
                 f"{call}: conjugate — the key enters as its conjugate k*, as in ⟨a, b⟩ = Re[a b*]"),
                (lambda: (zq * zk.conjugate() * np.exp(1j * (m + n) * theta)).real,
                 f"{call}: the score must depend on m − n only; yours depends on m + n"),
                (lambda: abs(zq * zk.conjugate() * np.exp(1j * (m - n) * theta)),
                 f"{call}: take the real part, not the modulus"),
            ], close)
            raise _Hint(f"{call}: expected the dot product of q turned by mθ and k turned by nθ; the result differs by {abs(got - expected):.3g}")

    return _run("rope2d-ex-code", score_complex, body,
                "score_complex matches the rotation-matrix score on 200 random queries, keys and positions and on 20 fresh ones.")


# ---- RoPE in d dimensions ---------------------------------------------------------------------

_FAR = 4096
"""How far the curve of Figure 2 is searched for its first dip below half: every tested d and base dips before 64."""


def _half_curve(d: int, base: float) -> tuple[np.ndarray, float]:
    """The curve of Figure 2 at distances 0 … _FAR, and half its value at 0."""
    curve = relative_upper_bound(np.arange(_FAR + 1), d, base)
    return curve, float(curve[0]) / 2


def _fresh_half_case(fresh: np.random.Generator) -> tuple[int, float]:
    """A fresh (d, base) whose curve stays clear of half its start (beyond rounding) up to its first dip below it."""
    while True:
        d, base = 8 * int(fresh.integers(1, 33)), float(fresh.integers(100, 10**6 + 1))
        curve, half = _half_curve(d, base)
        first = int(np.argmax(curve < half))
        if np.abs(curve[: first + 1] - half).min() > 1e-9 * half:
            return d, base


def check_first_below_half(first_below_half) -> CheckResult:
    """Exercise ropend-ex-half: `first_below_half(d, base)` is the first distance where Figure 2's curve is below half its value at 0."""

    def body(fn):
        fresh = _fresh()
        for d, base in [(128, 10000.0), (64, 10000.0), (128, 500000.0)] + [_fresh_half_case(fresh) for _ in range(2)]:
            call = f"first_below_half({d}, {base:g})"
            r = _integer(_call(fn, call, d, base), call)
            curve, half = _half_curve(d, base)
            first = int(np.argmax(curve < half))
            if r <= 0:
                raise _Hint(f"{call} returned {_shown(r)}: at distance 0 the curve is at its full value, so the answer is a positive distance")
            if r < first:
                uses_base = base == DEFAULT_BASE or not relative_upper_bound(r, d) < float(relative_upper_bound(0, d)) / 2
                raise _Hint(f"{call}: at your distance {r} the curve is {curve[r]:.3f}, not yet below half its value at 0 ({half:.3f})"
                            + ("" if uses_base else "; your answer fits base 10000: pass base on to the curve"))
            if r > first:  # decided without using r to size anything: r may be 10**12
                raise _Hint(f"{call}: {_shown(r)} is not the first such distance: the curve already dips below {half:.3f} at a smaller one")

    return _run("ropend-ex-half", first_below_half, body,
                "first_below_half finds the first distance below half for d = 64 and 128, bases 10000 and 500000 and two fresh random d and bases.")


# ---- RoPE in LLaMA ----------------------------------------------------------------------------


def _fresh_heads(fresh: np.random.Generator, d_max: int) -> tuple[torch.Tensor, int, str]:
    """Fresh float64 head vectors (B, T, H, D), D even from 4 (NTK's least) to d_max, a fresh start position, and the code that rebuilds them."""
    shape = (int(fresh.integers(1, 3)), int(fresh.integers(1, 7)), int(fresh.integers(1, 4)), 2 * int(fresh.integers(2, d_max // 2 + 1)))
    x, rebuild = _normal(_seed(fresh), shape)
    return torch.from_numpy(x), int(fresh.integers(0, 5000)), f"torch.from_numpy({rebuild})"


def check_rope_half(rope_half) -> CheckResult:
    """Exercise llama-ex-rotate-half: `rope_half(x, positions)` applies RoPE in the half layout to x (B, T, H, D)."""

    def body(fn):
        gen, fresh = torch.Generator().manual_seed(0), _fresh()
        cases = []
        for shape, start in (((2, 9, 3, 32), 50), ((1, 4, 2, 8), 0), ((1, 5, 1, 16), 1000)):
            x = torch.randn(*shape, generator=gen, dtype=torch.float64)  # (B, T, H, D)
            cases.append((x, start, f"rope_half(x of shape {shape}, positions {start}…{start + shape[1] - 1})"))
        for _ in range(2):
            x, start, rebuild = _fresh_heads(fresh, 32)
            cases.append((x, start, f"rope_half(x, positions=torch.arange({start}, {start + x.shape[1]})) with x = {rebuild}"))
        close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for x, start, call in cases:
            positions = torch.arange(start, start + x.shape[1])  # (T,)
            value = _tensor_like(_call(fn, call, x.clone(), positions.clone()), call, x, "one rotated vector per head", "x's")
            expected = apply_rope(x, positions, layout="half")
            if close(value, expected):
                continue
            cos, sin = rope_cos_sin(positions, x.shape[-1], dtype=torch.float64)  # (T, D/2)
            in_bf16 = positions.to(torch.bfloat16).long()  # (T,): what bf16 makes of the positions
            moved = int((in_bf16 != positions).long().argmax())
            _diagnose(value, [
                (lambda: apply_rope(x, positions),
                 f"{call}: pairing — you paired neighbours (x_2i, x_2i+1), the interleaved layout; the half layout pairs x_i with x_(i+D/2)"),
                (lambda: apply_rope(x, torch.arange(x.shape[1]), layout="half"),
                 f"{call}: positions — your vectors are turned to positions 0…T−1; use the positions passed in (offset by start_pos = {start})"),
                (lambda: rotate_pairs(x, sin, cos, layout="half"),
                 f"{call}: cos and sin swapped — x⊗cos + rotate_half(x)⊗sin; at position 0 nothing may move"),
                (lambda: apply_rope(x, -positions, layout="half"),
                 f"{call}: direction — rotate_half must map (x1, x2) to (−x2, x1); yours turns the other way"),
                (lambda: apply_rope(x, in_bf16, layout="half"),
                 f"{call}: positions — they were rounded to bf16 before the angles were computed (position {positions[moved].item()} "
                 f"became {in_bf16[moved].item()}); keep the integer positions and compute the angles from them in float64, as rope_cos_sin does"),
            ], close)
            if start == 0 and not close(value[:, :1], x[:, :1]):
                raise _Hint(f"{call}: the token at position 0 must come back unchanged")
            raise _Hint(f"{call}: the result differs from RoPE in the half layout by {(value - expected).abs().max().item():.3g}")

    return _run("llama-ex-rotate-half", rope_half, body,
                "rope_half matches rope_lib.apply_rope(x, positions, layout='half') for three shapes and offsets 0, 50 and 1000 and two fresh random ones.")


# ---- Implementations and speed ----------------------------------------------------------------


def _bf16_offsets(n: int, dtype: torch.dtype = torch.bfloat16, *, nearest: bool = False) -> torch.Tensor:
    """position as built − true position for 0 … n−1 (float64, shape (n,)): built by an arange in `dtype`,
    or, with nearest=True, by rounding each exact integer to the nearest number of `dtype`."""
    exact = torch.arange(n, dtype=torch.float64)  # (n,)
    built = torch.arange(n).to(dtype) if nearest else torch.arange(n, dtype=dtype)  # (n,)
    return built.double() - exact


def _bf16_errors(n: int, dtype: torch.dtype = torch.bfloat16, *, nearest: bool = False) -> torch.Tensor:
    """|position as built − true position| for 0 … n−1: the distances `_bf16_offsets` measures."""
    return _bf16_offsets(n, dtype, nearest=nearest).abs()


def _significant_bits(dtype: torch.dtype) -> int:
    """Significant bits of a float type, the implicit leading one included: 8 for bf16, 11 for float16."""
    return round(-math.log2(torch.finfo(dtype).eps)) + 1


def check_bf16_position_error(bf16_position_error) -> CheckResult:
    """Exercise speed-ex-positions: `bf16_position_error(n)` is the largest |position − m| over m = 0 … n−1
    when the positions come from a bf16 `torch.arange(n, dtype=torch.bfloat16)` (on the CPU, in this torch).

    The answer may be a Python number, a NumPy number or a 0-dimensional tensor: the value counts, not its type.
    """
    fixed = (1, 200, 256, 257, 258, 1000, 2048, 4096, 5000, 8192)
    bits = {dtype: _significant_bits(dtype) for dtype in (torch.bfloat16, torch.float16)}

    def read(value, call: str, n: int) -> float:
        return _number(value, call, [((n,), f"{call} returned shape {(n,)}, one error per position; return only the largest, as one number")])

    def body(fn):
        fresh = _fresh()
        sizes = fixed + tuple(int(n) for n in fresh.integers(1, 20001, size=3))
        for n in sizes:
            call = f"bf16_position_error({n})"
            got = read(_call(fn, call, n), call, n)
            expected = _bf16_errors(n).max().item()
            if abs(got - expected) < 1e-9:
                continue
            differ = torch.nonzero(_bf16_offsets(n) != _bf16_offsets(n, nearest=True)).flatten()
            where = f"they first differ at position {differ[0].item()}" if differ.numel() else "they differ"
            _diagnose_across(got, n, sizes, lambda k: _quietly(lambda v: read(v, "", k), fn, k), [
                (lambda k: _bf16_errors(k, nearest=True).max().item(),
                 f"{call}: rounding — you rounded each exact position to the nearest bf16 number, which is not how a bf16 "
                 f"torch.arange builds them: {where}; look at the positions torch.arange({n}, dtype=torch.bfloat16) itself holds"),
                (lambda k: _bf16_errors(k)[-1].item(),
                 f"{call}: you returned the error of the last position, {n - 1}; the answer is the largest error over all positions 0 … {n - 1}"),
                (lambda k: _bf16_errors(k + 1).max().item(),
                 f"{call}: range — the positions are 0 … n−1, n of them; yours include position n = {n} too"),
                (lambda k: _bf16_offsets(k).max().item(),
                 f"{call}: distance — take the absolute value |built − true|; positions rounded down count as much as those rounded up"),
                (lambda k: (-_bf16_offsets(k)).max().item(),
                 f"{call}: distance — take the absolute value |built − true|; positions rounded up count as much as those rounded down"),
                (lambda k: _bf16_errors(k, torch.float16).max().item(),
                 f"{call}: dtype — that is the error of float16 positions ({bits[torch.float16]} significant bits); "
                 f"bf16 keeps only {bits[torch.bfloat16]}"),
            ], lambda a, b: abs(a - b) < 1e-9)
            if got == 0:
                raise _Hint(f"{call}: your positions look exact; build them in bf16, which holds every integer only up to "
                            f"{2 ** bits[torch.bfloat16]}")
            raise _Hint(f"{call}: the largest distance from the true positions is not {got:g}; compare the positions a bf16 "
                        f"torch.arange gives with 0 … {n - 1}")

    return _run("speed-ex-positions", bf16_position_error, body,
                f"bf16_position_error matches a bf16 torch.arange for n from {fixed[0]} to {fixed[-1]} and for three fresh random n up to 20000.")


# ---- Longer contexts --------------------------------------------------------------------------


def _fresh_rule(fresh: np.random.Generator, d: int, length: int) -> tuple[np.ndarray, str]:
    """Fresh frequencies of a random context-extension rule for head size d and sequence length `length`, and their code."""
    s = float(fresh.choice([2.0, 4.0, 8.0, 16.0]))
    rule = int(fresh.integers(3))
    if rule == 0:
        return ntk_inv_freq(d, DEFAULT_BASE, s), f"rope_lib.ntk_inv_freq({d}, {DEFAULT_BASE}, {s})"
    if rule == 1:
        return position_interpolation_inv_freq(d, DEFAULT_BASE, s), f"rope_lib.position_interpolation_inv_freq({d}, {DEFAULT_BASE}, {s})"
    return (dynamic_ntk_inv_freq(d, DEFAULT_BASE, s, seq_len=length, original_max_len=16),
            f"rope_lib.dynamic_ntk_inv_freq({d}, {DEFAULT_BASE}, {s}, seq_len={length}, original_max_len=16)")


def check_rotate_cache(rotate_cache) -> CheckResult:
    """Exercise lc-ex-fix-cache: `rotate_cache(keys, start, freqs)` rotates unrotated keys (B, T, H, D), which sit at
    positions start … start+T−1, with the frequencies freqs (d/2 of them) in the interleaved layout."""

    def body(fn):
        gen, fresh = torch.Generator().manual_seed(6), _fresh()
        cases = []
        for shape, start, rule, freqs in [
            ((2, 6, 3, 16), 37, "NTK-aware s = 4", ntk_inv_freq(16, DEFAULT_BASE, 4.0)),
            ((1, 4, 2, 8), 0, "position interpolation s = 8", position_interpolation_inv_freq(8, DEFAULT_BASE, 8.0)),
            ((1, 5, 1, 32), 1000, "dynamic NTK s = 4 at length 1005", dynamic_ntk_inv_freq(32, DEFAULT_BASE, 4.0, seq_len=1005, original_max_len=16)),
        ]:
            keys = torch.randn(*shape, generator=gen, dtype=torch.float64)  # (B, T, H, D)
            cases.append((keys, start, freqs, f"rotate_cache(keys of shape {shape}, start={start}, freqs of {rule})"))
        for _ in range(2):
            keys, start, rebuild = _fresh_heads(fresh, 32)
            freqs, rule = _fresh_rule(fresh, keys.shape[-1], start + keys.shape[1])
            cases.append((keys, start, freqs, f"rotate_cache(keys, start={start}, freqs) with keys = {rebuild} and freqs = {rule}"))
        close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
        for keys, start, freqs, call in cases:
            positions = torch.arange(start, start + keys.shape[1])  # (T,)
            value = _tensor_like(_call(fn, call, keys.clone(), start, freqs.copy()), call, keys, "one rotated key per token and head", "the keys'")
            expected = apply_rope(keys, positions, inv_freq=freqs)
            if close(value, expected):
                continue
            _diagnose(value, [
                (lambda: apply_rope(keys, torch.arange(keys.shape[1]), inv_freq=freqs),
                 f"{call}: positions — your keys are turned to positions 0 … T−1; they sit at start, start+1, … (here from {start})"),
                (lambda: apply_rope(keys, positions),
                 f"{call}: frequencies — you rotated with the default θ_i = 10000^(−2i/d); use the frequencies freqs you are given, the rule's θ'_i"),
                (lambda: apply_rope(keys, positions, inv_freq=freqs, layout="half"),
                 f"{call}: pairing — you paired x_i with x_(i+d/2), the half layout; the cache here uses the interleaved layout (x_2i, x_2i+1), apply_rope's default"),
                (lambda: apply_rope(keys, -positions, inv_freq=freqs),
                 f"{call}: direction — each pair turned by −mθ'_i; RoPE turns by +mθ'_i"),
                (lambda: apply_rope(keys, positions + 1, inv_freq=freqs),
                 f"{call}: off by one — the first key sits at position start = {start}, not start + 1"),
                (lambda: apply_rope(keys, positions - 1, inv_freq=freqs),
                 f"{call}: off by one — the first key sits at position start = {start}, not start − 1"),
            ], close)
            if start == 0 and not close(value[:, :1], keys[:, :1]):
                raise _Hint(f"{call}: the key at position 0 must come back unchanged")
            raise _Hint(f"{call}: the result differs from the keys turned to positions {start} … {start + keys.shape[1] - 1} with freqs by "
                        f"{(value - expected).abs().max().item():.3g}")

    return _run("lc-ex-fix-cache", rotate_cache, body,
                "rotate_cache turns the keys to positions start, start+1, … with the given frequencies, for three rules and starts 0, 37 and 1000 "
                "and two fresh random cases.")


# ---- Why does RoPE work? ----------------------------------------------------------------------


def check_b_m(b_m) -> CheckResult:
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
        return _number(value, call, [((d // 2,), f"{call} returned the d/2 = {d // 2} terms cos(mθ_i); B_(m,θ) is their sum, one number")] if d > 2 else [])

    def body(fn):
        fresh = _fresh()
        cases = fixed + [(int(fresh.integers(0, 5001)), 2 * int(fresh.integers(1, 129)), float(fresh.integers(100, 10**6 + 1))) for _ in range(3)]
        close = _allclose(1e-8)
        for case in cases:
            m, d, base = case
            call = f"b_m({m}, {d}, {base:g})"
            got = read(_call(fn, call, m, d, base), call, d)
            expected = b(case)
            if close(got, expected):
                continue
            _diagnose_across(got, case, cases, lambda c: _quietly(lambda v: read(v, "", c[1]), fn, *c), [
                (lambda c: terms(c, f=np.sin),
                 f"{call}: cos, not sin — B_(m,θ) sums cos(mθ_i); at m = 0 every term is cos 0 = 1"),
                (lambda c: terms(c, first=1),
                 f"{call}: frequencies — θ_i = base^(−2i/d) with i counted from 0 to d/2 − 1, so θ_0 = 1"),
                (lambda c: terms(c, step=1),
                 f"{call}: frequencies — the exponent of θ_i is −2i/d; yours uses −i/d"),
                (lambda c: b(c) / (c[1] // 2),
                 f"{call}: normalisation — B_(m,θ) is the plain sum of the d/2 cosines, B_(0,θ) = d/2; yours is scaled to 1 at m = 0"),
                (lambda c: b(c) / c[1],
                 f"{call}: normalisation — B_(m,θ) is the plain sum of the d/2 cosines, B_(0,θ) = d/2; yours is divided by d"),
                (lambda c: 2 * b(c),
                 f"{call}: normalisation — twice B_(m,θ): B is the sum of the cosines alone, without the factor 2σ² of the expected score"),
                (lambda c: terms(c, count=c[1]),
                 f"{call}: the sum runs over the d/2 pairs, i = 0 … d/2 − 1, not over all d coordinates"),
                (lambda c: b((c[0], c[1], DEFAULT_BASE)),
                 f"{call}: base — θ_i = base^(−2i/d) with the base passed in; your answer fits base {DEFAULT_BASE:g}"),
            ], close)
            if m == 0:
                raise _Hint(f"{call}: at m = 0 every cosine is 1, so B_(0,θ) = d/2 = {d // 2}; yours is {got:.6g}")
            if abs(got - expected) < 1e-3 * d:
                raise _Hint(_float32_hint(call, abs(got - expected), _FLOAT32_ANGLES))
            raise _Hint(f"{call}: the result is not Σ_i cos(mθ_i) (off by {abs(got - expected):.3g}); compare the term of pair 0, cos(m)")

    return _run("wr-ex-bound-by-hand", b_m, body,
                "b_m matches rope_lib.b_m_theta for d = 2 to 128, m up to 3000, bases 100, 10000 and 500000 and three fresh random cases.")
