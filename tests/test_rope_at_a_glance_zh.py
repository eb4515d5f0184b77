"""The chapter "RoPE at a glance" in both languages: its score grid, wavelength explorer and exercise check speak
Chinese with lang="zh", draw every glyph, keep their English by default, and refuse a language the book does not have."""

import re

import numpy as np
import pytest

from glyphs import assert_chinese_figure, assert_english_figure, has_chinese
from paths import ROOT
from rope_lib import rotary_matrix
from rope_lib.teach.exercises import check_rope_pairs
from rope_lib.teach.plotting.scores import plot_score_grid
from rope_lib.teach.widgets.frequencies import wavelength_explorer
from test_exercises import rope_pairs

RNG = np.random.default_rng(0)
Q, K = RNG.standard_normal(16), RNG.standard_normal(16)

FIGURES = {
    "plot_score_grid": lambda lang: plot_score_grid(Q, K, range(12), lang=lang),
    "wavelength_explorer": lambda lang: wavelength_explorer(lang=lang).figure(d=64, base=500000.0),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figure_has_chinese_words_and_every_glyph(name):
    assert_chinese_figure(FIGURES[name]("zh"))


@pytest.mark.parametrize("name", FIGURES)
def test_english_figure_is_unchanged_by_default(name):
    assert_english_figure(FIGURES[name]("en"))


@pytest.mark.parametrize("name", FIGURES)
def test_an_unknown_language_is_refused(name):
    with pytest.raises(ValueError, match="lang"):
        FIGURES[name]("fr")


def test_score_grid_words_in_each_language():
    english, chinese = plot_score_grid(Q, K, range(12)), plot_score_grid(Q, K, range(12), lang="zh")
    assert english.alt_text.startswith("Heatmap of the score between a query rotated to position m (rows)")
    assert english.axes[0].get_xlabel() == "key position n" and chinese.axes[0].get_xlabel() == "键的位置 n"
    assert chinese.axes[0].get_title() == "得分 ⟨R_m q, R_n k⟩" and chinese.alt_text.startswith("热力图")


def test_wavelength_explorer_labels_its_controls_and_caption_in_chinese():
    widget = wavelength_explorer(lang="zh")
    assert [c.label for c in widget.controls] == ["头维度 d", "底数"]
    assert widget.print_caption().startswith("在线版中可交互") and "波长" in widget.figure().alt_text
    assert [c.label for c in wavelength_explorer().controls] == ["head dimension d", "base"]
    assert wavelength_explorer().figure().alt_text.startswith("Line chart on a logarithmic vertical axis")


def test_check_rope_pairs_speaks_chinese(capsys):
    passed = check_rope_pairs(rope_pairs, lang="zh")
    assert passed and passed.message.startswith("rope_pairs 与 R^d_(Θ,m)·x 一致") and "通过" in capsys.readouterr().out
    assert check_rope_pairs(rope_pairs).message == ("rope_pairs matches R^d_(Θ,m)·x for d = 8, 16 and 32, positions 0 to 10^6, "
                                                    "base 500000 and three seeded random cases.")
    wrong = {
        "clockwise": (lambda x, m, base=10000.0: rope_pairs(x, -m, base), "顺时针", "direction"),
        "half layout": (lambda x, m, base=10000.0: rotary_matrix(m, len(x), base, layout="half") @ x, "半分布局", "half layout"),
        "ignores base": (lambda x, m, base=10000.0: rope_pairs(x, m), "底数", "base"),
        "scaled": (lambda x, m, base=10000.0: 2 * rope_pairs(x, m, base), "原样返回", "unchanged"),
        "float32": (lambda x, m, base=10000.0: rope_pairs(x.astype(np.float32), np.float32(m), np.float32(base)).astype(np.float64),
                    "float64", "float64"),
        "shape": (lambda x, m, base=10000.0: rope_pairs(x, m, base)[:-1], "形状", "shape"),
    }
    for name, (function, zh, en) in wrong.items():
        chinese, english = check_rope_pairs(function, lang="zh"), check_rope_pairs(function)
        assert not chinese and zh in chinese.message and has_chinese(chinese.message), (name, chinese.message)
        assert not english and en in english.message and not has_chinese(english.message), (name, english.message)
    with pytest.raises(ValueError, match="lang"):
        check_rope_pairs(rope_pairs, lang="fr")


@pytest.mark.parametrize("page", ["book/rope_at_a_glance.md", "book/zh/rope_at_a_glance.md"])
def test_the_page_says_a_larger_d_stretches_the_longest_wavelength(page):
    """Both editions: a larger d keeps the shortest wavelength at 2π and stretches the longest towards 2π·base, with
    the numbers glued from rope_lib.wavelengths, where the page once said it "keeps the same range"."""
    text = (ROOT / page).read_text()
    code = "\n".join(re.findall(r"```\{code-cell\}.*?\n```", text, flags=re.S))
    prose = re.sub(r"```\{code-cell\}.*?\n```", "", text, flags=re.S)
    assert "same range" not in prose and "范围不变" not in prose and "范围几乎不变" not in prose
    sentence = prose[prose.index("glance_longest_small_d") - 400 : prose.index("glance_longest_limit") + 40]
    assert r"2\pi\cdot\text{base}^{(d-2)/d}" in sentence
    assert r"towards $2\pi\cdot\text{base}$" in sentence or r"趋向 $2\pi\cdot\text{base}$" in sentence
    for name in ("glance_base", "glance_small_d", "glance_large_d", "glance_longest_small_d", "glance_longest_large_d", "glance_longest_limit"):
        assert f"{{glue:text}}`{name}" in sentence and f'glue("{name}",' in code
    assert "small_d, large_d = 16, 256" in code and "rope_lib.wavelengths(dim, rope_lib.DEFAULT_BASE)" in code
    assert not re.search(r"\d{2},\d{3}", sentence.replace("500,000", "")), "a wavelength typed into the prose"


@pytest.mark.parametrize("page", ["book/rope_at_a_glance.md", "book/zh/rope_at_a_glance.md"])
def test_every_exercise_has_a_hint(page):
    text = (ROOT / page).read_text()
    exercises = re.findall(r":::\{exercise\}.*?\n:::\n", text, flags=re.S)
    assert len(exercises) == 3
    assert all(re.search(r"```\{admonition\} (Hint|提示)\n:class: dropdown", e) for e in exercises)
