"""The facts of chapter "RoPE in today's models", in both editions: Gemma 4's full-attention heads are 512 wide (as
Hugging Face's Gemma 4 configuration gives them), so p = 0.25 turns 64 pairs, the slowest at about 188 positions, and
partial rotary's slowest at about 5,063,256; Llama 4's RoPE layers attend within 8,192-token chunks and its NoPE layers
over the whole context; RoPE with linear attention is RoFormer's eq. 19, checked by rope_lib. Every number is glued,
none typed into the prose."""

import re

import numpy as np
import pytest

import rope_lib
from paths import ROOT

PAGES = ["book/rope_variants.md", "book/zh/rope_variants.md"]


def code_and_prose(page):
    text = (ROOT / page).read_text()
    code = "\n".join(re.findall(r"```\{code-cell\}.*?\n```", text, flags=re.S))
    prose = re.sub(r"```\{code-cell\}.*?\n```", "", text, flags=re.S)
    return code, prose


def test_gemma_4_full_attention_heads_are_512_wide_in_hugging_faces_config():
    from transformers import Gemma4TextConfig

    config = Gemma4TextConfig()
    full = config.layer_types.index("full_attention")
    sliding = config.layer_types.index("sliding_attention")
    assert config.per_layer_config[full].head_dim == 512 and config.per_layer_config[sliding].head_dim == 256
    params = config.rope_parameters["full_attention"]
    assert params == {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1_000_000.0}


def test_gemma_4_wavelengths_from_rope_lib():
    p_rope = rope_lib.RopeScaling("proportional", 1.0, proportion=0.25).frequencies(512, 1e6)
    partial = rope_lib.inv_freq(rope_lib.scaling.config_rotary_dim(512, partial_rotary_factor=0.25), 1e6)
    kept = rope_lib.scaling.proportional_kept_pairs(512, 0.25)
    assert kept == 64 == np.count_nonzero(p_rope) == partial.size
    assert round(2 * np.pi / p_rope[kept - 1]) == 188 and round(2 * np.pi / partial[-1]) == 5_063_256
    # at the 256-wide head the chapter once used, the numbers differ: the fix is visible
    assert rope_lib.scaling.proportional_kept_pairs(256, 0.25) == 32


def test_llama_4_rope_layers_are_chunked_and_nope_layers_global():
    from transformers import Llama4TextConfig

    config = Llama4TextConfig(num_hidden_layers=48)
    flags = rope_lib.layer_schedule.rope_layers(48, 4)
    assert config.no_rope_layers == [int(f) for f in flags] and config.attention_chunk_size == 8192
    for kind, rotates in zip(config.layer_types, flags):
        assert kind == ("chunked_attention" if rotates else "full_attention")


@pytest.mark.parametrize("page", PAGES)
def test_the_page_reads_gemma_4_from_the_config_and_glues_its_numbers(page):
    code, prose = code_and_prose(page)
    assert "Gemma4TextConfig()" in code and "per_layer_config[full_layer].head_dim" in code
    assert "frequencies(256" not in code and "(1, 5, 1, 256" not in code
    for name in ("rv_gemma_head", "rv_gemma_sliding_head", "rv_gemma_pairs", "rv_gemma_p", "rv_p_kept", "rv_p_slowest", "rv_partial_slowest"):
        assert f'glue("{name}",' in code and f"{{glue:text}}`{name}" in prose
    gemma = prose[prose.index("rv_gemma_head") - 300 : prose.index("rv_partial_slowest") + 60]
    assert not re.search(r"\b(512|256|64|188|5,063,256)\b", gemma), "a Gemma 4 number typed into the prose"


@pytest.mark.parametrize("page", PAGES)
def test_the_page_says_llama_4_rope_layers_attend_within_chunks(page):
    code, prose = code_and_prose(page)
    assert "Llama4TextConfig(num_hidden_layers=48)" in code and 'glue("rv_llama4_chunk",' in code
    assert '{True: {"chunked_attention"}, False: {"full_attention"}}' in code
    section = prose[prose.index("(rv-nope)=") : prose.index("(rv-temperature)=")]
    assert "{glue:text}`rv_llama4_chunk:,`" in section and "attention_chunk_size" in section
    assert "8,192" not in section and "8192" not in section


@pytest.mark.parametrize("page", PAGES)
def test_the_page_has_rope_with_linear_attention_checked_by_rope_lib(page):
    code, prose = code_and_prose(page)
    assert "(rv-linear)=" in prose and "(rv-linear-attention)" in prose and "katharopoulos2020transformers" in prose
    assert ":pyobject: rope_linear_attention" in prose
    assert "at + 1000" in code and "weights @ v_lin - out" in code and "assert shift_gap < 1e-12 and quadratic_gap < 1e-12" in code
    for name in ("rv_lin_shift_gap", "rv_lin_quadratic_gap", "rv_lin_negative", "rv_lin_visible", "rv_lin_sum_min"):
        assert f'glue("{name}",' in code and f"{{glue:text}}`{name}" in prose
    # the denominator: in the display, unrotated (no R in the line below \frac's numerator)
    display = prose[prose.index("\\mathbf{o}_m = \\frac") : prose.index("(rv-linear-attention)")]
    numerator, denominator = display.split("\n", 1)
    assert "R^d_{\\Theta,m}" in numerator and "R^d" not in denominator


@pytest.mark.parametrize("page", PAGES)
def test_every_exercise_has_a_hint(page):
    text = (ROOT / page).read_text()
    exercises = re.findall(r":::\{exercise\}.*?\n:::\n", text, flags=re.S)
    assert len(exercises) == 3
    for exercise in exercises:
        assert re.search(r"```\{admonition\} (Hint|提示)\n:class: dropdown", exercise), exercise[:80]
