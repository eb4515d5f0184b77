"""LLaMA-style multi-head attention with RoPE and a KV cache (chapter "The LLaMA implementation").

Queries and keys are rotated to their absolute positions before the scores, so
each score depends only on the distance between the two tokens. Keys are
rotated once, before they enter the cache, and never again: a decoding step at
`start_pos` rotates its own query and key and reads the cached keys as stored.

The cache is a `KVCache` (its one verb: `update`). It stores values, not graphs,
so a stack of these blocks trains step after step; `use_cache=False` is the
plain causal forward of training, which reads and writes no cache at all.

`scaling=` applies a context-extension rule (chapter "Longer contexts"). Dynamic
NTK recomputes its frequencies from the current length at every call, as
Hugging Face does, while the cached keys keep the rotation they were stored
with: past the original context, cached decoding and a full pass disagree.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .checks import (
    compute_dtype,
    require_base,
    require_bool,
    require_device,
    require_even_dim,
    require_float_dtype,
    require_layout,
    require_non_negative_int,
    require_positive_int,
    require_rotary_dim,
    require_token_positions,
)
from .frequencies import DEFAULT_BASE
from .kv_cache import KVCache
from .relative_bias import alibi_bias
from .rope import _rotate_pairs, expand_to_pairs, rope_cos_sin, rotate_pairs
from .scaling import RopeScaling

ATTENTION_POSITION_ENCODINGS = ("rope", "none", "alibi")
"""How positions enter `Attention`: rotated queries and keys, nothing, or ALiBi's bias on the scores."""


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
    position_encoding: "rope", "none" (no rotation) or "alibi" (no rotation, ALiBi's bias on the
    scores); base, layout, scaling and rotary_dim belong to "rope".
    Queries and keys are rotated by `rotate`, the eager reference form; the kernel layer's
    `rope_lib.kernels.FusedAttention` rotates them in place instead.
    """

    def __init__(
        self,
        dim: int,
        n_heads: int,
        *,
        n_kv_heads: int | None = None,
        max_batch_size: int = 1,
        max_seq_len: int = 2048,
        base: float = DEFAULT_BASE,
        layout: str = "interleaved",
        device=None,
        dtype: torch.dtype = torch.float32,
        scaling: RopeScaling | None = None,
        rotary_dim: int | None = None,
        position_encoding: str = "rope",
    ):
        super().__init__()
        if not isinstance(position_encoding, str) or position_encoding not in ATTENTION_POSITION_ENCODINGS:
            raise ValueError(f"position_encoding must be one of {ATTENTION_POSITION_ENCODINGS}, got {position_encoding!r}")
        if position_encoding != "rope" and (scaling is not None or rotary_dim is not None):
            raise ValueError(f"scaling and rotary_dim are RoPE's settings: pass None for position_encoding={position_encoding!r}")
        self.position_encoding = position_encoding
        dim = require_positive_int(dim, "dim")
        self.n_heads = require_positive_int(n_heads, "n_heads")
        self.n_kv_heads = self.n_heads if n_kv_heads is None else require_positive_int(n_kv_heads, "n_kv_heads")
        if dim % self.n_heads:
            raise ValueError(f"dim={dim} must be divisible by n_heads={self.n_heads}")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads={self.n_heads} must be a multiple of n_kv_heads={self.n_kv_heads}")
        self.head_dim = require_even_dim(dim // self.n_heads, "head_dim (dim / n_heads)")
        self.dim = dim
        self.max_seq_len = require_positive_int(max_seq_len, "max_seq_len")
        self.base = require_base(base)
        self.layout = require_layout(layout)
        if scaling is not None and not isinstance(scaling, RopeScaling):
            raise TypeError(f"scaling must be a rope_lib.RopeScaling or None, got {type(scaling).__name__}")
        self.scaling = scaling
        self.rotary_dim = require_rotary_dim(rotary_dim, self.head_dim)
        dtype = require_float_dtype(dtype, "dtype")
        device = default_device() if device is None else require_device(device)
        factory = {"device": device, "dtype": dtype}

        self.wq = nn.Linear(dim, self.n_heads * self.head_dim, bias=False, **factory)
        self.wk = nn.Linear(dim, self.n_kv_heads * self.head_dim, bias=False, **factory)
        self.wv = nn.Linear(dim, self.n_kv_heads * self.head_dim, bias=False, **factory)
        self.wo = nn.Linear(self.n_heads * self.head_dim, dim, bias=False, **factory)

        self.freqs = None if scaling is None else scaling.frequencies(self.rotary_dim, self.base)  # θ'_i at the trained length
        cos = sin = None  # no tables without rotation
        if position_encoding == "rope":
            cos, sin = self._compute_tables(torch.arange(self.max_seq_len, device=device), self.freqs, compute_dtype(dtype))
        self.register_buffer("rope_cos", cos, persistent=False)  # (max_seq_len, rotary_dim/2)
        self.register_buffer("rope_sin", sin, persistent=False)
        self.cache = KVCache(max_batch_size, self.max_seq_len, self.n_kv_heads, self.head_dim, **factory)

    @property
    def max_batch_size(self) -> int:
        return self.cache.max_batch_size

    def _compute_tables(self, positions: torch.Tensor, freqs, dtype: torch.dtype):
        factor = 1.0 if self.scaling is None else self.scaling.attention_factor
        return rope_cos_sin(positions, self.rotary_dim, base=self.base, dtype=dtype, inv_freq=freqs, attention_factor=factor)

    def rope_tables(self, positions: range | torch.Tensor, seq_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin, each (len(positions), rotary_dim/2) or positions.shape + (rotary_dim/2,), for tokens at
        `positions` of a sequence seq_len long: the one place the block chooses its tables.

        positions: a range (a forward pass's consecutive tokens: rows of the precomputed table are sliced,
        with no copy and no device synchronisation) or an integer tensor (any positions, rows gathered).
        Dynamic NTK past the trained length recomputes the frequencies for seq_len (as Hugging Face
        does; the keys already cached keep the rotation they were stored with). Positions past the
        precomputed table are computed the same way as its rows.
        """
        dynamic = self.scaling is not None and self.scaling.is_dynamic and seq_len > self.scaling.original_max_len
        if isinstance(positions, range):
            if not dynamic and positions.stop <= self.max_seq_len:
                return self.rope_cos[positions.start : positions.stop], self.rope_sin[positions.start : positions.stop]
            positions = torch.arange(positions.start, positions.stop, device=self.rope_cos.device)
        elif not dynamic and positions.numel() and 0 <= int(positions.min()) and int(positions.max()) < self.max_seq_len:
            return self.rope_cos[positions], self.rope_sin[positions]
        freqs = self.scaling.frequencies(self.rotary_dim, self.base, seq_len) if dynamic else self.freqs
        return self._compute_tables(positions, freqs, self.rope_cos.dtype)

    def rotate(self, q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """q (B, T, H, D) and k (B, T, Hkv, D) turned to their positions (RoFormer eq. 34)."""
        rope = {"layout": self.layout, "rotary_dim": self.rotary_dim}
        return rotate_pairs(q, cos, sin, **rope), rotate_pairs(k, cos, sin, **rope)

    def reset_cache(self) -> None:
        """Forget every cached key and value."""
        self.cache.reset()

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
        q = F.linear(x, self.wq.weight).view(batch, seq, self.n_heads, self.head_dim)  # (B, T, H, D)
        k = F.linear(x, self.wk.weight).view(batch, seq, self.n_kv_heads, self.head_dim)  # (B, T, Hkv, D)
        v = F.linear(x, self.wv.weight).view(batch, seq, self.n_kv_heads, self.head_dim)  # (B, T, Hkv, D)
        return q, k, v

    def _repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        """(B, S, Hkv, D) → (B, S, H, D): each key/value head serves n_heads / n_kv_heads query heads."""
        return t.repeat_interleave(self.n_heads // self.n_kv_heads, dim=2)

    def forward(self, x: torch.Tensor, start_pos: int = 0, *, use_cache: bool = True) -> torch.Tensor:
        """x (B, T, dim) holding the tokens at positions start_pos … start_pos + T − 1 → (B, T, dim).

        use_cache=True: the keys and values of earlier positions are read from the cache, so calls
        must come in order, a prefill at 0, then steps at its length. use_cache=False: the T tokens
        attend causally to each other only and the cache is neither read nor written (training).
        """
        self._check_input(x)
        batch, seq, _ = x.shape
        start_pos = require_non_negative_int(start_pos, "start_pos")
        use_cache = require_bool(use_cache, "use_cache")
        end = start_pos + seq
        if use_cache and end > self.max_seq_len:
            raise ValueError(f"start_pos + T = {start_pos} + {seq} = {end} is past the cache of max_seq_len={self.max_seq_len} positions")
        if use_cache and batch > self.max_batch_size:
            raise ValueError(f"x has batch size {batch}, more than max_batch_size={self.max_batch_size}")

        q, k, v = self._project(x)
        if self.position_encoding == "rope":
            cos, sin = self.rope_tables(range(start_pos, end), seq_len=end)  # (T, rotary_dim/2)
            q, k = self.rotate(q, k, cos, sin)
        if use_cache:
            k, v = self.cache.update(start_pos, k, v)  # (B, start_pos + T, Hkv, D)
        past = start_pos if use_cache else 0
        keys, values = self._repeat_kv(k), self._repeat_kv(v)  # (B, S, H, D)

        scores = self._dot(q, keys)  # (B, H, T, S)
        scores = scores + causal_mask(seq, past, device=x.device).to(scores.dtype)
        if self.position_encoding == "alibi":
            scores = scores + self.alibi(range(past, past + seq), range(past + seq), scores.dtype)  # (H, T, S)
        weights = torch.softmax(scores, dim=-1).to(values.dtype)
        out = torch.einsum("bhts,bshd->bthd", weights, values)  # (B, T, H, D)
        return self.wo(out.reshape(batch, seq, self.n_heads * self.head_dim))

    def pair_tables(self, start_pos: int, end: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin of positions start_pos … end − 1 spread over both coordinates of each pair, each
        (end − start_pos, 1, rotary_dim): the tables one step turns its queries and its keys by (the
        dynamic rule takes the length `end`). Unchecked; a stack of blocks with the same settings
        (`rope_lib.Model`) computes them once per step for all its blocks."""
        cos, sin = self.rope_tables(range(start_pos, end), seq_len=end)  # (T, rotary_dim/2)
        return expand_to_pairs(cos, self.layout).unsqueeze(-2), expand_to_pairs(sin, self.layout).unsqueeze(-2)

    def _forward_unchecked(self, x: torch.Tensor, start_pos: int, use_cache: bool, pair_tables=None) -> torch.Tensor:
        """What `forward` computes, for a caller that has checked x and start_pos once for a whole stack of
        blocks (`rope_lib.Model`): no checks (neither here nor in the rotation and the cache write).
        The softmax of the scores is one fused call, `torch.nn.functional.scaled_dot_product_attention`
        (`_attend`).
        It equals `forward` up to float rounding, not bit for bit (the tests hold it to that).
        pair_tables: this step's `pair_tables`, when the caller has them already (None: computed here).
        """
        seq = x.shape[1]
        q, k, v = self._project(x)
        if self.position_encoding == "rope":
            c, s = self.pair_tables(start_pos, start_pos + seq) if pair_tables is None else pair_tables  # (T, 1, rotary_dim) each
            q, k = _rotate_pairs(q, c, s, self.layout, self.rotary_dim), _rotate_pairs(k, c, s, self.layout, self.rotary_dim)
        if use_cache:
            k, v = self.cache._write(start_pos, k, v)  # (B, start_pos + T, Hkv, D)
        return F.linear(self._attend(q, k, v, start_pos if use_cache else 0), self.wo.weight)

    def _attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, past: int) -> torch.Tensor:
        """Turned queries q (B, T, H, D) at positions past … past + T − 1 against keys and values (B, past + T, Hkv, D)
        → (B, T, H·D): softmax(q·k/√D (+ ALiBi's bias) + causal mask) · v in one fused call, each key/value head
        serving its group of query heads without repeating them. No mask is built where none is needed: a causal
        pass from position 0 asks the call for its own, and a single query sees every key."""
        seq = q.shape[1]
        alibi = self.position_encoding == "alibi"
        needs_mask = seq > 1 and (past > 0 or alibi)
        mask = causal_mask(seq, past, device=q.device).to(q.dtype) if needs_mask else None
        if alibi:
            bias = self.alibi(range(past, past + seq), range(past + seq), q.dtype)  # (H, T, S)
            mask = bias if mask is None else mask + bias
        out = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),  # (B, H, T, D), (B, Hkv, S, D): the cache is read in place
            attn_mask=mask, is_causal=seq > 1 and not needs_mask, enable_gqa=self.n_kv_heads != self.n_heads,
        )  # (B, H, T, D)
        return out.transpose(1, 2).reshape(q.shape[0], seq, self.n_heads * self.head_dim)

    def scores(self, x: torch.Tensor, positions) -> torch.Tensor:
        """Pre-softmax scores q_m·k_n/√D (B, H, T, T) for tokens x (B, T, dim) placed at `positions`
        ((T,) or (B, T) integers), ALiBi's bias included when it is the encoding. Uses no cache and no
        mask: the quantity the relative-position property is about. Dynamic NTK takes its frequencies for the length max(positions) + 1.
        """
        self._check_input(x)
        pos = require_token_positions(positions, *x.shape[:2], x.device)
        if pos.numel() and int(pos.min()) < 0:
            raise ValueError(f"positions must be non-negative, got {int(pos.min())}")
        q, k, _ = self._project(x)
        if self.position_encoding == "rope":
            cos, sin = self.rope_tables(pos, seq_len=int(pos.max()) + 1 if pos.numel() else 0)
            q, k = self.rotate(q, k, cos, sin)
        scores = self._dot(q, self._repeat_kv(k))  # (B, H, T, T)
        if self.position_encoding == "alibi":
            rows = pos.expand(x.shape[0], -1)  # (B, T)
            scores = scores + torch.stack([self.alibi(p, p, scores.dtype) for p in rows])  # (B, H, T, T)
        return scores

    def alibi(self, query_positions, key_positions, dtype: torch.dtype) -> torch.Tensor:
        """ALiBi's bias (H, T_q, T_k), −slope_h · (m − n), for queries and keys at these positions (ranges, or
        integer tensors on the module's device), on the module's device."""
        device = self.wq.weight.device
        query, key = (torch.arange(p.start, p.stop, device=device) if isinstance(p, range) else p for p in (query_positions, key_positions))
        return alibi_bias(query, key, self.n_heads, dtype=dtype)

    def _dot(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """q (B, T, H, D) · k (B, S, H, D) / √D → (B, H, T, S), in float32 or better."""
        want = compute_dtype(q.dtype)
        return torch.einsum("bthd,bshd->bhts", q.to(want), k.to(want)) / math.sqrt(self.head_dim)
