"""Which layers rotate and Llama 4's temperature on the others, against slow references, against Meta's Llama 4
(llama-models, run on the CPU in one process) and Hugging Face's Llama 4 and SmolLM3 configs; their bad-input errors."""

import math

import numpy as np
import pytest
import torch
from test_llama import meta_model_parallel  # noqa: F401  (the fixture: fairscale's one-process model-parallel init)

from rope_lib.layer_schedule import attention_temperature, rope_layers


def test_rope_layers_against_the_definition():
    assert rope_layers(6) == (True,) * 6
    assert rope_layers(8, 4) == (True, True, True, False, True, True, True, False)
    assert rope_layers(3, 1) == (False, False, False)
    for n, k in [(48, 4), (36, 4), (10, 3)]:
        assert [layer for layer, rotates in enumerate(rope_layers(n, k)) if not rotates] == list(range(k - 1, n, k))


def test_attention_temperature_against_the_formula_pair_by_pair():
    positions = list(range(0, 40)) + [8190, 8191, 8192, 16383, 16384, 10**6]
    expected = [1 + 0.1 * math.log(math.floor((m + 1) / 8192) + 1) for m in positions]
    np.testing.assert_allclose(attention_temperature(positions), expected, rtol=1e-15)
    tau = attention_temperature(range(8191))
    assert np.all(tau == 1.0)  # short contexts are untouched
    assert attention_temperature([8191])[0] == pytest.approx(1 + 0.1 * math.log(2), rel=1e-15)
    np.testing.assert_allclose(attention_temperature([3, 7, 11], floor_scale=4.0, attn_scale=0.5), [1 + 0.5 * math.log(2), 1 + 0.5 * math.log(3), 1 + 0.5 * math.log(4)], rtol=1e-15)


@pytest.fixture
def meta_llama4_on_cpu(meta_model_parallel, monkeypatch):  # noqa: F811
    """Meta's Llama 4 blocks put their caches on CUDA with `.cuda()`; on this CPU-only test, `.cuda()` leaves a tensor where it is."""
    monkeypatch.setattr(torch.Tensor, "cuda", lambda self, *args, **kwargs: self)
    from llama_models.llama4 import model
    from llama_models.llama4.args import ModelArgs

    return model, ModelArgs


@pytest.mark.parametrize("n_layers, interval", [(8, 4), (12, 3), (5, None), (4, 1)])
def test_rope_layers_match_metas_llama4_blocks(meta_llama4_on_cpu, n_layers, interval):
    model, ModelArgs = meta_llama4_on_cpu
    args = ModelArgs(dim=32, n_layers=n_layers, n_heads=2, n_kv_heads=2, vocab_size=16, nope_layer_interval=interval, max_seq_len=4, max_batch_size=1)
    theirs = tuple(model.TransformerBlock(layer, args).attention.use_rope for layer in range(n_layers))
    assert rope_layers(n_layers, interval) == theirs


@pytest.mark.parametrize("config_name", ["Llama4TextConfig", "SmolLM3Config"])
@pytest.mark.parametrize("n_layers, interval", [(48, 4), (36, 4), (10, 3)])
def test_rope_layers_match_hugging_face_configs(config_name, n_layers, interval):
    """Hugging Face's `no_rope_layers` holds 1 for a layer that *does* use RoPE (`use_rope = config.no_rope_layers[i]`)."""
    import transformers

    config = getattr(transformers, config_name)(num_hidden_layers=n_layers, no_rope_layer_interval=interval)
    assert rope_layers(n_layers, interval) == tuple(bool(flag) for flag in config.no_rope_layers)


def metas_query_temperature(model, ModelArgs, start, seqlen, floor_scale, attn_scale):
    """The factor Meta's Llama 4 Attention multiplies its queries by, read off the queries it hands to attention
    with temperature tuning on and off (a NoPE layer, so nothing else touches them)."""
    args = ModelArgs(dim=32, n_layers=1, n_heads=2, n_kv_heads=1, vocab_size=16, max_seq_len=start + seqlen, max_batch_size=1,
                     attn_temperature_tuning=True, floor_scale=floor_scale, attn_scale=attn_scale)
    layer = model.Attention(args, use_qk_norm=False, use_rope=False)
    gen = torch.Generator().manual_seed(4)
    with torch.no_grad():
        for name in ("wq", "wk", "wv", "wo"):  # Meta leaves its weights uninitialised (init_method is the identity)
            weight = getattr(layer, name).weight
            weight.copy_(torch.randn(weight.shape, generator=gen) / 8)
    seen = []
    real_sdpa = torch.nn.functional.scaled_dot_product_attention

    def spy(q, k, v, **kwargs):
        seen.append(q.clone())
        return real_sdpa(q, k, v, **kwargs)

    x = torch.randn(1, seqlen, 32, generator=torch.Generator().manual_seed(3))
    with pytest.MonkeyPatch.context() as patch, torch.no_grad():
        patch.setattr(model.F, "scaled_dot_product_attention", spy)
        layer(x, start, freqs_cis=None)
        layer.attn_temperature_tuning = False
        layer(x, start, freqs_cis=None)
    tuned, plain = seen  # (B, H, T, D) each
    return (tuned / plain)[0, :, :, :].mean(dim=(0, 2)).double().numpy(), tuned, plain


@pytest.mark.parametrize("start, seqlen, floor_scale, attn_scale", [(0, 40, 4.0, 0.1), (1000, 24, 8.0, 0.25), (8180, 20, 8192.0, 0.1)])
def test_attention_temperature_matches_metas_llama4_attention(meta_llama4_on_cpu, start, seqlen, floor_scale, attn_scale):
    """Meta computes the factor in float32: agreement to float32 rounding (rtol 1e-6) at every position."""
    model, ModelArgs = meta_llama4_on_cpu
    ratio, tuned, plain = metas_query_temperature(model, ModelArgs, start, seqlen, floor_scale, attn_scale)
    ours = attention_temperature(range(start, start + seqlen), floor_scale, attn_scale)
    np.testing.assert_allclose(ratio, ours, rtol=1e-6)
    torch.testing.assert_close(tuned, plain * torch.from_numpy(ours).float().view(1, 1, -1, 1), rtol=1e-6, atol=1e-7)


def test_the_meta_temperature_comparison_catches_an_off_by_one_position(meta_llama4_on_cpu):
    """Plant the classic slip, ⌊m / floor_scale⌋ for ⌊(m + 1) / floor_scale⌋: the comparison with Meta must fail."""
    model, ModelArgs = meta_llama4_on_cpu
    ratio, _, _ = metas_query_temperature(model, ModelArgs, 0, 40, 4.0, 0.1)
    np.testing.assert_allclose(ratio, attention_temperature(range(40), 4.0, 0.1), rtol=1e-6)
    slipped = 1 + 0.1 * np.log(np.floor(np.arange(40) / 4.0) + 1)
    assert not np.allclose(ratio, slipped, rtol=1e-6)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: rope_layers(0), ValueError, r"n_layers must be a positive integer, got 0"),
        (lambda: rope_layers(48.0, 4), TypeError, r"n_layers must be an int"),
        (lambda: rope_layers(48, 0), ValueError, r"nope_layer_interval must be a positive integer, got 0"),
        (lambda: rope_layers(48, 4.0), TypeError, r"nope_layer_interval must be an int"),
        (lambda: attention_temperature([1.5]), TypeError, r"positions must hold integers"),
        (lambda: attention_temperature([-1, 2]), ValueError, r"positions must be non-negative token indices, got min -1"),
        (lambda: attention_temperature([[1, 2]]), ValueError, r"positions must have shape \(T,\), got \(1, 2\)"),
        (lambda: attention_temperature([1], floor_scale=0.0), ValueError, r"floor_scale must be greater than 0"),
        (lambda: attention_temperature([1], attn_scale=float("nan")), TypeError, r"attn_scale must be a finite real number"),
    ],
)
def test_bad_input_is_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()
