"""rope_lib.teach.shared.language: the book's two languages, the one way a helper picks its words, and how Chinese words are
counted."""

import pytest

from rope_lib.teach.shared.language import LANGUAGES, Words, is_han, join_names, require_language, text, word_count


def test_the_languages_are_english_and_chinese():
    assert LANGUAGES == ("en", "zh")
    assert [require_language(lang) for lang in LANGUAGES] == ["en", "zh"]


@pytest.mark.parametrize("wrong", ["fr", "EN", "zh_CN", "", None, 0])
def test_another_language_is_refused_by_name(wrong):
    with pytest.raises(ValueError, match=r"lang must be one of \('en', 'zh'\)"):
        require_language(wrong)
    with pytest.raises(ValueError, match="lang must be one of"):
        text(wrong, en="angle", zh="角度")


def test_text_picks_the_words_of_the_language():
    assert text("en", en="angle", zh="角度") == "angle"
    assert text("zh", en="angle", zh="角度") == "角度"


def test_chinese_is_counted_two_characters_a_word():
    assert word_count("the wavelength of each pair") == 5
    assert word_count("每个维度对的波长") == 4
    assert word_count("第 0 对的波长是 6.28 个位置") == 2 + 9 // 2  # "0" and "6.28", and nine characters
    assert [is_han(c) for c in "旋a"] == [True, False]


def test_words_hold_both_languages():
    words = Words("rotation", "旋转")
    assert words.in_language("en") == "rotation" and words.in_language("zh") == "旋转"
    assert words == Words("rotation", "旋转") and {words, Words("rotation", "旋转")} == {words}
    assert repr(words) == "Words(en='rotation', zh='旋转')"
    with pytest.raises(ValueError, match="zh must be a non-empty string"):
        Words("rotation", "")
    with pytest.raises(ValueError, match="lang must be one of"):
        words.in_language("fr")


def test_names_are_listed_as_each_language_lists_them():
    assert join_names(["NoPE"]) == join_names(["NoPE"], lang="zh") == "NoPE"
    assert join_names(["NoPE", "ALiBi"]) == "NoPE and ALiBi" and join_names(["RoPE", "NoPE", "ALiBi"]) == "RoPE, NoPE and ALiBi"
    assert join_names(["NoPE", "ALiBi"], lang="zh") == "NoPE 和 ALiBi"
    assert join_names(["正弦位置编码", "可学习位置编码"], lang="zh") == "正弦位置编码和可学习位置编码"
    assert join_names(["RoPE", "正弦位置编码", "ALiBi"], lang="zh") == "RoPE、正弦位置编码和 ALiBi"
    with pytest.raises(ValueError, match="names"):
        join_names([])
