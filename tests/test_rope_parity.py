"""Parity with the packages practitioners use, installed from the registry (never copied in).

The peers compute their angles in float32, so positions stay below 4096 here and
the tolerance allows for float32 angle rounding; our own float64 angles are
checked against the exact reference in test_rope_forms.py.
"""

import pytest
import torch

from rope_lib import apply_rope, apply_rotary_emb, permute_rows_to_half, precompute_freqs_cis
from rope_lib.layouts import half_to_interleaved, interleaved_to_half

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
