"""Causal attention without positions (teach.self_attention(..., causal=True)), against slow obvious references."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rope_lib.teach.tokens_and_attention import is_permutation_equivariant, projection, self_attention
from rope_lib.teach.tokens_and_attention import causal_visibility as causal_mask, self_attention


def weights_by_loops(x, w_q, w_k, w_v):
    """a_{m,n} = exp(s_{m,n}) / Σ_{j ≤ m} exp(s_{m,j}) for n ≤ m and 0 above the diagonal, written out."""
    q, k = x @ w_q.T, x @ w_k.T
    n_tok, dim = len(x), q.shape[1]
    weights = np.zeros((n_tok, n_tok))
    for m in range(n_tok):
        e = [math.exp(float(q[m] @ k[n]) / math.sqrt(dim)) for n in range(m + 1)]
        weights[m, : m + 1] = np.array(e) / sum(e)
    return weights


def test_the_mask_is_the_lower_triangle():
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    with pytest.raises(ValueError):
        causal_mask(0)


@given(st.integers(1, 7), st.integers(1, 5), st.integers(0, 2**16))
def test_causal_attention_matches_the_loops_and_sees_only_the_past(n_tok, d, seed):
    x = np.random.default_rng(seed).standard_normal((n_tok, d))
    w_q, w_k, w_v = (projection(d, d, seed=seed + s) for s in (1, 2, 3))
    out, weights = self_attention(x, w_q, w_k, w_v, causal=True)
    np.testing.assert_allclose(weights, weights_by_loops(x, w_q, w_k, w_v), rtol=1e-10, atol=1e-12)
    assert np.all(weights[~causal_mask(n_tok)] == 0) and np.allclose(weights.sum(axis=1), 1)
    np.testing.assert_allclose(out, weights @ (x @ w_v.T), atol=1e-12)
    # the last query sees every key: it is plain attention's last row
    np.testing.assert_allclose(out[-1], self_attention(x, w_q, w_k, w_v)[0][-1], atol=1e-12)


def test_the_mask_breaks_permutation_equivariance():
    x = np.random.default_rng(0).standard_normal((6, 4))
    w_q, w_k, w_v = (projection(4, 4, seed=s) for s in (1, 2, 3))
    perm = np.array([5, 0, 3, 1, 4, 2])
    assert is_permutation_equivariant(lambda rows: self_attention(rows, w_q, w_k, w_v)[0], x, perm)
    assert not is_permutation_equivariant(lambda rows: self_attention(rows, w_q, w_k, w_v, causal=True)[0], x, perm)


def test_bad_shapes_are_named():
    with pytest.raises(ValueError, match="x must have shape"):
        self_attention(np.zeros(3), np.eye(3), np.eye(3), np.eye(3), causal=True)
    with pytest.raises(ValueError, match="w_k"):
        self_attention(np.zeros((2, 3)), np.eye(3), np.eye(2), np.eye(3), causal=True)


def test_causal_must_be_a_bool():
    with pytest.raises(TypeError, match="causal must be True or False"):
        self_attention(np.zeros((2, 3)), np.eye(3), np.eye(3), np.eye(3), causal="yes")
