"""Chapter "RoPE for images and video" (rope_lib.teach.rope_for_images; both editions): its figures, described from their
own numbers, every control moving them; its figures, widget and check in both languages."""

import math

import numpy as np
import pytest

from glyphs import assert_english_figure, drawn_words, has_chinese, missing_glyphs
from rope_lib.teach.exercises import check_axial_rotate
from rope_lib.teach.rope_for_images import (
    kind_name,
    patch_rule_inv_freq,
    patch_score_widget,
    plot_mrope_positions,
    plot_patch_scores,
    rule_name,
)
from rope_lib.teach.shared.figure_style import BookFigure
from rope_lib.teach.shared.interactive import MAX_FRAMES
from rope_lib.teach.shared.language import word_count
from test_exercises import axial_rotate


# --- the figures: described from their own numbers, every control moving them -----------------------------------------

def test_patch_score_widget_stays_small_and_every_control_moves_the_picture():
    widget = patch_score_widget()
    assert math.prod(len(c.values) for c in widget.controls) <= MAX_FRAMES
    assert [len(c.values) for c in widget.controls] == [8, 8]
    base = widget.figure()
    assert isinstance(base, BookFigure) and "row 3, column 6" in base.alt_text
    assert "left under axial RoPE, right under frequencies that all point along the diagonal" in base.alt_text
    assert [ax.get_title() for ax in base.axes[:2]] == ["axial RoPE", "diagonal RoPE"]
    for control in widget.controls:
        other = next(v for v in control.values if v != control.value)
        assert widget.figure(**{control.name: other}).to_png() != base.to_png(), control.name


def test_patch_scores_draw_a_cross_or_a_diagonal_stripe():
    assert "cross along its row and its column" in plot_patch_scores(2, 3, "axial").alt_text
    assert "stripe along the anti-diagonal" in plot_patch_scores(2, 3, "diagonal").alt_text
    diagonal = patch_rule_inv_freq("diagonal", 8, 10.0)
    assert np.allclose(diagonal[:, 0], diagonal[:, 1])
    with pytest.raises(ValueError, match="rule must be one of"):
        patch_rule_inv_freq("mixed", 8, 10.0)


def test_mrope_figure_describes_its_sequence():
    fig = plot_mrope_positions([("text", 4), ("image", (3, 4)), ("text", 4)])
    assert "text 4, image 3×4, text 4 (20 tokens)" in fig.alt_text and "t stays at 4" in fig.alt_text and "ending at 11" in fig.alt_text


# --- both languages: the figures, widget and check --------------------------------------------------------------------

SEQUENCE = [("text", 4), ("image", (3, 4)), ("text", 4)]


@pytest.mark.parametrize("rule", ["axial", "diagonal"])
def test_the_patch_scores_in_chinese_draw_every_glyph(rule):
    fig = plot_patch_scores(2, 3, rule, lang="zh")
    assert has_chinese(fig.alt_text) and word_count(fig.alt_text) >= 20 and "第 2 行、第 3 列" in fig.alt_text
    assert ("十字" if rule == "axial" else "反对角线") in fig.alt_text
    words = drawn_words(fig)
    assert "列 w" in words and "行 h" in words and "查询图像块" in words and "得分 / q·q" in words
    assert any(w.startswith(rule_name(rule, lang="zh") + " RoPE") for w in words)
    assert missing_glyphs(fig) == []
    assert_english_figure(plot_patch_scores(2, 3, rule))


def test_the_mrope_figure_in_chinese_draws_every_glyph():
    fig = plot_mrope_positions(SEQUENCE, lang="zh")
    assert "文本 4，图像 3×4，文本 4（共 20 个词元）" in fig.alt_text and "t 停在 4" in fig.alt_text and "停在 11" in fig.alt_text
    words = drawn_words(fig)
    assert {"文本", "图像", "词元序号"} <= set(words)
    assert missing_glyphs(fig) == []
    english = plot_mrope_positions(SEQUENCE)
    assert {"text", "image", "token index"} <= set(drawn_words(english)) and not has_chinese(english.alt_text)
    assert missing_glyphs(english) == []


def test_names_of_rules_and_kinds():
    assert rule_name("axial") == "axial" and rule_name("diagonal", lang="zh") == "对角"
    assert kind_name("video", lang="zh") == "视频" and kind_name("image") == "image"
    with pytest.raises(ValueError, match="rule must be one of"):
        rule_name("mixed")


def test_the_widget_in_chinese():
    widget = patch_score_widget(lang="zh")
    assert widget.lang == "zh" and all(has_chinese(c.label) for c in widget.controls)
    fig = widget.figure(h=0, w=11)
    assert has_chinese(fig.alt_text) and missing_glyphs(fig) == []
    assert [ax.get_title() for ax in fig.axes[:2]] == ["轴向 RoPE", "对角 RoPE"]
    english = patch_score_widget()
    assert [c.label for c in english.controls] == ["query row h", "query column w"]
    assert missing_glyphs(english.figure()) == [] and not has_chinese(english.figure().alt_text)


def test_the_check_speaks_chinese():
    passed = check_axial_rotate(axial_rotate, lang="zh")
    assert passed and "通过" in str(passed) and has_chinese(passed.message)
    assert check_axial_rotate(axial_rotate).message == (
        "axial_rotate turns head vectors of 4 to 32 values to their patch, for seven patches, four of them seeded random ones.")
    swapped = check_axial_rotate(lambda x, h, w: axial_rotate(x, w, h), lang="zh")
    assert not swapped and "轴弄反了" in swapped.message
    scaled = check_axial_rotate(lambda x, h, w: 2 * axial_rotate(x, h, w), lang="zh")
    assert not scaled and "旋转不改变向量的长度" in scaled.message
    english = check_axial_rotate(lambda x, h, w: axial_rotate(x, w, h))
    assert "axes — the first d/4 pairs turn with the row h" in english.message and not has_chinese(english.message)


@pytest.mark.parametrize("make", [lambda: plot_patch_scores(2, 3, lang="fr"), lambda: plot_mrope_positions(SEQUENCE, lang="fr"),
                                  lambda: patch_score_widget(lang="fr"), lambda: check_axial_rotate(axial_rotate, lang="fr")])
def test_an_unknown_language_is_refused(make):
    with pytest.raises(ValueError, match="lang"):
        make()


@pytest.mark.parametrize("page", ["book/rope_for_images.md", "book/zh/rope_for_images.md"])
def test_every_exercise_has_a_hint_and_the_mrope_exercise_asks_something_new(page):
    """Each exercise carries a dropdown hint; the M-RoPE exercise asks whether an image's inner scores depend on where
    it sits (the page itself already says where the text after an image resumes)."""
    import re

    from paths import ROOT

    text = (ROOT / page).read_text()
    exercises = re.findall(r":::\{exercise\}.*?\n:::\n", text, flags=re.S)
    assert len(exercises) == 3
    assert all(re.search(r"```\{admonition\} (Hint|提示)\n:class: dropdown", e) for e in exercises)
    assert ":label: img-ex-mrope-shift" in text and "img-ex-mrope-ids" not in text
    assert "assert torch.allclose(near, far, rtol=0, atol=1e-9)" in text
