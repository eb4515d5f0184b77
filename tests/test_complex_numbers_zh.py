"""Chapter "Complex numbers and Euler's formula" in both languages: its figures, widget and check speak English by
default and Chinese with lang="zh", draw every Chinese glyph, and refuse any other language."""

import math

import numpy as np
import pytest

from glyphs import assert_chinese_figure, assert_english_figure, has_chinese, missing_glyphs
from rope_lib.teach.exercises import check_terms_needed
from rope_lib.teach.shared.language import word_count
from rope_lib.teach.complex_numbers import plot_complex_product, plot_complex_rotation, plot_euler_partial_sums
from rope_lib.teach.complex_numbers import complex_rotation_widget
from test_exercises import terms_needed

FIGURES = {
    "plot_complex_product": lambda lang: plot_complex_product(1.5 + 0.5j, 0.4 + 0.9j, lang=lang),
    "plot_euler_partial_sums": lambda lang: plot_euler_partial_sums([1.0, 2.0, math.pi], 30, lang=lang),
    "plot_complex_rotation": lambda lang: plot_complex_rotation(1.2 + 0.5j, np.radians(45), lang=lang),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figures_have_chinese_words_and_every_glyph(name):
    fig = FIGURES[name]("zh")
    assert has_chinese(fig.alt_text) and word_count(fig.alt_text) >= 5
    for ax in fig.axes:
        assert has_chinese(ax.get_title()) and has_chinese(ax.get_xlabel())
    assert_chinese_figure(fig)


@pytest.mark.parametrize("name", FIGURES)
def test_english_figures_stay_english(name):
    assert_english_figure(FIGURES[name]("en"))


def test_english_words_are_unchanged():
    fig = plot_complex_product(1.5 + 0.5j, 0.4 + 0.9j)
    assert (fig.axes[0].get_title(), fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()) == (
        "multiplying complex numbers", "real part", "imaginary part")
    assert plot_euler_partial_sums([1.0]).axes[1].get_title() == "error of the partial sum"
    assert plot_complex_rotation(1 + 0j, np.radians(30)).axes[0].get_title() == "multiplying by e^(iθ) turns by θ = 30°"


def test_the_chinese_rotation_widget():
    widget = complex_rotation_widget(lang="zh")
    assert widget.lang == "zh"
    fig = widget.figure(theta=widget.controls[1].values[5])
    assert has_chinese(fig.alt_text) and has_chinese(fig.axes[0].get_title()) and missing_glyphs(fig) == []
    assert complex_rotation_widget().lang == "en"
    assert not has_chinese(complex_rotation_widget().figure().alt_text)


@pytest.mark.parametrize("make", [*FIGURES.values(), lambda lang: complex_rotation_widget(lang=lang),
                                  lambda lang: check_terms_needed(lambda x, tol: 1, lang=lang)])
def test_another_language_is_refused(make):
    with pytest.raises(ValueError, match="lang"):
        make("fr")


def test_the_check_speaks_chinese():
    passed = check_terms_needed(terms_needed, lang="zh")
    assert passed and has_chinese(passed.message) and str(passed).startswith("通过")
    assert check_terms_needed(terms_needed).message.startswith("terms_needed returns the smallest N within tol")
    for wrong, zh, en in [
        (lambda x, tol: terms_needed(x, tol, count_terms=True), "数了项数", "count terms"),
        (lambda x, tol: terms_needed(x, tol, real_only=True), "虚部也要比", "imaginary part"),
        (lambda x, tol: terms_needed(x, tol) - 1, "还没有小于 tol", "not yet within tol"),
        (lambda x, tol: -1, "不可能是负数", "never negative"),
    ]:
        result = check_terms_needed(wrong, lang="zh")
        assert not result and zh in result.message and str(result).startswith("尚未通过")
        result = check_terms_needed(wrong)
        assert not result and en in result.message and not has_chinese(result.message)
