"""The pieces of Meta's complex form that chapter "The LLaMA implementation" walks through."""

import pytest
import torch

from rope_lib import apply_rotary_emb, precompute_freqs_cis
from rope_lib.rope import reshape_for_broadcast, rotate_quarter


def test_reshape_for_broadcast_puts_the_table_between_batch_and_heads():
    x = torch.randn(3, 7, 2, 10)  # (B, T, H, D)
    table = precompute_freqs_cis(10, 7)  # (T, D/2)
    view = reshape_for_broadcast(table, x)
    assert view.shape == (1, 7, 1, 5)
    assert torch.equal(view[0, :, 0], table)
    with pytest.raises(ValueError, match=r"freqs_cis must have shape \(T, D/2\) = \(7, 5\).*slice the table"):
        reshape_for_broadcast(precompute_freqs_cis(10, 8), x)
    with pytest.raises(TypeError, match="freqs_cis must be a complex tensor"):
        reshape_for_broadcast(torch.ones(7, 5), x)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rotate_quarter_is_multiplication_by_i(layout):
    x = torch.randn(2, 3, 4, 8, dtype=torch.float64)
    turned = rotate_quarter(x, layout)
    if layout == "interleaved":
        pairs = torch.view_as_complex(x.unflatten(-1, (-1, 2)))
        assert torch.allclose(torch.view_as_real(pairs * 1j).flatten(-2), turned)
    else:
        first, second = x.chunk(2, dim=-1)
        assert torch.equal(turned, torch.cat([-second, first], dim=-1))
    assert torch.equal(rotate_quarter(rotate_quarter(x, layout), layout), -x)  # two quarter turns: a half turn


def test_a_quarter_period_position_is_a_quarter_turn():
    """Pair 0 has θ_0 = 1, so a table at angle π/2 there turns it like rotate_quarter."""
    x = torch.randn(1, 1, 1, 2, dtype=torch.float64)
    quarter = torch.polar(torch.ones(1, 1, dtype=torch.float64), torch.full((1, 1), torch.pi / 2, dtype=torch.float64))
    turned, _ = apply_rotary_emb(x, x, quarter)
    assert torch.allclose(turned, rotate_quarter(x, "interleaved"))
