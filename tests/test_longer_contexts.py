"""Chapter "Longer contexts" (rope_lib.teach.longer_contexts; both editions): its figures, explorer and check in both
languages, and the facts it states about DeepSeek's YaRN, against transformers' own code."""

import re

import numpy as np
import pytest
import torch

import rope_lib
from glyphs import assert_chinese_figure, assert_english_figure, has_chinese
from rope_lib.teach.exercises import check_rotate_cache
from rope_lib.teach.longer_contexts import (
    METHOD_NAMES,
    METHOD_NAMES_ZH,
    context_extension_explorer,
    method_name,
    plot_angle_coverage,
    plot_cache_gaps,
    plot_context_extension,
    plot_scaled_frequencies,
    plot_similarity_vs_distance,
)
from test_exercises import rotate_cache


# --- both languages: the figures, the explorer and the check ----------------------------------------------------------

def gaps(lang):
    """The chapter's measured gaps, labelled as the chapter of that language labels them."""
    return {("动态 NTK" if lang == "zh" else "dynamic NTK"): (np.arange(5, 9), np.array([0.0, 0.0, 0.1, 0.2])),
            "YaRN": (np.arange(5, 9), np.zeros(4))}


FIGURES = {
    "plot_angle_coverage": lambda lang: plot_angle_coverage(lang=lang),
    "plot_scaled_frequencies": lambda lang: plot_scaled_frequencies(lang=lang),
    "plot_similarity_vs_distance": lambda lang: plot_similarity_vs_distance(lang=lang),
    "plot_context_extension": lambda lang: plot_context_extension("llama3", 8.0, lang=lang),
    "plot_cache_gaps": lambda lang: plot_cache_gaps(gaps(lang), 6, lang=lang),
    "context_extension_explorer": lambda lang: context_extension_explorer(lang=lang).figure(method="dynamic", factor=16.0),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figures_have_chinese_words_and_every_glyph(name):
    assert_chinese_figure(FIGURES[name]("zh"))


@pytest.mark.parametrize("name", FIGURES)
def test_english_figures_stay_english(name):
    assert_english_figure(FIGURES[name]("en"))


@pytest.mark.parametrize("name", FIGURES)
def test_figures_refuse_an_unknown_language(name):
    with pytest.raises(ValueError, match="lang"):
        FIGURES[name]("fr")


def test_the_two_editions_describe_the_same_numbers():
    en, zh = plot_context_extension("yarn", 4.0), plot_context_extension("yarn", 4.0, lang="zh")
    numbers = lambda words: set(re.findall(r"\d+(?:\.\d+)?", words))
    assert numbers(en.alt_text) == numbers(zh.alt_text)


def test_every_rule_has_a_chinese_name():
    assert list(METHOD_NAMES_ZH) == list(METHOD_NAMES)
    assert len(set(METHOD_NAMES_ZH.values())) == len(METHOD_NAMES_ZH)
    assert [method_name(m) for m in METHOD_NAMES] == list(METHOD_NAMES.values())
    with pytest.raises(ValueError, match="lang"):
        method_name("yarn", "fr")


def test_the_explorer_labels_its_controls_in_chinese():
    widget = context_extension_explorer(lang="zh")
    assert widget.lang == "zh"
    assert all(has_chinese(c.label) for c in widget.controls)
    (method,) = [c for c in widget.controls if c.name == "method"]
    assert [method.fmt(m) for m in method.values] == [METHOD_NAMES_ZH[m] for m in method.values]
    assert [c.label for c in context_extension_explorer().controls] == ["rule", "factor s"]


def test_the_check_speaks_chinese_with_lang_zh():
    result = check_rotate_cache(rotate_cache, lang="zh")
    assert result and str(result).startswith("通过") and has_chinese(result.message)
    assert "三种规则" in result.message
    english = check_rotate_cache(rotate_cache)
    assert english.message == ("rotate_cache turns the keys to positions start, start+1, … with the given frequencies, for three "
                               "rules and starts 0, 37 and 1000 and two seeded random cases.")


@pytest.mark.parametrize("wrong, en, zh", [
    (lambda keys, start, inv_freq: rotate_cache(keys, 0, inv_freq), "positions", "位置"),
    (lambda keys, start, inv_freq: rope_lib.apply_rope(keys, torch.arange(start, start + keys.shape[1]), layout="interleaved"), "frequencies", "频率"),
    (lambda keys, start, inv_freq: rope_lib.apply_rope(keys, torch.arange(start, start + keys.shape[1]), inv_freq=inv_freq, layout="half"),
     "pairing", "半分布局"),
    (lambda keys, start, inv_freq: rope_lib.apply_rope(keys, -torch.arange(start, start + keys.shape[1]), inv_freq=inv_freq, layout="interleaved"), "direction", "方向"),
    (lambda keys, start, inv_freq: rotate_cache(keys, start + 1, inv_freq), "off by one", "差了一位"),
    (lambda keys, start, inv_freq: rotate_cache(keys, start, inv_freq).float(), "dtype", "dtype"),
    (lambda keys, start, inv_freq: rotate_cache(keys, start, inv_freq)[:, 1:], "shape", "形状"),
    (lambda keys, start, inv_freq: rotate_cache(keys, start, inv_freq) * 1.5, "the result is not", "结果不是"),
], ids=["positions", "frequencies", "pairing", "direction", "off-by-one", "dtype", "shape", "other"])
def test_each_hint_in_both_languages(wrong, en, zh):
    english, chinese_result = check_rotate_cache(wrong), check_rotate_cache(wrong, lang="zh")
    assert not english and en in english.message and not has_chinese(english.message)
    assert not chinese_result and zh in chinese_result.message and has_chinese(chinese_result.message)
    assert str(chinese_result).startswith("尚未通过")


def test_the_check_refuses_an_unknown_language():
    with pytest.raises(ValueError, match="lang"):
        check_rotate_cache(rotate_cache, lang="fr")


# --- the facts the chapter states about DeepSeek's YaRN, against transformers' own code -------------------------------

deepseek_v3 = pytest.importorskip("transformers.models.deepseek_v3.modeling_deepseek_v3")


@pytest.mark.parametrize("factor", [4.0, 16.0, 40.0])
def test_deepseek_yarn_puts_its_temperature_into_the_softmax_scale(factor):
    rule = rope_lib.RopeScaling("yarn", factor, original_max_len=4096, mscale=1.0, mscale_all_dim=1.0)
    assert rule.attention_factor == 1.0  # cos and sin are not scaled
    scale = deepseek_v3.yarn_apply_mscale({"rope_type": "yarn", "factor": factor, "mscale_all_dim": 1.0}, 1.0)
    assert scale == pytest.approx(rope_lib.scaling.yarn_attention_factor(factor) ** 2, rel=1e-15)
    assert scale > 1.0
    assert deepseek_v3.yarn_apply_mscale({"rope_type": "default"}, 1.0) == 1.0  # plain RoPE: the scale stays 1/√d


def test_the_two_places_for_the_factor_give_the_same_attention_weights():
    """YaRN's factor on cos and sin of q and k, or its square on the softmax scale: one set of weights."""
    factor = rope_lib.scaling.yarn_attention_factor(16.0)
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(1, 1, 1, 32, dtype=torch.float64, generator=gen)
    k = torch.randn(1, 5, 1, 32, dtype=torch.float64, generator=gen)
    positions = torch.arange(5)
    plain = (rope_lib.apply_rope(q, [7], layout="interleaved") * rope_lib.apply_rope(k, positions, layout="interleaved")).sum(-1)[0, :, 0]
    scaled = (rope_lib.apply_rope(q, [7], attention_factor=factor, layout="interleaved") * rope_lib.apply_rope(k, positions, attention_factor=factor, layout="interleaved")).sum(-1)[0, :, 0]
    torch.testing.assert_close(torch.softmax(scaled / 32**0.5, -1), torch.softmax(factor**2 * plain / 32**0.5, -1))
    assert not torch.allclose(torch.softmax(plain / 32**0.5, -1), torch.softmax(scaled / 32**0.5, -1))  # the factor matters
