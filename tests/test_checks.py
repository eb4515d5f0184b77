"""Bad input is refused with a message that names the argument and what was expected."""

import pytest
import torch

from rope_lib import (
    Attention,
    apply_rope,
    apply_rotary_emb,
    precompute_freqs_cis,
    rope_cos_sin,
    rotate_pairs,
)


def x_of(d=8, t=4, dtype=torch.float32):
    return torch.randn(1, t, 2, d, dtype=dtype)


def test_odd_head_dimension():
    with pytest.raises(ValueError, match=r"x must have an even head dimension D.*D=7"):
        apply_rope(x_of(d=7), range(4))
    with pytest.raises(ValueError, match=r"xq must have an even head dimension"):
        apply_rotary_emb(x_of(d=7), x_of(d=7), precompute_freqs_cis(8, 4))
    with pytest.raises(ValueError, match=r"dim must be a positive even integer.*got 7"):
        precompute_freqs_cis(7, 4)
    with pytest.raises(ValueError, match=r"head_dim \(dim / n_heads\) must be a positive even integer"):
        Attention(12, 4, device="cpu")


def test_wrong_rank():
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, H, D\), got 3 dimensions"):
        apply_rope(torch.randn(4, 2, 8), range(4))


def test_positions_shape_mismatch():
    with pytest.raises(ValueError, match=r"positions must have shape \(T,\) = \(4,\) or \(B, T\) = \(1, 4\), got \(5,\)"):
        apply_rope(x_of(), range(5))


def test_table_shape_mismatch():
    table = precompute_freqs_cis(8, 16)
    with pytest.raises(ValueError, match=r"freqs_cis must have shape \(T, D/2\) = \(4, 4\).*got \(16, 4\).*start_pos"):
        apply_rotary_emb(x_of(), x_of(), table)
    cos, sin = rope_cos_sin(range(3), 8)
    with pytest.raises(ValueError, match=r"cos must have shape \(T, D/2\) = \(4, 4\)"):
        rotate_pairs(x_of(), cos, sin)


def test_positions_beyond_the_table():
    attention = Attention(16, 2, max_seq_len=8, device="cpu")
    with pytest.raises(ValueError, match=r"start_pos \+ T = 6 \+ 3 = 9 is past the cache of max_seq_len=8 positions"):
        attention(torch.randn(1, 3, 16), start_pos=6)
    with pytest.raises(ValueError, match=r"start_pos must be a non-negative int"):
        attention(torch.randn(1, 3, 16), start_pos=-1)
    with pytest.raises(ValueError, match=r"batch size 2, more than max_batch_size=1"):
        attention(torch.randn(2, 3, 16))


def test_table_of_another_dtype():
    with pytest.raises(TypeError, match=r"freqs_cis must have dtype torch.complex128 to rotate inputs of dtype torch.float64"):
        apply_rotary_emb(x_of(dtype=torch.float64), x_of(dtype=torch.float64), precompute_freqs_cis(8, 4))
    cos, sin = rope_cos_sin(range(4), 8, dtype=torch.float64)
    with pytest.raises(TypeError, match=r"cos must have dtype torch.float32 to rotate x of dtype torch.float32"):
        rotate_pairs(x_of(), cos, sin)
    with pytest.raises(TypeError, match=r"freqs_cis must be a complex tensor"):
        apply_rotary_emb(x_of(), x_of(), torch.ones(4, 4))
    with pytest.raises(TypeError, match=r"x must have the module's dtype torch.float32, got torch.float64"):
        Attention(16, 2, device="cpu")(torch.randn(1, 3, 16, dtype=torch.float64))


def test_table_on_another_device():
    meta = torch.device("meta")  # a device other than the input's, present on every machine
    with pytest.raises(ValueError, match=r"freqs_cis must be on the inputs' device cpu, got meta"):
        apply_rotary_emb(x_of(), x_of(), precompute_freqs_cis(8, 4).to(meta))
    cos, sin = rope_cos_sin(range(4), 8)
    with pytest.raises(ValueError, match=r"cos must be on x's device cpu, got meta"):
        rotate_pairs(x_of(), cos.to(meta), sin.to(meta))
    with pytest.raises(ValueError, match=r"positions must be on device cpu like the input, got meta"):
        apply_rope(x_of(), torch.arange(4, device=meta))


def test_non_integer_positions():
    with pytest.raises(TypeError, match=r"positions must hold integers \(token indices\), got dtype torch.float32"):
        apply_rope(x_of(), torch.arange(4.0))
    with pytest.raises(TypeError, match=r"positions must hold integers"):
        apply_rope(x_of(), [0, 1, 2.5, 3])
    with pytest.raises(TypeError, match=r"positions must hold integers"):
        apply_rope(x_of(), torch.ones(4, dtype=torch.bool))


def test_non_float_input_and_unknown_layout():
    with pytest.raises(TypeError, match=r"x must have a floating dtype"):
        apply_rope(torch.ones(1, 4, 2, 8, dtype=torch.int64), range(4))
    with pytest.raises(ValueError, match=r"layout must be one of \('interleaved', 'half'\), got 'neox'"):
        apply_rope(x_of(), range(4), layout="neox")
    with pytest.raises(TypeError, match=r"xq and xk must share dtype and device"):
        apply_rotary_emb(x_of(), x_of(dtype=torch.float64), precompute_freqs_cis(8, 4))
