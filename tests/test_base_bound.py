"""B_{m,θ} = Σ cos(mθ_i) and the search for the smallest base keeping it non-negative (Men et al. 2024)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rope_lib import inv_freq
from rope_lib.teach.why_rope_works import (
    b_m_theta,
    b_m_theta_blocks,
    base_grid,
    base_lower_bounds,
    first_negative,
    keeps_non_negative,
    smallest_base,
)
from rope_lib.teach.why_rope_works import b_slope_bound, base_keeping_non_negative_in, rounding_interval

TABLE_LENGTHS = [2**k for k in range(12, 21)]  # 4k … 1M, as in the chapter


def slow_b(m, d, base):
    return sum(np.cos(m * base ** (-2 * i / d)) for i in range(d // 2))


@given(st.integers(0, 10**6), st.sampled_from([8, 64, 128]), st.floats(10.0, 1e9))
def test_b_m_theta_is_the_sum_of_cosines(m, d, base):
    assert b_m_theta(m, inv_freq(d, base)) == pytest.approx(slow_b(m, d, base), abs=1e-9)


@pytest.mark.parametrize("max_len, base", [(1, 100.0), (1000, 10000.0), (70000, 5e5), (2**20, 4e8)])
def test_blocked_sum_agrees_with_the_direct_sum(max_len, base):
    theta = inv_freq(128, base)
    np.testing.assert_allclose(b_m_theta_blocks(max_len, theta), b_m_theta(np.arange(max_len + 1), theta), rtol=0, atol=1e-9)


def test_first_negative_against_a_plain_scan():
    for base in [500.0, 1e4, 2.7e4, 3e4, 5e5]:
        values = b_m_theta(np.arange(40001), inv_freq(128, base))
        negative = np.flatnonzero(values < 0)
        expected = int(negative[0]) if negative.size else 40001
        assert first_negative(128, base, 40000) == expected
    assert first_negative(128, 1e12, 1000) == 1001  # never negative within reach


def test_b_is_not_monotone_in_the_base():
    """2.7e4 keeps B ≥ 0 up to m = 4000 while the larger 3e4 does not: no bisection over the base."""
    assert keeps_non_negative(128, 2.7e4, 4000)
    assert not keeps_non_negative(128, 3e4, 4000)
    reach = [first_negative(128, b, 20000) for b in base_grid(1e4, 1e5, 100)]
    assert np.any(np.diff(reach) < 0)


@pytest.mark.slow
def test_the_reported_bases_really_keep_b_non_negative_up_to_l():
    """The table of the chapter: every reported base passes the direct sum for every m = 0 … L."""
    found = base_lower_bounds(128, TABLE_LENGTHS)
    assert np.all(np.diff(found) > 0)
    for length, base in zip(TABLE_LENGTHS, found):
        assert keeps_non_negative(128, base, length), (length, base)


def test_the_search_reports_the_first_passing_base_of_its_grids():
    """Every grid base below the answer fails, and so does every refined candidate below it."""
    length = 8192
    found = smallest_base(128, length, points_per_decade=32, refine=16)
    grid = base_grid(10.0, 1e12, 32)
    below = grid[grid < found]
    assert all(first_negative(128, b, length) <= length for b in below)
    failing, passing = below[-1], grid[grid >= found][0]
    candidates = np.geomspace(failing, passing, 17)[1:]
    assert found == candidates[np.argmax([first_negative(128, b, length) > length for b in candidates])]
    # a finer grid can only find a smaller or equal base
    assert smallest_base(128, length, points_per_decade=128, refine=16) <= found


def test_keeps_non_negative_can_fail():
    assert not keeps_non_negative(128, 10000.0, 4096)
    assert keeps_non_negative(128, 10000.0, 1000)


def test_bad_input():
    with pytest.raises(ValueError, match=r"freqs must be a non-empty vector"):
        b_m_theta(3, np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"high must exceed low"):
        base_grid(100.0, 10.0, 8)
    with pytest.raises(ValueError, match=r"no base up to high=1000 keeps"):
        smallest_base(128, 4096, high=1000.0)
    with pytest.raises(ValueError, match=r"context_len must be a positive integer"):
        base_lower_bounds(128, [0])
    with pytest.raises(ValueError, match=r"max_len must be a positive integer"):
        first_negative(128, 1e4, 0)


# Men et al.'s published lower bounds for d = 128, and the context length each is for (the chapter's table).
PUBLISHED = {2**14: 3.1e5, 2**15: 6.4e5, 2**17: 7.8e6}


def test_rounding_interval():
    assert rounding_interval(3.1e5) == (3.05e5, 3.15e5)
    assert rounding_interval(7.8e6) == pytest.approx((7.75e6, 7.85e6), rel=1e-15)
    assert rounding_interval(27000.0, digits=3) == (26950.0, 27050.0)
    with pytest.raises(ValueError, match=r"digits must be a positive integer"):
        rounding_interval(3.1e5, digits=0)
    with pytest.raises(ValueError, match=r"value"):
        rounding_interval(-1.0)


@pytest.mark.parametrize("length", sorted(PUBLISHED))
def test_each_published_base_fails_its_own_bound(length):
    """The published 16k, 32k and 128k bases let B turn negative before their own context length."""
    assert first_negative(128, PUBLISHED[length], length) <= length
    assert not keeps_non_negative(128, PUBLISHED[length], length)


@pytest.mark.parametrize("length", [2**14, 2**15])
def test_no_base_that_rounds_to_the_published_16k_or_32k_base_keeps_b_non_negative(length):
    assert base_keeping_non_negative_in(128, *rounding_interval(PUBLISHED[length]), length) is None


def test_a_base_that_rounds_to_the_published_128k_base_keeps_b_non_negative():
    """At 128k rounding can explain the gap: 7.788e6, which rounds to 7.8e6, passes the direct sum."""
    found = base_keeping_non_negative_in(128, *rounding_interval(PUBLISHED[2**17]), 2**17)
    assert found is not None and round(found, -5) == 7.8e6
    assert keeps_non_negative(128, found, 2**17)


def test_the_interval_search_finds_a_narrow_window_a_coarse_grid_misses():
    """[26500, 27500] around the published 4k base: most bases fail, a few keep B ≥ 0 up to 4096."""
    low, high = rounding_interval(2.7e4)
    grid = np.linspace(low, high, 11)
    assert not any(keeps_non_negative(128, b, 4096) for b in grid)
    found = base_keeping_non_negative_in(128, low, high, 4096)
    assert found is not None and low <= found <= high and keeps_non_negative(128, found, 4096)


def test_the_slope_bound_bounds_how_fast_b_changes_with_the_base():
    """|B_m(x) − B_m(c)| ≤ m·K(a)·|x − c| for bases x, c in [a, b]: the ground of the certificate."""
    rng = np.random.default_rng(0)
    m = np.arange(20001.0)
    for a in (1e3, 3.05e5, 7.75e6):
        b = 1.05 * a
        bound = m * b_slope_bound(128, a)
        c = 0.5 * (a + b)
        centre = b_m_theta(m, inv_freq(128, c))
        for x in rng.uniform(a, b, 20):
            assert np.all(np.abs(b_m_theta(m, inv_freq(128, x)) - centre) <= bound * abs(x - c) + 1e-9)
    # and it is not loose by orders of magnitude: some m comes within a factor 10 of it
    x, c = 1.0001e3, 1e3
    change = np.abs(b_m_theta(m, inv_freq(128, x)) - b_m_theta(m, inv_freq(128, c)))
    assert np.max(change[1:] / (m[1:] * b_slope_bound(128, c) * (x - c))) > 0.1


def test_the_interval_search_refuses_bad_input_and_reports_when_undecided():
    with pytest.raises(ValueError, match=r"high must exceed low"):
        base_keeping_non_negative_in(128, 3e5, 2e5, 16384)
    with pytest.raises(ValueError, match=r"context_len must be a positive integer"):
        base_keeping_non_negative_in(128, 2e5, 3e5, 0)
    with pytest.raises(RuntimeError, match=r"undecided after max_intervals=3"):
        base_keeping_non_negative_in(128, *rounding_interval(3.1e5), 16384, max_intervals=3)
    with pytest.raises(ValueError, match=r"d must be"):
        b_slope_bound(7, 1e4)


def test_seven_of_the_nine_published_bases_fail_their_own_bound():
    """The chapter's count: Men et al.'s bases for 4k … 1M; only those for 8k and 64k keep B ≥ 0 up to their L."""
    published = [2.7e4, 8.4e4, 3.1e5, 6.4e5, 2.1e6, 7.8e6, 3.6e7, 6.4e7, 5.1e8]
    fails = [k for k, (b, length) in enumerate(zip(published, TABLE_LENGTHS)) if first_negative(128, b, length) <= length]
    assert fails == [0, 2, 3, 5, 6, 7, 8]
