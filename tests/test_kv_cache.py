"""rope_lib.llama.KVCache: one verb, `update`, on head-major keys and values (B, Hkv, T, D); it stores values, never
autograd graphs. The cache is a building block of the model: `Model.forward` checks each write before the
caches take it (tests/test_model.py, test_the_cache_is_used_in_order_or_not_at_all)."""

import torch

from rope_lib import ModelConfig
from rope_lib.llama import KVCache


def cache():
    """Two sequences of up to 8 positions, 2 key/value heads of 4 coordinates."""
    config = ModelConfig(vocab_size=4, dim=8, n_layers=1, n_heads=2, hidden_dim=8, max_batch_size=2, max_seq_len=8, device="cpu")
    return KVCache(config, torch.device("cpu"))


def test_update_stores_at_start_pos_and_returns_every_position_so_far(gen):
    kv = cache()
    k1, v1 = torch.randn(2, 2, 3, 4, generator=gen), torch.randn(2, 2, 3, 4, generator=gen)
    k2, v2 = torch.randn(2, 2, 1, 4, generator=gen), torch.randn(2, 2, 1, 4, generator=gen)
    keys, values = kv.update(0, k1, v1)
    assert torch.equal(keys, k1) and torch.equal(values, v1)
    keys, values = kv.update(3, k2, v2)
    assert torch.equal(keys, torch.cat([k1, k2], dim=2)) and torch.equal(values, torch.cat([v1, v2], dim=2))
    assert kv.k[:, :, 4:].abs().sum() == 0


def test_a_smaller_batch_uses_the_first_rows(gen):
    kv = cache()
    k = torch.randn(1, 2, 3, 4, generator=gen)
    keys, _ = kv.update(0, k, k)
    assert keys.shape == (1, 2, 3, 4) and kv.k[1].abs().sum() == 0


def test_the_cache_keeps_no_graph_but_gradients_reach_this_calls_keys(gen):
    kv = cache()
    earlier = torch.randn(1, 2, 2, 4, generator=gen)
    kv.update(0, earlier, earlier)
    k = torch.randn(1, 2, 3, 4, generator=gen, requires_grad=True)
    keys, values = kv.update(2, k, k * 2)
    assert kv.k.grad_fn is None and not kv.k.requires_grad
    (keys.sum() + values.sum()).backward()
    torch.testing.assert_close(k.grad, torch.full_like(k, 3.0))
    assert torch.equal(keys[:, :, :2], earlier)  # the cached prefix is a constant


def test_reset_forgets_everything(gen):
    kv = cache()
    kv.update(0, torch.ones(2, 2, 8, 4), torch.ones(2, 2, 8, 4))
    kv.reset()
    assert kv.k.abs().sum() == 0 and kv.v.abs().sum() == 0


def test_the_cache_knows_how_far_its_sequences_go(gen):
    """`length` and `batch`, which the model's check reads: a write sets them, a rewind shortens, a new batch at 0
    replaces, and a reset forgets."""
    kv = cache()
    one = torch.randn(1, 2, 3, 4, generator=gen)
    kv.update(0, one, one)
    assert (kv.length, kv.batch) == (3, 1)
    step = torch.randn(1, 2, 1, 4, generator=gen)
    kv.update(2, step, step)  # a rewind: position 2 again, and the cache now ends there
    assert kv.length == 3
    two = torch.randn(2, 2, 1, 4, generator=gen)
    kv.update(0, two, two)  # new sequences, two of them
    assert (kv.length, kv.batch) == (1, 2)
    kv.reset()
    assert (kv.length, kv.batch) == (0, 0)

