"""Tokens, embeddings and single-head attention without positions, chapter "Tokens and attention".

A sentence becomes tokens w_0 … w_{N−1} (the sequence S_N, positions counted from 0), each token an embedding
x_i from a seeded table (the matrix E_N), and attention turns them into outputs
o_m = Σ_n a_{m,n} v_n (RoFormer eqs. 1–2 with f_q(x_m, m) = W_q x_m: no position
enters). Everything is float64 numpy and deterministic, so the chapter can show
exactly what shuffling the tokens does.
"""

from __future__ import annotations

import re

import numpy as np

from .._validate import arguments, checked_by, refuse, require_bool, require_matrix_for, require_non_negative_int, require_positive_int, require_real

TOKEN_PATTERN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")
"""A word (letters and digits, with an optional 's or n't style ending) or one punctuation mark."""


def tokenize_arguments(a) -> None:
    if not isinstance(a["text"], str):
        refuse("text", "be a str", type(a["text"]).__name__, TypeError)
    if not a["text"].strip():  # every character but white space is a token or part of one
        refuse("text", "contain at least one word or punctuation mark", repr(a["text"]))


@checked_by(tokenize_arguments)
def tokenize(text: str) -> list[str]:
    """w_0 … w_{N−1}: the lower-cased words and punctuation marks of
    `text`, in order.

    Deliberately tiny and deterministic (no downloads): real models use
    learned sub-word vocabularies, but attention only ever sees the
    resulting list.
    """
    return TOKEN_PATTERN.findall(text.lower())


def build_vocab(tokens) -> dict[str, int]:
    """Each distinct token gets the next id in order of first appearance."""
    vocab: dict[str, int] = {}
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"tokens must be strings, got {type(token).__name__} {token!r}")
        vocab.setdefault(token, len(vocab))
    return vocab


def token_ids(tokens, vocab: dict[str, int]) -> np.ndarray:
    """The id of each token, shape (N,); a token missing from `vocab` is named in the error."""
    missing = [token for token in tokens if token not in vocab]
    if missing:
        raise ValueError(f"tokens must all be in vocab, missing {missing[:5]!r}")
    return np.array([vocab[token] for token in tokens], dtype=np.int64)


@checked_by(arguments(vocab_size=require_positive_int, d=require_positive_int, seed=require_non_negative_int))
def embedding_table(
    vocab_size: int, d: int, seed: int = 0
) -> np.ndarray:
    """A (vocab_size, d) table of embeddings drawn from N(0, 1): row i
    is the vector of token id i.

    A trained model learns this table; a seeded random one is enough to
    show what attention does with it.
    """
    return np.random.default_rng(seed).standard_normal((vocab_size, d))


def embed(ids, table: np.ndarray) -> np.ndarray:
    """E_N: the embeddings x_0 … x_{N−1} of the tokens as rows, (N,) ids → (N, d)."""
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"ids must be a 1-D array of integer token ids, got dtype {ids.dtype} and shape {ids.shape}")
    if ids.size and (ids.min() < 0 or ids.max() >= len(table)):
        raise ValueError(f"ids must lie in [0, {len(table)}) (the rows of table), got values from {ids.min()} to {ids.max()}")
    return table[ids]  # (N, d)


def projection(d_in: int, d_out: int, seed: int) -> np.ndarray:
    """A seeded (d_out, d_in) matrix W with entries N(0, 1/d_in), so that W x keeps the scale of x."""
    require_positive_int(d_in, "d_in"), require_positive_int(d_out, "d_out")
    return np.random.default_rng(seed).standard_normal((d_out, d_in)) / np.sqrt(d_in)


def attention_scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """s_{m,n} = q_m·k_n / √d for every query row m and key row n: (N, d), (M, d) → (N, M)."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k must be (N, d) and (M, d) with one d, got shapes {q.shape} and {k.shape}")
    return q @ k.T / np.sqrt(q.shape[1])  # (N, M)


def softmax(scores: np.ndarray) -> np.ndarray:
    """a_{m,n} = exp(s_{m,n}) / Σ_j exp(s_{m,j}) along the last axis; each row sums to 1.

    The row maximum is subtracted first: the result is unchanged and exp never overflows.
    """
    scores = np.asarray(scores, dtype=np.float64)
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def attention_outputs(weights: np.ndarray, v: np.ndarray) -> np.ndarray:
    """o_m = Σ_n a_{m,n} v_n (RoFormer eq. 2): (N, M) weights, (M, d_v) values → (N, d_v)."""
    weights, v = np.asarray(weights, dtype=np.float64), np.asarray(v, dtype=np.float64)
    if weights.ndim != 2 or v.ndim != 2 or weights.shape[1] != v.shape[0]:
        raise ValueError(f"weights (N, M) and v (M, d_v) must share M, got shapes {weights.shape} and {v.shape}")
    return weights @ v  # (N, d_v)


def causal_visibility(n_tokens: int) -> np.ndarray:
    """(N, N) booleans, True where query m may see key n, that is n ≤ m (the lower triangle)."""
    require_positive_int(n_tokens, "n_tokens")
    return np.tril(np.ones((n_tokens, n_tokens), dtype=bool))


def self_attention_arguments(a) -> None:
    if np.ndim(a["x"]) != 2:
        refuse("x", "have shape (N, d)", f"{np.ndim(a['x'])} dimensions {np.shape(a['x'])}")
    for name in ("w_q", "w_k", "w_v"):
        require_matrix_for(a[name], np.shape(a["x"])[1], name)


@checked_by(arguments(causal=require_bool), self_attention_arguments)
def self_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    *,
    causal: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """One head with no position information: q_m = W_q x_m,
    k_n = W_k x_n, v_n = W_v x_n.

    x (N, d) → (outputs (N, d_v), weights (N, N)). Nothing here knows
    where a token sits, which is the point of chapter "Tokens and
    attention". causal=True: query m weighs only the keys n ≤ m (a
    decoder's mask), so the outputs depend on the order; the score of a
    visible pair is still (W_q x_m)·(W_k x_n).
    """
    x, w_q, w_k, w_v = map(np.asarray, (x, w_q, w_k, w_v))  # lists too
    q = x @ w_q.T  # (N, d_k)
    k = x @ w_k.T  # (N, d_k)
    v = x @ w_v.T  # (N, d_v)
    scores = attention_scores(q, k)  # (N, N)
    if causal:  # a key after the query scores −∞: weight e^(−∞) = 0
        seen = causal_visibility(len(x))  # n ≤ m: the diagonal is seen
        scores = np.where(seen, scores, -np.inf)
    weights = softmax(scores)
    return attention_outputs(weights, v), weights


def is_permutation_equivariant_arguments(a) -> None:
    if not callable(a["layer"]):
        refuse("layer", "be a function of the rows x", type(a["layer"]).__name__, TypeError)
    if sorted(np.asarray(a["perm"]).tolist()) != list(range(len(a["x"]))):
        refuse("perm", f"be a permutation of range({len(a['x'])})", f"{np.asarray(a['perm']).tolist()!r:.80}")


@checked_by(is_permutation_equivariant_arguments, arguments(atol=require_real))
def is_permutation_equivariant(
    layer, x: np.ndarray, perm, atol: float = 1e-12
) -> bool:
    """Whether layer(x[perm]) equals layer(x)[perm]: shuffling the
    inputs only shuffles the outputs.

    `layer` maps (N, d) rows to (N, d_out) rows; `perm` must be a
    permutation of range(N).
    """
    x, perm = np.asarray(x), np.asarray(perm)  # lists too
    shuffled_in = layer(x[perm])
    shuffled_out = layer(x)[perm]
    return bool(np.allclose(shuffled_in, shuffled_out, rtol=0, atol=atol))
