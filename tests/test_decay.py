"""Long-term decay (RoFormer §3.4.3) against slow, obvious loops, and its bad-input errors."""

import cmath
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import torch

from rope_lib import apply_rope, inv_freq
from rope_lib.rotation import rotary_matrix
from rope_lib.teach.rope_nd import (
    abel_bound,
    abel_sum,
    pair_products,
    partial_sums,
    phasor_terms,
    relative_upper_bound,
    rope_sum,
    unturned_pairs,
)
from rope_lib.teach.rope_nd import decay


def slow_partial_sums(r, d, base):
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    return [sum(cmath.exp(1j * r * theta[i]) for i in range(j)) for j in range(d // 2 + 1)]


def slow_pair_products(q, k):
    return [complex(q[2 * i], q[2 * i + 1]) * complex(k[2 * i], k[2 * i + 1]).conjugate() for i in range(len(q) // 2)]


@given(r=st.integers(-5000, 5000), half=st.integers(1, 40), base=st.sampled_from([100.0, 10000.0, 500000.0]))
def test_partial_sums_match_a_loop(r, half, base):
    d = 2 * half
    assert np.allclose(partial_sums(r, d, base), slow_partial_sums(r, d, base), atol=1e-9)


def test_partial_sums_shape_and_start():
    s = partial_sums(np.arange(5), 16)
    assert s.shape == (5, 9)
    assert np.all(s[:, 0] == 0)
    assert np.allclose(s[0], np.arange(9))  # distance 0: S_j = j


@given(seed=st.integers(0, 2**32 - 1), half=st.integers(1, 16), m=st.integers(0, 3000), n=st.integers(0, 3000))
def test_rope_sum_is_the_rope_score_and_abel_rearranges_it(seed, half, m, n):
    rng = np.random.default_rng(seed)
    d = 2 * half
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    h = pair_products(q, k)
    assert np.allclose(h, slow_pair_products(q, k))
    score = (rotary_matrix(m, d) @ q) @ (rotary_matrix(n, d) @ k)
    assert math.isclose(rope_sum(h, m - n).real, score, abs_tol=1e-8)
    assert np.isclose(abel_sum(h, m - n), rope_sum(h, m - n), atol=1e-8)
    assert abs(rope_sum(h, m - n)) <= abel_bound(h, m - n) + 1e-9


def test_abel_bound_matches_a_loop():
    rng = np.random.default_rng(3)
    h = rng.standard_normal(8) + 1j * rng.standard_normal(8)
    extended = list(h) + [0]
    largest = max(abs(extended[i + 1] - extended[i]) for i in range(8))
    for r in (0, 1, 17, 300):
        expected = largest * sum(abs(s) for s in slow_partial_sums(r, 16, 10000.0)[1:])
        assert math.isclose(abel_bound(h, r), expected, rel_tol=1e-12)


def test_relative_upper_bound_is_figure_2():
    """Starts at (d/2 + 1)/2 = 32.5 for d = 128 and falls with distance, as RoFormer Fig. 2 shows."""
    curve = relative_upper_bound(np.arange(257), 128)
    assert curve[0] == 32.5
    for r in (1, 50, 256):
        assert math.isclose(curve[r], np.mean([abs(s) for s in slow_partial_sums(r, 128, 10000.0)[1:]]), rel_tol=1e-12)
    assert curve[256] < curve[0] / 3
    assert np.all(curve[1:] < curve[0])
    # a larger base decays more slowly
    assert relative_upper_bound(256, 128, 100.0) < curve[256] < relative_upper_bound(256, 128, 500000.0)
    assert np.allclose(inv_freq(128), 10000.0 ** (-np.arange(0, 128, 2) / 128))


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match=r"q must be a vector of even length d, got shape \(2, 2\)"):
        pair_products(np.ones((2, 2)), np.ones(4))
    with pytest.raises(ValueError, match=r"the length of k must be a positive even integer"):
        pair_products(np.ones(4), np.ones(5))
    with pytest.raises(ValueError, match=r"q and k must have one length d, got 4 and 6"):
        pair_products(np.ones(4), np.ones(6))
    for fn in (rope_sum, abel_sum, abel_bound, phasor_terms):
        with pytest.raises(ValueError, match=r"h must be a non-empty vector of d/2 pair products"):
            fn(np.ones((2, 2)), 0)
    with pytest.raises(ValueError, match=r"d must be a positive even integer"):
        relative_upper_bound(0, 7)
    with pytest.raises(ValueError, match=r"base must be a finite number greater than 1"):
        partial_sums(0, 8, 1.0)


def rope_score(q, k, m, n, base):
    """⟨R_m q, R_n k⟩ from rope_lib.apply_rope (torch, float64), independent of the complex sum."""
    x = torch.tensor(np.stack([q, k]), dtype=torch.float64)[:, None, None, :]  # (2, 1, 1, d): q and k as a batch of two
    turned = apply_rope(x, [[m], [n]], base=base, layout="interleaved")
    return float(turned[0, 0, 0] @ turned[1, 0, 0])


def tip_is_the_score(q, k, m, n, base):
    """The last point of the phasor path is rope_sum, and its real part the RoPE score."""
    path = phasor_terms(pair_products(q, k), m - n, base)
    return bool(np.isclose(path[-1], rope_sum(pair_products(q, k), m - n, base), atol=1e-9)
                and math.isclose(path[-1].real, rope_score(q, k, m, n, base), abs_tol=1e-8)
                and math.isclose(path[-1].real, (rotary_matrix(m, len(q), base) @ q) @ (rotary_matrix(n, len(q), base) @ k), abs_tol=1e-8))


@given(seed=st.integers(0, 2**32 - 1), half=st.integers(1, 32), m=st.integers(0, 5000), n=st.integers(0, 5000),
       base=st.sampled_from([100.0, 10000.0, 500000.0]))
def test_the_tip_of_the_phasor_path_is_the_rope_score(seed, half, m, n, base):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(2 * half), rng.standard_normal(2 * half)
    assert tip_is_the_score(q, k, m, n, base)


def test_phasor_terms_are_the_arrows_laid_tip_to_tail():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    h = pair_products(q, k)
    path = phasor_terms(h, np.arange(4), 500.0)
    assert path.shape == (4, 9) and np.all(path[:, 0] == 0)
    theta = [500.0 ** (-2 * i / 16) for i in range(8)]
    for r in range(4):
        arrows = np.diff(path[r])
        assert np.allclose(arrows, [h[i] * cmath.exp(1j * r * theta[i]) for i in range(8)], atol=1e-12)
    assert np.allclose(path[0], np.concatenate([[0], np.cumsum(h)]))  # distance 0: nothing turns
    assert np.allclose(phasor_terms(np.ones(8), np.arange(4), 500.0), partial_sums(np.arange(4), 16, 500.0))  # h = 1: the S_j


def test_an_identical_key_lines_the_arrows_up_at_distance_zero():
    q = np.random.default_rng(2).standard_normal(32)
    path = phasor_terms(pair_products(q, q), 0)
    assert np.allclose(path.imag, 0, atol=1e-12) and np.all(np.diff(path.real) >= 0) and math.isclose(path[-1].real, q @ q)


def test_a_planted_wrong_sign_is_caught(monkeypatch):
    """Turn the arrows the wrong way, e^{−iΔθ}: the path still ends at rope_sum (which turns the same way),
    but the comparison with apply_rope catches it."""
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    assert tip_is_the_score(q, k, 7, 2, 10000.0)
    right = decay._rotations
    monkeypatch.setattr(decay, "_rotations", lambda relative, d, base: np.conj(right(relative, d, base)))
    assert not tip_is_the_score(q, k, 7, 2, 10000.0)


def test_unturned_pairs_counts_the_arrows_within_a_quarter_turn():
    for r, d, base in [(0, 16, 10000.0), (1, 16, 10000.0), (64, 128, 10000.0), (-64, 128, 10000.0), (1024, 128, 500000.0), (16384, 128, 10000.0)]:
        expected = sum(abs(r) * base ** (-2 * i / d) < math.pi / 2 for i in range(d // 2))
        assert unturned_pairs(r, d, base) == expected
    assert unturned_pairs(np.array([0, 1, 2]), 8).tolist() == [4, 4, 3]  # pair 0 turns 1, then 2 radians: past π/2
    with pytest.raises(ValueError, match=r"d must be a positive even integer"):
        unturned_pairs(3, 7)
