"""Chapter "RoPE in a trained model" in both languages: its figures, widget and check speak Chinese with lang="zh",
draw every glyph, keep their English by default, and refuse a language the book is not written in."""

import numpy as np
import pytest

from glyphs import assert_chinese_figure, assert_english_figure, drawn_words, missing_glyphs
from rope_lib.teach.exercises import check_offset_weight
from rope_lib.teach.trained_models import (
    encoding_name,
    plot_attention_map,
    plot_learning_curves,
    plot_length_generalisation,
    plot_loss_curve,
    plot_offset_probe,
)
from rope_lib.teach.trained_models import attention_map_widget
from test_experiment_report import report
from test_trained_models_figures import offset_maps
from test_exercises import offset_weight


def figures(lang):
    r = report()
    return [plot_loss_curve([3.0, 2.0, 0.125], title="一次测试" if lang == "zh" else "a test run", lang=lang),
            plot_learning_curves(r, lang=lang), plot_length_generalisation(r, lang=lang), plot_offset_probe(r, lang=lang),
            plot_attention_map(offset_maps(), 1, 2, offset=2, lang=lang)]


def test_the_chinese_figures_are_in_chinese_and_draw_every_glyph():
    for fig in figures("zh"):
        assert_chinese_figure(fig)
    loss, learning, length, probe, attention = figures("zh")
    assert loss.axes[0].get_xlabel() == "训练步数" and "从 3.00 开始，最后为 0.125" in loss.alt_text
    assert "NoPE" in drawn_words(learning) and "NoPE在复制任务上 0.5" in learning.alt_text
    assert length.axes[0].get_xlabel() == "长度 / 训练长度" and "RoPE + YaRN 0.23" in length.alt_text
    assert "RoPE：0.80" in probe.alt_text and any("往前" in w for w in drawn_words(probe))
    assert attention.axes[0].get_title() == "第 1 层，第 2 个头" and "平均把 1.00 的权重" in attention.alt_text


def test_the_english_figures_keep_their_words():
    for fig in figures("en"):
        assert_english_figure(fig)
    assert figures("en")[4].axes[0].get_title() == "layer 1, head 2"
    assert encoding_name("sinusoidal") == "sinusoidal" and encoding_name("sinusoidal", lang="zh") == "正弦位置编码"


def test_the_widget_speaks_chinese():
    widget = attention_map_widget(offset_maps(), layer=1, head=2, offset=2, lang="zh")
    assert [c.label for c in widget.controls] == ["层", "注意力头"] and widget.lang == "zh"
    fig = widget.figure(layer=0, head=1)
    assert fig.axes[0].get_title() == "第 0 层，第 1 个头" and missing_glyphs(fig) == []
    assert [c.label for c in attention_map_widget(offset_maps()).controls] == ["layer", "head"]


def summed(weights, offset):
    t = np.arange(offset, len(weights))
    return weights[t, t - offset].sum()


def above(weights, offset):
    return np.diagonal(weights, offset).mean()


def test_the_check_speaks_both_languages():
    passed = check_offset_weight(offset_weight, lang="zh")
    assert passed and "平均权重" in passed.message and str(passed).startswith("通过")
    assert check_offset_weight(offset_weight).message.startswith("offset_weight gives the mean weight")
    wrong = check_offset_weight(summed, lang="zh")
    assert not wrong and "要的是均值，不是总和" in wrong.message and str(wrong).startswith("尚未通过")
    assert "a mean, not a sum" in check_offset_weight(summed).message
    assert "主对角线下方" in check_offset_weight(above, lang="zh").message
    assert "返回了 None" in check_offset_weight(lambda w, o: None, lang="zh").message


@pytest.mark.parametrize("call", [
    lambda: plot_loss_curve([1.0, 0.5], title="x", lang="fr"),
    lambda: plot_learning_curves(report(), lang="fr"),
    lambda: plot_length_generalisation(report(), lang="fr"),
    lambda: plot_offset_probe(report(), lang="fr"),
    lambda: plot_attention_map(offset_maps(), 0, 0, lang="fr"),
    lambda: attention_map_widget(offset_maps(), lang="fr"),
    lambda: check_offset_weight(offset_weight, lang="fr"),
])
def test_an_unknown_language_is_refused(call):
    with pytest.raises(ValueError, match="lang"):
        call()
