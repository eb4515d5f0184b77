"""The chapter "Why does RoPE work?" in both languages: its figures, widgets and exercise check speak Chinese with
lang="zh", draw every glyph, keep their English by default, and refuse a language the book does not have."""

import math

import numpy as np
import pytest

from glyphs import assert_chinese_figure, assert_english_figure, has_chinese
from rope_lib.teach.exercises import check_b_m
from rope_lib.teach.why_rope_works import plot_phasor_sum
from rope_lib.teach.why_rope_works import plot_relative_biases
from rope_lib.teach.why_rope_works import (
    plot_b_m_theta,
    plot_base_bounds,
    plot_base_reach,
    plot_decay_revisited,
    plot_frequency_roles,
)
from rope_lib.teach.why_rope_works import phasor_widget
from rope_lib.teach.why_rope_works import relative_bias_widget
from test_exercises import b_m

Q = np.random.default_rng(0).standard_normal(128)
LENGTHS = [4096, 8192, 16384]

FIGURES = {
    "plot_decay_revisited": lambda lang: plot_decay_revisited(128, 10000.0, 128, lang=lang),
    "plot_frequency_roles": lambda lang: plot_frequency_roles(64, 10000.0, 8, 256, lang=lang),
    "plot_b_m_theta": lambda lang: plot_b_m_theta(128, (1e4, 5e5), 4096, lang=lang),
    "plot_base_reach": lambda lang: plot_base_reach(128, 1e4, 1e5, 40, 4096, lang=lang),
    "plot_base_bounds": lambda lang: plot_base_bounds(LENGTHS, [2.7e4, 8.4e4, 3.1e5], [2.7e4, 8.4e4, 3.1e5],
                                                      fine=(LENGTHS[:2], [2.6e4, 8e4]), lang=lang),
    "plot_phasor_sum": lambda lang: plot_phasor_sum(Q[:16], Q[:16], 64, lang=lang),
    "plot_relative_biases": lambda lang: plot_relative_biases(2, 256, lang=lang),
    "phasor_widget": lambda lang: phasor_widget(Q, lang=lang).figure(),
    "relative_bias_widget": lambda lang: relative_bias_widget(lang=lang).figure(),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figure_has_chinese_words_and_every_glyph(name):
    assert_chinese_figure(FIGURES[name]("zh"))


@pytest.mark.parametrize("name", FIGURES)
def test_english_figure_is_unchanged_by_default(name):
    assert_english_figure(FIGURES[name]("en"))


def test_default_language_is_english():
    assert plot_decay_revisited(128, 10000.0, 128).alt_text == plot_decay_revisited(128, 10000.0, 128, lang="en").alt_text
    assert plot_phasor_sum(Q, Q, 64).alt_text.startswith("Two panels for d = 128, base 10000, relative distance Δ = 64.")
    assert plot_decay_revisited(128, 10000.0, 128).axes[0].get_title() == "Long-term decay, revisited (d = 128)"
    assert plot_decay_revisited(128, 10000.0, 128, lang="zh").axes[0].get_title() == "再看远程衰减（d = 128）"


@pytest.mark.parametrize("name", FIGURES)
def test_an_unknown_language_is_refused(name):
    with pytest.raises(ValueError, match="lang"):
        FIGURES[name]("fr")


def test_widgets_label_their_controls_and_caption_in_chinese():
    for widget, labels in ((phasor_widget(Q, lang="zh"), ["距离 Δ = m − n", "底数"]),
                           (relative_bias_widget(lang="zh"), ["ALiBi 的头（共 8 个）"])):
        assert [c.label for c in widget.controls] == labels
        assert widget.lang == "zh" and widget.print_caption().startswith("在线版中可交互")
    assert [c.label for c in phasor_widget(Q).controls] == ["distance Δ = m − n", "base"]
    assert [c.label for c in relative_bias_widget().controls] == ["ALiBi head (of 8)"]
    assert math.prod(len(c.values) for c in relative_bias_widget(lang="zh").controls) == 8
    frame = relative_bias_widget(lang="zh").figure(head=8)
    assert "第 8 个头" in frame.alt_text and has_chinese(frame.axes[0].get_xlabel())


def test_check_b_m_speaks_chinese(capsys):
    passed = check_b_m(b_m, lang="zh")
    assert passed and passed.message.startswith("b_m 与 rope_lib.b_m_theta 一致") and "通过" in capsys.readouterr().out
    english = check_b_m(b_m)
    assert english.message == ("b_m matches rope_lib.b_m_theta for d = 2 to 128, m up to 3000, bases 100, 10000 and 500000 "
                               "and three seeded random cases.")
    wrong = {
        "sin": (lambda m, d, base: sum(math.sin(m * base ** (-2 * i / d)) for i in range(d // 2)), "应该用 cos", "cos, not sin"),
        "scaled": (lambda m, d, base: b_m(m, d, base) / (d // 2), "缩放成了 1", "scaled to 1"),
        "twice": (lambda m, d, base: 2 * b_m(m, d, base), "两倍", "twice"),
        "terms": (lambda m, d, base: np.cos(m * base ** (-2 * np.arange(d // 2) / d)), "只是一个数", "their sum, one number"),
        "float32": (lambda m, d, base: float(np.cos(np.float32(m) * np.float32(base) ** (-2 * np.arange(d // 2, dtype=np.float32) / np.float32(d))).sum()),
                    "float64", "float64"),
    }
    for name, (function, zh, en) in wrong.items():
        chinese, english = check_b_m(function, lang="zh"), check_b_m(function)
        assert not chinese and zh in chinese.message and has_chinese(chinese.message), (name, chinese.message)
        assert not english and en in english.message and not has_chinese(english.message), (name, english.message)
    with pytest.raises(ValueError, match="lang"):
        check_b_m(b_m, lang="fr")
