"""Auto-checks for the book's coding exercises: pass your function, get a pass or a hint.

Each `check_…` runs the student's function on inputs it chooses, compares the
result with rope_lib's reference and reports the first property that fails,
for which input, and, when the answer matches a mistake people often make,
which one. It never shows the solution. A wrong answer (or one that raises) is
reported, never raised; only something that is not callable raises TypeError.
The result prints itself and is truthy when the answer passes, so a solution
cell can `assert check_…(my_function)`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import torch

from .complex_plane import exp_partial_sums
from .decay import relative_upper_bound
from .frequencies import DEFAULT_BASE, angles, inv_freq
from .rope import apply_rope, rope_cos_sin, rotate_pairs
from .rotation import rotary_matrix, rotation_matrix_2d
from .sinusoidal import sinusoidal_encoding, sinusoidal_position
from .tokens import attention_outputs, build_vocab, embed, embedding_table, projection, self_attention, softmax, token_ids, tokenize


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
    if not callable(function):
        raise TypeError(f"the check for exercise {exercise} expects your function, got {type(function).__name__} {function!r}")
    try:
        body(function)
    except _Hint as hint:
        result = CheckResult(exercise, False, str(hint))
    else:
        result = CheckResult(exercise, True, success)
    print(result)
    return result


def _call(function, call: str, *args, **kwargs):
    """The student's function on one input; anything it raises becomes a hint naming that input."""
    try:
        return function(*args, **kwargs)
    except Exception as error:  # the student's code may raise anything: report it, never propagate it
        raise _Hint(f"{call} raised {type(error).__name__}: {error}") from None


def _numpy(value, call: str, shape: tuple[int, ...]) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise _Hint(f"{call} returned {type(value).__name__}, expected real numbers of shape {shape}") from None
    if array.shape != shape:
        raise _Hint(f"{call} returned shape {array.shape}, expected {shape}")
    return array


def _integer(value, call: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise _Hint(f"{call} returned {value!r} ({type(value).__name__}), expected a whole number (int)")
    return int(value)


def _diagnose(got, mistakes, close) -> None:
    """Raise the hint of the first known mistake whose output `got` matches."""
    for wrong, hint in mistakes:
        if close(got, wrong()):
            raise _Hint(hint)


def _allclose(atol: float):
    return lambda a, b: np.allclose(np.asarray(a), np.asarray(b), rtol=0, atol=atol)


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
        rng = np.random.default_rng(0)
        close = _allclose(1e-8)
        for d in (8, 32):
            x = rng.standard_normal(d)
            for m in (0, 1, 257, 10**6):
                call = f"rope_pairs(x, m={m}) for x of length {d}"
                got = _numpy(_call(fn, call, x.copy(), m), call, (d,))
                if close(got, rotary_matrix(m, d) @ x):
                    continue
                if m == 0:
                    raise _Hint(f"{call}: at position 0 every angle is 0, so x must come back unchanged")
                if not np.isclose(np.linalg.norm(got), np.linalg.norm(x)):
                    raise _Hint(f"{call}: a rotation keeps the length of x, but |result| = {np.linalg.norm(got):.4g} and |x| = {np.linalg.norm(x):.4g}")
                _diagnose(got, [
                    (lambda: rotary_matrix(m, d, layout="half") @ x,
                     f"{call}: pairing — you turned x_i with x_(i+d/2) (the half layout); this exercise pairs neighbours (x_2i, x_2i+1), the interleaved layout"),
                    (lambda: rotary_matrix(-m, d) @ x,
                     f"{call}: direction — each pair turned clockwise, by −mθ_i; RoPE turns by +mθ_i (counter-clockwise)"),
                    (lambda: _turn_adjacent_pairs(x, m * _freqs_counted_from_one(d, DEFAULT_BASE)),
                     f"{call}: frequencies — pair i must use θ_i = base^(−2i/d) with i counted from 0, so pair 0 turns by exactly m radians"),
                    (lambda: _turn_adjacent_pairs(x, m * DEFAULT_BASE ** (-np.arange(d // 2) / d)),
                     f"{call}: frequencies — the exponent of θ_i is −2i/d; yours uses −i/d"),
                    (lambda: _turn_adjacent_pairs(x, np.degrees(angles(m, d))),
                     f"{call}: units — numpy's cos and sin take radians; the angle m·θ_i is already in radians"),
                ], close)
                raise _Hint(f"{call}: the result is not R^d_(Θ,m)·x (largest gap {np.abs(got - rotary_matrix(m, d) @ x).max():.3g}); compare pair 0, which turns by m radians")
        x = rng.standard_normal(16)
        call = "rope_pairs(x, m=100, base=500000.0) for x of length 16"
        got = _numpy(_call(fn, call, x.copy(), 100, base=500000.0), call, (16,))
        if not close(got, rotary_matrix(100, 16, 500000.0) @ x):
            raise _Hint(f"{call}: the base argument must set the frequencies θ_i = base^(−2i/d); the result ignores or misuses it")

    return _run("glance-ex-code", rope_pairs, body,
                "rope_pairs matches R^d_(Θ,m)·x for d = 8, 16 and 32, positions 0 to 10^6, and honours base.")


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
                "attention_by_hand matches rope_lib.self_attention on the rose sentence and on a rectangular head.")


# ---- Sinusoidal encoding ----------------------------------------------------------------------


def check_walk_encoding(walk_encoding) -> CheckResult:
    """Exercise sin-ex-walk: `walk_encoding(seq_len, d)` builds the (seq_len, d) table by repeated rotation from p_0."""

    def body(fn):
        close = _allclose(1e-9)
        for seq_len, d in ((200, 16), (50, 8)):
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
            ], close)
            if close(got[0], swapped[0]):
                raise _Hint(f"{call}: sin and cos swapped — row 0 is (1, 0, 1, 0, …), but p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines")
            if not close(got[0], expected[0]):
                raise _Hint(f"{call}: row 0 must be p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)")
            row = int(np.argmax(np.abs(got - expected).max(axis=1) > 1e-9))
            raise _Hint(f"{call}: rows 0 to {row - 1} are right but row {row} is not p_{row}; check the step from one row to the next")

    return _run("sin-ex-walk", walk_encoding, body,
                "walk_encoding matches rope_lib.sinusoidal_encoding for 200 positions (d = 16) and 50 positions (d = 8).")


# ---- Complex numbers --------------------------------------------------------------------------


def check_terms_needed(terms_needed) -> CheckResult:
    """Exercise cx-ex-terms: `terms_needed(x, tol)` is the smallest N with |S_N(ix) − e^(ix)| < tol."""

    def body(fn):
        for x, tol in ((1.0, 1e-8), (5.0, 1e-8), (10.0, 1e-8), (0.5, 1e-4), (3.0, 1e-12)):
            call = f"terms_needed({x}, {tol})"
            n = _integer(_call(fn, call, x, tol), call)
            sums = exp_partial_sums(1j * x, max(n, 0) + 2)
            errors = np.abs(sums - np.exp(1j * x))
            if n < 0:
                raise _Hint(f"{call} returned {n}: N counts the terms after the first, so it is never negative")
            if not errors[n] < tol:
                real_only = abs(sums[n].real - np.cos(x)) < tol
                raise _Hint(f"{call}: S_N(ix) for your N = {n} is not yet within tol of e^(ix) (error {errors[n]:.2g})"
                            + (": compare the whole complex number, the imaginary part too" if real_only else ""))
            if n > 0 and errors[n - 1] < tol:
                raise _Hint(f"{call}: your N = {n} is not the smallest: S_(N−1)(ix) is already within tol"
                            + (" (S_N = Σ_(k=0..N) has N + 1 terms: did you count terms instead of the last index?)" if n < 2 or errors[n - 2] >= tol else ""))

    return _run("cx-ex-terms", terms_needed, body,
                "terms_needed returns the smallest N within tol for x = 0.5, 1, 3, 5 and 10.")


# ---- Rotation matrices ------------------------------------------------------------------------


def check_rotate(rotate) -> CheckResult:
    """Exercise rot-ex-complex-code: `rotate(vec, angle)` turns a plane vector counter-clockwise by angle radians."""

    def body(fn):
        rng = np.random.default_rng(3)
        close = _allclose(1e-9)
        trials = [(np.array([1.0, 0.0]), np.pi / 2), (np.array([0.0, 2.0]), np.pi / 3)]
        trials += [(rng.standard_normal(2), rng.uniform(-10, 10)) for _ in range(20)]
        for vec, angle in trials:
            call = f"rotate({np.round(vec, 3).tolist()}, {angle:.4g})"
            value = _call(fn, call, vec.copy(), angle)
            if isinstance(value, complex):
                raise _Hint(f"{call} returned the complex number {value:.3g}; return the plane vector (x, y), e.g. an array of its real and imaginary parts")
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

    return _run("rot-ex-complex-code", rotate, body, "rotate matches rope_lib.rotation_matrix_2d on 22 vectors and angles.")


# ---- RoPE in two dimensions -------------------------------------------------------------------


def check_score_complex(score_complex) -> CheckResult:
    """Exercise rope2d-ex-code: `score_complex(q, k, m, n, theta)` = Re[q k* e^(i(m−n)θ)], the 2D RoPE score."""

    def body(fn):
        rng = np.random.default_rng(5)
        for _ in range(200):
            q, k = rng.standard_normal(2), rng.standard_normal(2)
            m, n = (int(v) for v in rng.integers(0, 5000, size=2))
            theta = float(rng.uniform(-3, 3))
            call = f"score_complex(q={np.round(q, 3).tolist()}, k={np.round(k, 3).tolist()}, m={m}, n={n}, theta={theta:.4g})"
            value = _call(fn, call, q.copy(), k.copy(), m, n, theta)
            if isinstance(value, complex) and value.imag != 0:
                raise _Hint(f"{call} returned a complex number; the score is the real part (eq. rope2d-solution)")
            got = float(_numpy(value, call, ()))
            expected = (rotation_matrix_2d(m * theta) @ q) @ (rotation_matrix_2d(n * theta) @ k)
            if np.isclose(got, expected, rtol=0, atol=1e-9):
                continue
            zq, zk = complex(*q), complex(*k)
            mistakes = [
                ((zq * zk.conjugate() * np.exp(1j * (n - m) * theta)).real,
                 f"{call}: sign — your score at (m, n) is the true score at (n, m): the angle is (m − n)θ, not (n − m)θ"),
                ((zq * zk * np.exp(1j * (m - n) * theta)).real,
                 f"{call}: conjugate — the key enters as its conjugate k*, as in ⟨a, b⟩ = Re[a b*]"),
                ((zq * zk.conjugate() * np.exp(1j * (m + n) * theta)).real,
                 f"{call}: the score must depend on m − n only; yours depends on m + n"),
                (abs(zq * zk.conjugate() * np.exp(1j * (m - n) * theta)),
                 f"{call}: take the real part, not the modulus"),
            ]
            for wrong, hint in mistakes:
                if np.isclose(got, wrong, rtol=0, atol=1e-9):
                    raise _Hint(hint)
            raise _Hint(f"{call}: expected the dot product of q turned by mθ and k turned by nθ; the result differs by {abs(got - expected):.3g}")

    return _run("rope2d-ex-code", score_complex, body, "score_complex matches the rotation-matrix score on 200 random queries, keys and positions.")


# ---- RoPE in d dimensions ---------------------------------------------------------------------


def check_first_below_half(first_below_half) -> CheckResult:
    """Exercise ropend-ex-half: `first_below_half(d, base)` is the first distance where Figure 2's curve is below half its value at 0."""

    def body(fn):
        for d, base in ((128, 10000.0), (64, 10000.0), (128, 500000.0)):
            call = f"first_below_half({d}, {base:g})"
            r = _integer(_call(fn, call, d, base), call)
            half = float(relative_upper_bound(0, d, base)) / 2
            if r <= 0:
                raise _Hint(f"{call} returned {r}: at distance 0 the curve is at its full value, so the answer is a positive distance")
            value = float(relative_upper_bound(r, d, base))
            if not value < half:
                uses_base = base == DEFAULT_BASE or not relative_upper_bound(r, d) < float(relative_upper_bound(0, d)) / 2
                raise _Hint(f"{call}: at your distance {r} the curve is {value:.3f}, not yet below half its value at 0 ({half:.3f})"
                            + ("" if uses_base else "; your answer fits base 10000: pass base on to the curve"))
            if (relative_upper_bound(np.arange(r), d, base) < half).any():
                raise _Hint(f"{call}: {r} is below half, but not the first such distance: the curve already dips below {half:.3f} earlier")

    return _run("ropend-ex-half", first_below_half, body, "first_below_half finds the first distance below half for d = 64 and 128 and bases 10000 and 500000.")


# ---- RoPE in LLaMA ----------------------------------------------------------------------------


def check_rope_half(rope_half) -> CheckResult:
    """Exercise llama-ex-rotate-half: `rope_half(x, positions)` applies RoPE in the half layout to x (B, T, H, D)."""

    def body(fn):
        gen = torch.Generator().manual_seed(0)
        for shape, start in (((2, 9, 3, 32), 50), ((1, 4, 2, 8), 0), ((1, 5, 1, 16), 1000)):
            x = torch.randn(*shape, generator=gen, dtype=torch.float64)  # (B, T, H, D)
            positions = torch.arange(start, start + shape[1])  # (T,)
            call = f"rope_half(x of shape {shape}, positions {start}…{start + shape[1] - 1})"
            value = _call(fn, call, x.clone(), positions.clone())
            if not isinstance(value, torch.Tensor):
                raise _Hint(f"{call} returned {type(value).__name__}, expected a torch.Tensor of shape {shape}")
            if tuple(value.shape) != shape:
                raise _Hint(f"{call} returned shape {tuple(value.shape)}, expected {shape}: one rotated vector per head")
            if value.dtype != x.dtype:
                raise _Hint(f"{call} returned dtype {value.dtype}; keep x's dtype ({x.dtype})")
            expected = apply_rope(x, positions, layout="half")
            close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-9)  # noqa: E731
            if close(value, expected):
                continue
            cos, sin = rope_cos_sin(positions, shape[-1], dtype=torch.float64)  # (T, D/2)
            _diagnose(value, [
                (lambda: apply_rope(x, positions),
                 f"{call}: pairing — you paired neighbours (x_2i, x_2i+1), the interleaved layout; the half layout pairs x_i with x_(i+D/2)"),
                (lambda: apply_rope(x, torch.arange(shape[1]), layout="half"),
                 f"{call}: positions — your vectors are turned to positions 0…T−1; use the positions passed in (offset by start_pos = {start})"),
                (lambda: rotate_pairs(x, sin, cos, layout="half"),
                 f"{call}: cos and sin swapped — x⊗cos + rotate_half(x)⊗sin; at position 0 nothing may move"),
                (lambda: apply_rope(x, -positions, layout="half"),
                 f"{call}: direction — rotate_half must map (x1, x2) to (−x2, x1); yours turns the other way"),
            ], close)
            if start == 0 and not close(value[:, :1], x[:, :1]):
                raise _Hint(f"{call}: the token at position 0 must come back unchanged")
            raise _Hint(f"{call}: the result differs from RoPE in the half layout by {(value - expected).abs().max().item():.3g}")

    return _run("llama-ex-rotate-half", rope_half, body,
                "rope_half matches rope_lib.apply_rope(x, positions, layout='half') for three shapes and offsets 0, 50 and 1000.")
