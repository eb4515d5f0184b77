"""The context-extension rules against the packages practitioners run, installed (never copied in):
Hugging Face transformers' rope-initialisation functions and Meta's `apply_scaling` from llama-models.

Hugging Face computes its frequencies in float32, so the comparisons allow float32 rounding;
Meta's `apply_scaling` is fed float64 frequencies and must agree to float64 rounding.
"""

import numpy as np
import pytest
import torch

import rope_lib
from rope_lib import RopeScaling, apply_rope, inv_freq, precompute_freqs_cis
from rope_lib.scaling import dynamic_ntk_inv_freq, llama3_inv_freq, llama3_scale_freqs, ntk_inv_freq, partial_rotary_dim, position_interpolation_inv_freq, yarn_attention_factor, yarn_inv_freq
from rope_lib import scaling
from rope_lib.scaling import llama3_wavelength_bounds

FLOAT32_RTOL = 1e-6


def hf_config(rope_parameters, head_dim=128, max_position_embeddings=4096):
    from transformers import LlamaConfig

    return LlamaConfig(
        hidden_size=head_dim * 4,
        num_attention_heads=4,
        head_dim=head_dim,
        max_position_embeddings=max_position_embeddings,
        rope_parameters=rope_parameters,
    )


def hf_init(rope_type, config, seq_len=None):
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    freqs, attention_factor = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=seq_len)
    return freqs.double().numpy(), attention_factor


@pytest.mark.parametrize("head_dim, base, factor", [(64, 10000.0, 2.0), (128, 10000.0, 4.0), (128, 500000.0, 8.0)])
def test_linear_matches_hugging_face(head_dim, base, factor):
    theirs, attention = hf_init("linear", hf_config({"rope_type": "linear", "rope_theta": base, "factor": factor}, head_dim))
    np.testing.assert_allclose(position_interpolation_inv_freq(head_dim, base, factor), theirs, rtol=FLOAT32_RTOL)
    assert attention == 1.0 == RopeScaling("linear", factor).attention_factor


@pytest.mark.parametrize("seq_len", [1, 1000, 2048, 2049, 3000, 8192, 20000])
@pytest.mark.parametrize("head_dim, base, factor", [(64, 10000.0, 2.0), (128, 10000.0, 4.0)])
def test_dynamic_ntk_matches_hugging_face_at_every_length(head_dim, base, factor, seq_len):
    config = hf_config({"rope_type": "dynamic", "rope_theta": base, "factor": factor}, head_dim, max_position_embeddings=2048)
    theirs, _ = hf_init("dynamic", config, seq_len=seq_len)
    ours = dynamic_ntk_inv_freq(head_dim, base, factor, seq_len=seq_len, original_max_len=2048)
    np.testing.assert_allclose(ours, theirs, rtol=FLOAT32_RTOL)
    if seq_len <= 2048:
        np.testing.assert_allclose(ours, inv_freq(head_dim, base), rtol=0, atol=0)


@pytest.mark.parametrize("factor", [2.0, 4.0, 16.0])
def test_static_ntk_is_hugging_face_dynamic_rule_at_length_s_times_l_with_factor_one(factor):
    """HF has no static NTK-aware type; its dynamic rule with factor 1 at length s·L is exactly base·s^(d/(d−2))."""
    config = hf_config({"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 1.0}, 128, max_position_embeddings=2048)
    theirs, _ = hf_init("dynamic", config, seq_len=int(factor * 2048))
    np.testing.assert_allclose(ntk_inv_freq(128, 10000.0, factor), theirs, rtol=FLOAT32_RTOL)


@pytest.mark.parametrize("truncate", [True, False])
@pytest.mark.parametrize(
    "head_dim, base, factor, original, beta_fast, beta_slow",
    [(128, 10000.0, 4.0, 4096, 32.0, 1.0), (64, 10000.0, 16.0, 2048, 32.0, 1.0), (128, 500000.0, 8.0, 8192, 16.0, 2.0), (128, 1e6, 2.0, 4096, 32.0, 1.0)],
)
def test_yarn_matches_hugging_face(head_dim, base, factor, original, beta_fast, beta_slow, truncate):
    params = {
        "rope_type": "yarn", "rope_theta": base, "factor": factor, "original_max_position_embeddings": original,
        "beta_fast": beta_fast, "beta_slow": beta_slow, "truncate": truncate,
    }
    theirs, attention = hf_init("yarn", hf_config(params, head_dim, max_position_embeddings=int(factor * original)))
    ours = yarn_inv_freq(head_dim, base, factor, original_max_len=original, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate)
    np.testing.assert_allclose(ours, theirs, rtol=FLOAT32_RTOL)
    assert attention == pytest.approx(yarn_attention_factor(factor), rel=1e-12)
    assert RopeScaling("yarn", factor, original_max_len=original).attention_factor == pytest.approx(attention, rel=1e-12)


YARN_ATTENTION_CASES = {
    "plain YaRN": {},
    "DeepSeek-style, mscale = mscale_all_dim = 1": {"mscale": 1.0, "mscale_all_dim": 1.0},
    "DeepSeek-style, mscale 0.707 over mscale_all_dim 1": {"mscale": 0.707, "mscale_all_dim": 1.0},
    "mscale only, beside an explicit attention_factor": {"mscale": 0.707, "attention_factor": 0.9},
    "explicit attention_factor": {"attention_factor": 0.8},
    "explicit attention_factor beside both mscales": {"attention_factor": 1.25, "mscale": 1.0, "mscale_all_dim": 0.707},
}


@pytest.mark.parametrize("case", YARN_ATTENTION_CASES)
@pytest.mark.parametrize("head_dim, base, factor, original", [(128, 10000.0, 40.0, 4096), (64, 500000.0, 4.0, 8192), (128, 10000.0, 1.0, 4096)])
def test_yarn_attention_factor_and_frequencies_match_hugging_face(case, head_dim, base, factor, original):
    """Hugging Face's `_compute_yarn_parameters` with the optional mscale, mscale_all_dim and attention_factor keys."""
    extra = YARN_ATTENTION_CASES[case]
    params = {"rope_type": "yarn", "rope_theta": base, "factor": factor, "original_max_position_embeddings": original, **extra}
    theirs, attention = hf_init("yarn", hf_config(params, head_dim, max_position_embeddings=int(factor * original)))
    ours = {"attention_factor_override" if key == "attention_factor" else key: value for key, value in extra.items()}
    rule = RopeScaling("yarn", factor, original_max_len=original, **ours)
    np.testing.assert_allclose(rule.frequencies(head_dim, base), theirs, rtol=FLOAT32_RTOL)
    assert rule.attention_factor == pytest.approx(attention, rel=1e-12)
    if case.startswith("DeepSeek-style, mscale = mscale_all_dim"):
        assert rule.attention_factor == attention == 1.0  # not 0.1·ln s + 1 = 1.3689 at s = 40


@pytest.mark.parametrize("head_dim, base, factor, original", [(128, 500000.0, 8.0, 8192), (64, 10000.0, 4.0, 4096), (128, 500000.0, 32.0, 8192)])
def test_llama3_matches_hugging_face(head_dim, base, factor, original):
    params = {
        "rope_type": "llama3", "rope_theta": base, "factor": factor, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": original,
    }
    theirs, attention = hf_init("llama3", hf_config(params, head_dim, max_position_embeddings=int(factor * original)))
    np.testing.assert_allclose(llama3_inv_freq(head_dim, base, factor, original_max_len=original), theirs, rtol=FLOAT32_RTOL)
    assert attention == 1.0


@pytest.mark.parametrize("head_dim", [64, 128])
def test_llama3_matches_metas_apply_scaling_exactly(head_dim):
    from llama_models.llama3.model import apply_scaling

    freqs = torch.from_numpy(inv_freq(head_dim, 500000.0))  # float64 in, so both compute in float64
    np.testing.assert_allclose(llama3_inv_freq(head_dim), apply_scaling(freqs).numpy(), rtol=1e-15, atol=0)


def test_llama3_rule_matches_meta_on_arbitrary_frequencies_including_both_boundaries():
    from llama_models.llama3.model import apply_scaling

    wavelengths = np.concatenate([np.geomspace(2.0, 1e6, 997), [2048.0, 8192.0, 2047.999, 8192.001]])
    freqs = 2 * np.pi / wavelengths
    np.testing.assert_allclose(llama3_scale_freqs(freqs), apply_scaling(torch.from_numpy(freqs)).numpy(), rtol=1e-15, atol=0)


def meta_threshold_mismatches():
    """The wavelengths, within a position of Llama 3.1's thresholds 2048 and 8192, where `llama3_scale_freqs`
    (float64, Meta's settings) differs from Meta's `apply_scaling` by more than float64 rounding."""
    from llama_models.llama3.model import apply_scaling

    wavelengths = np.array([edge + step for edge in (2048.0, 8192.0) for step in (-1.0, -0.5, -1e-6, 0.0, 1e-6, 0.5, 1.0)])
    freqs = 2 * np.pi / wavelengths
    ours, theirs = llama3_scale_freqs(freqs), apply_scaling(torch.from_numpy(freqs)).numpy()
    return [float(w) for w, a, b in zip(wavelengths, ours, theirs) if not abs(a - b) <= 1e-15 * abs(b)]


def test_llama3_thresholds_match_meta_just_inside_and_outside():
    assert meta_threshold_mismatches() == []


@pytest.mark.parametrize("shift", [(1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 1.0)])
def test_the_meta_threshold_check_catches_a_threshold_moved_by_one_position(monkeypatch, shift):
    """Plant 2048 → 2049 or 8192 → 8191 (or the other way) in rope_lib: the comparison with Meta must fail."""
    true_bounds = llama3_wavelength_bounds
    monkeypatch.setattr(scaling, "llama3_wavelength_bounds", lambda *args: tuple(b + db for b, db in zip(true_bounds(*args), shift)))
    assert meta_threshold_mismatches() != []


def hf_llama3_threshold_config(wavelength, factor, low, high, original):
    """A config whose second and last pair (head_dim 4) has the given wavelength: 2π·√base = λ."""
    base = (wavelength / (2 * np.pi)) ** 2
    params = {
        "rope_type": "llama3", "rope_theta": base, "factor": factor, "low_freq_factor": low, "high_freq_factor": high,
        "original_max_position_embeddings": original,
    }
    return base, hf_config(params, head_dim=4, max_position_embeddings=int(factor * original))


def hf_threshold_mismatches(factor, low, high, original):
    """The wavelengths, within a position of L/high and L/low, where rope_lib's Llama 3.1 rule and Hugging Face's
    `_compute_llama3_parameters` differ by more than float32 rounding (half a position away, the blend differs by > 1e-5)."""
    mismatches = []
    for edge in (original / high, original / low):
        for wavelength in (edge - 1.0, edge - 0.5, edge + 0.5, edge + 1.0):
            base, config = hf_llama3_threshold_config(wavelength, factor, low, high, original)
            theirs, _ = hf_init("llama3", config)
            ours = RopeScaling("llama3", factor, original_max_len=original, low_freq_factor=low, high_freq_factor=high).frequencies(4, base)
            if not np.allclose(ours, theirs, rtol=FLOAT32_RTOL, atol=0):
                mismatches.append(wavelength)
    return mismatches


HF_LLAMA3_SETTINGS = [(8.0, 1.0, 4.0, 8192), (4.0, 2.0, 8.0, 4096)]


@pytest.mark.parametrize("factor, low, high, original", HF_LLAMA3_SETTINGS)
def test_llama3_thresholds_match_hugging_face_just_inside_and_outside(factor, low, high, original):
    assert hf_threshold_mismatches(factor, low, high, original) == []


@pytest.mark.parametrize("shift", [(1.0, 0.0), (0.0, -1.0)])
@pytest.mark.parametrize("factor, low, high, original", HF_LLAMA3_SETTINGS)
def test_the_hugging_face_threshold_check_catches_a_threshold_moved_by_one_position(monkeypatch, factor, low, high, original, shift):
    true_bounds = llama3_wavelength_bounds
    monkeypatch.setattr(scaling, "llama3_wavelength_bounds", lambda *args: tuple(b + db for b, db in zip(true_bounds(*args), shift)))
    assert hf_threshold_mismatches(factor, low, high, original) != []


def test_scaled_table_matches_metas_use_scaled():
    from llama_models.llama3 import model as meta

    theirs = meta.precompute_freqs_cis(128, 3000, 500000.0, use_scaled=True)
    ours = precompute_freqs_cis(128, 3000, 500000.0, inv_freq=llama3_inv_freq(128))
    torch.testing.assert_close(ours, theirs, rtol=0, atol=4 * torch.finfo(torch.float32).eps * 3000 + 1e-5)


@pytest.mark.parametrize("rope_type", ["linear", "dynamic", "yarn", "llama3"])
@pytest.mark.parametrize("fraction", [0.25, 0.5])
def test_partial_rotary_frequencies_match_hugging_face(rope_type, fraction):
    head_dim, base, factor, original = 128, 10000.0, 4.0, 2048
    params = {"rope_type": rope_type, "rope_theta": base, "factor": factor, "partial_rotary_factor": fraction}
    if rope_type in ("yarn", "llama3"):
        params |= {"original_max_position_embeddings": original}
    if rope_type == "llama3":
        params |= {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    max_len = original if rope_type == "dynamic" else int(factor * original)
    theirs, attention = hf_init(rope_type, hf_config(params, head_dim, max_position_embeddings=max_len), seq_len=3 * original)
    rotary = partial_rotary_dim(head_dim, fraction)
    rule = RopeScaling(rope_type, factor, original_max_len=original)
    np.testing.assert_allclose(rule.frequencies(rotary, base, seq_len=3 * original), theirs, rtol=FLOAT32_RTOL)
    assert attention == pytest.approx(rule.attention_factor, rel=1e-12)


def test_partial_rotary_default_matches_gpt_neox():
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

    config = GPTNeoXConfig(hidden_size=256, num_attention_heads=4, rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25})
    theirs, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(config)
    np.testing.assert_allclose(inv_freq(partial_rotary_dim(64, 0.25), 10000.0), theirs.double().numpy(), rtol=FLOAT32_RTOL)


def test_partial_rotary_half_layout_matches_gpt_neox():
    """GPT-NeoX rotates the first rotary_dim coordinates with rotate_half and passes the rest through."""
    from transformers.models.gpt_neox.modeling_gpt_neox import apply_rotary_pos_emb

    b, t, h, d, rotary = 2, 9, 3, 64, 16
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(b, t, h, d, generator=gen), torch.randn(b, t, h, d, generator=gen)
    positions = torch.arange(100, 100 + t)
    freqs = yarn_inv_freq(rotary, 10000.0, 4.0, original_max_len=64)
    attention = yarn_attention_factor(4.0)
    cos, sin = rope_lib.rope_cos_sin(positions, rotary, inv_freq=freqs, attention_factor=attention)  # (T, rotary/2)
    cos_hf, sin_hf = torch.cat([cos, cos], -1)[None], torch.cat([sin, sin], -1)[None]  # (1, T, rotary)
    q_hf, k_hf = apply_rotary_pos_emb(q.transpose(1, 2), k.transpose(1, 2), cos_hf, sin_hf)
    opts = {"layout": "half", "inv_freq": freqs, "attention_factor": attention, "rotary_dim": rotary}
    torch.testing.assert_close(apply_rope(q, positions, **opts), q_hf.transpose(1, 2), rtol=0, atol=1e-5)
    torch.testing.assert_close(apply_rope(k, positions, **opts), k_hf.transpose(1, 2), rtol=0, atol=1e-5)


def test_partial_rotary_interleaved_layout_matches_gpt_j():
    """GPT-J rotates the first rotary_dim coordinates in adjacent pairs and passes the rest through."""
    from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb, create_sinusoidal_positions

    b, t, h, d, rotary = 1, 7, 2, 32, 8
    x = torch.randn(b, t, h, d, generator=torch.Generator().manual_seed(1))
    positions = torch.arange(t)
    table = create_sinusoidal_positions(64, rotary)  # (positions, rotary): sin then cos
    sin, cos = torch.split(table[positions][None], rotary // 2, dim=-1)  # (1, T, rotary/2) each
    rotated = apply_rotary_pos_emb(x[..., :rotary], sin, cos)
    expected = torch.cat([rotated, x[..., rotary:]], dim=-1)
    torch.testing.assert_close(apply_rope(x, positions, rotary_dim=rotary, layout="interleaved"), expected, rtol=0, atol=1e-5)


# ---------- LongRoPE, p-RoPE and the rope_type table ----------


def test_the_table_covers_every_hugging_face_rope_type():
    """Hugging Face's ROPE_INIT_FUNCTIONS keys are SCALING_RULES' names less "ntk" (which HF has not); "default" is plain RoPE."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    assert set(ROPE_INIT_FUNCTIONS) == set(rope_lib.scaling.SCALING_RULES) - {"ntk"}


def longrope_sets(n_pairs, seed):
    """Rising factor sets like a searched one: short from 1 to ~2, long from 1 to ~40 (float32-exact, as HF stores them)."""
    rng = np.random.default_rng(seed)
    short = np.sort(rng.uniform(1.0, 2.0, n_pairs)).astype(np.float32).astype(np.float64)
    long = np.sort(rng.uniform(1.0, 40.0, n_pairs)).astype(np.float32).astype(np.float64)
    return tuple(short.tolist()), tuple(long.tolist())


@pytest.mark.parametrize("seq_len", [None, 1, 4096, 4097, 131072])
@pytest.mark.parametrize(
    "head_dim, base, original, max_len, fraction, explicit_factor",
    [(96, 10000.0, 4096, 131072, 1.0, None), (128, 10000.0, 4096, 16384, 1.0, None), (64, 500000.0, 4096, 65536, 1.0, 8.0), (128, 10000.0, 4096, 32768, 0.5, None)],
)
def test_longrope_matches_hugging_face(head_dim, base, original, max_len, fraction, explicit_factor, seq_len):
    """HF `longrope` (Phi-3): frequencies to float32 rounding, the attention factor to 1e-12; without a `factor`
    key HF takes s = max_position_embeddings / original_max_position_embeddings, as the config passes it here."""
    rotary = partial_rotary_dim(head_dim, fraction)
    short, long = longrope_sets(rotary // 2, head_dim)
    params = {"rope_type": "longrope", "rope_theta": base, "short_factor": list(short), "long_factor": list(long),
              "original_max_position_embeddings": original, "partial_rotary_factor": fraction}
    if explicit_factor is not None:
        params["factor"] = explicit_factor
    theirs, attention = hf_init("longrope", hf_config(params, head_dim, max_position_embeddings=max_len), seq_len=seq_len)
    factor = explicit_factor if explicit_factor is not None else max_len / original
    rule = RopeScaling("longrope", factor, original_max_len=original, short_factor=short, long_factor=long)
    np.testing.assert_allclose(rule.frequencies(rotary, base, seq_len), theirs, rtol=FLOAT32_RTOL)
    assert rule.attention_factor == pytest.approx(attention, rel=1e-12)
    chosen = long if seq_len is not None and seq_len > original else short
    np.testing.assert_allclose(rope_lib.scaling.longrope_inv_freq(rotary, base, rescale_factors=chosen), theirs, rtol=FLOAT32_RTOL)


def test_longrope_parity_catches_the_factor_sets_swapped(monkeypatch):
    """Plant the slip T ≥ L for T > L (the long set at exactly the trained length): the comparison with HF must fail."""
    short, long = longrope_sets(48, 0)
    params = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": list(short), "long_factor": list(long), "original_max_position_embeddings": 4096}
    theirs, _ = hf_init("longrope", hf_config(params, 96, max_position_embeddings=131072), seq_len=4096)
    monkeypatch.setattr(scaling, "longrope_uses_long_factors", lambda seq_len, original: seq_len is not None and seq_len >= original)
    rule = RopeScaling("longrope", 32.0, original_max_len=4096, short_factor=short, long_factor=long)
    assert not np.allclose(rule.frequencies(96, 10000.0, 4096), theirs, rtol=FLOAT32_RTOL)


@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.3, 0.5, 0.75, 1.0])
@pytest.mark.parametrize("head_dim, base, factor", [(256, 1e6, 1.0), (128, 10000.0, 1.0), (64, 10000.0, 4.0), (512, 1e6, 1.0)])
def test_proportional_matches_hugging_face(head_dim, base, factor, fraction):
    """HF `proportional` (p-RoPE): d/2 frequencies over the whole head, the slow ones 0; float32 rounding, zeros exact."""
    params = {"rope_type": "proportional", "rope_theta": base, "factor": factor, "partial_rotary_factor": fraction}
    theirs, attention = hf_init("proportional", hf_config(params, head_dim))
    rule = RopeScaling("proportional", factor, proportion=fraction)
    ours = rule.frequencies(head_dim, base)
    np.testing.assert_allclose(ours, theirs, rtol=FLOAT32_RTOL, atol=0)
    np.testing.assert_array_equal(ours == 0, theirs == 0)
    assert attention == 1.0 == rule.attention_factor


def test_proportional_is_not_partial_rotary_at_the_same_fraction():
    """Gemma 4's full-attention layers: p = 0.25 of a 256-wide head keeps base^(−2i/256), i < 32; partial rotary at
    0.25 would rotate 64 coordinates with base^(−2i/64), i < 32: the same count, other frequencies."""
    p_rope = rope_lib.scaling.proportional_inv_freq(256, 1e6, 0.25)
    partial = inv_freq(partial_rotary_dim(256, 0.25), 1e6)
    assert np.count_nonzero(p_rope) == partial.size == 32
    assert not np.allclose(p_rope[:32], partial)
    np.testing.assert_allclose(p_rope[:32], partial ** 0.25, rtol=1e-12)  # base^(−2i/256) = (base^(−2i/64))^(1/4)


@pytest.mark.parametrize("fraction", [0.0, 0.25, 1.0])
def test_proportional_rotates_in_apply_rope_and_attention_as_hugging_face_does(fraction):
    """p-RoPE's zero frequencies are pairs that never turn, not bad input: apply_rope and Attention take the rule's
    frequencies and rotate as Hugging Face's apply_rotary_pos_emb does with its own proportional table."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    head_dim, base, length = 16, 10000.0, 12
    params = {"rope_type": "proportional", "rope_theta": base, "partial_rotary_factor": fraction}
    theirs, _ = hf_init("proportional", hf_config(params, head_dim))
    angles = torch.arange(length, dtype=torch.float64)[:, None] * torch.from_numpy(theirs)  # (T, D/2)
    cos, sin = torch.cat([angles, angles], -1).cos(), torch.cat([angles, angles], -1).sin()  # (T, D): HF's halves
    q, k = torch.randn(2, 1, length, 2, head_dim, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    hf_q, hf_k = apply_rotary_pos_emb(q.transpose(1, 2), k.transpose(1, 2), cos[None], sin[None])  # (B, H, T, D)
    rule = RopeScaling("proportional", 1.0, proportion=fraction)
    freqs = rule.frequencies(head_dim, base)
    torch.testing.assert_close(apply_rope(q, range(length), layout="half", inv_freq=freqs), hf_q.transpose(1, 2), rtol=0, atol=1e-6)
    torch.testing.assert_close(apply_rope(k, range(length), layout="half", inv_freq=freqs), hf_k.transpose(1, 2), rtol=0, atol=1e-6)
    shape = dict(vocab_size=4, dim=2 * head_dim, n_layers=1, n_heads=2, hidden_dim=8, device="cpu", dtype=torch.float64)
    model = rope_lib.Model(rope_lib.ModelConfig(scaling=rule, layout="half", **shape))
    ours_cos, ours_sin = model.rope(torch.arange(length), seq_len=length)  # (T, D/2)
    torch.testing.assert_close(ours_cos, cos[:, : head_dim // 2], rtol=0, atol=1e-6)
    torch.testing.assert_close(ours_sin, sin[:, : head_dim // 2], rtol=0, atol=1e-6)


@pytest.mark.parametrize("model, fraction_key, default", [("gpt_neox", "rotary_pct", 0.25), ("phi", "partial_rotary_factor", 0.5)])
@pytest.mark.parametrize("fraction", [None, 0.25, 0.4, 0.5, 1.0])
def test_config_rotary_dim_matches_hugging_face_attention(model, fraction_key, default, fraction):
    """GPT-NeoX's `rotary_pct` and Phi's `partial_rotary_factor` (each with its model's default when absent) → the
    `rotary_ndims` Hugging Face's attention layer rotates."""
    import transformers

    head_dim, heads = 80, 4
    if model == "gpt_neox":
        kwargs = {} if fraction is None else {"rotary_pct": fraction}
        config = transformers.GPTNeoXConfig(hidden_size=head_dim * heads, num_attention_heads=heads, **kwargs)
        theirs = transformers.models.gpt_neox.modeling_gpt_neox.GPTNeoXAttention(config, 0).rotary_ndims
    else:
        kwargs = {} if fraction is None else {"partial_rotary_factor": fraction}
        config = transformers.PhiConfig(hidden_size=head_dim * heads, num_attention_heads=heads, **kwargs)
        theirs = transformers.models.phi.modeling_phi.PhiAttention(config, 0).rotary_ndims
    ours = rope_lib.scaling.config_rotary_dim(head_dim, **{fraction_key: default if fraction is None else fraction})
    assert ours == theirs
