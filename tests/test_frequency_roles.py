"""The synthetic positional-head and semantic-channel example (Barbero et al. 2024)."""

import numpy as np
import pytest

from rope_lib import inv_freq
from rope_lib.teach.rope_nd import rope_sum
from rope_lib.teach.why_rope_works import band_pairs, positional_head_score, retrieval_rate


def test_band_pairs():
    np.testing.assert_array_equal(band_pairs(16, "fast", 3), [0, 1, 2])
    np.testing.assert_array_equal(band_pairs(16, "slow", 3), [5, 6, 7])
    with pytest.raises(ValueError, match=r"band must be one of"):
        band_pairs(16, "middle", 3)
    with pytest.raises(ValueError, match=r"n_pairs must be at most d/2 = 8"):
        band_pairs(16, "fast", 9)


def test_positional_head_score_is_a_sum_of_shifted_cosines():
    distances = np.arange(0, 200)
    theta = inv_freq(64)[:8]
    expected = np.cos((distances[:, None] - 3) * theta).sum(-1)
    np.testing.assert_allclose(positional_head_score(distances, 64, band="fast", n_pairs=8, offset=3), expected, atol=1e-12)
    fast = positional_head_score(distances, 64, band="fast", n_pairs=8, offset=1)
    slow = positional_head_score(distances, 64, band="slow", n_pairs=8, offset=1)
    assert np.argmax(fast) == 1 and fast[1] == pytest.approx(8) and fast.min() < 0
    assert slow.min() > 7.9  # the slow pairs barely turn: no position stands out
    h = np.zeros(32, complex)
    h[:8] = np.exp(-1j * 1 * theta)
    np.testing.assert_allclose(fast, rope_sum(h, distances).real)


def test_retrieval_needs_slow_pairs_at_a_distance():
    distances = np.array([0, 16, 64, 256])
    slow = retrieval_rate(distances, 64, band="slow", n_pairs=8)
    fast = retrieval_rate(distances, 64, band="fast", n_pairs=8)
    assert slow.min() > 0.9 and fast[0] > 0.9 and fast[1:].max() < 0.3
    with pytest.raises(ValueError, match=r"distances must be a vector of non-negative integers"):
        retrieval_rate(np.array([-1, 2]), 64)
    with pytest.raises(ValueError, match=r"noise must be non-negative"):
        retrieval_rate(distances, 64, noise=-1.0)
