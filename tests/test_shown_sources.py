"""The real code the chapter "The implementation in LLaMA" shows, Meta's and Hugging Face's, printed from the installed
packages: each shown function agrees with rope_lib's on random inputs, and none of its lines is copied into book/ or
rope_lib/.

Meta's `Attention.forward` (with GQA, a prefill and single decoding steps) is checked against `rope_lib.llama.Attention` in
test_llama.py, test_matches_metas_reference_attention.
"""

import inspect
import re
from pathlib import Path

import pytest
import torch

import rope_lib
from paths import ROOT
from test_llama import meta_model_parallel  # noqa: F401  (a fixture: fairscale's model parallel for one process)

meta = pytest.importorskip("llama_models.llama3.model")
hf = pytest.importorskip("transformers.models.llama.modeling_llama")

SHOWN = {
    "meta.precompute_freqs_cis": meta.precompute_freqs_cis,
    "meta.reshape_for_broadcast": meta.reshape_for_broadcast,
    "meta.apply_rotary_emb": meta.apply_rotary_emb,
    "meta.repeat_kv": meta.repeat_kv,
    "meta.Attention.forward": meta.Attention.forward,
    "meta.Transformer.__init__": meta.Transformer.__init__,
    "hf.rotate_half": hf.rotate_half,
    "hf.apply_rotary_pos_emb": hf.apply_rotary_pos_emb,
    "hf.LlamaRotaryEmbedding.forward": hf.LlamaRotaryEmbedding.forward,
}
"""What the chapter lists with SourceListing, by the names its cells use (meta, hf: the two modules)."""

CHAPTER = ROOT / "book" / "llama_implementation.md"
LONG = 25
"""A source line longer than this, stripped, is substantive: copying it would be copying their code."""


def randn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def test_the_chapter_lists_exactly_these_objects():
    listed = set(re.findall(r"SourceListing\(\s*((?:meta|hf)\.[\w.]+)", CHAPTER.read_text()))
    assert listed == set(SHOWN), f"listed in the chapter: {sorted(listed)}"


# ---- each shown function agrees with rope_lib's ----


@pytest.mark.parametrize("dim, end, theta", [(8, 6, 10000.0), (64, 300, 10000.0), (128, 2000, 500000.0)])
def test_precompute_freqs_cis(dim, end, theta):
    atol = 4 * torch.finfo(torch.float32).eps * end + 1e-6  # Meta's angles are float32: half an ulp of m·θ_0 = m
    torch.testing.assert_close(rope_lib.precompute_freqs_cis(dim, end, theta), meta.precompute_freqs_cis(dim, end, theta), rtol=0, atol=atol)


@pytest.mark.parametrize("b, t, h, d", [(1, 7, 2, 8), (3, 5, 4, 16)])
def test_reshape_for_broadcast_takes_the_real_x_where_meta_takes_its_complex_view(b, t, h, d):
    x = randn(b, t, h, d)  # (B, T, H, D)
    table = torch.polar(torch.ones(t, d // 2), randn(t, d // 2, seed=1))  # (T, D/2)
    theirs = meta.reshape_for_broadcast(table, torch.view_as_complex(x.unflatten(-1, (-1, 2))))  # Meta's x: (B, T, H, D/2) complex
    assert torch.equal(rope_lib.rope.reshape_for_broadcast(table, x), theirs) and theirs.shape == (1, t, 1, d // 2)


@pytest.mark.parametrize("b, t, h, d, start", [(1, 7, 2, 8, 0), (2, 16, 4, 64, 100), (1, 5, 3, 128, 3000)])
def test_apply_rotary_emb(b, t, h, d, start):
    q, k = randn(b, t, h, d, seed=2), randn(b, t, h, d, seed=3)
    table = meta.precompute_freqs_cis(d, start + t)[start:]  # (T, D/2)
    for ours, theirs in zip(rope_lib.apply_rotary_emb(q, k, table), meta.apply_rotary_emb(q, k, table)):
        torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-5)


@pytest.mark.parametrize("n_heads, n_kv_heads", [(8, 2), (4, 4), (6, 1)])
def test_grouped_heads_are_served_as_metas_repeat_kv_serves_them(n_heads, n_kv_heads):
    """rope_lib's Attention lets each query head read its key/value head in place (enable_gqa); Meta repeats the
    heads with repeat_kv. Repeating the key and value weights with repeat_kv gives a plain multi-head layer,
    which must compute the same output."""
    dim, n_rep = 8 * n_heads, n_heads // n_kv_heads
    shape = dict(vocab_size=4, dim=dim, n_layers=1, n_heads=n_heads, hidden_dim=8, max_seq_len=8, device="cpu", dtype=torch.float64)
    grouped_config = rope_lib.ModelConfig(n_kv_heads=n_kv_heads, **shape)
    grouped = rope_lib.llama.Attention(grouped_config, torch.device("cpu"))
    plain = rope_lib.llama.Attention(rope_lib.ModelConfig(**shape), torch.device("cpu"))
    rope = rope_lib.llama.RopeTable(grouped_config, torch.device("cpu"))(torch.arange(6), seq_len=6)  # both turn the same

    def repeated(weight):  # (Hkv·D, dim) → (H·D, dim), heads repeated as repeat_kv repeats them
        heads = weight.view(n_kv_heads, 8, dim).permute(2, 0, 1)[None]  # (1, dim, Hkv, D)
        return meta.repeat_kv(heads, n_rep)[0].permute(1, 2, 0).reshape(n_heads * 8, dim)

    with torch.no_grad():
        (wq, wk, wv), (plain_q, plain_k, plain_v) = grouped.qkv_weights(), plain.qkv_weights()
        plain_q.copy_(wq)
        plain_k.copy_(repeated(wk))
        plain_v.copy_(repeated(wv))
        plain.wo.weight.copy_(grouped.wo.weight)
        x = randn(2, 6, dim).double()
        both = [block(x, 0, rope, None, use_cache=False) for block in (grouped, plain)]
        torch.testing.assert_close(*both, rtol=0, atol=1e-12)
    k = randn(2, 5, n_kv_heads, 8)  # (B, S, Hkv, D)
    for h in range(n_heads):
        assert torch.equal(meta.repeat_kv(k, n_rep)[:, :, h], k[:, :, h // n_rep])


def test_metas_transformer_builds_its_table_from_the_head_dimension(meta_model_parallel):  # noqa: F811
    from llama_models.llama3.args import ModelArgs

    args = ModelArgs(dim=64, n_layers=1, n_heads=4, n_kv_heads=2, vocab_size=16, max_seq_len=24, rope_theta=10000.0)
    table = meta.Transformer(args).freqs_cis  # (2·max_seq_len, head_dim/2)
    torch.testing.assert_close(table, rope_lib.precompute_freqs_cis(64 // 4, 2 * 24, 10000.0), rtol=0, atol=1e-5)


@pytest.mark.parametrize("b, t, h, d", [(1, 6, 2, 8), (2, 9, 3, 32)])
def test_rotate_half(b, t, h, d):
    x = randn(b, h, t, d, seed=4)
    assert torch.equal(hf.rotate_half(x), rope_lib.rope.rotate_quarter(x, "half"))


def hf_rotary(head_dim, n_heads, theta):
    from transformers import LlamaConfig

    config = LlamaConfig(hidden_size=head_dim * n_heads, num_attention_heads=n_heads, head_dim=head_dim,
                         rope_parameters={"rope_type": "default", "rope_theta": theta})
    return hf.LlamaRotaryEmbedding(config=config)


@pytest.mark.parametrize("b, t, h, d, start", [(1, 7, 2, 8, 0), (2, 16, 4, 64, 100), (1, 5, 3, 128, 3000)])
def test_llama_rotary_embedding_and_apply_rotary_pos_emb(b, t, h, d, start):
    atol = 4 * torch.finfo(torch.float32).eps * (start + t) + 1e-5
    q, k = randn(b, t, h, d, seed=5), randn(b, t, h, d, seed=6)  # (B, T, H, D)
    position_ids = torch.arange(start, start + t).expand(b, t)
    cos, sin = hf_rotary(d, h, 10000.0)(q, position_ids)  # (B, T, D): the two halves repeat the D/2 values
    ours_cos, ours_sin = rope_lib.rope_cos_sin(position_ids, d)  # (B, T, D/2)
    torch.testing.assert_close(cos, rope_lib.rope.expand_to_pairs(ours_cos, "half"), rtol=0, atol=atol)
    torch.testing.assert_close(sin, rope_lib.rope.expand_to_pairs(ours_sin, "half"), rtol=0, atol=atol)
    q_hf, k_hf = hf.apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=2)  # (B, T, H, D): heads on axis 2
    torch.testing.assert_close(q_hf, rope_lib.apply_rope(q, position_ids, layout="half"), rtol=0, atol=atol)
    torch.testing.assert_close(k_hf, rope_lib.apply_rope(k, position_ids, layout="half"), rtol=0, atol=atol)


# ---- none of their lines is in the repository ----


def substantive_lines(obj) -> set[str]:
    return {line.strip() for line in inspect.getsource(obj).splitlines() if len(line.strip()) > LONG}


def copied_lines(roots, objects) -> list[tuple[str, str]]:
    """(file, line) for every substantive source line of `objects` found in a text file under `roots`."""
    lines = set().union(*(substantive_lines(obj) for obj in objects))
    found = []
    for root in roots:
        for path in sorted(Path(root).rglob("*")):
            if not path.is_file() or {"_build", "__pycache__", ".ipynb_checkpoints"} & set(path.parts):
                continue
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                continue  # a binary file holds no source
            found += [(str(path.relative_to(root)), line) for line in sorted(lines) if line in text]
    return found


def test_no_line_of_the_shown_code_is_copied_into_the_book_or_the_library():
    assert all(substantive_lines(obj) for obj in SHOWN.values()), "each shown object has substantive lines to look for"
    assert copied_lines([ROOT / "book", ROOT / "rope_lib"], SHOWN.values()) == []


def test_a_copied_line_is_found(tmp_path):
    line = inspect.getsource(meta.precompute_freqs_cis).splitlines()[1]  # the frequency line
    (tmp_path / "notes.md").write_text(f"Some prose, then a pasted line:\n\n    {line}\n")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\xff\xfe")
    assert copied_lines([tmp_path], SHOWN.values()) == [("notes.md", line.strip())]
