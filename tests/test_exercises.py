"""rope_lib.teach.exercises: each check passes the chapter's reference solution, and fails typical wrong
answers with a hint that names the property that failed, never raising for a wrong answer."""

import cmath
import math
import re
import sys

import numpy as np
import pytest
import torch

import rope_lib
from rope_lib.teach import tokens_and_attention
from paths import ROOT, chapters
from rope_lib.teach import exercises
from rope_lib.teach.rope_nd import decay
from rope_lib.teach.exercises import (
    CheckResult,
    check_attention_by_hand,
    check_axial_rotate,
    check_b_m,
    check_bf16_position_error,
    check_first_below_half,
    check_longrope_frequencies,
    check_offset_weight,
    check_permute_rows,
    check_real_goal_rule,
    check_rope_half,
    check_rope_pairs,
    check_rotate,
    check_rotate_cache,
    check_rotate_qk,
    check_score_complex,
    check_terms_needed,
    check_walk_encoding,
)

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import student_notebooks  # noqa: E402  (the chapters' exercises, as the student edition reads them)


def failed(result: CheckResult, *words: str) -> bool:
    """The check did not pass and its hint names every one of `words`."""
    return isinstance(result, CheckResult) and not result and all(w in result.message for w in words)


# ---- reference solutions, as the chapters' hidden solution cells write them ----


def rope_pairs(x, m, base=10000.0):
    d = len(x)
    a = m * base ** (-np.arange(0, d, 2) / d)
    even, odd = x[0::2], x[1::2]
    out = np.empty_like(x)
    out[0::2] = even * np.cos(a) - odd * np.sin(a)
    out[1::2] = odd * np.cos(a) + even * np.sin(a)
    return out


def attention_by_hand(x, w_q, w_k, w_v, scale=True, over_queries=False):
    n_tok, dim = len(x), len(w_q)
    mat_vec = lambda w, v: [sum(w[r][c] * v[c] for c in range(len(v))) for r in range(len(w))]  # noqa: E731
    q, k, v = ([mat_vec(w, xi) for xi in x] for w in (w_q, w_k, w_v))
    s = [[sum(q[m][j] * k[n][j] for j in range(dim)) / (math.sqrt(dim) if scale else 1) for n in range(n_tok)] for m in range(n_tok)]
    if over_queries:
        a = [[math.exp(s[m][n]) / sum(math.exp(s[i][n]) for i in range(n_tok)) for n in range(n_tok)] for m in range(n_tok)]
    else:
        a = [[math.exp(s[m][n]) / sum(math.exp(s[m][j]) for j in range(n_tok)) for n in range(n_tok)] for m in range(n_tok)]
    return np.array([[sum(a[m][n] * v[n][j] for n in range(n_tok)) for j in range(len(v[0]))] for m in range(n_tok)])


def walk_encoding(seq_len, d, step_position=-1, first=None):
    step = rope_lib.rotation.rotary_matrix(step_position, d)
    rows = [rope_lib.sinusoidal.sinusoidal_position(0, d) if first is None else first]
    for _ in range(seq_len - 1):
        rows.append(step @ rows[-1])
    return np.array(rows)


def terms_needed(x, tol, count_terms=False, real_only=False):
    target, total, k = complex(math.cos(x), math.sin(x)), 0j, 0
    while True:
        total += (1j * x) ** k / math.factorial(k)
        gap = abs(total.real - target.real) if real_only else abs(total - target)
        if gap < tol:
            return k + 1 if count_terms else k
        k += 1


def rotate(vec, angle):
    z = complex(vec[0], vec[1]) * cmath.exp(1j * angle)
    return np.array([z.real, z.imag])


def score_complex(q, k, m, n, theta):
    zq, zk = complex(*q), complex(*k)
    return (zq * zk.conjugate() * cmath.exp(1j * (m - n) * theta)).real


def real_goal_rule(q, k, m, n, a=1.1):
    """rope2d-ex-real-goal: one coordinate stretched, the other shrunk (as tensors, which the check reads too)."""
    return torch.tensor([a**m * q[0], a**-m * q[1]]), torch.tensor([a**-n * k[0], a**n * k[1]])


def first_below_half(d, base, far=4096):
    curve = decay.relative_upper_bound(np.arange(far + 1), d, base)
    return int(np.argmax(curve < curve[0] / 2))


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def rope_half(x, positions):
    cos, sin = rope_lib.rope_cos_sin(positions, x.shape[-1], dtype=x.dtype)  # (T, D/2)
    cos, sin = torch.cat([cos, cos], -1)[:, None, :], torch.cat([sin, sin], -1)[:, None, :]  # (T, 1, D)
    return x * cos + rotate_half(x) * sin


def bf16_position_error(n):
    exact = torch.arange(n)
    built = torch.arange(n, dtype=torch.bfloat16).double()
    return (built - exact).abs().max().item()


def rotate_cache(keys, start, inv_freq):
    positions = torch.arange(start, start + keys.shape[1])
    return rope_lib.apply_rope(keys, positions, inv_freq=inv_freq, layout="interleaved")


def b_m(m, d, base):
    return sum(math.cos(m * base ** (-2 * i / d)) for i in range(d // 2))


def permute_rows(w, n_heads):
    d = w.shape[0] // n_heads
    order = torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])  # within one head: even rows, then odd rows
    return w.view(n_heads, d, -1)[:, order].reshape(w.shape)


def rotate_qk(xq, xk, start_pos, bug=None):
    """The chapter's rotate_qk; `bug` plants one of the three bugs the chapter's exercise shows, or float16 positions."""
    T, D = xq.shape[1], xq.shape[-1]
    inv_freq = 1.0 / 10000.0 ** (torch.arange(0, D, 2, dtype=torch.float64) / D)  # (D/2,)
    if bug == "bf16 positions":
        positions = torch.arange(start_pos, start_pos + T, dtype=xq.dtype)
    elif bug == "float16 positions":
        positions = torch.arange(start_pos, start_pos + T, dtype=torch.float16)
    elif bug == "no start_pos":
        positions = torch.arange(T, dtype=torch.float64)
    else:
        positions = torch.arange(start_pos, start_pos + T, dtype=torch.float64)  # (T,)
    angles = torch.outer(positions.double(), inv_freq)  # (T, D/2)
    if bug == "half-layout tables":
        cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    else:
        cos, sin = angles.cos().repeat_interleave(2, -1), angles.sin().repeat_interleave(2, -1)  # (T, D)

    def turn(x):
        y = x.double()
        quarter = torch.stack([-y[..., 1::2], y[..., 0::2]], dim=-1).flatten(-2)
        return (y * cos[:, None] + quarter * sin[:, None]).to(x.dtype)

    return turn(xq), turn(xk)


def longrope_frequencies(d, base, short_factor, long_factor, seq_len, original_max_len):
    factors = long_factor if seq_len > original_max_len else short_factor
    return rope_lib.inv_freq(d, base) / np.array(factors)


def axial_rotate(x, h, w):
    d = len(x)
    theta = 100.0 ** (-4 * np.arange(d // 4) / d)
    a = np.concatenate([h * theta, w * theta])
    out = np.empty(d)
    out[0::2] = x[0::2] * np.cos(a) - x[1::2] * np.sin(a)
    out[1::2] = x[1::2] * np.cos(a) + x[0::2] * np.sin(a)
    return out


def offset_weight(weights, offset):
    t = np.arange(offset, len(weights))
    return weights[t, t - offset].mean()


REFERENCES = [
    (check_rope_pairs, rope_pairs),
    (check_attention_by_hand, attention_by_hand),
    (check_walk_encoding, walk_encoding),
    (check_terms_needed, terms_needed),
    (check_rotate, rotate),
    (check_score_complex, score_complex),
    (check_real_goal_rule, real_goal_rule),
    (check_first_below_half, first_below_half),
    (check_rope_half, rope_half),
    (check_permute_rows, permute_rows),
    (check_rotate_qk, rotate_qk),
    (check_bf16_position_error, bf16_position_error),
    (check_rotate_cache, rotate_cache),
    (check_b_m, b_m),
    (check_longrope_frequencies, longrope_frequencies),
    (check_axial_rotate, axial_rotate),
    (check_offset_weight, offset_weight),
]


@pytest.mark.parametrize("check, solution", REFERENCES, ids=[c.__name__ for c, _ in REFERENCES])
def test_each_check_passes_the_reference_solution(check, solution, capsys):
    result = check(solution)
    assert result and result.passed, result.message
    assert "PASSED" in capsys.readouterr().out, "the check prints its verdict"


@pytest.mark.parametrize("check", [c for c, _ in REFERENCES], ids=[c.__name__ for c, _ in REFERENCES])
def test_each_check_refuses_what_is_not_a_function(check):
    with pytest.raises(TypeError, match="expects your function"):
        check(42)


@pytest.mark.parametrize("check", [c for c, _ in REFERENCES], ids=[c.__name__ for c, _ in REFERENCES])
def test_an_answer_that_raises_is_reported_not_raised(check):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("oops")

    result = check(broken)
    assert failed(result, "raised ZeroDivisionError: oops")


def test_every_coding_exercise_has_a_check():
    """Every exercise that says "Write `name(`" in any chapter of _toc.yml comes with a check of rope_lib.exercises:
    its text names `check_name(` for one of the functions it asks for and its solution calls it; every check serves
    some exercise, and each has a reference solution in REFERENCES."""
    checks = {name for name in vars(exercises) if name.startswith("check_") and callable(getattr(exercises, name))}
    assert checks == {c.__name__ for c, _ in REFERENCES}, "every check has a reference solution above"
    used, coding = set(), []
    for chapter in chapters():
        for exercise in student_notebooks.exercises_of((ROOT / f"{chapter}.md").read_text()):
            label, text, solution = exercise.label, exercise.text, exercise.solution
            if not re.search(r"\bwrite `\w+\(", text, re.I):
                continue
            coding.append(label)
            # the functions the student writes: `name(` in backquotes (a helper may come first, as rotate_half does)
            wanted = [name for name in re.findall(r"`(\w+)\(", text) if not name.startswith("check_")]
            checked = [name for name in wanted if f"check_{name}" in checks]
            assert checked, f"{chapter} {label}: no check_… in rope_lib.exercises for any of {wanted}"
            for name in checked:
                assert f"`check_{name}(" in text, f"{chapter} {label}: the exercise should tell the student to run check_{name}(…)"
                assert f"check_{name}(" in solution, f"{chapter} {label}: the hidden solution should call check_{name}(…)"
                used.add(f"check_{name}")
    assert len(coding) >= 11, f"coding exercises found: {coding}"
    assert used == checks, f"checks no chapter's exercise uses: {sorted(checks - used)}"


# ---- typical wrong answers: each fails with a hint that names what is wrong ----


def test_rope_pairs_hints():
    def half_layout(x, m, base=10000.0):
        return rope_lib.rotation.rotary_matrix(m, len(x), base, layout="half") @ x

    def clockwise(x, m, base=10000.0):
        return rope_pairs(x, -m, base)

    def from_one(x, m, base=10000.0):
        d = len(x)
        a = m * base ** (-np.arange(2, d + 2, 2) / d)
        out = np.empty_like(x)
        out[0::2] = x[0::2] * np.cos(a) - x[1::2] * np.sin(a)
        out[1::2] = x[1::2] * np.cos(a) + x[0::2] * np.sin(a)
        return out

    def ignores_base(x, m, base=10000.0):
        return rope_pairs(x, m)

    def sin_cos_swapped(x, m, base=10000.0):
        a = m * base ** (-np.arange(0, len(x), 2) / len(x))
        out = np.empty_like(x)
        out[0::2] = x[0::2] * np.sin(a) - x[1::2] * np.cos(a)
        out[1::2] = x[1::2] * np.sin(a) + x[0::2] * np.cos(a)
        return out

    assert failed(check_rope_pairs(half_layout), "pairing", "half layout", "m=1")
    assert failed(check_rope_pairs(clockwise), "direction")
    assert failed(check_rope_pairs(from_one), "frequencies", "counted from 0")
    assert failed(check_rope_pairs(ignores_base), "base")
    assert failed(check_rope_pairs(sin_cos_swapped), "position 0", "unchanged")
    assert failed(check_rope_pairs(lambda x, m, base=10000.0: x[:-1]), "shape")


def test_attention_by_hand_hints():
    assert failed(check_attention_by_hand(lambda *a: attention_by_hand(*a, scale=False)), "scaling", "√d_k")
    assert failed(check_attention_by_hand(lambda *a: attention_by_hand(*a, over_queries=True)), "normalisation", "over the keys")
    assert failed(check_attention_by_hand(lambda x, w_q, w_k, w_v: tokens_and_attention.self_attention(x, w_q, w_k, w_v)[1]), "shape")


def test_walk_encoding_hints():
    def swapped(seq_len, d):
        return walk_encoding(seq_len, d, first=np.tile([1.0, 0.0], d // 2))

    def from_one(seq_len, d):
        w = 10000.0 ** (-np.arange(2, d + 2, 2) / d)
        table = np.empty((seq_len, d))
        table[:, 0::2], table[:, 1::2] = np.sin(np.outer(np.arange(seq_len), w)), np.cos(np.outer(np.arange(seq_len), w))
        return table

    assert failed(check_walk_encoding(swapped), "sin and cos swapped", "even columns hold sines")
    assert failed(check_walk_encoding(lambda n, d: walk_encoding(n, d, step_position=1)), "direction", "R^d_(Θ,−1)")
    assert failed(check_walk_encoding(from_one), "frequencies", "counted from 0")
    assert failed(check_walk_encoding(lambda n, d: walk_encoding(n + 1, d)[1:]), "off by one")
    assert failed(check_walk_encoding(lambda n, d: walk_encoding(n, d)[:-1]), "shape")


def test_terms_needed_hints():
    assert failed(check_terms_needed(lambda x, tol: terms_needed(x, tol, count_terms=True)), "not the smallest", "count terms")
    assert failed(check_terms_needed(lambda x, tol: terms_needed(x, tol, real_only=True)), "not yet within tol", "imaginary part")
    assert failed(check_terms_needed(lambda x, tol: float(terms_needed(x, tol))), "whole number")
    assert failed(check_terms_needed(lambda x, tol: terms_needed(x, tol) - 1), "not yet within tol")


def test_rotate_hints():
    def clockwise(vec, angle):
        return rotate(vec, -angle)

    def degrees(vec, angle):
        return rotate(vec, math.radians(angle))

    def as_complex(vec, angle):
        return complex(vec[0], vec[1]) * cmath.exp(1j * angle)

    assert failed(check_rotate(clockwise), "direction", "counter-clockwise")
    assert failed(check_rotate(degrees), "units", "radians")
    assert failed(check_rotate(as_complex), "complex number", "plane vector")
    assert failed(check_rotate(lambda vec, angle: 2 * rotate(vec, angle)), "keeps lengths")


def test_score_complex_hints():
    def flipped(q, k, m, n, theta):
        return score_complex(q, k, n, m, theta)

    def no_conjugate(q, k, m, n, theta):
        return (complex(*q) * complex(*k) * cmath.exp(1j * (m - n) * theta)).real

    def absolute(q, k, m, n, theta):
        return (complex(*q) * complex(*k).conjugate() * cmath.exp(1j * (m + n) * theta)).real

    def whole_complex(q, k, m, n, theta):
        return complex(*q) * complex(*k).conjugate() * cmath.exp(1j * (m - n) * theta)

    assert failed(check_score_complex(flipped), "sign", "(m − n)θ")
    assert failed(check_score_complex(no_conjugate), "conjugate")
    assert failed(check_score_complex(absolute), "m − n only")
    assert failed(check_score_complex(whole_complex), "real part")


def test_first_below_half_hints():
    assert failed(check_first_below_half(lambda d, base: first_below_half(d, base) - 1), "not yet below half")
    assert failed(check_first_below_half(lambda d, base: first_below_half(d, base) + 5), "not the first")
    assert failed(check_first_below_half(lambda d, base: first_below_half(d, 10000.0)), "pass base on")
    assert failed(check_first_below_half(lambda d, base: 0), "positive distance")


def test_rope_half_hints():
    def interleaved(x, positions):
        return rope_lib.apply_rope(x, positions, layout="interleaved")

    def from_zero(x, positions):
        return rope_half(x, torch.arange(x.shape[1]))

    def swapped(x, positions):
        cos, sin = rope_lib.rope_cos_sin(positions, x.shape[-1], dtype=x.dtype)
        cos, sin = torch.cat([cos, cos], -1)[:, None, :], torch.cat([sin, sin], -1)[:, None, :]
        return x * sin + rotate_half(x) * cos

    def wrong_sign(x, positions):
        cos, sin = rope_lib.rope_cos_sin(positions, x.shape[-1], dtype=x.dtype)
        cos, sin = torch.cat([cos, cos], -1)[:, None, :], torch.cat([sin, sin], -1)[:, None, :]
        x1, x2 = x.chunk(2, dim=-1)
        return x * cos + torch.cat([x2, -x1], dim=-1) * sin

    assert failed(check_rope_half(interleaved), "pairing", "half layout pairs x_i with x_(i+D/2)")
    assert failed(check_rope_half(from_zero), "positions", "start_pos = 50")
    assert failed(check_rope_half(swapped), "cos and sin swapped")
    assert failed(check_rope_half(wrong_sign), "direction")
    assert failed(check_rope_half(lambda x, positions: rope_half(x, positions).float()), "dtype")
    assert failed(check_rope_half(lambda x, positions: rope_half(x, positions).numpy()), "torch.Tensor")


def test_bf16_position_error_hints():
    def nearest(n):
        return (torch.arange(n).to(torch.bfloat16).double() - torch.arange(n)).abs().max().item()

    def last_only(n):
        return (torch.arange(n, dtype=torch.bfloat16).double() - torch.arange(n)).abs()[-1].item()

    def signed(n):
        return (torch.arange(n, dtype=torch.bfloat16).double() - torch.arange(n)).max().item()

    def float16(n):
        return (torch.arange(n, dtype=torch.float16).double() - torch.arange(n)).abs().max().item()

    def every_position(n):
        return (torch.arange(n, dtype=torch.bfloat16).double() - torch.arange(n)).abs()

    # rounding to nearest agrees with a bf16 arange up to 4096 and not at 5000: the hint names both and where they part
    assert nearest(4096) == bf16_position_error(4096) and nearest(5000) < bf16_position_error(5000)
    assert failed(check_bf16_position_error(nearest), "rounding", "nearest", "bf16_position_error(5000)", "first differ at position")
    assert failed(check_bf16_position_error(last_only), "last position", "largest error over all positions")
    assert failed(check_bf16_position_error(lambda n: bf16_position_error(n + 1)), "range", "0 … n−1")
    assert failed(check_bf16_position_error(signed), "distance", "absolute value")
    assert failed(check_bf16_position_error(float16), "dtype", "float16", "11 significant bits", "bf16 keeps only 8")
    assert failed(check_bf16_position_error(lambda n: 0), "look exact", "256")
    assert failed(check_bf16_position_error(every_position), "one error per position")
    assert failed(check_bf16_position_error(lambda n: None), "returned None")
    # the value counts, not its type: a 0-dimensional tensor or an int passes
    assert check_bf16_position_error(lambda n: every_position(n).max())
    assert check_bf16_position_error(lambda n: int(bf16_position_error(n)))


def test_rotate_cache_hints():
    def from_zero(keys, start, inv_freq):
        return rotate_cache(keys, 0, inv_freq)

    def default_freqs(keys, start, inv_freq):
        return rope_lib.apply_rope(keys, torch.arange(start, start + keys.shape[1]), layout="interleaved")

    def half_layout(keys, start, inv_freq):
        return rope_lib.apply_rope(keys, torch.arange(start, start + keys.shape[1]), inv_freq=inv_freq, layout="half")

    def backwards(keys, start, inv_freq):
        return rope_lib.apply_rope(keys, -torch.arange(start, start + keys.shape[1]), inv_freq=inv_freq, layout="interleaved")

    def one_late(keys, start, inv_freq):
        return rotate_cache(keys, start + 1, inv_freq)

    assert failed(check_rotate_cache(from_zero), "positions", "0 … T−1", "from 37")
    assert failed(check_rotate_cache(default_freqs), "frequencies", "default", "inv_freq")
    assert failed(check_rotate_cache(half_layout), "pairing", "half layout", "interleaved")
    assert failed(check_rotate_cache(backwards), "direction")
    assert failed(check_rotate_cache(one_late), "off by one", "start + 1")
    assert failed(check_rotate_cache(lambda keys, start, inv_freq: rotate_cache(keys, start, inv_freq).float()), "dtype")
    assert failed(check_rotate_cache(lambda keys, start, inv_freq: rotate_cache(keys, start, inv_freq)[:, 1:]), "shape")
    assert failed(check_rotate_cache(lambda keys, start, inv_freq: rotate_cache(keys, start, inv_freq).numpy()), "torch.Tensor")


def test_b_m_hints():
    def terms(m, d, base, first=0, step=2, count=None, f=math.cos):
        return sum(f(m * base ** (-step * i / d)) for i in range(first, first + (d // 2 if count is None else count)))

    assert failed(check_b_m(lambda m, d, base: terms(m, d, base, f=math.sin)), "cos, not sin", "b_m(0, 8, 10000)")
    assert failed(check_b_m(lambda m, d, base: terms(m, d, base, first=1)), "frequencies", "counted from 0", "θ_0 = 1")
    assert failed(check_b_m(lambda m, d, base: terms(m, d, base, step=1)), "exponent", "−2i/d")
    assert failed(check_b_m(lambda m, d, base: b_m(m, d, base) / (d // 2)), "normalisation", "scaled to 1")
    assert failed(check_b_m(lambda m, d, base: b_m(m, d, base) / d), "normalisation", "divided by d")
    assert failed(check_b_m(lambda m, d, base: 2 * b_m(m, d, base)), "normalisation", "twice", "2σ²")
    assert failed(check_b_m(lambda m, d, base: terms(m, d, base, count=d)), "d/2 pairs")
    assert failed(check_b_m(lambda m, d, base: b_m(m, d, 10000.0)), "base", "b_m(3000, 128, 500000)")
    assert failed(check_b_m(lambda m, d, base: np.cos(m * rope_lib.inv_freq(d, base))), "their sum")
    float32 = lambda m, d, base: float(np.cos(np.float32(m) * rope_lib.inv_freq(d, base).astype(np.float32)).sum())  # noqa: E731
    assert failed(check_b_m(float32), "float64")


def test_a_check_result_reads_as_its_verdict():
    result = CheckResult("glance-ex-code", False, "pairing — …")
    assert not result and str(result).startswith("NOT YET: ")
    assert CheckResult("x", True, "fine") and repr(CheckResult("x", True, "fine")).startswith("PASSED")


# ---- answers no check may choke on: each is reported as NOT YET, never raised ----

CHECKS = [c for c, _ in REFERENCES]
CHECK_IDS = [c.__name__ for c in CHECKS]


class Unreadable:
    """An answer that refuses every way of reading it."""

    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array here")

    @property
    def shape(self):
        raise RuntimeError("no shape here")

    def __float__(self):
        raise ArithmeticError("no float here")

    def __repr__(self):
        raise RuntimeError("no repr here")


def not_written(*args, **kwargs):
    raise NotImplementedError


@pytest.mark.parametrize("check", CHECKS, ids=CHECK_IDS)
@pytest.mark.parametrize("answer, words", [
    (lambda *a, **k: None, ["returned None"]),
    (None, ["None"]),
    (not_written, ["NotImplementedError"]),
], ids=["returns-None", "None", "NotImplementedError"])
def test_an_empty_answer_is_not_yet(check, answer, words):
    assert failed(check(answer), *words)


@pytest.mark.parametrize("check", CHECKS, ids=CHECK_IDS)
def test_a_number_too_large_for_a_float_is_not_yet(check):
    result = check(lambda *a, **k: 10**400)
    assert failed(result) and len(result.message) < 400, result.message


@pytest.mark.parametrize("check", [check_b_m, check_bf16_position_error, check_score_complex, check_rotate, check_rope_pairs],
                         ids=lambda c: c.__name__)
def test_a_number_too_large_for_a_float_is_named(check):
    assert failed(check(lambda *a, **k: 10**400), "too large")


@pytest.mark.parametrize("check, words", [(check_terms_needed, ["not the smallest"]), (check_first_below_half, ["not the first"])],
                         ids=["check_terms_needed", "check_first_below_half"])
def test_a_huge_whole_number_is_range_checked_before_it_sizes_anything(check, words):
    for huge in (10**12, 10**400):
        result = check(lambda *a, **k: huge)
        assert failed(result, *words) and len(result.message) < 400, result.message


@pytest.mark.parametrize("check", CHECKS, ids=CHECK_IDS)
def test_an_unreadable_answer_is_not_yet(check):
    assert failed(check(lambda *a, **k: Unreadable()))


@pytest.mark.parametrize("check", [check_rope_pairs, check_attention_by_hand, check_walk_encoding, check_rotate, check_b_m],
                         ids=lambda c: c.__name__)
def test_an_unreadable_answer_is_named(check):
    assert failed(check(lambda *a, **k: Unreadable()), "RuntimeError", "no array here")


@pytest.mark.parametrize("check, solution", [(check_rope_half, rope_half), (check_rotate_cache, rotate_cache)],
                         ids=["check_rope_half", "check_rotate_cache"])
def test_a_tensor_without_data_is_not_yet(check, solution):
    assert failed(check(lambda x, *a: torch.empty_like(solution(x, *a), device="meta")), "meta")


def requiring_grad(solution):
    """The solution, its answer returned as a float64 tensor that requires grad."""
    def answer(*args, **kwargs):
        out = solution(*args, **kwargs)
        if isinstance(out, tuple):
            return tuple(t.detach().clone().requires_grad_() for t in out)
        if isinstance(out, torch.Tensor):
            return out.detach().clone().requires_grad_()
        return torch.tensor(np.asarray(out, dtype=np.float64), requires_grad=True)
    return answer


GRAD_FRIENDLY = [(c, s) for c, s in REFERENCES if c not in (check_terms_needed, check_first_below_half)]


@pytest.mark.parametrize("check, solution", GRAD_FRIENDLY, ids=[c.__name__ for c, _ in GRAD_FRIENDLY])
def test_a_right_answer_that_requires_grad_passes(check, solution):
    result = check(requiring_grad(solution))
    assert result, result.message


# ---- seeded random inputs: named so that they can be rebuilt ----


def input_key(args, kwargs):
    """A hashable fingerprint of one call's arguments (arrays and tensors by their bytes)."""
    def one(a):
        if isinstance(a, torch.Tensor):  # by its dtype and bytes (NumPy holds no bf16: read as float32)
            return (str(a.dtype), tuple(a.shape), (a.float() if a.dtype == torch.bfloat16 else a).numpy().tobytes())
        if isinstance(a, np.ndarray):
            return (a.shape, a.dtype.str, a.tobytes())
        return repr(a)
    return tuple(map(one, args)), tuple(sorted((k, one(v)) for k, v in kwargs.items()))


def test_a_lookup_table_of_terms_needed_does_not_pass():
    table = {(x, tol): terms_needed(x, tol) for x, tol in ((1.0, 1e-8), (5.0, 1e-8), (10.0, 1e-8), (0.5, 1e-4), (3.0, 1e-12))}
    result = check_terms_needed(lambda x, tol: table.get((x, tol), 7))
    assert failed(result)
    # the hint names the input, so the student can try it
    x, tol = (float(v) for v in re.search(r"terms_needed\(([^,]+), ([^)]+)\)", result.message).groups())
    assert (x, tol) not in table and terms_needed(x, tol) != 7


def test_walk_encoding_special_cased_to_the_tested_sizes_does_not_pass():
    def special(seq_len, d):
        if (seq_len, d) in ((200, 16), (50, 8)):
            return rope_lib.sinusoidal.sinusoidal_encoding(seq_len, d)
        return np.zeros((seq_len, d))

    result = check_walk_encoding(special)
    seq_len, d = (int(v) for v in re.search(r"walk_encoding\(seq_len=(\d+), d=(\d+)\)", result.message).groups())
    assert failed(result) and (seq_len, d) not in ((200, 16), (50, 8))


def test_a_random_vector_is_named_so_it_can_be_rebuilt():
    """A random case's hint names its vector by the seed that rebuilds it, so the student can try the input that failed."""
    def named_bases_only(x, m, base=10000.0):
        return rope_pairs(x, m, base if base in (10000.0, 500000.0) else 10000.0)

    result = check_rope_pairs(named_bases_only)
    seed, d = (int(v) for v in re.search(r"x = np\.random\.default_rng\((\d+)\)\.standard_normal\((\d+)\)", result.message).groups())
    m, base = (float(v) for v in re.search(r"rope_pairs\(x, m=(\d+), base=([\d.e+]+)\)", result.message).groups())
    x = np.random.default_rng(seed).standard_normal(d)
    assert failed(result) and not np.allclose(named_bases_only(x, int(m), base), rope_lib.rotation.rotary_matrix(int(m), d, base) @ x)


# ---- hints for four more mistakes, and one that kept too little back ----


def test_rope_pairs_names_a_base_of_1000():
    assert failed(check_rope_pairs(lambda x, m, base=1000.0: rope_pairs(x, m, base)), "base", "1000", "10000")


def test_rope_pairs_names_float32_angles():
    def float32_angles(x, m, base=10000.0):
        d = len(x)
        a = np.float32(m) * (base ** (-np.arange(0, d, 2) / d)).astype(np.float32)
        out = np.empty_like(x)
        out[0::2] = x[0::2] * np.cos(a) - x[1::2] * np.sin(a)
        out[1::2] = x[1::2] * np.cos(a) + x[0::2] * np.sin(a)
        return out

    assert failed(check_rope_pairs(float32_angles), "float32", "float64")


def test_walk_encoding_names_a_float32_table():
    assert failed(check_walk_encoding(lambda n, d: walk_encoding(n, d).astype(np.float32)), "float32", "float64")


def test_rope_half_names_bf16_positions():
    def bf16_positions(x, positions):
        return rope_half(x, positions.to(torch.bfloat16).long())

    assert failed(check_rope_half(bf16_positions), "positions", "bf16", "1001", "1000")


def test_the_bf16_rounding_hint_keeps_the_answer_back():
    def nearest(n):
        return (torch.arange(n).to(torch.bfloat16).double() - torch.arange(n)).abs().max().item()

    result = check_bf16_position_error(nearest)
    n = int(re.search(r"bf16_position_error\((\d+)\)", result.message).group(1))
    assert failed(result, "rounding", "nearest")
    assert not re.search(rf"(?<![\d.]){bf16_position_error(n):g}(?![\d.])", result.message), result.message


# ---- the chapter "The implementation in LLaMA": writing the layout permutation, debugging a broken RoPE ----

def test_the_llama_checks_read_a_tensor_without_data_as_not_yet():
    assert failed(check_permute_rows(lambda w, h: torch.empty_like(w, device="meta")), "meta")
    assert failed(check_rotate_qk(lambda q, k, s: (torch.empty_like(q, device="meta"), torch.empty_like(k, device="meta"))), "meta")


def test_permute_rows_hints():
    assert failed(check_permute_rows(lambda w, n_heads: w), "unchanged", "pair different coordinates")
    assert failed(check_permute_rows(lambda w, n_heads: permute_rows(w, 1)), "per head", "4 heads of 8 rows")
    assert failed(check_permute_rows(lambda w, n_heads: rope_lib.permute_rows_to_interleaved(w, n_heads)), "direction", "inverse")
    assert failed(check_permute_rows(lambda w, n_heads: permute_rows(w.T, n_heads).T), "columns", "input features")
    assert failed(check_permute_rows(lambda w, n_heads: permute_rows(w.T, n_heads)), "rows and columns", "transposed")
    assert failed(check_permute_rows(lambda w, n_heads: permute_rows(w, n_heads) * 2), "other numbers")
    assert failed(check_permute_rows(lambda w, n_heads: permute_rows(w, n_heads).float()), "dtype")
    assert failed(check_permute_rows(lambda w, n_heads: permute_rows(w, n_heads).numpy()), "torch.Tensor")
    # a fixed order that suits the first shape only is caught at the next matrix of another shape
    first = permute_rows(torch.arange(32.0)[:, None], 4)[:, 0].long()
    assert failed(check_permute_rows(lambda w, n_heads: w[first] if w.shape[0] == 32 else w), "(32, 32)")
    # entries moved between rows, the multiset of numbers kept: named, never explained with the answer
    assert failed(check_permute_rows(lambda w, n_heads: permute_rows(w, n_heads).flatten().flip(0).view(w.shape)), "move whole rows")


def test_rotate_qk_hints_name_the_property_each_planted_bug_breaks():
    assert failed(check_rotate_qk(lambda q, k, s: rotate_qk(q, k, s, bug="bf16 positions")), "positions 256 and 257 get the same rotation")
    assert failed(check_rotate_qk(lambda q, k, s: rotate_qk(q, k, s, bug="no start_pos")), "cached decoding differs from one full pass at step t=1")
    assert failed(check_rotate_qk(lambda q, k, s: rotate_qk(q, k, s, bug="half-layout tables")), "scores depend on the absolute position")


def test_rotate_qk_hints_for_other_mistakes():
    def apply(layout="interleaved", shift=0, sign=1):
        return lambda q, k, s: tuple(rope_lib.apply_rope(x, sign * torch.arange(s + shift, s + shift + q.shape[1]), layout=layout) for x in (q, k))

    assert failed(check_rotate_qk(apply(layout="half")), "pairing", "half layout", "interleaved")
    assert failed(check_rotate_qk(apply(shift=1)), "off by one", "start_pos + 1")
    assert failed(check_rotate_qk(apply(sign=-1)), "direction")
    assert failed(check_rotate_qk(lambda q, k, s: (q, k)), "nothing turned")
    assert failed(check_rotate_qk(lambda q, k, s: rotate_qk(q, k, s)[0]), "expected a pair")
    assert failed(check_rotate_qk(lambda q, k, s: tuple(t.double() for t in rotate_qk(q, k, s))), "dtype")
    assert failed(check_rotate_qk(lambda q, k, s: (rotate_qk(q, k, s)[0], rotate_qk(q, k, s)[1].double())), "[1]", "xk's dtype")


LLAMA_ANSWERS = ["0::2", "1::2", "::2", "arange(0", "half_order", "permute_rows_to_half", "start_pos + T", "float64", "float32", "dtype=",
                 "repeat_interleave", "torch.cat", "arange(start_pos"]


def test_the_llama_hints_keep_the_answer_back():
    wrong = [
        check_permute_rows(lambda w, n_heads: w),
        check_permute_rows(lambda w, n_heads: permute_rows(w, 1)),
        check_permute_rows(lambda w, n_heads: rope_lib.permute_rows_to_interleaved(w, n_heads)),
        check_permute_rows(lambda w, n_heads: permute_rows(w.T, n_heads).T),
        check_rotate_qk(lambda q, k, s: rotate_qk(q, k, s, bug="bf16 positions")),
        check_rotate_qk(lambda q, k, s: rotate_qk(q, k, s, bug="no start_pos")),
        check_rotate_qk(lambda q, k, s: rotate_qk(q, k, s, bug="half-layout tables")),
    ]
    for result in wrong:
        assert not result
        assert not [code for code in LLAMA_ANSWERS if code in result.message], result.message


def test_the_llama_chapter_plants_the_three_bugs_and_its_solution_fixes_them():
    """The debugging exercise shows three buggy versions, and its solution checks the fixed one; the chapter's cells
    assert which hint each bug gets, as test_rotate_qk_hints_name_the_property_each_planted_bug_breaks does here."""
    text = (ROOT / "book" / "llama_implementation.md").read_text()
    part = text.split(":label: llama-ex-debug", 1)[1]
    assert part.count("def rotate_qk_") >= 3 and "check_rotate_qk(rotate_qk)" in part


def test_longrope_frequencies_hints():
    def long_at_the_trained_length(d, base, short_factor, long_factor, seq_len, original_max_len):
        factors = long_factor if seq_len >= original_max_len else short_factor
        return rope_lib.inv_freq(d, base) / np.array(factors)

    def multiplied(d, base, short_factor, long_factor, seq_len, original_max_len):
        return rope_lib.inv_freq(d, base) * np.array(long_factor if seq_len > original_max_len else short_factor)

    def plain(d, base, short_factor, long_factor, seq_len, original_max_len):
        return rope_lib.inv_freq(d, base)

    assert failed(check_longrope_frequencies(long_at_the_trained_length), "factor set", "seq_len = 64")
    assert failed(check_longrope_frequencies(multiplied), "direction", "more slowly")
    assert failed(check_longrope_frequencies(plain), "plain frequencies")
    for wrong in (long_at_the_trained_length, multiplied, plain):
        hint = check_longrope_frequencies(wrong).message
        assert "/ np.array" not in hint and "long_factor if" not in hint  # no code of the answer


def test_axial_rotate_hints():
    def swapped(x, h, w):
        return axial_rotate(x, w, h)

    def alternating(x, h, w):
        return rope_lib.multi_axis.apply_multi_axis_rope(torch.from_numpy(x)[None, None, None], [[h, w]],
                                              rope_lib.axial.axial_inv_freq_2d(len(x), 100.0, split="alternating"))[0, 0, 0]

    def half_layout(x, h, w):
        return rope_lib.multi_axis.apply_multi_axis_rope(torch.from_numpy(x)[None, None, None], [[h, w]],
                                              rope_lib.axial.axial_inv_freq_2d(len(x), 100.0), layout="half")[0, 0, 0]

    def clockwise(x, h, w):
        return axial_rotate(x, -h, -w)

    def scaled(x, h, w):
        return 2 * axial_rotate(x, h, w)

    assert failed(check_axial_rotate(swapped), "axes")
    assert failed(check_axial_rotate(alternating), "frequencies", "same d/4")
    assert failed(check_axial_rotate(half_layout), "pairing")
    assert failed(check_axial_rotate(clockwise), "direction")
    assert failed(check_axial_rotate(scaled), "keeps the vector's length")
    for wrong in (swapped, alternating, half_layout, clockwise, scaled):
        hint = check_axial_rotate(wrong).message
        assert "np.cos" not in hint and "concatenate" not in hint  # no code of the answer


def test_offset_weight_hints():
    def above(weights, offset):
        return np.diagonal(weights, offset).mean()

    def summed(weights, offset):
        t = np.arange(offset, len(weights))
        return weights[t, t - offset].sum()

    def over_all_rows(weights, offset):
        t = np.arange(offset, len(weights))
        return weights[t, t - offset].sum() / len(weights)

    def from_the_wrong_query(weights, offset):
        t = np.arange(offset + 1, len(weights))
        return weights[t, t - offset].mean()

    def transposed(weights, offset):
        t = np.arange(offset, len(weights))
        return weights[t - offset, t].mean()  # the same numbers as `above`

    assert failed(check_offset_weight(above), "direction", "below the main diagonal")
    assert failed(check_offset_weight(summed), "a mean, not a sum")
    assert failed(check_offset_weight(over_all_rows), "average over those")
    assert failed(check_offset_weight(from_the_wrong_query), "start at query t")
    assert failed(check_offset_weight(transposed), "rows are queries and columns keys", "below the main diagonal")
    assert failed(check_offset_weight(lambda weights, offset: None), "returned None")
    for wrong in (above, summed, over_all_rows, from_the_wrong_query, transposed):
        assert "np.arange" not in check_offset_weight(wrong).message  # no code of the answer


def test_real_goal_rule_hints():
    """rope2d-ex-real-goal: RoPE itself keeps lengths, xPos meets the complex goal too, a rule that moves position 0 or
    whose dot product sees more than m − n fails, each with its hint."""
    def turn(v, angle):
        return np.array([v[0] * np.cos(angle) - v[1] * np.sin(angle), v[0] * np.sin(angle) + v[1] * np.cos(angle)])

    rope = lambda q, k, m, n: (turn(q, 0.3 * m), turn(k, 0.3 * n))
    xpos = lambda q, k, m, n: (1.1**m * turn(q, 0.3 * m), 1.1**-n * turn(k, 0.3 * n))
    assert failed(check_real_goal_rule(rope), "keeps its length")
    assert failed(check_real_goal_rule(xpos), "complex goal too")
    assert failed(check_real_goal_rule(lambda q, k, m, n: (q * 1.1**m, k * 1.1**n)), "real goal fails")
    assert failed(check_real_goal_rule(lambda q, k, m, n: (q + 1, k)), "position 0 changes nothing")
    assert failed(check_real_goal_rule(lambda q, k, m, n: q), "two plane vectors")
    assert check_real_goal_rule(real_goal_rule) and check_real_goal_rule(real_goal_rule, lang="zh")
