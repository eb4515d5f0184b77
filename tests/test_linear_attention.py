"""RoPE with linear attention (RoFormer eq. 19), rope_lib.teach.linear_attention: the linear form against the weights
written out one rotation matrix at a time; relative positions kept (a shift of every position changes nothing, a shift
of the queries alone does); the causal running sums against the causal weights; the unrotated denominator; bad input."""

import numpy as np
import pytest
import torch

from rope_lib.teach.rope_variants import elu_feature_map, rope_linear_attention, rope_linear_attention_weights


def inputs(seed=0, tokens=10, d=8, d_v=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((tokens, d)), rng.standard_normal((tokens, d)), rng.standard_normal((tokens, d_v))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seed, tokens, d, base", [(0, 10, 8, 10000.0), (1, 7, 2, 10.0), (2, 16, 16, 500000.0), (3, 1, 4, 10000.0)])
def test_the_linear_form_is_the_weights_written_out(causal, seed, tokens, d, base):
    q, k, v = inputs(seed, tokens, d)
    positions = np.random.default_rng(seed).integers(0, 5000, tokens)
    fast = rope_linear_attention(q, k, v, positions, base=base, causal=causal)
    weights = rope_linear_attention_weights(q, k, positions, base=base, causal=causal)
    np.testing.assert_allclose(fast, weights @ v, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_a_shift_of_every_position_changes_nothing_and_a_shift_of_the_queries_does(causal):
    q, k, v = inputs(4, 12, 16)
    positions = np.arange(12)
    out = rope_linear_attention(q, k, v, positions, causal=causal)
    for shift in (1, 37, 10**6):
        np.testing.assert_allclose(rope_linear_attention(q, k, v, positions + shift, causal=causal), out, rtol=0, atol=1e-9)
        np.testing.assert_allclose(rope_linear_attention_weights(q, k, positions + shift, causal=causal),
                                   rope_linear_attention_weights(q, k, positions, causal=causal), rtol=0, atol=1e-9)
    # the same shift on the queries alone is a new distance for every pair: the check can fail
    turned_q = rope_linear_attention_weights(q, k, positions, causal=causal)
    shifted_queries = _weights_with_query_shift(q, k, positions, 5, causal)
    assert np.abs(shifted_queries - turned_q).max() > 1e-3


def _weights_with_query_shift(q, k, positions, shift, causal):
    """The weights with the queries rotated to positions + shift and the keys left where they were."""
    from rope_lib.rotation import rotary_matrix

    phi_q, phi_k = elu_feature_map(q), elu_feature_map(k)
    tokens, d = q.shape
    weights = np.zeros((tokens, tokens))
    for m in range(tokens):
        seen = range(m + 1) if causal else range(tokens)
        denominator = sum(phi_q[m] @ phi_k[j] for j in seen)
        for n in seen:
            weights[m, n] = (rotary_matrix(positions[m] + shift, d) @ phi_q[m]) @ (rotary_matrix(positions[n], d) @ phi_k[n]) / denominator
    return weights


def test_the_causal_running_sums_see_only_earlier_tokens():
    q, k, v = inputs(5, 9, 8)
    positions = np.arange(100, 109)
    out = rope_linear_attention(q, k, v, positions, causal=True)
    changed = v.copy()
    changed[6:] += 10.0  # later values move; outputs 0 … 5 must not
    moved = rope_linear_attention(q, k, changed, positions, causal=True)
    np.testing.assert_array_equal(moved[:6], out[:6])
    assert np.abs(moved[6:] - out[6:]).max() > 1e-3
    weights = rope_linear_attention_weights(q, k, positions, causal=True)
    assert np.all(np.triu(weights, 1) == 0)
    assert not np.allclose(out, rope_linear_attention(q, k, v, positions))  # causal and not differ


def test_the_denominator_stays_unrotated():
    """Without rotation (every token at one position) the weights are positive and sum to 1; with it some are
    negative and the sums drift from 1. Rotating the denominator too would make every sum 1 again: not RoFormer's form."""
    q, k, v = inputs(0, 12, 8)
    plain = rope_linear_attention_weights(q, k, np.full(12, 7))
    assert (plain > 0).all()
    np.testing.assert_allclose(plain.sum(axis=1), 1.0, rtol=1e-12)
    weights = rope_linear_attention_weights(q, k, np.arange(12))
    assert (weights < 0).any() and np.abs(weights.sum(axis=1) - 1).max() > 0.1
    rotated_denominator = weights / weights.sum(axis=1, keepdims=True)
    assert not np.allclose(rope_linear_attention(q, k, v, np.arange(12)), rotated_denominator @ v)


def test_the_feature_map_is_elu_plus_one():
    x = np.array([-30.0, -1.0, 0.0, 0.5, 3.0])
    np.testing.assert_allclose(elu_feature_map(x), torch.nn.functional.elu(torch.from_numpy(x)).numpy() + 1, rtol=1e-15, atol=1e-15)
    assert (elu_feature_map(x) > 0).all()


def test_tensors_and_ranges_are_read():
    q, k, v = inputs(6, 5, 4)
    out = rope_linear_attention(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), range(5), causal=True)
    np.testing.assert_allclose(out, rope_linear_attention(q, k, v, np.arange(5), causal=True), rtol=1e-15)


Q, K, V = inputs(7, 4, 4)


@pytest.mark.parametrize("call, error, words", [
    (lambda: rope_linear_attention(Q[:, :3], K[:, :3], V, range(4)), ValueError, "positive even"),
    (lambda: rope_linear_attention(Q, K[:3], V, range(4)), ValueError, "q and k must have one shape"),
    (lambda: rope_linear_attention(Q[0], K[0], V, range(4)), ValueError, "q must have shape"),
    (lambda: rope_linear_attention(Q, K, V[:3], range(4)), ValueError, "v must have one row per token"),
    (lambda: rope_linear_attention(Q, K, V, [0.0, 1.0, 2.0, 3.0]), TypeError, "positions must hold integers"),
    (lambda: rope_linear_attention(Q, K, V, range(3)), ValueError, "positions must have shape"),
    (lambda: rope_linear_attention(Q * np.nan, K, V, range(4)), ValueError, "q must hold finite"),
    (lambda: rope_linear_attention(Q, K, V + 1j, range(4)), TypeError, "v must hold real"),
    (lambda: rope_linear_attention(Q, K, V, range(4), base=1.0), ValueError, "base"),
    (lambda: rope_linear_attention(Q, K, V, range(4), causal="yes"), TypeError, "causal"),
    (lambda: rope_linear_attention(Q, K, V, range(4), feature_map=lambda x: x), ValueError, "feature_map must give finite numbers above 0"),
    (lambda: rope_linear_attention(Q, K, V, range(4), feature_map=lambda x: np.exp(x)[:, :2]), ValueError, "feature_map must keep the shape"),
    (lambda: rope_linear_attention(Q, K, V, range(4), feature_map="elu"), TypeError, "feature_map must be a function"),
    (lambda: rope_linear_attention_weights(Q, K, [0, 1, 2]), ValueError, "positions must have shape"),
    (lambda: rope_linear_attention_weights(Q, K, range(4), feature_map=np.negative), ValueError, "feature_map"),
])
def test_bad_input_is_refused_by_name(call, error, words):
    with pytest.raises(error, match=words):
        call()
