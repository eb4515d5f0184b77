"""Chapter "RoPE in today's models" (rope_lib.teach.rope_variants; both editions): RoPE with linear attention against
its weights written out; the example LongRoPE factor sets; the facts the chapter states; its figures, interactive
figure and check, in both languages."""

import re

import numpy as np
import pytest
import torch

import rope_lib
from glyphs import has_chinese, missing_glyphs
from paths import ROOT
from rope_lib import RopeScaling, inv_freq
from rope_lib.scaling import ntk_inv_freq, yarn_inv_freq
from rope_lib.teach.exercises import check_longrope_frequencies
from rope_lib.teach.rope_variants import (
    EXAMPLE_SHORT_NTK_FACTOR,
    VARIANTS,
    elu_feature_map,
    example_longrope_factors,
    plot_layer_schedule,
    plot_variant_wavelengths,
    rope_linear_attention,
    rope_linear_attention_weights,
    variant_explorer,
    variant_frequencies,
)
from rope_lib.teach.shared.interactive import MAX_FRAMES
from test_exercises import longrope_frequencies


# --- RoPE with linear attention (RoFormer eq. 19) against its weights written out -------------------------------------

def inputs(seed=0, tokens=10, d=8, d_v=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((tokens, d)), rng.standard_normal((tokens, d)), rng.standard_normal((tokens, d_v))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seed, tokens, d, base", [(0, 10, 8, 10000.0), (1, 7, 2, 10.0), (2, 16, 16, 500000.0), (3, 1, 4, 10000.0)])
def test_the_linear_form_is_the_weights_written_out(causal, seed, tokens, d, base):
    q, k, v = inputs(seed, tokens, d)
    positions = np.random.default_rng(seed).integers(0, 5000, tokens)
    fast = rope_linear_attention(q, k, v, positions, base=base, causal=causal)
    weights = rope_linear_attention_weights(q, k, positions, base=base, causal=causal)
    np.testing.assert_allclose(fast, weights @ v, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_a_shift_of_every_position_changes_nothing_and_a_shift_of_the_queries_does(causal):
    q, k, v = inputs(4, 12, 16)
    positions = np.arange(12)
    out = rope_linear_attention(q, k, v, positions, causal=causal)
    for shift in (1, 37, 10**6):
        np.testing.assert_allclose(rope_linear_attention(q, k, v, positions + shift, causal=causal), out, rtol=0, atol=1e-9)
        np.testing.assert_allclose(rope_linear_attention_weights(q, k, positions + shift, causal=causal),
                                   rope_linear_attention_weights(q, k, positions, causal=causal), rtol=0, atol=1e-9)
    # the same shift on the queries alone is a new distance for every pair: the check can fail
    turned_q = rope_linear_attention_weights(q, k, positions, causal=causal)
    shifted_queries = _weights_with_query_shift(q, k, positions, 5, causal)
    assert np.abs(shifted_queries - turned_q).max() > 1e-3


def _weights_with_query_shift(q, k, positions, shift, causal):
    """The weights with the queries rotated to positions + shift and the keys left where they were."""
    from rope_lib.rotation import rotary_matrix

    phi_q, phi_k = elu_feature_map(q), elu_feature_map(k)
    tokens, d = q.shape
    weights = np.zeros((tokens, tokens))
    for m in range(tokens):
        seen = range(m + 1) if causal else range(tokens)
        denominator = sum(phi_q[m] @ phi_k[j] for j in seen)
        for n in seen:
            weights[m, n] = (rotary_matrix(positions[m] + shift, d) @ phi_q[m]) @ (rotary_matrix(positions[n], d) @ phi_k[n]) / denominator
    return weights


def test_the_causal_running_sums_see_only_earlier_tokens():
    q, k, v = inputs(5, 9, 8)
    positions = np.arange(100, 109)
    out = rope_linear_attention(q, k, v, positions, causal=True)
    changed = v.copy()
    changed[6:] += 10.0  # later values move; outputs 0 … 5 must not
    moved = rope_linear_attention(q, k, changed, positions, causal=True)
    np.testing.assert_array_equal(moved[:6], out[:6])
    assert np.abs(moved[6:] - out[6:]).max() > 1e-3
    weights = rope_linear_attention_weights(q, k, positions, causal=True)
    assert np.all(np.triu(weights, 1) == 0)
    assert not np.allclose(out, rope_linear_attention(q, k, v, positions))  # causal and not differ


def test_the_denominator_stays_unrotated():
    """Without rotation (every token at one position) the weights are positive and sum to 1; with it some are
    negative and the sums drift from 1. Rotating the denominator too would make every sum 1 again: not RoFormer's form."""
    q, k, v = inputs(0, 12, 8)
    plain = rope_linear_attention_weights(q, k, np.full(12, 7))
    assert (plain > 0).all()
    np.testing.assert_allclose(plain.sum(axis=1), 1.0, rtol=1e-12)
    weights = rope_linear_attention_weights(q, k, np.arange(12))
    assert (weights < 0).any() and np.abs(weights.sum(axis=1) - 1).max() > 0.1
    rotated_denominator = weights / weights.sum(axis=1, keepdims=True)
    assert not np.allclose(rope_linear_attention(q, k, v, np.arange(12)), rotated_denominator @ v)


def test_the_feature_map_is_elu_plus_one():
    x = np.array([-30.0, -1.0, 0.0, 0.5, 3.0])
    np.testing.assert_allclose(elu_feature_map(x), torch.nn.functional.elu(torch.from_numpy(x)).numpy() + 1, rtol=1e-15, atol=1e-15)
    assert (elu_feature_map(x) > 0).all()


def test_tensors_and_ranges_are_read():
    q, k, v = inputs(6, 5, 4)
    out = rope_linear_attention(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), range(5), causal=True)
    np.testing.assert_allclose(out, rope_linear_attention(q, k, v, np.arange(5), causal=True), rtol=1e-15)


Q, K, V = inputs(7, 4, 4)


@pytest.mark.parametrize("call, error, words", [
    (lambda: rope_linear_attention(Q[:, :3], K[:, :3], V, range(4)), ValueError, "positive even"),
    (lambda: rope_linear_attention(Q, K[:3], V, range(4)), ValueError, "q and k must have one shape"),
    (lambda: rope_linear_attention(Q[0], K[0], V, range(4)), ValueError, "q must have shape"),
    (lambda: rope_linear_attention(Q, K, V[:3], range(4)), ValueError, "v must have one row per token"),
    (lambda: rope_linear_attention(Q, K, V, [0.0, 1.0, 2.0, 3.0]), TypeError, "positions must hold integers"),
    (lambda: rope_linear_attention(Q, K, V, range(3)), ValueError, "positions must have shape"),
    (lambda: rope_linear_attention(Q * np.nan, K, V, range(4)), ValueError, "q must hold finite"),
    (lambda: rope_linear_attention(Q, K, V + 1j, range(4)), TypeError, "v must hold real"),
    (lambda: rope_linear_attention(Q, K, V, range(4), base=1.0), ValueError, "base"),
    (lambda: rope_linear_attention(Q, K, V, range(4), causal="yes"), TypeError, "causal"),
    (lambda: rope_linear_attention(Q, K, V, range(4), feature_map=lambda x: x), ValueError, "feature_map must give finite numbers above 0"),
    (lambda: rope_linear_attention(Q, K, V, range(4), feature_map=lambda x: np.exp(x)[:, :2]), ValueError, "feature_map must keep the shape"),
    (lambda: rope_linear_attention(Q, K, V, range(4), feature_map="elu"), TypeError, "feature_map must be a function"),
    (lambda: rope_linear_attention_weights(Q, K, [0, 1, 2]), ValueError, "positions must have shape"),
    (lambda: rope_linear_attention_weights(Q, K, range(4), feature_map=np.negative), ValueError, "feature_map"),
])
def test_bad_input_is_refused_by_name(call, error, words):
    with pytest.raises(error, match=words):
        call()


# --- the example LongRoPE factor sets: from the NTK-aware and YaRN rules, rising from 1 -------------------------------

def test_example_sets_are_the_ntk_and_yarn_ratios():
    short, long = example_longrope_factors(128, 10000.0, 32.0, 4096)
    theta = inv_freq(128)
    np.testing.assert_allclose(theta / np.array(short), ntk_inv_freq(128, 10000.0, EXAMPLE_SHORT_NTK_FACTOR), rtol=1e-15)
    np.testing.assert_allclose(theta / np.array(long), yarn_inv_freq(128, 10000.0, 32.0, original_max_len=4096), rtol=1e-15)
    assert short[0] == long[0] == 1.0 and np.all(np.diff(long) >= 0) and np.isclose(long[-1], 32.0)
    RopeScaling("longrope", 32.0, original_max_len=4096, short_factor=short, long_factor=long)  # a valid rule


# --- the facts the chapter states, in both editions -------------------------------------------------------------------

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


# --- the figures and the interactive figure: drawn from rope_lib, every control changes the picture -------------------

def test_variant_frequencies_come_from_the_rules():
    np.testing.assert_array_equal(variant_frequencies("plain", 64, 100)[0], inv_freq(64))
    np.testing.assert_array_equal(variant_frequencies("p0.25", 64, 100)[0], RopeScaling("proportional", 1.0, proportion=0.25).frequencies(64, 10000.0))
    short_freqs, note_short = variant_frequencies("longrope", 64, 4096)
    long_freqs, note_long = variant_frequencies("longrope", 64, 4097)
    assert "short" in note_short and "long" in note_long and not np.allclose(short_freqs, long_freqs)
    with pytest.raises(ValueError, match=r"variant must be one of \('plain', 'p0.25', 'p0.75', 'longrope'\), got 'rope'"):
        variant_frequencies("rope", 64, 100)


@pytest.mark.slow
def test_every_control_changes_the_picture_within_the_frame_budget():
    widget = variant_explorer()
    assert np.prod([len(c.values) for c in widget.controls]) <= MAX_FRAMES
    base = widget.figure().to_png()
    for control in widget.controls:
        for value in control.values:
            if value != control.value:
                assert widget.figure(**{control.name: value}).to_png() != base, (control.name, value)
    assert [widget.controls[0].fmt(v) for v in widget.controls[0].values] == list(VARIANTS.values())


def test_figures_describe_themselves():
    fig = plot_variant_wavelengths("p0.25", 128, 8192)
    assert "48 pairs never turn" in fig.alt_text and "16 pairs turn" in fig.alt_text
    assert "12 NoPE layers" in plot_layer_schedule(48, 4).alt_text


# --- both languages: the figures, the interactive figure and the check ------------------------------------------------

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
