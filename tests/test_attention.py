"""The LLaMA-style attention: KV cache, causal mask, relative scores, training, and parity with Meta's module.

Each test runs the attention block of a one-layer model as `Model.forward` runs it (tests/attention_block.py)."""

import pytest
import torch

from attention_block import Block
from rope_lib import Model, ModelConfig
from rope_lib.llama import causal_mask, default_device

make = Block


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])
@pytest.mark.parametrize("k", [1, 3, 8])
def test_prefill_plus_cached_steps_equals_one_full_pass(layout, n_kv_heads, k):
    attention = make(layout=layout, n_kv_heads=n_kv_heads)
    x = torch.randn(2, 12, 32, dtype=torch.float64)
    full = attention(x, start_pos=0)
    attention.reset_cache()
    pieces = [attention(x[:, : 12 - k], start_pos=0)]
    pieces += [attention(x[:, t : t + 1], start_pos=t) for t in range(12 - k, 12)]
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, rtol=0, atol=1e-12)


BLOCKS = {"eager": False, "fused": True}


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("use_cache", [True, False])
def test_a_block_trains_step_after_step(block, use_cache):
    """The cache once kept the autograd graph, so the second backward() raised "Trying to backward
    through the graph a second time", even after reset_cache(). Now several optimiser steps run and
    the loss falls."""
    torch.manual_seed(0)
    attention = Block(torch.float32, dim=16, n_heads=2, max_seq_len=8, fused=BLOCKS[block])
    optimiser = torch.optim.SGD(attention.parameters(), lr=0.1)
    x, target = torch.randn(1, 8, 16), torch.randn(1, 8, 16)
    losses = []
    for _ in range(5):
        optimiser.zero_grad()
        loss = (attention(x, use_cache=use_cache) - target).pow(2).mean()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("block", BLOCKS)
def test_gradients_with_and_without_the_cache_agree_for_a_prefill(block):
    """A prefill at position 0 computes the same function with or without the cache, so the same gradient."""
    torch.manual_seed(0)
    attention = Block(dim=16, n_heads=2, n_kv_heads=1, max_seq_len=8, fused=BLOCKS[block])
    x = torch.randn(1, 6, 16, dtype=torch.float64)
    grads = []
    for use_cache in (True, False):
        attention.zero_grad()
        attention(x, use_cache=use_cache).sin().sum().backward()
        grads.append([p.grad.clone() for p in attention.parameters()])
    for with_cache, without in zip(*grads):
        torch.testing.assert_close(with_cache, without, rtol=0, atol=1e-12)


def test_without_the_cache_the_tokens_attend_to_each_other_only():
    """use_cache=False neither reads nor writes the cache: a full pass at start_pos equals a fresh block's
    prefill at start_pos with the cache, and the cache stays empty."""
    attention = make()
    x = torch.randn(2, 5, 32, dtype=torch.float64)
    out = attention(x, start_pos=7, use_cache=False)
    cache = attention.attention.cache
    assert cache.k.abs().sum() == 0 and cache.v.abs().sum() == 0
    by_hand_scores = attention.scores(x, range(7, 12)) + causal_mask(5, 0).double()
    values = (x @ attention.attention.qkv_weights()[2].T).view(2, 5, 4, 8)
    expected = torch.einsum("bhts,bshd->bthd", torch.softmax(by_hand_scores, dim=-1), values).reshape(2, 5, 32)
    torch.testing.assert_close(out, attention.attention.wo(expected), rtol=0, atol=1e-12)


def test_positions_past_the_table_need_no_cache():
    """With use_cache=False nothing limits the positions to max_seq_len: the tables are computed for them.
    The model refuses a cached pass that would not fit."""
    attention = make(max_seq_len=4)
    x = torch.randn(1, 6, 32, dtype=torch.float64)
    with pytest.raises(ValueError, match="past the cache"):
        attention.model(torch.zeros(1, 6, dtype=torch.int64))
    torch.testing.assert_close(attention(x, start_pos=100, use_cache=False), attention(x, use_cache=False), rtol=0, atol=1e-12)


def test_causal_mask_hides_the_future_only():
    mask = causal_mask(3, 2)
    assert mask.shape == (3, 5)
    visible = mask == 0
    assert visible.tolist() == [[True, True, True, False, False], [True, True, True, True, False], [True] * 5]


def test_a_token_is_not_changed_by_later_tokens():
    attention = make()
    x = torch.randn(1, 10, 32, dtype=torch.float64)
    y = x.clone()
    y[:, 6:] = torch.randn(1, 4, 32, dtype=torch.float64)
    torch.testing.assert_close(attention(x)[:, :6], attention(y)[:, :6], rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("shift", [1, 17, 1000, 123_456])
def test_scores_unchanged_when_every_position_shifts(layout, shift):
    attention = make(layout=layout)
    x = torch.randn(2, 9, 32, dtype=torch.float64)
    positions = torch.arange(9)
    torch.testing.assert_close(attention.scores(x, positions + shift), attention.scores(x, positions), rtol=0, atol=1e-9)
    assert not torch.allclose(attention.scores(x, positions.flip(0)), attention.scores(x, positions)), "order must matter"


def test_forward_scores_are_the_relative_scores():
    """With an empty cache and start_pos = 0, forward uses exactly `scores` (masked, softmaxed)."""
    attention = make()
    x = torch.randn(1, 6, 32, dtype=torch.float64)
    weights = torch.softmax(attention.scores(x, range(6)) + causal_mask(6, 0).double(), dim=-1)
    values = (x @ attention.attention.qkv_weights()[2].T).view(1, 6, 4, 8)
    expected = attention.attention.wo(torch.einsum("bhts,bshd->bthd", weights, values).reshape(1, 6, 32))
    torch.testing.assert_close(attention(x), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_module(dtype):
    attention = make(dtype=dtype)
    assert attention.model.rope.cos.dtype == torch.float32
    out = attention(torch.randn(1, 5, 32).to(dtype))
    assert out.dtype == dtype


def test_default_device_follows_cuda():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert default_device().type == expected
    config = ModelConfig(vocab_size=4, dim=16, n_layers=1, n_heads=2, hidden_dim=8, max_seq_len=4)
    assert Model(config).layers[0].attention.wqkv.weight.device.type == expected


@pytest.fixture(scope="module")
def meta_model_parallel(tmp_path_factory):
    """Meta's reference Attention uses fairscale's model-parallel layers: set them up for one process."""
    import torch.distributed as dist
    from fairscale.nn.model_parallel import initialize as fs_init

    if not dist.is_initialized():
        store = tmp_path_factory.mktemp("dist") / "store"
        dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
    if not fs_init.model_parallel_is_initialized():
        fs_init.initialize_model_parallel(1)
    yield
    fs_init.destroy_model_parallel()
    dist.destroy_process_group()


@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_matches_metas_reference_attention(meta_model_parallel, n_kv_heads):
    from llama_models.llama3 import model as meta
    from llama_models.llama3.args import ModelArgs

    dim, n_heads, theta = 64, 4, 10000.0
    ours = Block(torch.float32, dim=dim, n_heads=n_heads, n_kv_heads=n_kv_heads, max_seq_len=32, base=theta)
    theirs = meta.Attention(ModelArgs(dim=dim, n_heads=n_heads, n_kv_heads=n_kv_heads, max_batch_size=2, max_seq_len=32))
    with torch.no_grad():
        for name, weight in zip(("wq", "wk", "wv", "wo"), (*ours.attention.qkv_weights(), ours.attention.wo.weight)):
            getattr(theirs, name).weight.copy_(weight)
    freqs_cis = meta.precompute_freqs_cis(dim // n_heads, 64, theta)

    x = torch.randn(2, 20, dim, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        for start, end in [(0, 12), (12, 13), (13, 20)]:
            seq = end - start
            mask = torch.triu(torch.full((seq, end), float("-inf")), diagonal=start + 1) if seq > 1 else None
            expected = theirs(x[:, start:end], start, freqs_cis[start:end], mask)
            torch.testing.assert_close(ours(x[:, start:end], start_pos=start), expected, rtol=1e-4, atol=1e-5)


def by_the_formula(block, x, bias):
    """Attention written out from the papers, slowly: per head h, scores q·k/√D + bias_h, the causal mask
    (keys j ≤ i), softmax, the weighted values, W_o. GQA: query head h reads key/value head h // (H / Hkv)."""
    attention = block.attention
    batch, seq, _ = x.shape
    heads, kv_heads, d = attention.n_heads, attention.n_kv_heads, attention.head_dim
    wq, wk, wv = attention.qkv_weights()
    q = (x @ wq.T).view(batch, seq, heads, d)
    k = (x @ wk.T).view(batch, seq, kv_heads, d)
    v = (x @ wv.T).view(batch, seq, kv_heads, d)
    out = torch.zeros(batch, seq, heads, d, dtype=x.dtype)
    for b in range(batch):
        for h in range(heads):
            g = h // (heads // kv_heads)
            for i in range(seq):
                scores = torch.stack([q[b, i, h] @ k[b, j, g] / d**0.5 + bias(h, i, j) for j in range(i + 1)])
                out[b, i, h] = torch.softmax(scores, dim=0) @ v[b, : i + 1, g]
    return out.reshape(batch, seq, heads * d) @ attention.wo.weight.T


def alibi_slope(h, heads):
    """Press et al. 2022, §3: for H heads (a power of two) head h (from 0) has slope 2^(−8(h+1)/H)."""
    return 2.0 ** (-8.0 * (h + 1) / heads)


@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_alibi_scores_and_outputs_are_the_papers_formula(n_kv_heads):
    attention = make(position_encoding="alibi", n_kv_heads=n_kv_heads)
    x = torch.randn(2, 7, 32, dtype=torch.float64)
    wq, wk, _ = attention.attention.qkv_weights()
    q = (x @ wq.T).view(2, 7, 4, 8)
    k = (x @ wk.T).view(2, 7, n_kv_heads, 8).repeat_interleave(4 // n_kv_heads, dim=2)
    positions = torch.arange(3, 10)
    expected = torch.empty(2, 4, 7, 7, dtype=torch.float64)
    for h in range(4):
        for i in range(7):
            for j in range(7):
                expected[:, h, i, j] = (q[:, i, h] * k[:, j, h]).sum(-1) / 8**0.5 - alibi_slope(h, 4) * (i - j)
    torch.testing.assert_close(attention.scores(x, positions), expected, rtol=0, atol=1e-12)
    want = by_the_formula(attention, x, lambda h, i, j: -alibi_slope(h, 4) * (i - j))
    torch.testing.assert_close(attention(x, use_cache=False), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("encoding", ["none", "alibi"])
@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_cached_steps_without_rotation_equal_one_full_pass(encoding, n_kv_heads):
    attention = make(position_encoding=encoding, n_kv_heads=n_kv_heads)
    x = torch.randn(2, 12, 32, dtype=torch.float64)
    full = attention(x, use_cache=False)
    with torch.no_grad():
        parts = [attention(x[:, :5], 0), attention(x[:, 5:8], 5), *(attention(x[:, t : t + 1], t) for t in range(8, 12))]
        torch.testing.assert_close(torch.cat(parts, dim=1), full, rtol=0, atol=1e-12)


def test_nope_scores_are_plain_dot_products_and_nothing_is_rotated(monkeypatch):
    import rope_lib.llama

    def no_rotation(*args, **kwargs):
        raise AssertionError("NoPE must not rotate")

    monkeypatch.setattr(rope_lib.llama, "rotate_pairs", no_rotation)
    attention = make(position_encoding="none", n_kv_heads=2)
    assert attention.model.rope is None
    x = torch.randn(2, 6, 32, dtype=torch.float64)
    wq, wk, _ = attention.attention.qkv_weights()
    q = (x @ wq.T).view(2, 6, 4, 8)
    k = (x @ wk.T).view(2, 6, 2, 8)
    plain = torch.einsum("bihd,bjhd->bhij", q, k.repeat_interleave(2, dim=2)) / 8**0.5
    for shift in (0, 5, 1000):
        torch.testing.assert_close(attention.scores(x, torch.arange(6) + shift), plain, rtol=0, atol=1e-12)
    want = by_the_formula(attention, x, lambda h, i, j: 0.0)
    torch.testing.assert_close(attention(x, use_cache=False), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"position_encoding": "rotary"}, r"position_encoding must be one of \('rope', 'none', 'sinusoidal', 'learned', 'alibi'\)"),
        ({"position_encoding": None}, "position_encoding must be one of"),
        ({"position_encoding": "none", "scaling": __import__("rope_lib").RopeScaling("linear", 2.0)}, "RoPE's settings"),
        ({"position_encoding": "alibi", "rotary_dim": 4}, "RoPE's settings"),
    ],
)
def test_a_bad_position_encoding_is_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        make(**kwargs)
