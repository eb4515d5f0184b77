"""Facts the chapter "Longer contexts" states about DeepSeek's YaRN, against transformers' own DeepSeek code: with
mscale = mscale_all_dim the factor on cos and sin is exactly 1, and the temperature goes into the softmax scale."""

import pytest
import torch

import rope_lib

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
