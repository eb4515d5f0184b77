"""The Chinese edition of chapter "RoPE in today's models": its figures, its interactive figure and its check speak
Chinese with lang="zh", draw every glyph, keep their English by default, and refuse a language the book is not written in."""

import numpy as np
import pytest

import rope_lib
from glyphs import has_chinese, missing_glyphs
from rope_lib.teach.exercises import check_longrope_frequencies
from rope_lib.teach.rope_variants import VARIANTS, plot_layer_schedule, plot_variant_wavelengths, variant_frequencies
from rope_lib.teach.rope_variants import variant_explorer
from test_exercises import longrope_frequencies


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_wavelength_figure_in_chinese(variant):
    fig = plot_variant_wavelengths(variant, 128, 8192, lang="zh")
    ax = fig.axes[0]
    assert has_chinese(fig.alt_text) and has_chinese(ax.get_xlabel()) and has_chinese(ax.get_ylabel())
    assert ax.get_legend().get_texts()[0].get_text() == "标准 RoPE"
    assert missing_glyphs(fig) == []
    english = plot_variant_wavelengths(variant, 128, 8192)
    assert not has_chinese(english.alt_text) and english.axes[0].get_xlabel() == "pair i as a share of the head, 2i/d (fast → slow)"
    assert missing_glyphs(english) == []


def test_the_chinese_figures_say_what_they_show():
    fig = plot_variant_wavelengths("p0.25", 128, 8192, lang="zh")
    assert "48 个维度对不旋转" in fig.alt_text and "16 个维度对在旋转" in fig.alt_text
    assert "短因子组" in variant_frequencies("longrope", 64, 4096, lang="zh")[1]
    assert "长因子组" in variant_frequencies("longrope", 64, 4097, lang="zh")[1]
    schedule = plot_layer_schedule(48, 4, lang="zh")
    assert "12 个 NoPE 层" in schedule.alt_text and has_chinese(schedule.axes[0].get_xlabel())
    assert missing_glyphs(schedule) == [] and missing_glyphs(plot_layer_schedule(48, 4)) == []


def test_the_interactive_figure_in_chinese():
    widget = variant_explorer(lang="zh")
    assert widget.lang == "zh" and all(has_chinese(c.label) for c in widget.controls)
    assert [widget.controls[0].fmt(v) for v in widget.controls[0].values][-1] == "LongRoPE（示例因子组）"
    assert has_chinese(widget.figure().alt_text) and "在线版中可交互" in widget.print_caption()
    assert missing_glyphs(widget.figure(variant="p0.75", d=64, seq_len=131072)) == []
    english = variant_explorer()
    assert [c.label for c in english.controls] == ["variant", "head dimension d", "current length T"]
    assert not has_chinese(english.print_caption())


def test_the_longrope_check_speaks_chinese():
    passed = check_longrope_frequencies(longrope_frequencies, lang="zh")
    assert passed and passed.message.startswith("longrope_frequencies 选对了因子组") and "通过" in str(passed)
    assert check_longrope_frequencies(longrope_frequencies).message.startswith("longrope_frequencies picks the right factor set")

    def long_at_the_trained_length(d, base, short_factor, long_factor, seq_len, original_max_len):
        return rope_lib.inv_freq(d, base) / np.array(long_factor if seq_len >= original_max_len else short_factor)

    def multiplied(d, base, short_factor, long_factor, seq_len, original_max_len):
        return rope_lib.inv_freq(d, base) * np.array(long_factor if seq_len > original_max_len else short_factor)

    def plain(d, base, short_factor, long_factor, seq_len, original_max_len):
        return rope_lib.inv_freq(d, base)

    def off(d, base, short_factor, long_factor, seq_len, original_max_len):
        return 1.01 * longrope_frequencies(d, base, short_factor, long_factor, seq_len, original_max_len)

    for wrong, words in [(long_at_the_trained_length, ["因子组", "seq_len = 64"]), (multiplied, ["方向", "转得更慢"]),
                         (plain, ["原始频率"]), (off, ["结果不是 LongRoPE 的频率", "最大差"])]:
        result = check_longrope_frequencies(wrong, lang="zh")
        assert not result and all(w in result.message for w in words) and "尚未通过" in str(result), result.message
        english = check_longrope_frequencies(wrong)
        assert not english and not has_chinese(english.message), english.message


@pytest.mark.parametrize("call", [
    lambda: plot_variant_wavelengths(lang="fr"), lambda: plot_layer_schedule(lang="fr"), lambda: variant_frequencies("plain", 64, 100, lang="fr"),
    lambda: variant_explorer(lang="fr"), lambda: check_longrope_frequencies(longrope_frequencies, lang="fr"),
], ids=["plot_variant_wavelengths", "plot_layer_schedule", "variant_frequencies", "variant_explorer", "check_longrope_frequencies"])
def test_an_unknown_language_is_refused(call):
    with pytest.raises(ValueError, match="lang"):
        call()
