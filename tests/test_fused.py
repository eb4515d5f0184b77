"""The fused RoPE kernels give the results of `rotate_pairs` (RoFormer eq. 34): float32 within 1e-5 of a
float64 rotation, bf16 within the bf16 rounding of a float32 one; into a buffer, in place, or fresh.

Each compiled kernel costs seconds the first time, so the cases are few and share kernels.
"""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_lib
from rope_lib import rope_cos_sin
from rope_lib.rope import rotate_pairs
from rope_lib.rotation import apply_rope_matrix
from rope_lib._validate import compute_dtype
from attention_block import Block
from rope_lib.kernels import fused
from rope_lib.kernels.fused import fused_kernels_available, kernel_name, kernels_for, require_out, rotate_pairs_fused

START = 1000  # positions 1000 … : far enough that a careless angle would show
BF16_RELATIVE_ROUNDING = 2.0**-8  # bf16 keeps 8 significant bits: rounding moves a value by at most half of 2^-7 of it


def case(dtype, t=5, d=64, seed=0, batch=2, heads=3):
    x = torch.randn(batch, t, heads, d, generator=torch.Generator().manual_seed(seed)).to(dtype)  # (B, T, H, D)
    positions = torch.arange(START, START + t)
    return x, positions


def tables(positions, d, dtype):
    return rope_cos_sin(positions, d, dtype=compute_dtype(dtype))


def reference(x, positions, layout, rotary_dim=None):
    """The same rotation of the same (rounded) input, computed in float64."""
    rot = x.shape[-1] if rotary_dim is None else rotary_dim
    cos, sin = rope_cos_sin(positions, rot, dtype=torch.float64)
    return rotate_pairs(x.double(), cos, sin, layout=layout, rotary_dim=rotary_dim)


def assert_close_to_reference(got, want, dtype, x):
    gap = (got.double() - want).abs()
    if dtype == torch.bfloat16:
        bound = BF16_RELATIVE_ROUNDING * want.abs() + 1e-5 * x.double().abs().max()  # bf16 rounding + float32 arithmetic
        assert bool((gap <= bound).all()), f"largest excess {(gap - bound).max().item():.2e}"
    else:
        assert gap.max().item() <= 1e-5


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_fused_matches_the_float64_rotation(layout, dtype):
    x, positions = case(dtype)
    cos, sin = tables(positions, 64, dtype)
    got = rotate_pairs_fused(x, cos, sin, layout=layout)
    assert got.dtype == dtype and got.shape == x.shape
    assert_close_to_reference(got, reference(x, positions, layout), dtype, x)


@pytest.mark.parametrize("layout, dtype", [("half", torch.float32), ("interleaved", torch.bfloat16)])
def test_out_buffer_and_in_place_give_the_same_rotation(layout, dtype):
    x, positions = case(dtype)
    cos, sin = tables(positions, 64, dtype)
    fresh = rotate_pairs_fused(x, cos, sin, layout=layout)
    buffer = torch.full_like(x, float("nan"))
    assert rotate_pairs_fused(x, cos, sin, layout=layout, out=buffer) is buffer
    torch.testing.assert_close(buffer, fresh, rtol=0, atol=0)
    y = x.clone()
    assert rotate_pairs_fused(y, cos, sin, layout=layout, out=y) is y
    torch.testing.assert_close(y, fresh, rtol=0, atol=0)


def test_writes_into_a_slice_of_a_kv_cache_and_nothing_else():
    """The use out= is for: rotated keys go straight into their rows of the cache."""
    x, positions = case(torch.float32, t=4)
    cos, sin = tables(positions, 64, torch.float32)
    for layout in ("interleaved", "half"):
        cache = torch.zeros(3, 10, 3, 64)  # (max_batch, max_seq, H, D)
        rotate_pairs_fused(x, cos, sin, layout=layout, out=cache[:2, 5:9])
        torch.testing.assert_close(cache[:2, 5:9], rotate_pairs(x, cos, sin, layout=layout), rtol=0, atol=1e-6)
        untouched = torch.ones_like(cache, dtype=torch.bool)
        untouched[:2, 5:9] = False
        assert bool((cache[untouched] == 0).all())


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_partial_rotary_passes_the_other_coordinates_through(layout):
    x, positions = case(torch.float32)
    cos, sin = tables(positions, 32, torch.float32)
    got = rotate_pairs_fused(x, cos, sin, layout=layout, rotary_dim=32)
    torch.testing.assert_close(got, rotate_pairs(x, cos, sin, layout=layout, rotary_dim=32), rtol=0, atol=1e-6)
    assert torch.equal(got[..., 32:], x[..., 32:])
    y = x.clone()
    rotate_pairs_fused(y, cos, sin, layout=layout, rotary_dim=32, out=y)
    torch.testing.assert_close(y, got, rtol=0, atol=0)


@settings(max_examples=25)
@given(d=st.integers(1, 64).map(lambda n: 2 * n), t=st.integers(1, 6), start=st.integers(0, 10**6), seed=st.integers(0, 2**31 - 1))
def test_complex_kernel_matches_the_matrix_form(d, t, start, seed):
    """The interleaved float64 kernel (no compiler involved) against the O(D²) matrix reference."""
    x = torch.randn(1, t, 2, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    positions = torch.arange(start, start + t)
    cos, sin = rope_cos_sin(positions, d, dtype=torch.float64)
    assert "complex" in kernels_for(x, x, "interleaved")
    got = rotate_pairs_fused(x, cos, sin, kernel="complex")
    np.testing.assert_allclose(got.numpy(), apply_rope_matrix(x.numpy(), positions.numpy()), rtol=0, atol=1e-9)


def test_kernel_choice_follows_layout_dtype_and_memory():
    f32, b16, f16 = (torch.empty(1, 2, 1, 8, dtype=dt) for dt in (torch.float32, torch.bfloat16, torch.float16))
    assert fused_kernels_available("cpu") in (True, False)
    assert not fused_kernels_available("meta")
    if fused_kernels_available("cpu"):
        assert kernels_for(f32, f32, "half") == ["native", "half", "eager"]
        assert kernels_for(f32, f32, "interleaved") == ["native", "complex", "pair_axis", "eager"]
        assert kernels_for(b16, b16, "interleaved") == ["native", "bf16_words", "pair_axis", "eager"]
        assert kernel_name(f16, f16, "interleaved") == "pair_axis" and kernel_name(f16, f16, "half") == "half"
        odd = torch.empty(1, 2, 1, 9, dtype=torch.bfloat16)[..., 1:]  # pairs straddle 32-bit words
        assert kernels_for(odd, odd, "interleaved") == ["native", "pair_axis", "eager"]
        spread = torch.empty(1, 2, 1, 16)[..., ::2]  # coordinates not contiguous: the C++ loop does not take them
        assert kernels_for(spread, spread, "half") == ["half", "eager"]
        rows = torch.empty(1, 2, 1, 16)  # x and out as the two halves of each row: torch.compile fails on such a pair
        assert kernels_for(rows[..., :8], rows[..., 8:], "half") == ["native", "eager"]
        assert kernels_for(rows[..., :8], rows[..., 8:], "interleaved") == ["native", "complex", "eager"]
    else:
        assert kernel_name(f32, f32, "interleaved") == "complex"
    assert kernels_for(f32, f32, "interleaved")[-1] == "eager"


@pytest.mark.parametrize("layout, dtype, kernel", [("interleaved", torch.float16, "pair_axis"), ("half", torch.float32, "eager")])
def test_every_kernel_agrees_with_rotate_pairs(layout, dtype, kernel):
    x, positions = case(dtype)
    cos, sin = tables(positions, 64, dtype)
    got = rotate_pairs_fused(x, cos, sin, layout=layout, kernel=kernel)
    torch.testing.assert_close(got.double(), rotate_pairs(x, cos, sin, layout=layout).double(), rtol=0, atol=2e-3 if dtype == torch.float16 else 1e-6)


def test_without_a_compiler_the_eager_form_runs(monkeypatch):
    monkeypatch.setattr(fused, "fused_kernels_available", lambda device: False)
    x, positions = case(torch.bfloat16)
    cos, sin = tables(positions, 64, torch.bfloat16)
    assert kernels_for(x, x, "half") == ["eager"]
    out = torch.empty_like(x)
    rotate_pairs_fused(x, cos, sin, layout="half", out=out)
    assert torch.equal(out, rotate_pairs(x, cos, sin, layout="half"))


@pytest.mark.parametrize("kernel", ["bf16_words", "native"])
def test_bf16_kernels_keep_special_values_like_rotate_pairs(kernel):
    if kernel not in kernels_for(torch.empty(1, 1, 1, 2, dtype=torch.bfloat16), torch.empty(1, 1, 1, 2, dtype=torch.bfloat16), "interleaved"):
        pytest.skip("no compiler or not a little-endian machine")
    values = [float("nan"), 1.0, float("inf"), 3e38, -0.0, 1e-40, 2.0, -3.0, 255.0, 1e-3, -7.5, 0.0]
    x = torch.tensor(values, dtype=torch.bfloat16).reshape(1, 3, 1, 4)
    cos, sin = rope_cos_sin(torch.arange(3), 4)
    got, want = rotate_pairs_fused(x, cos, sin, kernel=kernel), rotate_pairs(x, cos, sin)
    assert torch.equal(got.isnan(), want.isnan())
    assert torch.equal(got[~got.isnan()], want[~want.isnan()])


def test_bad_out_is_rejected_with_a_clear_error():
    x, positions = case(torch.float32)
    cos, sin = tables(positions, 64, torch.float32)
    with pytest.raises(TypeError, match="out must be a torch.Tensor"):
        rotate_pairs_fused(x, cos, sin, out=x.numpy())
    with pytest.raises(ValueError, match="out must match x: shape"):
        rotate_pairs_fused(x, cos, sin, out=torch.empty(2, 5, 3, 32))
    with pytest.raises(ValueError, match="dtype torch.float32"):
        rotate_pairs_fused(x, cos, sin, out=torch.empty_like(x, dtype=torch.float64))
    with pytest.raises(ValueError, match="device cpu"):
        rotate_pairs_fused(x, cos, sin, out=torch.empty_like(x, device="meta"))
    with pytest.raises(ValueError, match="expanded"):
        rotate_pairs_fused(x, cos, sin, out=torch.empty(1, 5, 3, 64).expand(2, 5, 3, 64))
    storage = torch.zeros(2, 6, 3, 64)
    with pytest.raises(ValueError, match="overlaps x"):
        rotate_pairs_fused(storage[:, :5], cos, sin, out=storage[:, 1:])
    with pytest.raises(ValueError, match="kernel must be one of"):
        rotate_pairs_fused(x, cos, sin, layout="half", kernel="complex")
    require_out(x, x, cos, sin), require_out(torch.empty_like(x), x, cos, sin)  # in place, and a fresh buffer


BAD_CALLS = [
    ("x as a list", lambda x, c, s: ([[1.0]], c, s, {}), TypeError, r"^x must be a torch.Tensor, got list"),
    ("x 3-D", lambda x, c, s: (x[0], c, s, {}), ValueError, r"^x must have shape \(B, T, H, D\), got 3 dimensions"),
    ("odd D", lambda x, c, s: (torch.zeros(2, 5, 3, 7), c, s, {}), ValueError, r"^x must have an even head dimension D"),
    ("bad layout", lambda x, c, s: (x, c, s, {"layout": "pairs"}), ValueError, r"^layout must be one of \('interleaved', 'half'\)"),
    ("table shape", lambda x, c, s: (x, c[:, :10], s, {}), ValueError, r"^cos must have shape \(T, D/2\) = \(5, 32\)"),
    ("table dtype", lambda x, c, s: (x, c.double(), s, {}), TypeError, r"^cos must have dtype torch.float32"),
    ("table not a tensor", lambda x, c, s: (x, c.tolist(), s, {}), TypeError, r"^cos must be a torch.Tensor, got list"),
    ("rotary_dim too big", lambda x, c, s: (x, c, s, {"rotary_dim": 66}), ValueError, r"^rotary_dim must be at most the head dimension D=64"),
    ("rotary_dim odd", lambda x, c, s: (x, c, s, {"rotary_dim": 3}), ValueError, r"^rotary_dim must be a positive even integer"),
]


@pytest.mark.parametrize("name, make, error, message", BAD_CALLS, ids=[name for name, *_ in BAD_CALLS])
def test_the_fused_entry_refuses_bad_arguments_by_name(name, make, error, message):
    """rotate_pairs is a plain building block (a model calls it in every layer, at every step); rotate_pairs_fused,
    handed tables by its caller, checks them, and names the argument."""
    x, positions = case(torch.float32)
    cos, sin = tables(positions, 64, torch.float32)
    args = make(x, cos, sin)
    with pytest.raises(error, match=message):
        rotate_pairs_fused(*args[:3], **args[3])


@pytest.mark.parametrize("batched", ["cos", "sin"])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_tables_of_two_shapes_get_an_error_or_the_rotation_never_a_wrong_answer(layout, batched):
    """One table (T, D/2), the other (B, T, D/2) with other angles for each sequence: rotate_pairs and every
    kernel either refuse the pair, naming cos and sin, or rotate by the tables as broadcast to (B, T, D/2)."""
    x, _ = case(torch.float32)
    per_token = tables(torch.arange(START, START + 5), 64, torch.float32)  # (T, 32)
    per_sequence = tables(torch.stack([torch.arange(5), torch.arange(700, 705)]), 64, torch.float32)  # (B, T, 32)
    cos, sin = (per_sequence[0], per_token[1]) if batched == "cos" else (per_token[0], per_sequence[1])
    want = rotate_pairs(x, cos.expand(2, 5, 32), sin.expand(2, 5, 32), layout=layout)
    calls = {"eager rotate_pairs": lambda: rotate_pairs(x, cos, sin, layout=layout)}
    for kernel in kernels_for(x, x, layout):
        calls[kernel] = lambda kernel=kernel: rotate_pairs_fused(x, cos, sin, layout=layout, kernel=kernel)
    for name, call in calls.items():
        try:
            got = call()
        except ValueError as error:
            assert "cos and sin" in str(error), name
        else:
            torch.testing.assert_close(got, want, rtol=0, atol=1e-6, msg=name)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_writes_through_out_count_as_in_place_changes_for_autograd(layout):
    """A tensor saved for backward and then overwritten through out= (into it, or in place) makes backward
    raise, as after any in-place write in torch, whichever kernel wrote it: never a silently wrong gradient."""
    x, positions = case(torch.float32)
    cos, sin = tables(positions, 64, torch.float32)
    for kernel in kernels_for(x, x, layout):
        for in_place in (False, True):
            weight = torch.ones_like(x, requires_grad=True)
            buffer = torch.randn_like(x)
            product = weight * buffer  # saves buffer: the gradient of weight is buffer
            with torch.no_grad():
                rotate_pairs_fused(buffer if in_place else x, cos, sin, layout=layout, out=buffer, kernel=kernel)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                product.sum().backward()


@pytest.mark.parametrize("grad_for", ["x", "cos", "sin", "out", "out=x"])
def test_out_is_refused_while_autograd_would_have_to_record_it(grad_for):
    """As with torch's own out= functions (torch.mul(a, b, out=c)): in grad mode, out= with any argument that
    requires grad, out included, is an error naming it; under torch.no_grad() it is an ordinary write."""
    x, positions = case(torch.float32)
    cos, sin = tables(positions, 64, torch.float32)
    want = rotate_pairs(x, cos, sin)
    args = {"x": x, "cos": cos, "sin": sin, "out": torch.empty_like(x)}
    if grad_for == "out=x":
        args["out"] = x
    args[grad_for.removeprefix("out=")].requires_grad_(True)
    with pytest.raises(RuntimeError, match=rf"out=.*arguments that require grad: .*\b{grad_for.removeprefix('out=')}\b"):
        rotate_pairs_fused(args["x"], args["cos"], args["sin"], out=args["out"])
    with torch.no_grad():
        got = rotate_pairs_fused(args["x"], args["cos"], args["sin"], out=args["out"])
    assert got is args["out"]
    torch.testing.assert_close(got, want, rtol=0, atol=1e-6)


def test_out_over_the_memory_of_a_table_is_refused():
    """The tables are read while out is written: out must not share an element with cos or sin."""
    x, positions = case(torch.float32)
    cos, sin = tables(positions, 64, torch.float32)
    for name in ("cos", "sin"):
        for out_is_x in (False, True):
            out = x.clone() if out_is_x else torch.zeros_like(x)
            table = out.view(-1)[7 : 7 + cos.numel()].view(cos.shape)  # the table's memory inside out's
            table.copy_(cos if name == "cos" else sin)
            read = {"cos": cos, "sin": sin, name: table}
            with pytest.raises(ValueError, match=f"out overlaps {name}"):
                rotate_pairs_fused(out if out_is_x else x, read["cos"], read["sin"], out=out)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_out_beside_x_in_one_buffer_is_accepted(layout):
    """x and out in one buffer without an element in common are two tensors, although their byte spans
    interleave: the two halves of each row, or two runs of tokens (every kernel agrees)."""
    x, positions = case(torch.float32)  # (2, 5, 3, 64)
    cos, sin = tables(positions, 64, torch.float32)
    want = rotate_pairs(x, cos, sin, layout=layout)
    rows, tokens = torch.zeros(2, 5, 3, 128), torch.zeros(2, 10, 3, 64)
    for source, target in [(rows[..., :64], rows[..., 64:]), (tokens[:, :5], tokens[:, 5:])]:
        for kernel in kernels_for(source, target, layout):
            source.copy_(x)
            assert rotate_pairs_fused(source, cos, sin, layout=layout, out=target, kernel=kernel) is target
            torch.testing.assert_close(target, want, rtol=0, atol=1e-6, msg=kernel)
            assert torch.equal(source, x), kernel


def test_out_sharing_an_element_with_x_is_refused_naming_both():
    x, positions = case(torch.float32)
    cos, sin = tables(positions, 64, torch.float32)
    rows, tokens = torch.zeros(2, 5, 3, 128), torch.zeros(2, 6, 3, 64)
    for source, target in [(tokens[:, :5], tokens[:, 1:]), (rows[..., :64], rows[..., ::2]), (rows[..., :64], rows[..., 63:127])]:
        with pytest.raises(ValueError, match="out overlaps x without being x"):
            rotate_pairs_fused(source, cos, sin, out=target)


def test_autograd_gets_the_eager_rotation():
    x, positions = case(torch.float32)
    cos, sin = tables(positions, 64, torch.float32)
    x.requires_grad_(True)
    weight = torch.randn(x.shape, generator=torch.Generator().manual_seed(5))
    (rotate_pairs_fused(x, cos, sin, layout="half") * weight).sum().backward()
    fused_grad, x.grad = x.grad, None
    (rotate_pairs(x, cos, sin, layout="half") * weight).sum().backward()
    torch.testing.assert_close(fused_grad, x.grad, rtol=0, atol=1e-6)


@pytest.mark.parametrize("dtype, atol", [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)])
def test_fused_attention_matches_the_eager_module_through_the_kv_cache(dtype, atol):
    eager = Block(dtype, dim=64, n_heads=4, n_kv_heads=2, max_seq_len=32)
    fused = Block(dtype, dim=64, n_heads=4, n_kv_heads=2, max_seq_len=32, fused=True)
    fused.attention.load_state_dict(eager.attention.state_dict())
    x = torch.randn(1, 12, 64, generator=torch.Generator().manual_seed(1)).to(dtype)
    with torch.no_grad():
        for start, end in [(0, 9), (9, 10), (10, 12)]:
            torch.testing.assert_close(fused(x[:, start:end], start), eager(x[:, start:end], start), rtol=0, atol=atol)
    torch.testing.assert_close(fused.attention.cache.k, eager.attention.cache.k, rtol=0, atol=atol)
