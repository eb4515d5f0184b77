"""B_{m,θ} = Σ cos(mθ_i) and the search for the smallest base keeping it non-negative (Men et al. 2024)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rope_lib import inv_freq
from rope_lib.teach import b_m_theta, b_m_theta_blocks, base_grid, base_lower_bounds, first_negative, keeps_non_negative, smallest_base

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
