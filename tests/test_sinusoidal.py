"""p_m for any position, one pair of it, the rotation that shifts it, and the absolute-position score."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rope_lib import inv_freq
from rope_lib.rotation import rotary_matrix, rotation_matrix_2d
from rope_lib.sinusoidal import absolute_position_score, sinusoidal_encoding_loop, sinusoidal_pair, sinusoidal_position
from rope_lib.teach.tokens_and_attention import projection

position = st.integers(min_value=0, max_value=5000)
even_dim = st.integers(min_value=1, max_value=16).map(lambda h: 2 * h)


def test_position_vectors_are_the_rows_of_the_article_table():
    table = sinusoidal_encoding_loop(30, 8)
    np.testing.assert_allclose(sinusoidal_position(np.arange(30), 8), table, atol=1e-12)
    np.testing.assert_allclose(sinusoidal_position(17, 8), table[17], atol=1e-12)
    np.testing.assert_allclose(sinusoidal_pair(17, 2, 8), table[17, 4:6], atol=1e-12)
    assert sinusoidal_pair(np.arange(5), 1, 8).shape == (5, 2)


@given(position, position, even_dim)
def test_shifting_the_position_rotates_every_pair_clockwise(m, k, d):
    for t, omega in enumerate(inv_freq(d)):
        np.testing.assert_allclose(sinusoidal_pair(m + k, t, d), rotation_matrix_2d(-k * omega) @ sinusoidal_pair(m, t, d), atol=1e-8)
    # all pairs at once: the block-diagonal RoPE matrix at position −k
    np.testing.assert_allclose(sinusoidal_position(m + k, d), rotary_matrix(-k, d) @ sinusoidal_position(m, d), atol=1e-8)


@given(position, position, st.integers(0, 1000), even_dim)
def test_position_dot_products_depend_on_the_offset_only(m, n, s, d):
    here = sinusoidal_position(m, d) @ sinusoidal_position(n, d)
    np.testing.assert_allclose(here, sinusoidal_position(m + s, d) @ sinusoidal_position(n + s, d), atol=1e-8)
    np.testing.assert_allclose(here, np.cos((m - n) * inv_freq(d)).sum(), atol=1e-8)


def test_absolute_position_score_is_the_four_term_expansion():
    d, rng = 8, np.random.default_rng(0)
    x_m, x_n = rng.standard_normal(d), rng.standard_normal(d)
    w_q, w_k = projection(d, d, seed=1), projection(d, d, seed=2)
    p_m, p_n = sinusoidal_position(3, d), sinusoidal_position(9, d)
    a = w_q.T @ w_k
    four = x_m @ a @ x_n + x_m @ a @ p_n + p_m @ a @ x_n + p_m @ a @ p_n
    np.testing.assert_allclose(absolute_position_score(x_m, x_n, 3, 9, w_q, w_k), four, atol=1e-12)
    shifted = absolute_position_score(x_m, x_n, 13, 19, w_q, w_k)
    assert not np.isclose(shifted, four)  # same m − n, different score


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"i must be a pair index in \[0, 4\) for d = 8, got 4"):
        sinusoidal_pair(0, 4, 8)
    with pytest.raises(ValueError, match="d must be a positive even integer"):
        sinusoidal_position(0, 7)
    with pytest.raises(ValueError, match="x_m and x_n must be vectors of one length"):
        absolute_position_score(np.ones(4), np.ones(3), 0, 1, np.eye(4), np.eye(4))
    with pytest.raises(ValueError, match=r"w_q must have shape \(d_out, 4\)"):
        absolute_position_score(np.ones(4), np.ones(4), 0, 1, np.eye(3), np.eye(4))
