"""Chapter "RoPE in two dimensions" in both languages: its figure, widget and check speak Chinese with lang="zh",
draw every glyph, keep their English by default, and refuse an unknown language."""

import pytest
from glyphs import assert_english_figure, drawn_words, has_chinese, missing_glyphs

from rope_lib.teach.exercises import check_score_complex
from rope_lib.teach.shared.language import word_count
from rope_lib.teach.rope_2d import plot_rope_2d
from rope_lib.teach.rope_2d import rope_2d_widget
from test_exercises import score_complex


def flipped(q, k, m, n, theta):
    return score_complex(q, k, n, m, theta)


def test_the_figure_in_chinese_draws_every_glyph():
    fig = plot_rope_2d(3, 1, 0.35, 2, lang="zh")
    assert has_chinese(fig.alt_text) and word_count(fig.alt_text) >= 20 and "0.35" in fig.alt_text
    words = drawn_words(fig)
    assert "查询位置 m + s" in words and "键位置 n + s" in words
    assert any(w.startswith("得分 =") for w in words) and any("位置 5 处的 q" == w for w in words)
    assert fig.axes[-1].get_ylabel() == "得分"  # the colour bar
    assert missing_glyphs(fig) == []


def test_the_figure_keeps_its_english_by_default():
    fig = plot_rope_2d(3, 1, 0.35, 2)
    assert_english_figure(fig)
    assert fig.axes[1].get_xlabel() == "key position n + s" and fig.alt_text.startswith("Two panels.")
    assert plot_rope_2d(3, 1, 0.35, 2, lang="en").alt_text == fig.alt_text


def test_the_numbers_are_the_same_in_both_languages():
    en, zh = plot_rope_2d(2, 0, 0.9, 4), plot_rope_2d(2, 0, 0.9, 4, lang="zh")
    assert en.axes[0].get_title().split()[2] == zh.axes[0].get_title().split()[2]  # the score
    assert en.to_png() != zh.to_png()


def test_the_widget_in_chinese():
    widget = rope_2d_widget(lang="zh")
    assert widget.lang == "zh" and all(has_chinese(c.label) for c in widget.controls)
    assert widget.draw.__module__ == "rope_lib.teach.rope_2d"
    fig = widget.figure(shift=4)
    assert has_chinese(fig.alt_text) and missing_glyphs(fig) == []
    assert "在线版中可交互" in widget.print_caption()
    english = rope_2d_widget()
    assert [c.label for c in english.controls] == ["query position m", "shift both by s"]
    assert not has_chinese(english.figure().alt_text)


def test_the_widget_moves_the_score_with_m_and_not_with_the_shift():
    """Two sliders of 8 stops (64 frames): the score changes with m, never with s; the key and θ are the module's."""
    from rope_lib.teach import rope_2d as widget_2d

    widget = rope_2d_widget()
    assert [len(c.values) for c in widget.controls] == [8, 8] and not any(c.choice for c in widget.controls)
    score = lambda **values: float(widget.figure(**values).axes[0].get_title().split()[2])  # noqa: E731
    assert len({score(m=3, shift=s) for s in widget_2d.SHIFTS}) == 1
    assert len({score(m=m, shift=0) for m in widget_2d.QUERY_POSITIONS}) == len(widget_2d.QUERY_POSITIONS)
    assert f"n = {widget_2d.KEY_POSITION}" in widget.figure().alt_text and f"{widget_2d.WIDGET_THETA:g}" in widget.figure().alt_text


def test_the_check_speaks_chinese():
    passed = check_score_complex(score_complex, lang="zh")
    assert passed and "通过" in str(passed) and "score_complex 在 200 组随机的查询" in passed.message
    assert check_score_complex(score_complex).message == (
        "score_complex matches the rotation-matrix score on 200 seeded random queries, keys and positions.")
    hint = check_score_complex(flipped, lang="zh")
    assert not hint and "符号错了" in hint.message and "(m − n)θ" in hint.message
    english = check_score_complex(flipped)
    assert "sign — your score at (m, n) is the true score at (n, m)" in english.message and not has_chinese(english.message)


@pytest.mark.parametrize("make", [lambda: plot_rope_2d(3, 1, 0.35, lang="fr"), lambda: rope_2d_widget(lang="fr"),
                                  lambda: check_score_complex(score_complex, lang="fr")])
def test_an_unknown_language_is_refused(make):
    with pytest.raises(ValueError, match="lang"):
        make()
