"""Chapter "Absolute sinusoidal encoding" (rope_lib.teach.sinusoidal_encoding; both editions): the pair turns clockwise
and RoPE counter-clockwise; the report names each unchecked line for what it is; its figures, widget and check in both
languages. Its derivation is checked with the other chapters' in tests/test_derivations.py."""

import re

import numpy as np
import pytest

import rope_lib
from glyphs import assert_chinese_figure, assert_english_figure, drawn_words, has_chinese
from paths import ROOT
from rope_lib.teach import sinusoidal_encoding
from rope_lib.teach.exercises import check_walk_encoding
from rope_lib.teach.shared.displayed_equations import Page
from rope_lib.teach.sinusoidal_encoding import (
    plot_absolute_scores_under_shift,
    plot_sinusoidal_encoding,
    plot_sinusoidal_pair,
    sinusoidal_pair_widget,
)
from rope_lib.teach.tokens_and_attention import projection
from test_exercises import walk_encoding


# --- the derivation's claims ------------------------------------------------------------------------------------------

def test_the_sinusoidal_pair_turns_clockwise_and_rope_counter_clockwise():
    """The claim under eq. sin-shift: the same angle per position, opposite directions, from the coordinate order alone."""
    d, t = 16, 2
    w = rope_lib.inv_freq(d)[t]
    turn = lambda u, v: np.arctan2(u[0] * v[1] - u[1] * v[0], u @ v)  # noqa: E731  counter-clockwise > 0
    before, after = rope_lib.sinusoidal.sinusoidal_pair(3, t, d), rope_lib.sinusoidal.sinusoidal_pair(4, t, d)
    assert np.allclose(after, rope_lib.rotation.rotation_matrix_2d(-w) @ before) and np.isclose(turn(before, after), -w)
    assert np.allclose(after[::-1], rope_lib.rotation.rotation_matrix_2d(w) @ before[::-1])
    x = np.array([0.6, 0.8])
    block = rope_lib.rotation.rotary_matrix(1, d)[2 * t : 2 * t + 2, 2 * t : 2 * t + 2]
    assert np.allclose(block, rope_lib.rotation.rotation_matrix_2d(w)) and np.isclose(turn(x, block @ x), w)


UNCHECKED_KINDS = {"a definition": "定义", "the goal": "目标", "a statement whose proof is the text": "由正文证明的命题"}
"""What an unchecked line of a deriving chapter may be, as its reason begins, in English and Chinese (issue 36)."""


@pytest.mark.parametrize("book", ["book", "book/zh"])
def test_the_sinusoidal_report_says_what_kind_each_unchecked_line_is(book):
    """sin-additive and sin-encoding are definitions, and the page's report, in either edition, says so first."""
    lang = "zh" if book == "book/zh" else "en"
    for why in sinusoidal_encoding.UNCHECKED.values():
        assert why.en.startswith(tuple(f"{kind}: " for kind in UNCHECKED_KINDS)), why.en
        assert why.zh.startswith(tuple(f"{kind}：" for kind in UNCHECKED_KINDS.values())), why.zh
    assert set(sinusoidal_encoding.UNCHECKED) == {"sin-additive", "sin-encoding"}
    report = Page(ROOT / book / sinusoidal_encoding.CHAPTER, sinusoidal_encoding.CHECKS,
                  unchecked=sinusoidal_encoding.UNCHECKED, lang=lang).report()
    shown = report._repr_markdown_()
    for label in sinusoidal_encoding.UNCHECKED:
        kind = "a definition: " if lang == "en" else "定义："
        assert re.search(rf"{{eq}}`{label}`(: |：){kind}", shown), shown


# --- both languages: the figures, widget and check --------------------------------------------------------------------

def shifted_scores(lang):
    rng = np.random.default_rng(0)
    return plot_absolute_scores_under_shift(rng.standard_normal(8), rng.standard_normal(8), projection(8, 8, 1), projection(8, 8, 2),
                                            3, 1, range(10), lang=lang)


FIGURES = {
    "plot_sinusoidal_encoding": lambda lang: plot_sinusoidal_encoding(40, 16, lang=lang),
    "plot_sinusoidal_pair": lambda lang: plot_sinusoidal_pair(5, 1, 8, lang=lang),
    "plot_absolute_scores_under_shift": shifted_scores,
    "sinusoidal_pair_widget": lambda lang: sinusoidal_pair_widget(d=32, lang=lang).figure(m=9, i=12),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figures_have_chinese_words_and_every_glyph(name):
    fig = FIGURES[name]("zh")
    assert has_chinese(fig.axes[0].get_title()) or has_chinese(fig.axes[0].get_xlabel()), drawn_words(fig)
    assert_chinese_figure(fig)


@pytest.mark.parametrize("name", FIGURES)
def test_english_figures_stay_english_and_keep_their_numbers(name):
    en, zh = FIGURES[name]("en"), FIGURES[name]("zh")
    assert_english_figure(en)
    numbers = lambda words: set(re.findall(r"\d+(?:\.\d+)?", words))
    assert numbers(en.alt_text) == numbers(zh.alt_text)


@pytest.mark.parametrize("name", FIGURES)
def test_figures_refuse_an_unknown_language(name):
    with pytest.raises(ValueError, match="lang"):
        FIGURES[name]("fr")


def test_the_pair_title_keeps_its_math_in_english_and_its_unicode_in_chinese():
    assert plot_sinusoidal_pair(5, 1, 8).axes[0].get_title().startswith("pair i = 1, $\\theta_1$")
    assert plot_sinusoidal_pair(5, 1, 8, lang="zh").axes[0].get_title().startswith("第 i = 1 对，θ₁ = ")


def test_the_widget_labels_its_controls_in_chinese():
    widget = sinusoidal_pair_widget(lang="zh")
    assert widget.lang == "zh" and all(has_chinese(c.label) for c in widget.controls)
    assert [c.label for c in sinusoidal_pair_widget().controls] == ["position m", "pair i"]


def test_the_check_speaks_chinese_with_lang_zh():
    result = check_walk_encoding(walk_encoding, lang="zh")
    assert result and str(result).startswith("通过") and "两个固定种子的随机尺寸" in result.message
    assert check_walk_encoding(walk_encoding).message == (
        "walk_encoding matches rope_lib.sinusoidal.sinusoidal_encoding for 200 positions (d = 16), 50 positions (d = 8) and two seeded random sizes.")


def swapped(seq_len, d):
    table = walk_encoding(seq_len, d)
    return np.concatenate([table[:, 1::2], table[:, 0::2]], axis=1).reshape(seq_len, 2, d // 2).transpose(0, 2, 1).reshape(seq_len, d)


def from_one(seq_len, d):
    m = np.arange(seq_len)
    freqs = rope_lib.inv_freq(d) * 10000.0 ** (-2 / d)
    table = np.empty((seq_len, d))
    table[:, 0::2], table[:, 1::2] = np.sin(np.outer(m, freqs)), np.cos(np.outer(m, freqs))
    return table


def drifting(seq_len, d):
    table = walk_encoding(seq_len, d)
    table[3:] *= 1.01
    return table


@pytest.mark.parametrize("wrong, en, zh", [
    (swapped, "sin and cos swapped", "放反了"),
    (lambda n, d: walk_encoding(n, d, step_position=1), "direction", "方向"),
    (from_one, "frequencies", "从 0 开始数"),
    (lambda n, d: walk_encoding(n + 1, d)[1:], "off by one", "差了一位"),
    (lambda n, d: walk_encoding(n, d).astype(np.float32), "float32", "舍入误差"),
    (lambda n, d: walk_encoding(n, d)[:-1], "shape", "形状"),
    (drifting, "rows 0 to 2 are right", "第 0 到 2 行是对的"),
    (lambda n, d: walk_encoding(n, d)[:, ::-1] * 0 + 1, "row 0 must be p_0", "第 0 行必须是"),
], ids=["swapped", "direction", "frequencies", "off-by-one", "float32", "shape", "drift", "row-0"])
def test_each_hint_in_both_languages(wrong, en, zh):
    english, in_chinese = check_walk_encoding(wrong), check_walk_encoding(wrong, lang="zh")
    assert not english and en in english.message and not has_chinese(english.message), english.message
    assert not in_chinese and zh in in_chinese.message, in_chinese.message
    assert str(in_chinese).startswith("尚未通过")


def test_the_check_refuses_an_unknown_language():
    with pytest.raises(ValueError, match="lang"):
        check_walk_encoding(walk_encoding, lang="fr")
