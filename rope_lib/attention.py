"""LLaMA-style multi-head attention with RoPE and a KV cache (chapter "The LLaMA implementation").

Queries and keys are rotated to their absolute positions before the scores, so
each score depends only on the distance between the two tokens. Keys are
rotated once, before they enter the cache, and never again: a decoding step at
`start_pos` rotates its own query and key and reads the cached keys as stored.

`scaling=` applies a context-extension rule (chapter "Longer contexts"). Dynamic
NTK recomputes its frequencies from the current length at every call, as
Hugging Face does, while the cached keys keep the rotation they were stored
with: past the original context, cached decoding and a full pass disagree.
"""

from __future__ import annotations

import math
import numbers

import torch
from torch import nn

from .checks import as_positions, check_base, check_even_dim, check_layout, check_positive_int
from .frequencies import DEFAULT_BASE
from .fused import rotate_pairs_fused
from .rope import apply_rope, compute_dtype, rope_cos_sin, rotate_pairs
from .scaling import RopeScaling, check_rotary_dim, check_scaling


def default_device() -> torch.device:
    """CUDA when a GPU is visible, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def causal_mask(seq_len: int, start_pos: int, *, device=None) -> torch.Tensor:
    """(T, start_pos + T) additive mask: query t (at position start_pos + t) sees keys 0 … start_pos + t."""
    mask = torch.full((seq_len, start_pos + seq_len), float("-inf"), device=device)
    return torch.triu(mask, diagonal=start_pos + 1)


class Attention(nn.Module):
    """Multi-head self-attention as in LLaMA: wq, wk, wv, wo without bias, RoPE on q and k,
    optional grouped key/value heads, a causal mask and a KV cache filled at `start_pos`.

    device=None puts the module on CUDA when it is available (`default_device`).
    scaling: a `RopeScaling` rule for longer contexts, or None for plain RoPE.
    rotary_dim: rotate only the first rotary_dim coordinates of each head (None: all).
    fused: rotate with the one-pass kernels of `rope_lib.fused`, queries in place and keys
    straight into the KV cache (for inference); False uses the eager reference form.
    """

    def __init__(
        self,
        dim: int,
        n_heads: int,
        *,
        n_kv_heads: int | None = None,
        max_batch_size: int = 1,
        max_seq_len: int = 2048,
        theta: float = DEFAULT_BASE,
        layout: str = "interleaved",
        device=None,
        dtype: torch.dtype = torch.float32,
        scaling: RopeScaling | None = None,
        rotary_dim: int | None = None,
        fused: bool = False,
    ):
        super().__init__()
        dim = check_positive_int(dim, "dim")
        self.n_heads = check_positive_int(n_heads, "n_heads")
        self.n_kv_heads = self.n_heads if n_kv_heads is None else check_positive_int(n_kv_heads, "n_kv_heads")
        if dim % self.n_heads:
            raise ValueError(f"dim={dim} must be divisible by n_heads={self.n_heads}")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads={self.n_heads} must be a multiple of n_kv_heads={self.n_kv_heads}")
        self.head_dim = check_even_dim(dim // self.n_heads, "head_dim (dim / n_heads)")
        self.dim = dim
        self.max_batch_size = check_positive_int(max_batch_size, "max_batch_size")
        self.max_seq_len = check_positive_int(max_seq_len, "max_seq_len")
        self.theta = check_base(theta)
        self.layout = check_layout(layout)
        self.scaling = check_scaling(scaling)
        self.rotary_dim = check_rotary_dim(rotary_dim, self.head_dim)
        if not isinstance(fused, bool):
            raise TypeError(f"fused must be True or False, got {fused!r}")
        self.fused = fused
        device = default_device() if device is None else torch.device(device)
        factory = {"device": device, "dtype": dtype}

        self.wq = nn.Linear(dim, self.n_heads * self.head_dim, bias=False, **factory)
        self.wk = nn.Linear(dim, self.n_kv_heads * self.head_dim, bias=False, **factory)
        self.wv = nn.Linear(dim, self.n_kv_heads * self.head_dim, bias=False, **factory)
        self.wo = nn.Linear(self.n_heads * self.head_dim, dim, bias=False, **factory)

        positions = torch.arange(self.max_seq_len, device=device)
        cos, sin = self._cos_sin(positions, seq_len=None, dtype=compute_dtype(dtype))
        self.register_buffer("rope_cos", cos, persistent=False)  # (max_seq_len, rotary_dim/2)
        self.register_buffer("rope_sin", sin, persistent=False)
        cache_shape = (self.max_batch_size, self.max_seq_len, self.n_kv_heads, self.head_dim)
        self.register_buffer("cache_k", torch.zeros(cache_shape, **factory), persistent=False)  # (B, S, Hkv, D)
        self.register_buffer("cache_v", torch.zeros(cache_shape, **factory), persistent=False)

    def _cos_sin(self, positions, *, seq_len: int | None, dtype: torch.dtype):
        """cos/sin tables for `positions` under the scaling rule; seq_len is the current length (dynamic NTK)."""
        if self.scaling is None:
            return rope_cos_sin(positions, self.rotary_dim, theta=self.theta, dtype=dtype)
        freqs = self.scaling.frequencies(self.rotary_dim, self.theta, seq_len)
        return rope_cos_sin(positions, self.rotary_dim, theta=self.theta, dtype=dtype, inv_freq=freqs, attention_factor=self.scaling.attention_factor)

    def reset_cache(self) -> None:
        """Forget every cached key and value."""
        self.cache_k.zero_()
        self.cache_v.zero_()

    def _check_input(self, x: torch.Tensor) -> None:
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
        if x.dim() != 3 or x.shape[-1] != self.dim:
            raise ValueError(f"x must have shape (B, T, dim={self.dim}), got {tuple(x.shape)}")
        weight = self.wq.weight
        if x.device != weight.device:
            raise ValueError(f"x must be on the module's device {weight.device}, got {x.device}")
        if x.dtype != weight.dtype:
            raise TypeError(f"x must have the module's dtype {weight.dtype}, got {x.dtype}")

    def _project(self, x: torch.Tensor):
        batch, seq, _ = x.shape
        q = self.wq(x).view(batch, seq, self.n_heads, self.head_dim)  # (B, T, H, D)
        k = self.wk(x).view(batch, seq, self.n_kv_heads, self.head_dim)  # (B, T, Hkv, D)
        v = self.wv(x).view(batch, seq, self.n_kv_heads, self.head_dim)  # (B, T, Hkv, D)
        return q, k, v

    def _repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        """(B, S, Hkv, D) → (B, S, H, D): each key/value head serves n_heads / n_kv_heads query heads."""
        return t.repeat_interleave(self.n_heads // self.n_kv_heads, dim=2)

    def forward(self, x: torch.Tensor, start_pos: int = 0) -> torch.Tensor:
        """x (B, T, dim) holding the tokens at positions start_pos … start_pos + T − 1 → (B, T, dim).

        The keys and values of earlier positions are read from the cache, so
        calls must come in order: a prefill at 0, then steps at its length.
        """
        self._check_input(x)
        batch, seq, _ = x.shape
        if isinstance(start_pos, bool) or not isinstance(start_pos, numbers.Integral) or start_pos < 0:
            raise ValueError(f"start_pos must be a non-negative int, got {start_pos!r}")
        if start_pos + seq > self.max_seq_len:
            raise ValueError(
                f"start_pos + T = {start_pos} + {seq} = {start_pos + seq} is past the table of "
                f"max_seq_len={self.max_seq_len} positions"
            )
        if batch > self.max_batch_size:
            raise ValueError(f"x has batch size {batch}, more than max_batch_size={self.max_batch_size}")
        end = start_pos + seq

        q, k, v = self._project(x)
        if self.scaling is not None and self.scaling.is_dynamic and end > self.scaling.original_max_len:
            # frequencies for the current length; the keys already cached keep their old rotation
            cos, sin = self._cos_sin(torch.arange(start_pos, end, device=x.device), seq_len=end, dtype=self.rope_cos.dtype)
        else:
            cos, sin = self.rope_cos[start_pos:end], self.rope_sin[start_pos:end]  # (T, rotary_dim/2)
        if self.fused:  # one pass each: q in place (a fresh projection), k straight into the cache
            rotate_pairs_fused(q, cos, sin, layout=self.layout, rotary_dim=self.rotary_dim, out=q)
            rotate_pairs_fused(k, cos, sin, layout=self.layout, rotary_dim=self.rotary_dim, out=self.cache_k[:batch, start_pos:end])
        else:
            q = rotate_pairs(q, cos, sin, layout=self.layout, rotary_dim=self.rotary_dim)
            self.cache_k[:batch, start_pos:end] = rotate_pairs(k, cos, sin, layout=self.layout, rotary_dim=self.rotary_dim)
        self.cache_v[:batch, start_pos:end] = v
        keys = self._repeat_kv(self.cache_k[:batch, :end])  # (B, start_pos + T, H, D)
        values = self._repeat_kv(self.cache_v[:batch, :end])

        scores = self._dot(q, keys)  # (B, H, T, start_pos + T)
        scores = scores + causal_mask(seq, start_pos, device=x.device).to(scores.dtype)
        weights = torch.softmax(scores, dim=-1).to(values.dtype)
        out = torch.einsum("bhts,bshd->bthd", weights, values)  # (B, T, H, D)
        return self.wo(out.reshape(batch, seq, self.n_heads * self.head_dim))

    def scores(self, x: torch.Tensor, positions) -> torch.Tensor:
        """Pre-softmax scores q_m·k_n/√D (B, H, T, T) for tokens x (B, T, dim) placed at `positions`.

        Uses no cache and no mask: the quantity the relative-position property is about.
        Dynamic NTK takes its frequencies for the length max(positions) + 1.
        """
        self._check_input(x)
        q, k, _ = self._project(x)
        rope = {"theta": self.theta, "layout": self.layout, "rotary_dim": self.rotary_dim}
        if self.scaling is not None:
            pos = as_positions(positions, device=x.device)
            seq_len = int(pos.max()) + 1 if pos.numel() else None
            rope |= {"inv_freq": self.scaling.frequencies(self.rotary_dim, self.theta, seq_len), "attention_factor": self.scaling.attention_factor}
        q = apply_rope(q, positions, **rope)
        k = self._repeat_kv(apply_rope(k, positions, **rope))
        return self._dot(q, k)

    def _dot(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """q (B, T, H, D) · k (B, S, H, D) / √D → (B, H, T, S), in float32 or better."""
        want = compute_dtype(q.dtype)
        return torch.einsum("bthd,bshd->bhts", q.to(want), k.to(want)) / math.sqrt(self.head_dim)
