"""rope_lib.KVCache: one verb, `update`, on head-major keys and values (B, Hkv, T, D); it stores values, never
autograd graphs."""

import pytest
import torch

from rope_lib import KVCache


def cache(**kwargs):
    options = dict(max_batch_size=2, max_seq_len=8, n_kv_heads=2, head_dim=4)
    options.update(kwargs)
    return KVCache(**options)


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


@pytest.mark.parametrize(
    "start, k, v, message",
    [
        (6, torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 4), r"start_pos \+ T = 6 \+ 3 = 9 is past the cache of max_seq_len=8"),
        (-1, torch.zeros(1, 2, 1, 4), torch.zeros(1, 2, 1, 4), r"start_pos must be a non-negative integer"),
        (0, torch.zeros(3, 2, 1, 4), torch.zeros(3, 2, 1, 4), r"k must have shape \(B ≤ 2, Hkv=2, T, D=4\)"),
        (0, torch.zeros(1, 3, 2, 4), torch.zeros(1, 3, 2, 4), r"k must have shape \(B ≤ 2, Hkv=2, T, D=4\), got \(1, 3, 2, 4\)"),
        (0, torch.zeros(1, 2, 1, 4), torch.zeros(1, 2, 2, 4), r"k and v must have the same shape"),
        (0, torch.zeros(1, 2, 1, 4, dtype=torch.float64), torch.zeros(1, 2, 1, 4), r"k must have the cache's dtype torch.float32"),
        (0, [[0.0]], torch.zeros(1, 2, 1, 4), r"k must be a torch.Tensor"),
    ],
)
def test_bad_updates_are_refused(start, k, v, message):
    with pytest.raises((TypeError, ValueError), match=message):
        cache().update(start, k, v)


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match=r"max_seq_len must be a positive integer"):
        cache(max_seq_len=0)
    with pytest.raises(TypeError, match=r"head_dim must be an int"):
        cache(head_dim=4.0)
    with pytest.raises(TypeError, match=r"dtype must be a floating dtype, .*got torch.int64"):
        cache(dtype=torch.int64)


def test_writes_must_come_in_order(gen):
    """No gap, no row without its past: after 3 positions of 1 sequence, a write at 4 (position 3 never written),
    a write of 2 sequences at 3 (row 1 has no positions 0 … 2), and any write but at 0 after a reset are refused;
    a new sequence at 0, of any batch, and a write within what is written (a rewind) are not."""
    kv = cache()
    one = torch.randn(1, 2, 3, 4, generator=gen)
    kv.update(0, one, one)
    assert (kv.length, kv.batch) == (3, 1)
    step = torch.randn(1, 2, 1, 4, generator=gen)
    with pytest.raises(ValueError, match=r"start_pos=4 would leave a gap: the cache holds positions 0 … 2, so the next write starts at 3 or before"):
        kv.update(4, step, step)
    two = torch.randn(2, 2, 1, 4, generator=gen)
    with pytest.raises(ValueError, match=r"the write has 2 sequences, the cache holds 1: another batch starts at start_pos=0"):
        kv.update(3, two, two)
    kv.update(2, step, step)  # a rewind: position 2 again, and the cache now ends there
    assert kv.length == 3
    kv.update(0, two, two)  # new sequences, two of them
    assert (kv.length, kv.batch) == (1, 2)
    kv.reset()
    with pytest.raises(ValueError, match=r"start_pos=1, but the cache is empty \(new, or reset\)"):
        kv.update(1, two, two)

