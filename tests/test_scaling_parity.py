"""The context-extension rules against the packages practitioners run, installed (never copied in):
Hugging Face transformers' rope-initialisation functions and Meta's `apply_scaling` from llama-models.

Hugging Face computes its frequencies in float32, so the comparisons allow float32 rounding;
Meta's `apply_scaling` is fed float64 frequencies and must agree to float64 rounding.
"""

import numpy as np
import pytest
import torch

import rope_lib
from rope_lib import (
    RopeScaling,
    apply_rope,
    dynamic_ntk_inv_freq,
    inv_freq,
    llama3_inv_freq,
    llama3_scale_freqs,
    ntk_inv_freq,
    partial_rotary_dim,
    position_interpolation_inv_freq,
    precompute_freqs_cis,
    yarn_attention_factor,
    yarn_inv_freq,
)

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
    torch.testing.assert_close(apply_rope(x, positions, rotary_dim=rotary), expected, rtol=0, atol=1e-5)
