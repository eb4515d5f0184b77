"""Chapter "RoPE in d dimensions" in both languages: its figures, clock and check speak English by default and
Chinese with lang="zh", draw every Chinese glyph, and refuse any other language."""

import numpy as np
import pytest

from glyphs import assert_chinese_figure, assert_english_figure, has_chinese, missing_glyphs
from rope_lib.teach.exercises import check_first_below_half
from rope_lib.teach.shared.language import word_count
from rope_lib.teach.rope_nd import plot_relative_upper_bound
from rope_lib.teach.rope_nd import plot_clock, plot_pair_rotations, plot_rotary_matrix
from rope_lib.teach.rope_nd import clock_widget
from test_exercises import first_below_half

X = np.array([1.0, 0.0, 0.8, 0.6, 0.0, 1.0, -0.6, 0.8])
FIGURES = {
    "plot_pair_rotations": lambda lang: plot_pair_rotations(X, [0, 1, 2, 3, 4], lang=lang),
    "plot_clock": lambda lang: plot_clock(100, 8, lang=lang),
    "plot_rotary_matrix": lambda lang: plot_rotary_matrix(3, 16, lang=lang),
    "plot_relative_upper_bound": lambda lang: plot_relative_upper_bound(64, 128, bases=(100.0, 10000.0), lang=lang),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figures_have_chinese_words_and_every_glyph(name):
    fig = FIGURES[name]("zh")
    assert word_count(fig.alt_text) >= 5
    assert_chinese_figure(fig)


@pytest.mark.parametrize("name", FIGURES)
def test_english_figures_stay_english(name):
    assert_english_figure(FIGURES[name]("en"))


def test_english_words_are_unchanged():
    fig = plot_clock(100, 8)
    assert fig.axes[0].get_title() == "position m = 100, d = 8, base = 10000"
    assert plot_rotary_matrix(3, 16).axes[0].get_xlabel() == "column"
    assert plot_relative_upper_bound(64, 128).axes[0].get_xlabel() == "relative distance m − n"
    assert plot_pair_rotations(X, [0, 1]).axes[0].get_title().startswith("pair 0\n")


def test_the_chinese_clock_widget():
    widget = clock_widget(lang="zh")
    assert widget.lang == "zh" and all(has_chinese(c.label) for c in widget.controls)
    fig = widget.figure(position=16, base=500000.0)
    assert has_chinese(fig.alt_text) and missing_glyphs(fig) == []
    assert [c.label for c in clock_widget().controls] == ["position m", "base"]


def test_the_clock_has_eight_stops_a_slider_and_fits_the_frames():
    """12 positions × 8 bases = 96 frames of the d = CLOCK_D clock; a larger base slows every hand."""
    from rope_lib.teach.shared.interactive import MAX_FRAMES, QUANTITY_STOPS
    from rope_lib.teach.rope_nd import CLOCK_BASES, CLOCK_D

    widget = clock_widget()
    assert all(len(c.values) >= QUANTITY_STOPS for c in widget.controls)
    assert np.prod([len(c.values) for c in widget.controls]) <= MAX_FRAMES
    assert f"d = {CLOCK_D}" in widget.figure().alt_text and list(CLOCK_BASES) == sorted(CLOCK_BASES)


@pytest.mark.parametrize("make", [*FIGURES.values(), lambda lang: clock_widget(lang=lang),
                                  lambda lang: check_first_below_half(lambda d, base: 1, lang=lang)])
def test_another_language_is_refused(make):
    with pytest.raises(ValueError, match="lang"):
        make("fr")


def test_the_check_speaks_chinese():
    passed = check_first_below_half(first_below_half, lang="zh")
    assert passed and has_chinese(passed.message) and str(passed).startswith("通过")
    english = check_first_below_half(first_below_half)
    assert english.message.startswith("first_below_half finds the first distance below half")
    for wrong, zh, en in [
        (lambda d, base: first_below_half(d, base) - 1, "还没有低于", "not yet below half"),
        (lambda d, base: first_below_half(d, base) + 5, "不是第一个", "not the first"),
        (lambda d, base: first_below_half(d, 10000.0), "请把 base 传给曲线", "pass base on"),
        (lambda d, base: 0, "正的距离", "positive distance"),
    ]:
        result = check_first_below_half(wrong, lang="zh")
        assert not result and zh in result.message and str(result).startswith("尚未通过")
        result = check_first_below_half(wrong)
        assert not result and en in result.message and not has_chinese(result.message)
