"""Chapter "Tokens and attention" in both languages: its figures, widget and check speak Chinese with lang="zh",
draw every glyph, keep their English by default, and refuse a language the book is not written in."""

import pytest

from glyphs import has_chinese, missing_glyphs
from rope_lib.teach import tokens_and_attention
from rope_lib.teach.exercises import check_attention_by_hand
from rope_lib.teach.tokens_and_attention import plot_attention_matrix, plot_attention_weights
from rope_lib.teach.tokens_and_attention import attention_weights_widget
from test_exercises import attention_by_hand


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
