"""The tokenizer, the embeddings and position-free attention, against slow obvious references."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rope_lib.teach.tokens_and_attention import (
    attention_outputs,
    attention_scores,
    build_vocab,
    embed,
    embedding_table,
    is_permutation_equivariant,
    projection,
    self_attention,
    softmax,
    token_ids,
    tokenize,
)


def test_tokenize_splits_words_and_punctuation_in_lower_case():
    assert tokenize("The dog bites the man.") == ["the", "dog", "bites", "the", "man", "."]
    assert tokenize("It's 2 o'clock, isn't it?") == ["it's", "2", "o'clock", ",", "isn't", "it", "?"]
    assert tokenize("  Dog\tBITES\nman  ") == ["dog", "bites", "man"]


def test_vocab_numbers_tokens_in_order_of_first_appearance():
    vocab = build_vocab(tokenize("the cat saw the dog"))
    assert vocab == {"the": 0, "cat": 1, "saw": 2, "dog": 3}
    np.testing.assert_array_equal(token_ids(["dog", "the", "the"], vocab), [3, 0, 0])


def test_embedding_table_is_seeded_and_embed_picks_rows():
    a, b = embedding_table(5, 4, seed=3), embedding_table(5, 4, seed=3)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, embedding_table(5, 4, seed=4))
    np.testing.assert_array_equal(embed(np.array([2, 0, 2]), a), a[[2, 0, 2]])


def test_projection_is_seeded_and_scaled():
    w = projection(400, 300, seed=1)
    assert w.shape == (300, 400)
    np.testing.assert_allclose(w.std(), 1 / math.sqrt(400), rtol=0.02)
    np.testing.assert_array_equal(w, projection(400, 300, seed=1))


def slow_attention(x, w_q, w_k, w_v):
    """The textbook sums, one query at a time."""
    n, d = len(x), w_q.shape[0]
    q, k, v = [w_q @ xi for xi in x], [w_k @ xi for xi in x], [w_v @ xi for xi in x]
    outputs, weights = [], []
    for m in range(n):
        s = [sum(q[m][j] * k[i][j] for j in range(d)) / math.sqrt(d) for i in range(n)]
        e = [math.exp(si) for si in s]
        a = [ei / sum(e) for ei in e]
        weights.append(a)
        outputs.append(sum(a[i] * v[i] for i in range(n)))
    return np.array(outputs), np.array(weights)


@given(st.integers(1, 7), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_self_attention_matches_the_slow_sums(n, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    w_q, w_k, w_v = (projection(d, d, seed=seed + i) for i in range(3))
    outputs, weights = self_attention(x, w_q, w_k, w_v)
    slow_outputs, slow_weights = slow_attention(x, w_q, w_k, w_v)
    np.testing.assert_allclose(weights, slow_weights, atol=1e-12)
    np.testing.assert_allclose(outputs, slow_outputs, atol=1e-12)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)


def test_scores_softmax_and_outputs_one_by_one():
    q, k = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(attention_scores(q, k), np.array([[1, 2, 0], [2, 0, 0]]) / math.sqrt(2))
    np.testing.assert_allclose(softmax(np.array([0.0, math.log(3.0)])), [0.25, 0.75])
    np.testing.assert_allclose(softmax(np.array([1000.0, 1000.0])), [0.5, 0.5])  # no overflow
    np.testing.assert_allclose(attention_outputs(np.array([[0.25, 0.75]]), np.array([[4.0], [8.0]])), [[7.0]])


@given(st.permutations(list(range(6))), st.integers(0, 2**31 - 1))
def test_attention_without_positions_is_permutation_equivariant(perm, seed):
    x = np.random.default_rng(seed).standard_normal((6, 4))
    w = [projection(4, 4, seed=seed + i) for i in range(3)]
    assert is_permutation_equivariant(lambda rows: self_attention(rows, *w)[0], x, perm)


def test_the_equivariance_check_can_fail():
    x = np.random.default_rng(0).standard_normal((4, 3))
    with_positions = lambda rows: rows + np.arange(len(rows))[:, None]  # adds each row's index
    assert not is_permutation_equivariant(with_positions, x, [1, 0, 2, 3])
    assert is_permutation_equivariant(with_positions, x, [0, 1, 2, 3])


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="text must be a str"):
        tokenize(["dog"])
    with pytest.raises(ValueError, match="text must contain at least one word"):
        tokenize("   ")
    with pytest.raises(TypeError, match="tokens must be strings"):
        build_vocab(["a", 1])
    with pytest.raises(ValueError, match=r"tokens must all be in vocab, missing \['cat'\]"):
        token_ids(["dog", "cat"], {"dog": 0})
    with pytest.raises(ValueError, match="vocab_size must be a positive integer"):
        embedding_table(0, 4)
    with pytest.raises(TypeError, match="ids must be a 1-D array of integer token ids"):
        embed(np.array([0.5]), embedding_table(3, 2))
    with pytest.raises(ValueError, match=r"ids must lie in \[0, 3\)"):
        embed(np.array([3]), embedding_table(3, 2))
    with pytest.raises(TypeError, match="d_out must be an int"):
        projection(4, 2.0, seed=0)
    with pytest.raises(ValueError, match="q and k must be"):
        attention_scores(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="weights .* and v .* must share M"):
        attention_outputs(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="x must have shape"):
        self_attention(np.ones(3), np.eye(3), np.eye(3), np.eye(3))
    with pytest.raises(ValueError, match=r"w_k must have shape \(d_out, 3\)"):
        self_attention(np.ones((2, 3)), np.eye(3), np.eye(2), np.eye(3))
    with pytest.raises(ValueError, match="perm must be a permutation of range"):
        is_permutation_equivariant(lambda rows: rows, np.ones((3, 2)), [0, 0, 1])
