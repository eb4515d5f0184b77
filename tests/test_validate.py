"""rope_lib._validate and the edges it guards: bad input is refused with a message that names the argument and what
was expected."""

import pytest
import torch

from rope_lib import (
    Model,
    ModelConfig,
    apply_rope,
    apply_rotary_emb,
    precompute_freqs_cis,
    rope_cos_sin,
)
from rope_lib.kernels import rotate_pairs_fused  # the checked entry for tables a caller hands in
from rope_lib.teach.llama_implementation import layer_scores


def config(**options):
    """A one-layer model's shape: dim 16, two heads of 8 (a config checks itself when it is made)."""
    return ModelConfig(**(dict(vocab_size=8, dim=16, n_layers=1, n_heads=2, hidden_dim=8, device="cpu") | options))


def tokens(batch=1, seq=2):
    return torch.zeros(batch, seq, dtype=torch.int64)


def x_of(d=8, t=4, dtype=torch.float32):
    return torch.randn(1, t, 2, d, dtype=dtype)


def test_odd_head_dimension():
    with pytest.raises(ValueError, match=r"x must have an even head dimension D.*D=7"):
        apply_rope(x_of(d=7), range(4), layout="interleaved")
    with pytest.raises(ValueError, match=r"xq must have an even head dimension"):
        apply_rotary_emb(x_of(d=7), x_of(d=7), precompute_freqs_cis(8, 4))
    with pytest.raises(ValueError, match=r"dim must be a positive even integer.*got 7"):
        precompute_freqs_cis(7, 4)
    with pytest.raises(ValueError, match=r"head_dim \(dim / n_heads\) must be a positive even integer"):
        config(dim=12, n_heads=4)


def test_wrong_rank():
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, H, D\), got 3 dimensions"):
        apply_rope(torch.randn(4, 2, 8), range(4), layout="interleaved")


def test_positions_shape_mismatch():
    with pytest.raises(ValueError, match=r"positions must have shape \(T,\) = \(4,\) or \(B, T\) = \(1, 4\), got \(5,\)"):
        apply_rope(x_of(), range(5), layout="interleaved")


def test_table_shape_mismatch():
    table = precompute_freqs_cis(8, 16)
    with pytest.raises(ValueError, match=r"freqs_cis must have shape \(T, D/2\) = \(4, 4\).*got \(16, 4\).*start_pos"):
        apply_rotary_emb(x_of(), x_of(), table)
    cos, sin = rope_cos_sin(range(3), 8)
    with pytest.raises(ValueError, match=r"cos must have shape \(T, D/2\) = \(4, 4\)"):
        rotate_pairs_fused(x_of(), cos, sin)


def test_positions_beyond_the_table():
    model = Model(config(max_seq_len=8))
    with pytest.raises(ValueError, match=r"start_pos \+ T = 6 \+ 3 = 9 is past the cache of max_seq_len=8 positions"):
        model(tokens(1, 3), start_pos=6)
    with pytest.raises(ValueError, match=r"start_pos must be a non-negative int"):
        model(tokens(1, 3), start_pos=-1)
    with pytest.raises(ValueError, match=r"the batch has 2 sequences, more than max_batch_size=1"):
        model(tokens(2, 3))


def test_table_of_another_dtype():
    with pytest.raises(TypeError, match=r"freqs_cis must have dtype torch.complex128 to rotate inputs of dtype torch.float64"):
        apply_rotary_emb(x_of(dtype=torch.float64), x_of(dtype=torch.float64), precompute_freqs_cis(8, 4))
    cos, sin = rope_cos_sin(range(4), 8, dtype=torch.float64)
    with pytest.raises(TypeError, match=r"cos must have dtype torch.float32 to rotate x of dtype torch.float32"):
        rotate_pairs_fused(x_of(), cos, sin)
    with pytest.raises(TypeError, match=r"freqs_cis must be a complex tensor"):
        apply_rotary_emb(x_of(), x_of(), torch.ones(4, 4))
    with pytest.raises(TypeError, match=r"x must have the model's dtype torch.float32 on cpu, got torch.float64"):
        layer_scores(Model(config()), 0, torch.randn(1, 3, 16, dtype=torch.float64), range(3))


def test_table_on_another_device():
    meta = torch.device("meta")  # a device other than the input's, present on every machine
    with pytest.raises(ValueError, match=r"freqs_cis must be on the inputs' device cpu, got meta"):
        apply_rotary_emb(x_of(), x_of(), precompute_freqs_cis(8, 4).to(meta))
    cos, sin = rope_cos_sin(range(4), 8)
    with pytest.raises(ValueError, match=r"cos must be on x's device cpu, got meta"):
        rotate_pairs_fused(x_of(), cos.to(meta), sin.to(meta))
    with pytest.raises(ValueError, match=r"positions must be on device cpu like the input, got meta"):
        apply_rope(x_of(), torch.arange(4, device=meta), layout="interleaved")


def test_non_integer_positions():
    with pytest.raises(TypeError, match=r"positions must hold integers \(token indices\), got dtype torch.float32"):
        apply_rope(x_of(), torch.arange(4.0), layout="interleaved")
    with pytest.raises(TypeError, match=r"positions must hold integers"):
        apply_rope(x_of(), [0, 1, 2.5, 3], layout="interleaved")
    with pytest.raises(TypeError, match=r"positions must hold integers"):
        apply_rope(x_of(), torch.ones(4, dtype=torch.bool), layout="interleaved")


def test_non_float_input_and_unknown_layout():
    with pytest.raises(TypeError, match=r"x must have a floating dtype"):
        apply_rope(torch.ones(1, 4, 2, 8, dtype=torch.int64), range(4), layout="interleaved")
    with pytest.raises(ValueError, match=r"layout must be one of \('interleaved', 'half'\), got 'neox'"):
        apply_rope(x_of(), range(4), layout="neox")
    with pytest.raises(TypeError, match=r"xq and xk must share dtype and device"):
        apply_rotary_emb(x_of(), x_of(dtype=torch.float64), precompute_freqs_cis(8, 4))


def test_a_bad_layout_is_told_the_two_conventions():
    """The error says what each name means, so a reader who knows "Meta's" or "Hugging Face's" can pick."""
    with pytest.raises(ValueError) as error:
        apply_rope(x_of(), range(4), layout="neox")
    message = str(error.value)
    assert "'interleaved' pairs coordinates (2i, 2i+1), as Meta's LLaMA does" in message
    assert "'half' pairs (i, i + D/2), as Hugging Face does" in message


def test_errors_name_the_argument_the_caller_passed():
    """Each message names the parameter as the function spells it: d, the rotated width, and base in rope_lib's own
    functions; dim and theta in precompute_freqs_cis, which keeps Meta's signature."""
    with pytest.raises(ValueError, match=r"^d must be a positive even integer"):
        rope_cos_sin(range(4), 7)
    with pytest.raises(ValueError, match=r"^base must be a finite number greater than 1"):
        apply_rope(x_of(), range(4), base=1.0, layout="interleaved")
    with pytest.raises(ValueError, match=r"^theta must be a finite number greater than 1"):
        precompute_freqs_cis(8, 4, theta=0.5)
    with pytest.raises(ValueError, match=r"^base must be a finite number greater than 1"):
        rope_cos_sin(range(4), 8, base=float("inf"))
    with pytest.raises(ValueError, match=r"^base must be a finite number greater than 1"):
        config(base=1.0)


@pytest.mark.parametrize("dtype", ["float32", torch.int64, torch.bool, torch.complex64, 32])
def test_table_dtype_must_be_a_real_floating_torch_dtype(dtype):
    """rope_cos_sin(dtype="float32") once said "Invalid device string"; dtype=torch.int64 returned tables of 0 and ±1."""
    with pytest.raises(TypeError, match=r"^dtype must be a (torch.dtype|floating dtype)"):
        rope_cos_sin(range(4), 8, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", torch.int64, torch.complex64, torch.uint8])
def test_attention_refuses_a_dtype_it_cannot_compute_in(dtype):
    """These once reached torch internals (int64, a string) or failed only in forward (complex64)."""
    with pytest.raises(TypeError, match=r"^dtype must be a (torch.dtype|floating dtype)"):
        config(dtype=dtype)


@pytest.mark.skipif(torch.cuda.is_available(), reason="the message is for a machine without a GPU")
def test_attention_on_cuda_without_a_gpu_says_so():
    with pytest.raises(ValueError, match=r"^device is 'cuda', but no CUDA device is visible"):
        config(device="cuda")


@pytest.mark.parametrize("device", ["gpu", 3.5, "cpu:x"])
def test_attention_refuses_a_device_torch_does_not_know(device):
    with pytest.raises(ValueError, match=r"^device must be a torch.device or a device string"):
        config(device=device)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: config(max_seq_len=0), r"^max_seq_len must be a positive integer"),
        (lambda: config(max_batch_size=2.0), r"^max_batch_size must be an int"),
        (lambda: config(layout="neox"), r"^layout must be one of"),
        (lambda: config(scaling="yarn"), r"^scaling must be a rope_lib.RopeScaling or None"),
        (lambda: config(rotary_dim=10), r"^rotary_dim must be at most the head dimension D=8"),
        (lambda: Model(config())(tokens(), start_pos=-1), r"^start_pos must be a non-negative integer"),
        (lambda: Model(config())(tokens(), start_pos=True), r"^start_pos must be an int"),
        (lambda: Model(config())(tokens(), use_cache="no"), r"^use_cache must be True or False"),
        (lambda: layer_scores(Model(config()), 0, torch.zeros(1, 3, 16), [0, 1]), r"^positions must have shape \(T,\) = \(3,\)"),
        (lambda: layer_scores(Model(config()), 0, torch.zeros(1, 2, 16), [-1, 0]), r"^positions must be non-negative"),
        (lambda: rope_cos_sin([0, 2**70], 8), r"^positions must be integers that fit in int64"),
        (lambda: rope_cos_sin(range(3), 8, attention_factor=0.0), r"^attention_factor must be greater than 0"),
        (lambda: rope_cos_sin(range(3), 8, inv_freq=[1.0, 0.5]), r"^inv_freq must have shape \(rotary_dim/2,\) = \(4,\)"),
    ],
)
def test_bad_arguments_across_the_api_are_named(call, message):
    with pytest.raises((TypeError, ValueError), match=message):
        call()


def test_cos_and_sin_of_different_table_shapes_are_refused():
    """One (T, D/2) table and one (B, T, D/2) table are each valid, but not together."""
    x = torch.randn(2, 4, 2, 8)
    cos, sin = rope_cos_sin(range(4), 8)
    with pytest.raises(ValueError, match=r"^cos and sin must have the same shape"):
        rotate_pairs_fused(x, cos, sin.expand(2, 4, 4))
