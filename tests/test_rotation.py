"""Properties of the rotation matrices that the proof of the relative property rests on."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rope_lib.rotation import rotary_matrix, rotation_matrix_2d, score_grid

angle = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)
position = st.integers(min_value=-10_000, max_value=10_000)
even_dim = st.integers(min_value=1, max_value=32).map(lambda h: 2 * h)
layout = st.sampled_from(["interleaved", "half"])


@given(angle, angle)
def test_rotations_compose_by_adding_angles(a, b):
    np.testing.assert_allclose(rotation_matrix_2d(a) @ rotation_matrix_2d(b), rotation_matrix_2d(a + b), atol=1e-9)


@given(angle)
def test_transpose_is_the_opposite_rotation(a):
    np.testing.assert_allclose(rotation_matrix_2d(a).T, rotation_matrix_2d(-a), atol=0)


@given(position, position, even_dim, layout)
def test_block_rotations_compose_and_invert(a, b, d, lay):
    ra, rb = rotary_matrix(a, d, layout=lay), rotary_matrix(b, d, layout=lay)
    np.testing.assert_allclose(ra @ rb, rotary_matrix(a + b, d, layout=lay), atol=1e-8)
    np.testing.assert_allclose(ra.T, rotary_matrix(-a, d, layout=lay), atol=1e-12)
    np.testing.assert_allclose(ra.T @ ra, np.eye(d), atol=1e-12)


@given(position, position, position, even_dim, layout, st.integers(0, 2**31 - 1))
def test_inner_product_depends_only_on_the_offset(m, n, s, d, lay, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    here = (rotary_matrix(m, d, layout=lay) @ q) @ (rotary_matrix(n, d, layout=lay) @ k)
    shifted = (rotary_matrix(m + s, d, layout=lay) @ q) @ (rotary_matrix(n + s, d, layout=lay) @ k)
    np.testing.assert_allclose(here, shifted, atol=1e-8 * (1 + abs(here)))
    # and it equals qᵀ R_{n−m} k, the matrix form of g
    np.testing.assert_allclose(here, q @ rotary_matrix(n - m, d, layout=lay) @ k, atol=1e-8 * (1 + abs(here)))


@given(position, even_dim, st.integers(0, 2**31 - 1))
def test_rotation_preserves_norms(m, d, seed):
    x = np.random.default_rng(seed).standard_normal(d)
    np.testing.assert_allclose(np.linalg.norm(rotary_matrix(m, d) @ x), np.linalg.norm(x), rtol=1e-12)


def test_score_grid_is_constant_along_diagonals():
    rng = np.random.default_rng(1)
    grid = score_grid(rng.standard_normal(16), rng.standard_normal(16), range(12))
    for offset in range(-11, 12):
        diagonal = np.diagonal(grid, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-12)
