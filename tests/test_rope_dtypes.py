"""Half-precision inputs keep their dtype, and angles never pass through half precision."""

import pytest
import torch

from rope_lib import apply_rope, apply_rotary_emb, precompute_freqs_cis, rope_cos_sin
from rope_lib.rope import rope_angles

HALF = [torch.bfloat16, torch.float16]


@pytest.mark.parametrize("dtype", HALF)
def test_half_precision_in_half_precision_out(dtype):
    x = torch.randn(1, 4, 2, 8).to(dtype)
    assert apply_rope(x, range(4), layout="interleaved").dtype == dtype
    assert apply_rope(x, range(4), layout="half").dtype == dtype
    q, k = apply_rotary_emb(x, x, precompute_freqs_cis(8, 4))
    assert q.dtype == k.dtype == dtype


@pytest.mark.parametrize("dtype", HALF)
def test_half_precision_output_is_the_rounded_float32_result(dtype):
    x = torch.randn(2, 5, 3, 16).to(dtype)
    exact = apply_rope(x.float(), range(1000, 1005), layout="interleaved")
    torch.testing.assert_close(apply_rope(x, range(1000, 1005), layout="interleaved"), exact.to(dtype), rtol=0, atol=0)


def test_bf16_would_merge_positions_256_and_257():
    """The pitfall itself: bf16 has 8 significant bits, so 257 rounds to 256."""
    assert torch.tensor(257.0, dtype=torch.bfloat16).item() == 256.0


@pytest.mark.parametrize("dtype", HALF)
def test_positions_256_and_257_rotate_differently(dtype):
    x = torch.ones(1, 2, 1, 8, dtype=dtype)
    out = apply_rope(x, [256, 257], layout="interleaved")
    assert not torch.equal(out[0, 0], out[0, 1]), "angles were computed in a precision that merges 256 and 257"
    cos, _ = rope_cos_sin([256, 257], 8, dtype=torch.float32)
    assert not torch.equal(cos[0], cos[1])


def test_angles_are_float64_and_exact_for_large_positions():
    a = rope_angles(torch.tensor([10**6, 10**6 + 1]), 4)
    assert a.dtype == torch.float64
    assert a[1, 0] - a[0, 0] == 1.0


def test_float64_table_keeps_float64_precision():
    table = precompute_freqs_cis(8, 10, dtype=torch.complex128)
    assert table.dtype == torch.complex128
    assert precompute_freqs_cis(8, 10).dtype == torch.complex64
