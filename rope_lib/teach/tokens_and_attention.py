"""Chapter "Tokens and attention" (book/tokens_and_attention.md): tokens, embeddings and single-head attention
without positions, its figures and interactive figure, and the auto-check of its exercise.

A sentence becomes tokens w_0 … w_{N−1} (the sequence S_N, positions counted from 0), each token an embedding
x_i from a seeded table (the matrix E_N), and attention turns them into outputs
o_m = Σ_n a_{m,n} v_n (RoFormer eqs. 1–2 with f_q(x_m, m) = W_q x_m: no position
enters). Everything is float64 numpy and deterministic, so the chapter can show
exactly what shuffling the tokens does. "Absolute sinusoidal encoding" takes its projections from `projection`.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np
from matplotlib.figure import Figure

from .._validate import arguments, checked_by, refuse, require_bool, require_matrix_for, require_non_negative_int, require_positive_int, require_real
from .shared.checking import CheckResult, allclose_within, answer_array, call_student, case_seed, diagnose, mismatch, run_check
from .shared.figure_style import SEQUENTIAL_CMAP, new_figure, series_style, subscript
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text

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


# --- figures: the weights a_{m,n} of one query, and of all of them ----------------------------------------------------

LOWEST_TOP = 0.5
"""The bar chart's vertical axis reaches at least 0.5, so that small weights look small."""

HEADROOM = 1.15
"""Room above the tallest bar of the whole matrix, 15 %."""


def _check_weights(tokens, weights) -> np.ndarray:
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != len(tokens):
        raise ValueError(f"weights must have shape (N, {len(tokens)}) (one column per token), got {weights.shape}")
    return weights


def plot_attention_weights(tokens, weights, query: int, *, lang: str = "en") -> Figure:
    """Bar chart of row `query` of the attention weights: how much each key token contributes to o_m.

    The vertical axis holds the largest weight of the whole matrix, whichever row is drawn, so that the rows of one
    sentence share one scale: picking another query moves the bars, not the axis."""
    require_language(lang)
    weights = _check_weights(tokens, weights)
    if not 0 <= query < len(weights):
        raise ValueError(f"query must be a row index in [0, {len(weights)}), got {query}")
    row = weights[query]
    top = int(np.argmax(row))
    fig = new_figure(
        text(
            lang,
            en=f"Bar chart of the attention weights of query token {query} ('{tokens[query]}') over the {len(tokens)} key "
            f"tokens of the sentence, labelled on the horizontal axis. The weights sum to {row.sum():.2f}; the largest, "
            f"{row[top]:.2f}, goes to token {top} ('{tokens[top]}'). The query's own bar is hatched.",
            zh=f"柱状图：第 {query} 个查询词元（'{tokens[query]}'）在句子全部 {len(tokens)} 个键词元上的注意力权重，"
            f"横轴标出各个词元。权重之和为 {row.sum():.2f}；最大的权重 {row[top]:.2f} 落在第 {top} 个词元（'{tokens[top]}'）上。"
            f"查询自己的那根柱子带斜线阴影。",
        ),
        figsize=(5.2, 3.6),
    )
    ax = fig.add_subplot()
    style = series_style(0)
    bars = ax.bar(np.arange(len(tokens)), row, color=style["color"], edgecolor="black", linewidth=0.6)
    bars[query].set_hatch("//")
    bars[query].set_facecolor(series_style(1)["color"])
    ax.set_xticks(np.arange(len(tokens)), [f"{i}:{t}" for i, t in enumerate(tokens)], rotation=45, ha="right", fontsize=8)
    ax.set_ylim(0, max(LOWEST_TOP, weights.max() * HEADROOM))
    ax.set_xlabel(text(lang, en="key token n", zh="键词元 n"))
    ax.set_ylabel(text(lang, en=f"weight $a_{{{query},n}}$", zh=f"权重 a{subscript(f'{query},n')}"))
    ax.set_title(text(lang, en=f"query {query}: '{tokens[query]}'", zh=f"查询 {query}：'{tokens[query]}'"))
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def plot_attention_matrix(tokens, weights, *, lang: str = "en") -> Figure:
    """Heatmap of all weights a_{m,n}: row m is the query token, column n the key token; rows sum to 1."""
    require_language(lang)
    weights = _check_weights(tokens, weights)
    fig = new_figure(
        text(
            lang,
            en=f"Heatmap of the attention weights of a sentence of {len(tokens)} tokens: rows are query tokens m, columns "
            f"are key tokens n, both labelled with the token text. Each row sums to 1; the weights range from "
            f"{weights.min():.2f} to {weights.max():.2f}.",
            zh=f"热力图：一个含 {len(tokens)} 个词元的句子的注意力权重。行是查询词元 m，列是键词元 n，行列都标有词元文本。"
            f"每行之和为 1；权重从 {weights.min():.2f} 到 {weights.max():.2f} 不等。",
        ),
        figsize=(5.2, 4.4),
    )
    ax = fig.add_subplot()
    image = ax.imshow(weights, cmap=SEQUENTIAL_CMAP, vmin=0)
    labels = [f"{i}:{t}" for i, t in enumerate(tokens)]
    ax.set_xticks(np.arange(len(tokens)), labels, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(np.arange(len(weights)), labels[: len(weights)], fontsize=8)
    ax.set_xlabel(text(lang, en="key token n", zh="键词元 n"))
    ax.set_ylabel(text(lang, en="query token m", zh="查询词元 m"))
    ax.set_title(text(lang, en="attention weights $a_{m,n}$", zh=f"注意力权重 a{subscript('m,n')}"))
    fig.colorbar(image, ax=ax, label=text(lang, en="weight", zh="权重"))
    return fig


MAX_TOKENS = 12
"""One pre-rendered frame per token on the website: keep sentences short."""


def attention_weights_widget(tokens, weights, *, lang: str = "en") -> InteractiveFigure:
    """Pick a query token m; the bars are its weights a_{m,n} over every key token n."""
    require_language(lang)
    tokens = list(tokens)
    if not 2 <= len(tokens) <= MAX_TOKENS:
        raise ValueError(f"tokens must hold 2 to {MAX_TOKENS} tokens (one frame each), got {len(tokens)}")
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (len(tokens), len(tokens)):
        raise ValueError(f"weights must have shape ({len(tokens)}, {len(tokens)}), got {weights.shape}")
    query = Control("query", text(lang, en="query token m", zh="查询词元 m"), tuple(range(len(tokens))), 0, fmt=lambda i: f"{i}: {tokens[i]}", choice=True)
    return InteractiveFigure(partial(plot_attention_weights, tokens, weights, lang=lang), (query,), lang=lang)


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

def check_attention_by_hand(attention_by_hand, *, lang: str = "en") -> CheckResult:
    """Exercise tok-ex-loop: `attention_by_hand(x, w_q, w_k, w_v)` returns the outputs o_m of one head, shape (N, d_v)."""

    require_language(lang)

    def body(fn):
        rose = tokenize("A rose is a rose is a rose.")
        sentence = embed(token_ids(rose, build_vocab(rose)), embedding_table(len(build_vocab(rose)), 8, seed=3))
        cases = [
            (text(lang, en="the sentence 'A rose is a rose is a rose.' (N = 9, d = 8, d_v = 8)",
                  zh="句子 'A rose is a rose is a rose.'（N = 9，d = 8，d_v = 8）"), sentence,
             projection(8, 8, seed=1), projection(8, 8, seed=2), projection(8, 8, seed=4)),
            (text(lang, en="random x with N = 4, d = 6, d_k = 4, d_v = 3", zh="随机的 x，N = 4，d = 6，d_k = 4，d_v = 3"), np.random.default_rng(1).standard_normal((4, 6)),
             projection(6, 4, seed=5), projection(6, 4, seed=6), projection(6, 3, seed=7)),
        ]
        rng = np.random.default_rng(2)
        n_tok, d, d_k, d_v = (int(v) for v in rng.integers(2, 7, size=4))
        seed = case_seed(rng)
        sizes = {"x": (d, n_tok), "w_q": (d, d_k), "w_k": (d, d_k), "w_v": (d, d_v)}
        made = {name: projection(d_in, d_out, seed=seed + j) for j, (name, (d_in, d_out)) in enumerate(sizes.items())}
        cases.append(("x, w_q, w_k, w_v = " + ", ".join(f"teach.projection({a}, {b}, seed={seed + j})" for j, (a, b) in enumerate(sizes.values())),
                      *made.values()))
        close = allclose_within(1e-9)
        for name, x, w_q, w_k, w_v in cases:
            call = text(lang, en=f"attention_by_hand on {name}", zh=f"attention_by_hand 在{name}上")
            expected, weights = self_attention(x, w_q, w_k, w_v)
            got = answer_array(call_student(fn, call, x, w_q, w_k, w_v), call, expected.shape)
            if close(got, expected):
                continue
            q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
            diagnose(got, [
                (lambda: attention_outputs(softmax(q @ k.T), v),
                 Words(f"{call}: scaling — divide each score q_m·k_n by √d_k (d_k = {w_q.shape[0]}) before the softmax",
                       f"{call}：缩放——在 softmax 之前，要把每个得分 q_m·k_n 除以 √d_k（d_k = {w_q.shape[0]}）")),
                (lambda: attention_outputs(softmax(q @ k.T / w_q.shape[0]), v),
                 Words(f"{call}: scaling — the scores are divided by √d_k, not by d_k",
                       f"{call}：缩放——得分要除以 √d_k，而不是 d_k")),
                (lambda: attention_outputs(softmax((q @ k.T / np.sqrt(w_q.shape[0])).T).T, v),
                 Words(f"{call}: normalisation — each query's weights a_(m,n) must sum to 1 over the keys n, not over the queries",
                       f"{call}：归一化——每个查询的权重 a_(m,n) 应当对键 n 求和为 1，而不是对查询求和")),
                (lambda: attention_outputs(weights.T, v),
                 Words(f"{call}: indices — o_m sums a_(m,n)·v_n over n; your sum runs over the wrong index of a",
                       f"{call}：下标——o_m 是 a_(m,n)·v_n 对 n 求和；你的求和用错了 a 的下标")),
            ], close)
            row = int(np.abs(got - expected).max(axis=1).argmax())
            raise mismatch(call, got, expected, Words("the values weighted by softmax(q·k/√d_k)", "按 softmax(q·k/√d_k) 加权的值"),
                           Words(f"look at output o_{row} (token {row}) first", f"先看输出 o_{row}（第 {row} 个词元）"))

    return run_check("tok-ex-loop", attention_by_hand, body,
                     Words("attention_by_hand matches rope_lib.self_attention on the rose sentence, on a rectangular head and on a seeded random head.",
                           "attention_by_hand 在 rose 句子、一个非方阵的注意力头和一个固定种子的随机注意力头上，都与 rope_lib.self_attention 一致。"),
                     lang)
