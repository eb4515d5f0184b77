"""Chapter "Tokens and attention" (rope_lib.teach.tokens_and_attention; book/tokens_and_attention.md and its Chinese
page): the tokenizer, the embeddings and position-free attention, causal or not, against slow obvious references; its
figures, widget and check in both languages."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from glyphs import has_chinese, missing_glyphs
from rope_lib.teach import tokens_and_attention
from rope_lib.teach.exercises import check_attention_by_hand
from rope_lib.teach.tokens_and_attention import (
    attention_outputs,
    attention_scores,
    attention_weights_widget,
    build_vocab,
    causal_visibility as causal_mask,
    embed,
    embedding_table,
    is_permutation_equivariant,
    plot_attention_matrix,
    plot_attention_weights,
    projection,
    self_attention,
    softmax,
    token_ids,
    tokenize,
)
from test_exercises import attention_by_hand


# --- the tokenizer, the embeddings and position-free attention, against slow obvious references -----------------------

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


# --- causal attention without positions (self_attention(..., causal=True)), against slow references -------------------

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


# --- both languages: the figures, widget and check --------------------------------------------------------------------

def sentence():
    tokens = tokens_and_attention.tokenize("The cat sat on the mat because it was warm.")
    x = tokens_and_attention.embed(tokens_and_attention.token_ids(tokens, tokens_and_attention.build_vocab(tokens)), tokens_and_attention.embedding_table(len(set(tokens)), 8))
    _, weights = tokens_and_attention.self_attention(x, *(tokens_and_attention.projection(8, 8, seed=i) for i in range(3)))
    return tokens, weights


def labels(fig) -> list[str]:
    ax = fig.axes[0]
    return [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]


def test_the_chinese_figures_are_in_chinese_and_draw_every_glyph():
    tokens, weights = sentence()
    bars, heatmap = plot_attention_weights(tokens, weights, 2, lang="zh"), plot_attention_matrix(tokens, weights, lang="zh")
    for fig in (bars, heatmap):
        assert has_chinese(fig.alt_text) and all(has_chinese(w) for w in labels(fig)) and missing_glyphs(fig) == []
        assert not any("$" in w for w in labels(fig))  # mathtext has no Chinese glyphs
    assert labels(bars) == ["查询 2：'sat'", "键词元 n", "权重 a₂,ₙ"]
    assert labels(heatmap) == ["注意力权重 aₘ,ₙ", "键词元 n", "查询词元 m"]
    assert f"{weights[2].max():.2f}" in bars.alt_text and "11 个词元" in heatmap.alt_text


def test_the_english_figures_keep_their_words():
    tokens, weights = sentence()
    bars, heatmap = plot_attention_weights(tokens, weights, 2), plot_attention_matrix(tokens, weights)
    assert labels(bars) == ["query 2: 'sat'", "key token n", "weight $a_{2,n}$"]
    assert labels(heatmap) == ["attention weights $a_{m,n}$", "key token n", "query token m"]
    assert not has_chinese(bars.alt_text + heatmap.alt_text) and missing_glyphs(bars) == [] == missing_glyphs(heatmap)


def test_the_widget_speaks_chinese():
    tokens, weights = sentence()
    widget = attention_weights_widget(tokens, weights, lang="zh")
    assert widget.controls[0].label == "查询词元 m" and widget.lang == "zh"
    fig = widget.figure(query=3)
    assert fig.axes[0].get_title() == "查询 3：'on'" and missing_glyphs(fig) == []
    assert attention_weights_widget(tokens, weights).controls[0].label == "query token m"


def test_the_check_speaks_both_languages():
    passed = check_attention_by_hand(attention_by_hand, lang="zh")
    assert passed and "都与 rope_lib.self_attention 一致" in passed.message and str(passed).startswith("通过")
    assert check_attention_by_hand(attention_by_hand).message.startswith("attention_by_hand matches rope_lib.self_attention")
    unscaled = lambda *a: attention_by_hand(*a, scale=False)  # noqa: E731
    wrong = check_attention_by_hand(unscaled, lang="zh")
    assert not wrong and "缩放" in wrong.message and "√d_k" in wrong.message and "句子" in wrong.message
    assert "scaling — divide each score" in check_attention_by_hand(unscaled).message
    assert "返回了 None" in check_attention_by_hand(lambda *a: None, lang="zh").message


@pytest.mark.parametrize("call", [
    lambda: plot_attention_weights(*sentence(), 0, lang="fr"),
    lambda: plot_attention_matrix(*sentence(), lang="fr"),
    lambda: attention_weights_widget(*sentence(), lang="fr"),
    lambda: check_attention_by_hand(attention_by_hand, lang="fr"),
])
def test_an_unknown_language_is_refused(call):
    with pytest.raises(ValueError, match="lang"):
        call()


@pytest.mark.parametrize("page", ["book/tokens_and_attention.md", "book/zh/tokens_and_attention.md"])
def test_every_exercise_has_a_hint_and_the_page_says_where_each_encoding_acts(page):
    """Both editions: each exercise carries a dropdown hint, and the page contrasts an absolute encoding, added once at
    the input, with RoPE, applied inside every attention layer."""
    import re

    from paths import ROOT

    text = (ROOT / page).read_text()
    exercises = re.findall(r":::\{exercise\}.*?\n:::\n", text, flags=re.S)
    assert len(exercises) == 3
    assert all(re.search(r"```\{admonition\} (Hint|提示)\n:class: dropdown", e) for e in exercises)
    assert ("added once, at the input" in text and "applied inside every attention\nlayer" in text) or (
        "只在输入处加一次" in text and "在每一个注意力层内部起作用" in text)


def test_the_bar_chart_keeps_one_scale_for_every_query():
    """The widget's bars of every query share the axes of the default frame, tall enough for the largest weight of
    the whole matrix: picking another query moves the bars, not the axis."""
    tokens, weights = sentence()
    widget = attention_weights_widget(tokens, weights)
    limits = {(widget.figure(query=m).axes[0].get_xlim(), widget.figure(query=m).axes[0].get_ylim()) for m in range(len(tokens))}
    assert len(limits) == 1
    (_, (bottom, top)), = limits
    assert bottom == 0 and top > weights.max()


PAGES = ["book/tokens_and_attention.md", "book/zh/tokens_and_attention.md"]


@pytest.mark.parametrize("page", PAGES)
def test_each_listing_is_shown_once_and_no_output_names_a_label(page):
    """Issue 36: `self_attention` was listed twice, word for word, and the sympy cell printed the internal label
    "eq. (tok-equivariance) holds for all inputs". Each listing is now shown once; the sympy cell shows the equation
    it proves, Attention(PX) − P·Attention(X) = 0."""
    import re

    import jupytext

    from paths import ROOT

    text = (ROOT / page).read_text()
    listed = re.findall(r":pyobject: (\S+)", text)
    assert len(listed) == len(set(listed)) and "self_attention" in listed
    cells = [c for c in jupytext.read(ROOT / page).cells if c.cell_type == "code"]
    sympy_cell = next(c.source for c in cells if "symbolic_attention" in c.source)
    assert sympy_cell.splitlines()[-1].startswith("sp.Eq(") and "tok-equivariance" not in sympy_cell
    last_lines = [c.source.strip().splitlines()[-1] for c in cells if c.source.strip()]
    assert not [line for line in last_lines if re.search(r"""["'].*\b(tok|eq)-[a-z]""", line)]
