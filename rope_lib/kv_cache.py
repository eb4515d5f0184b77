"""The KV cache of LLaMA-style decoding (chapter "The LLaMA implementation"): one verb, `update`.

Keys arrive already rotated to their positions, are written once at
`start_pos` and never rotated again. The cache stores values, not autograd
graphs: what it keeps from earlier calls is a constant to later ones, so a
model made of these blocks can be trained step after step.

The cache knows how far its sequences go and how many there are, so that it is used in order: a write
starts at 0 (new sequences, of any batch size) or within what is written (the same sequences; a write
before the end forgets what came after it), never past it; a gap would attend to keys never written.
"""

from __future__ import annotations

import torch
from torch import nn

from .checks import require_float_dtype, require_non_negative_int, require_positive_int


class KVCache(nn.Module):
    """Rotated keys and values for max_batch_size sequences of up to max_seq_len positions, seen as
    (B, S, Hkv, D) tensors `k` and `v` (Meta's shape).

    They are stored head-major, (B, Hkv, S, D) buffers not saved in a state dict, so that the keys of
    one head are one block of memory: a decoding step's product of its query with every cached key
    then reads them in place, where the (B, S, Hkv, D) order would have them copied at every step.
    """

    def __init__(self, max_batch_size: int, max_seq_len: int, n_kv_heads: int, head_dim: int, *, device=None, dtype=torch.float32):
        super().__init__()
        shape = (
            require_positive_int(max_batch_size, "max_batch_size"),
            require_positive_int(n_kv_heads, "n_kv_heads"),
            require_positive_int(max_seq_len, "max_seq_len"),
            require_positive_int(head_dim, "head_dim"),
        )
        dtype = require_float_dtype(dtype, "dtype")
        self.register_buffer("head_major_k", torch.zeros(shape, device=device, dtype=dtype), persistent=False)  # (B, Hkv, S, D)
        self.register_buffer("head_major_v", torch.zeros(shape, device=device, dtype=dtype), persistent=False)
        self.length = 0  # positions 0 … length − 1 hold the keys and values of the current sequences
        self.batch = 0  # how many sequences: rows 0 … batch − 1

    @property
    def k(self) -> torch.Tensor:
        """Every cached key, (max_batch_size, max_seq_len, Hkv, D): a view of the head-major buffer."""
        return self.head_major_k.transpose(1, 2)

    @property
    def v(self) -> torch.Tensor:
        """Every cached value, (max_batch_size, max_seq_len, Hkv, D): a view of the head-major buffer."""
        return self.head_major_v.transpose(1, 2)

    @property
    def max_batch_size(self) -> int:
        return self.k.shape[0]

    @property
    def max_seq_len(self) -> int:
        return self.k.shape[1]

    def update(self, start_pos: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store k, v (B, T, Hkv, D) at positions start_pos … start_pos + T − 1 and return the keys and
        values of positions 0 … start_pos + T − 1, each (B, start_pos + T, Hkv, D).

        The cache keeps detached copies. When k or v carry a graph, the returned tensors are the cached
        prefix (constants) followed by k and v themselves, so gradients reach this call's keys and values.
        """
        start_pos = require_non_negative_int(start_pos, "start_pos")
        for name, t in (("k", k), ("v", v)):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
            if t.dim() != 4 or t.shape[2:] != self.k.shape[2:] or t.shape[0] > self.max_batch_size:
                raise ValueError(
                    f"{name} must have shape (B ≤ {self.max_batch_size}, T, Hkv={self.k.shape[2]}, D={self.k.shape[3]}), got {tuple(t.shape)}"
                )
            if t.dtype != self.k.dtype or t.device != self.k.device:
                raise TypeError(f"{name} must have the cache's dtype {self.k.dtype} on {self.k.device}, got {t.dtype} on {t.device}")
        if k.shape != v.shape:
            raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
        end = start_pos + k.shape[1]
        if end > self.max_seq_len:
            raise ValueError(f"start_pos + T = {start_pos} + {k.shape[1]} = {end} is past the cache of max_seq_len={self.max_seq_len} positions")
        self.require_in_order(start_pos, k.shape[0])
        return self._write(start_pos, k, v)

    def require_in_order(self, start_pos: int, batch: int) -> None:
        """Raise unless a write of `batch` sequences at start_pos continues what the cache holds: at 0, any batch
        (new sequences); else at most at `length` (no gap), with the same batch (no row without its past)."""
        if start_pos == 0:
            return
        if self.length == 0:
            raise ValueError(f"start_pos={start_pos}, but the cache is empty (new, or reset): a sequence starts at start_pos=0")
        if start_pos > self.length:
            raise ValueError(
                f"start_pos={start_pos} would leave a gap: the cache holds positions 0 … {self.length - 1}, so the next "
                f"write starts at {self.length} or before"
            )
        if batch != self.batch:
            raise ValueError(
                f"the write has {batch} sequences, the cache holds {self.batch}: another batch starts at start_pos=0 "
                "(its rows would attend to keys of other sequences, or to none)"
            )

    def _write(self, start_pos: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """What `update` does once its arguments are checked: for a caller that checked them already."""
        batch, seq = k.shape[:2]
        end = start_pos + seq
        self.length, self.batch = end, batch
        keys, values = self.k, self.v  # (B, S, Hkv, D) views
        with torch.no_grad():
            keys[:batch].narrow(1, start_pos, seq).copy_(k)
            values[:batch].narrow(1, start_pos, seq).copy_(v)
        if k.requires_grad or v.requires_grad:
            return torch.cat([keys[:batch, :start_pos], k], dim=1), torch.cat([values[:batch, :start_pos], v], dim=1)
        return keys[:batch, :end], values[:batch, :end]

    def reset(self) -> None:
        """Forget every cached key and value."""
        self.head_major_k.zero_()
        self.head_major_v.zero_()
        self.length = self.batch = 0
