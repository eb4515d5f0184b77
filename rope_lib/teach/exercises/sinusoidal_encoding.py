"""The auto-checks of the exercises in the chapter "Absolute sinusoidal encoding" (book/sinusoidal_encoding.md)."""

from __future__ import annotations

import numpy as np

from ...frequencies import DEFAULT_BASE
from ...sinusoidal import sinusoidal_encoding, sinusoidal_position
from .checking import CheckResult, F32_EPS, Hint, allclose_within, answer_array, call_student, diagnose, float32_hint, freqs_counted_from_one, fresh_rng, run_check


def check_walk_encoding(walk_encoding) -> CheckResult:
    """Exercise sin-ex-walk: `walk_encoding(seq_len, d)` builds the (seq_len, d) table by repeated rotation from p_0."""

    def body(fn):
        fresh = fresh_rng()
        sizes = [(200, 16), (50, 8)] + [(int(fresh.integers(2, 301)), 2 * int(fresh.integers(1, 17))) for _ in range(2)]
        close = allclose_within(1e-9)
        for seq_len, d in sizes:
            call = f"walk_encoding(seq_len={seq_len}, d={d})"
            expected = sinusoidal_encoding(seq_len, d)
            got = answer_array(call_student(fn, call, seq_len, d), call, (seq_len, d))
            if close(got, expected):
                continue
            m = np.arange(seq_len)
            swapped = expected.copy()
            swapped[:, 0::2], swapped[:, 1::2] = expected[:, 1::2], expected[:, 0::2]
            shifted = np.empty_like(expected)
            shifted[:, 0::2] = np.sin(np.outer(m, freqs_counted_from_one(d, DEFAULT_BASE)))
            shifted[:, 1::2] = np.cos(np.outer(m, freqs_counted_from_one(d, DEFAULT_BASE)))
            diagnose(got, [
                (lambda: swapped, f"{call}: sin and cos swapped — p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines, odd columns cosines"),
                (lambda: sinusoidal_position(-m, d), f"{call}: direction — row m holds p_(−m); one position forward is the rotation R^d_(Θ,−1), not R^d_(Θ,1)"),
                (lambda: shifted, f"{call}: frequencies — column pair t uses ω_t = 10000^(−2t/d) with t counted from 0, so columns 0 and 1 turn by one radian per position"),
                (lambda: sinusoidal_position(m + 1, d), f"{call}: off by one — row 0 must be p_0, the position 0; your table starts at p_1"),
                (lambda: expected, float32_hint(call, np.abs(got - expected).max(), "float32 keeps about 7 digits, and every step of the walk adds its rounding"),
                 allclose_within(4 * F32_EPS * seq_len)),
            ], close)
            if close(got[0], swapped[0]):
                raise Hint(f"{call}: sin and cos swapped — row 0 is (1, 0, 1, 0, …), but p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …): even columns hold sines")
            if not close(got[0], expected[0]):
                raise Hint(f"{call}: row 0 must be p_0 = (sin 0, cos 0, …) = (0, 1, 0, 1, …)")
            row = int(np.argmax(np.abs(got - expected).max(axis=1) > 1e-9))
            raise Hint(f"{call}: rows 0 to {row - 1} are right but row {row} is not p_{row}; check the step from one row to the next")

    return run_check("sin-ex-walk", walk_encoding, body,
                "walk_encoding matches rope_lib.sinusoidal_encoding for 200 positions (d = 16), 50 positions (d = 8) and two fresh random sizes.")
