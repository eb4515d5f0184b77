"""rope_lib.rope: the matrix form R^d_{Θ,m}·x, the complex form (Meta's names) and the elementwise form (RoFormer
eq. 34) are one function, checked against the slow numpy reference; half precision keeps its dtype while the angles
never pass through it; and the results equal those of the packages practitioners use, installed from the registry
(never copied in): Hugging Face's, Meta's and rotary-embedding-torch's.

The peers compute their angles in float32, so the parity tests keep positions below 4096 and allow for float32
angle rounding.
"""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

from rope_lib import (
    apply_rope,
    apply_rotary_emb,
    permute_rows_to_half,
    precompute_freqs_cis,
    rope_cos_sin,
)
from rope_lib.layouts import half_to_interleaved, interleaved_to_half
from rope_lib.rope import reshape_for_broadcast, rope_angles, rotate_pairs, rotate_quarter
from rope_lib.rotation import apply_rope_matrix


MAX_POSITION = 10**6
TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5}


@st.composite
def rope_case(draw):
    """A (B, T, H, D) input with D in 2..256 and T sorted-free positions up to 10^6."""
    d = 2 * draw(st.integers(1, 128))
    b, t, h = draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    start = draw(st.integers(0, MAX_POSITION - t))
    seed = draw(st.integers(0, 2**31 - 1))
    x = torch.randn(b, t, h, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return x, torch.arange(start, start + t)


def complex_form(x, positions):
    """Meta's call: build the table once, slice it at the positions, rotate."""
    table = precompute_freqs_cis(x.shape[-1], int(positions[-1]) + 1, dtype=torch.complex128 if x.dtype == torch.float64 else torch.complex64)
    rotated, _ = apply_rotary_emb(x, x, table[positions[0] : positions[-1] + 1])
    return rotated


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@given(case=rope_case())
def test_three_forms_agree(dtype, case):
    x64, positions = case
    reference = apply_rope_matrix(x64.numpy(), positions.numpy())  # float64, O(D²)
    x = x64.to(dtype)
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(apply_rope(x, positions, layout="interleaved", order="BTHD").double().numpy(), reference, rtol=0, atol=tol)
    np.testing.assert_allclose(complex_form(x, positions).double().numpy(), reference, rtol=0, atol=tol)
    # the half layout is the same rotation in a reordered basis
    half = apply_rope(interleaved_to_half(x), positions, layout="half", order="BTHD")
    np.testing.assert_allclose(half_to_interleaved(half).double().numpy(), reference, rtol=0, atol=tol)
    np.testing.assert_allclose(
        half.double().numpy(), apply_rope_matrix(interleaved_to_half(x64).numpy(), positions.numpy(), layout="half"), rtol=0, atol=tol
    )


@given(case=rope_case())
def test_per_batch_positions_equal_one_call_per_row(case):
    x, positions = case
    rows = torch.stack([positions + 7 * b for b in range(x.shape[0])])  # (B, T)
    together = apply_rope(x, rows, layout="interleaved", order="BTHD")
    for b in range(x.shape[0]):
        torch.testing.assert_close(together[b : b + 1], apply_rope(x[b : b + 1], rows[b], layout="interleaved", order="BTHD"), rtol=0, atol=0)


def test_rotate_pairs_accepts_a_per_batch_table():
    x = torch.randn(2, 3, 1, 4, dtype=torch.float64)
    pos = torch.tensor([[0, 1, 2], [5, 6, 7]])
    cos, sin = rope_cos_sin(pos, 4, dtype=torch.float64)
    torch.testing.assert_close(rotate_pairs(x, cos, sin), apply_rope(x, pos, layout="interleaved", order="BTHD"), rtol=0, atol=0)


def test_inputs_are_not_modified():
    x = torch.randn(1, 3, 2, 8)
    before = x.clone()
    apply_rope(x, range(3), layout="interleaved", order="BTHD")
    apply_rotary_emb(x, x, precompute_freqs_cis(8, 3))
    torch.testing.assert_close(x, before, rtol=0, atol=0)


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


CASES = [(1, 7, 2, 8, 0, 10000.0), (2, 16, 4, 64, 100, 10000.0), (1, 5, 3, 128, 3000, 500000.0)]


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def atol_for(last_position):
    """float32 angles err by up to half an ulp of the largest angle m·θ_0 = m."""
    return 4 * torch.finfo(torch.float32).eps * max(last_position, 1) + 1e-5


def hf_rotary(head_dim, n_heads, theta):
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = LlamaConfig(
        hidden_size=head_dim * n_heads,
        num_attention_heads=n_heads,
        head_dim=head_dim,
        rope_parameters={"rope_type": "default", "rope_theta": theta},
    )
    return LlamaRotaryEmbedding(config=config)


@pytest.mark.parametrize("b, t, h, d, start, theta", CASES)
def test_half_layout_matches_hugging_face(b, t, h, d, start, theta):
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    q, k = randn(b, t, h, d, seed=1), randn(b, t, h, d, seed=2)
    position_ids = torch.arange(start, start + t).expand(b, t)
    cos, sin = hf_rotary(d, h, theta)(q, position_ids)
    q_hf, k_hf = apply_rotary_pos_emb(q.transpose(1, 2), k.transpose(1, 2), cos, sin)  # HF wants (B, H, T, D)
    atol = atol_for(start + t)
    torch.testing.assert_close(apply_rope(q, position_ids, base=theta, layout="half"), q_hf.transpose(1, 2), rtol=0, atol=atol)
    torch.testing.assert_close(apply_rope(k, position_ids, base=theta, layout="half"), k_hf.transpose(1, 2), rtol=0, atol=atol)


@pytest.mark.parametrize("b, t, h, d, start, theta", CASES + [(2, 4, 4, 16, 9, 10000.0)])
def test_hugging_faces_heads_first_tensors_are_rotated_when_named(b, t, h, d, start, theta):
    """A practitioner's silent trap: Hugging Face's (B, H, T, D) given to a function of (B, T, H, D) ran without error
    whenever H = T. order="BHTD" takes it as it is; without it the call is refused, where H = T as where H ≠ T."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    q = randn(b, h, t, d, seed=3)  # (B, H, T, D), as Hugging Face holds it
    position_ids = torch.arange(start, start + t).expand(b, t)
    cos, sin = hf_rotary(d, h, theta)(q, position_ids)
    theirs, _ = apply_rotary_pos_emb(q, q, cos, sin)
    ours = apply_rope(q, position_ids, base=theta, layout="half", order="BHTD")
    torch.testing.assert_close(ours, theirs, rtol=0, atol=atol_for(start + t))
    words = r"order must be named" if h == t else r"if x is Hugging Face's \(B, H, T, D\), pass order='BHTD'"
    with pytest.raises(ValueError, match=words):
        apply_rope(q, torch.arange(start, start + t), base=theta, layout="half")


def test_the_layout_is_named_at_every_entry_where_conventions_meet():
    """A practitioner's silent trap: apply_rope defaulted to Meta's pairing and from_hf_state_dict to Hugging Face's,
    so HF-style heads rotated without layout= were wrong by 7.86. Now neither has a default, and a wrong name is told
    which convention is whose."""
    from rope_lib import config_from_hf, from_hf_state_dict

    with pytest.raises(TypeError, match=r"apply_rope\(\): missing a required argument: 'layout'"):
        apply_rope(randn(1, 5, 2, 8), range(5))
    for load, args in ((from_hf_state_dict, ({}, {})), (config_from_hf, ({},))):
        with pytest.raises(TypeError, match=r"missing 1 required keyword-only argument: 'layout'"):
            load(*args)
    with pytest.raises(ValueError, match=r"'interleaved' pairs coordinates \(2i, 2i\+1\), as Meta's LLaMA does; 'half' pairs \(i, i \+ D/2\), as Hugging Face does"):
        apply_rope(randn(1, 5, 2, 8), range(5), layout="neox")


@pytest.mark.parametrize("b, t, h, d, start, theta", CASES)
def test_interleaved_layout_matches_hugging_face_after_the_permutation(b, t, h, d, start, theta):
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    x = randn(b, t, h, d, seed=3)
    position_ids = torch.arange(start, start + t).expand(b, t)
    cos, sin = hf_rotary(d, h, theta)(x, position_ids)
    x_half = interleaved_to_half(x).transpose(1, 2)
    hf, _ = apply_rotary_pos_emb(x_half, x_half, cos, sin)
    torch.testing.assert_close(apply_rope(x, position_ids, base=theta, layout="interleaved"), half_to_interleaved(hf.transpose(1, 2)), rtol=0, atol=atol_for(start + t))


@pytest.mark.parametrize("b, t, h, d, start, theta", CASES)
def test_complex_form_matches_metas_reference(b, t, h, d, start, theta):
    from llama_models.llama3 import model as meta

    q, k = randn(b, t, h, d, seed=4), randn(b, t, h, d, seed=5)
    table_meta = meta.precompute_freqs_cis(d, start + t, theta)
    table_ours = precompute_freqs_cis(d, start + t, theta)
    torch.testing.assert_close(table_ours, table_meta, rtol=0, atol=atol_for(start + t))
    expected = meta.apply_rotary_emb(q, k, table_meta[start:])
    got = apply_rotary_emb(q, k, table_ours[start:])
    for ours, theirs in zip(got, expected):
        torch.testing.assert_close(ours, theirs, rtol=0, atol=atol_for(start + t))
    torch.testing.assert_close(apply_rope(q, range(start, start + t), base=theta, layout="interleaved"), expected[0], rtol=0, atol=atol_for(start + t))


@pytest.mark.parametrize("b, t, h, d, start, theta", CASES)
def test_interleaved_layout_matches_rotary_embedding_torch(b, t, h, d, start, theta):
    from rotary_embedding_torch import RotaryEmbedding

    x = randn(b, t, h, d, seed=6)
    rotary = RotaryEmbedding(dim=d, theta=theta)
    theirs = rotary.rotate_queries_or_keys(x.transpose(1, 2), offset=start)  # (B, H, T, D), interleaved pairs
    torch.testing.assert_close(apply_rope(x, range(start, start + t), base=theta, layout="interleaved"), theirs.transpose(1, 2), rtol=0, atol=atol_for(start + t))


def test_permuted_weights_make_hugging_faces_half_layout_score_like_metas_interleaved_layout():
    """The conversion Hugging Face applies to LLaMA checkpoints, checked across the two real codebases."""
    from llama_models.llama3 import model as meta
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    n_heads, d, dim, t = 4, 32, 48, 11
    wq, wk, x = randn(n_heads * d, dim, seed=7), randn(n_heads * d, dim, seed=8), randn(1, t, dim, seed=9)

    def heads(w):
        return (x @ w.T).view(1, t, n_heads, d)  # (B, T, H, D)

    q_meta, k_meta = meta.apply_rotary_emb(heads(wq), heads(wk), meta.precompute_freqs_cis(d, t, 10000.0))
    scores_meta = torch.einsum("bthd,bshd->bhts", q_meta, k_meta)

    cos, sin = hf_rotary(d, n_heads, 10000.0)(x, torch.arange(t)[None])
    q_hf, k_hf = apply_rotary_pos_emb(
        heads(permute_rows_to_half(wq, n_heads)).transpose(1, 2), heads(permute_rows_to_half(wk, n_heads)).transpose(1, 2), cos, sin
    )
    scores_hf = q_hf @ k_hf.transpose(-1, -2)  # (B, H, T, T)
    torch.testing.assert_close(scores_hf, scores_meta, rtol=1e-5, atol=1e-3)


def test_the_temporaries_the_speed_appendix_names_are_the_peers_own():
    """What "Implementations and speed" says each peer allocates, seen in the installed code: Meta's apply_rotary_emb
    takes a float32 copy of a bf16 input; Hugging Face's keeps bf16 in bf16 (its cos and sin come in the input's
    dtype), and rotate_half's halves are views of the input while its negation and concatenation are new tensors.
    And the LLaMA chapter's summary: view_as_complex and view_as_real share memory, torch.polar does not."""
    import inspect

    from llama_models.llama3 import model as meta
    from transformers import LlamaConfig
    from transformers.models.llama import modeling_llama as hf

    assert "xq.float()" in inspect.getsource(meta.apply_rotary_emb)
    x = torch.randn(1, 2, 4, 8).to(torch.bfloat16)  # (B, H, T, D)
    config = LlamaConfig(hidden_size=16, num_attention_heads=2, head_dim=8, max_position_embeddings=8)
    cos, sin = hf.LlamaRotaryEmbedding(config)(x, torch.arange(4)[None])
    assert cos.dtype == sin.dtype == torch.bfloat16
    assert hf.apply_rotary_pos_emb(x, x, cos, sin)[0].dtype == torch.bfloat16
    source = inspect.getsource(hf.rotate_half)
    assert "x[..., : x.shape[-1] // 2]" in source and "torch.cat((-x2, x1), dim=-1)" in source
    assert x[..., :4].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()  # a slice is a view

    pairs = torch.randn(3, 2)
    assert torch.view_as_complex(pairs).untyped_storage().data_ptr() == pairs.untyped_storage().data_ptr()
    z = torch.view_as_complex(pairs)
    assert torch.view_as_real(z).untyped_storage().data_ptr() == z.untyped_storage().data_ptr()
    lengths, angles = torch.ones(3), torch.zeros(3)
    made = torch.polar(lengths, angles)
    assert made.untyped_storage().data_ptr() not in (lengths.untyped_storage().data_ptr(), angles.untyped_storage().data_ptr())
