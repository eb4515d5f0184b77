"""Chapter "RoPE at a glance" (rope_lib.teach.rope_at_a_glance; both editions): its score grid, wavelength explorer
and exercise check speak Chinese with lang="zh", draw every glyph, keep their English by default, and refuse a language
the book does not have."""

import re

import numpy as np
import pytest

from glyphs import assert_chinese_figure, assert_english_figure, has_chinese
from paths import ROOT
from rope_lib.rotation import rotary_matrix
from rope_lib.teach.exercises import check_rope_pairs
from rope_lib.teach.rope_at_a_glance import plot_score_grid, wavelength_explorer
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
    the numbers glued from rope_lib.frequencies.wavelengths, where the page once said it "keeps the same range"."""
    text = (ROOT / page).read_text()
    code = "\n".join(re.findall(r"```\{code-cell\}.*?\n```", text, flags=re.S))
    prose = re.sub(r"```\{code-cell\}.*?\n```", "", text, flags=re.S)
    assert "same range" not in prose and "范围不变" not in prose and "范围几乎不变" not in prose
    sentence = prose[prose.index("glance_longest_small_d") - 400 : prose.index("glance_longest_limit") + 40]
    assert r"2\pi\cdot\text{base}^{(d-2)/d}" in sentence
    assert r"towards $2\pi\cdot\text{base}$" in sentence or r"趋向 $2\pi\cdot\text{base}$" in sentence
    for name in ("glance_base", "glance_small_d", "glance_large_d", "glance_longest_small_d", "glance_longest_large_d", "glance_longest_limit"):
        assert f"{{glue:text}}`{name}" in sentence and f'glue("{name}",' in code
    assert "small_d, large_d = 16, 256" in code and "rope_lib.frequencies.wavelengths(dim, rope_lib.DEFAULT_BASE)" in code
    assert not re.search(r"\d{2},\d{3}", sentence.replace("500,000", "")), "a wavelength typed into the prose"


@pytest.mark.parametrize("page", ["book/rope_at_a_glance.md", "book/zh/rope_at_a_glance.md"])
def test_every_exercise_has_a_hint(page):
    text = (ROOT / page).read_text()
    exercises = re.findall(r":::\{exercise\}.*?\n:::\n", text, flags=re.S)
    assert len(exercises) == 3
    assert all(re.search(r"```\{admonition\} (Hint|提示)\n:class: dropdown", e) for e in exercises)


def test_wavelength_explorer_moves_the_curve_on_fixed_axes():
    """A base slider of QUANTITY_STOPS stops or more (10,000 and Llama 3's 500,000 among them), a choice of d, at most
    MAX_FRAMES frames, and the same axes in every frame, tall enough for 2π·base at the largest base: a move shows as a
    move of the curve against the dashed limit 2π·base, not as new labels on the same picture."""
    from rope_lib import DEFAULT_BASE
    from rope_lib.frequencies import wavelengths
    from rope_lib.scaling import LLAMA3_BASE
    from rope_lib.teach.shared.interactive import MAX_FRAMES, QUANTITY_STOPS

    widget = wavelength_explorer()
    d_control, base_control = widget.controls
    assert d_control.choice and not base_control.choice
    assert len(base_control.values) >= QUANTITY_STOPS and {DEFAULT_BASE, LLAMA3_BASE} <= set(base_control.values)
    assert len(d_control.values) * len(base_control.values) <= MAX_FRAMES
    assert list(base_control.values) == sorted(base_control.values)
    corners = [(d, base) for d in (min(d_control.values), max(d_control.values))
               for base in (min(base_control.values), max(base_control.values))]
    limits = {(ax.get_xlim(), ax.get_ylim(), ax.get_yscale())
              for ax in (widget.figure(d=d, base=base).axes[0] for d, base in corners)}
    assert len(limits) == 1
    (xlim, ylim, scale), = limits
    assert scale == "log" and ylim[0] < 2 * np.pi and ylim[1] > 2 * np.pi * max(base_control.values)
    assert xlim[0] < 0 and xlim[1] > max(d_control.values) // 2 - 1
    for d, base in corners:
        ax = widget.figure(d=d, base=base).axes[0]
        curve, limit = ax.get_lines()
        assert np.allclose(curve.get_ydata(), wavelengths(d, base))
        assert np.allclose(limit.get_ydata(), 2 * np.pi * base) and limit.get_linestyle() == "--"
    assert "dashed line marks 2π·base = 62,832 positions" in widget.figure().alt_text
    assert "虚线标出 2π·底数 = 62,832 个位置" in wavelength_explorer(lang="zh").figure().alt_text


def test_plot_wavelengths_keeps_its_own_axes_by_default():
    """Other chapters call plot_wavelengths(d): without limits_for its axes fit the curve and it draws no limit line;
    limits_for must hold the curve it is asked to draw."""
    from rope_lib.teach.rope_at_a_glance import plot_wavelengths

    small, large = plot_wavelengths(16).axes[0], plot_wavelengths(256).axes[0]
    assert small.get_xlim() != large.get_xlim() and small.get_ylim() != large.get_ylim()
    assert len(small.get_lines()) == 1 and "dashed" not in plot_wavelengths(16).alt_text
    with pytest.raises(ValueError, match="limits_for"):
        plot_wavelengths(256, limits_for=(128, 10000.0))
    with pytest.raises(ValueError, match="limits_for"):
        plot_wavelengths(128, 500000.0, limits_for=(128, 10000.0))


GLANCE_TERMS = {
    "book/rope_at_a_glance.md": {
        "half layout": ("the *half* layout", "layout=\"half\""),
        "KV cache": ("The *KV cache* keeps", "start_pos=0"),
        "start_pos": ("`start_pos` tells the model", "start_pos=0"),
    },
    "book/zh/rope_at_a_glance.md": {
        "half layout": ("**半分**布局", "layout=\"half\""),
        "KV cache": ("**KV 缓存**保存", "start_pos=0"),
        "start_pos": ("参数 `start_pos` 告诉", "start_pos=0"),
    },
}


@pytest.mark.parametrize("page", sorted(GLANCE_TERMS))
def test_the_page_says_what_the_kv_cache_start_pos_and_the_half_layout_are_where_it_first_uses_them(page):
    """Issue 36: the overview used the KV cache, `start_pos` and the half layout before anything explained them. Each
    is now said in a phrase before the code uses it, and the paragraph points forward to the LLaMA chapter."""
    text = (ROOT / page).read_text()
    for term, (explained, used) in GLANCE_TERMS[page].items():
        assert explained in text, term
        at = text.index(explained)
        assert at < text.index(used), f"{term}: used before it is explained"
        paragraph = text[text.rfind("\n\n", 0, at): text.find("\n\n", at)]
        assert "{ref}`ch-llama`" in paragraph, f"{term}: no pointer to the LLaMA chapter"
