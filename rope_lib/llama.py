"""The LLaMA-style decoder, top to bottom (chapter "The LLaMA implementation").

`ModelConfig` gives its shape. Each of its `n_layers` blocks is pre-norm, as in LLaMA:
h = x + Attention(RMSNorm(x)), out = h + FeedForward(RMSNorm(h)). `Attention` has one forward, which
training, the prefill and every decoding step go through: project → rotate → cache → attend → project.
The weights carry Meta's names (tok_embeddings, attention.wo, feed_forward.w2, output), except that the
matrices applied to the same input are stacked into one: W_q, W_k and W_v into attention.wqkv, as gpt-fast
keeps them, and the MLP's w1 and w3 into feed_forward.w13, so that one product gives all of them. A state
dict with Meta's separate names loads as it is (they are stacked on loading); `rope_lib.hf` loads Hugging
Face's weights and configs.

`ModelConfig.position_encoding` chooses how the model knows the order of its tokens: RoPE in every block
(the default), nothing but the causal mask (NoPE), the fixed sinusoidal table or a learned table added
to the token embeddings, or ALiBi's bias on the attention scores.

Arguments are checked where they enter (`rope_lib._validate.checked_by`): building a model, `Model.forward`,
`Model.generate`, and `Attention` or `KVCache` used on their own. The calls a model makes to its own
layers are not checked again, so the code below is the computation alone.
Shapes: B batch, T tokens, S cached positions, H query heads, Hkv key/value heads, D head dimension.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from . import _validate
from ._validate import checked_by, compute_dtype
from .frequencies import DEFAULT_BASE
from .relative_bias import alibi_bias
from .rope import rope_cos_sin, rotate_pairs
from .scaling import RopeScaling
from .sinusoidal import sinusoidal_encoding

POSITION_ENCODINGS = ("rope", "none", "sinusoidal", "learned", "alibi")
"""The choices of `ModelConfig.position_encoding`: RoPE (Su et al. 2021), none at all (NoPE; Haviv et al.
2022, Kazemnejad et al. 2023), the Transformer's sinusoidal table (Vaswani et al. 2017), a learned table
of max_seq_len rows (GPT-2), ALiBi (Press et al. 2022)."""

ATTENTION_POSITION_ENCODINGS = ("rope", "none", "alibi")
"""How positions enter `Attention`: rotated queries and keys, nothing, or ALiBi's bias on the scores."""

INIT_STD = 0.02
"""The standard deviation of the initial weights of every projection (GPT-2's and LLaMA's choice)."""


def default_device() -> torch.device:
    """CUDA when a GPU is visible, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclass(frozen=True)
class ModelConfig:
    """The shape of a LLaMA-style decoder; every field is checked when it is made.

    dim: the width of the residual stream; n_heads query heads of dim / n_heads coordinates each and
    n_kv_heads key/value heads (None: as many as n_heads); hidden_dim: the width of the SwiGLU MLP.
    max_seq_len, max_batch_size: the KV cache, the RoPE table (and the rows of a learned position table).
    base, layout, scaling: RoPE (see `Attention`); with another position_encoding they keep their defaults.
    tie_embeddings: the LM head reuses the token embedding matrix. device=None: CUDA when available.
    position_encoding: one of `POSITION_ENCODINGS`.
    """

    vocab_size: int
    dim: int
    n_layers: int
    n_heads: int
    hidden_dim: int
    n_kv_heads: int | None = None
    norm_eps: float = 1e-5
    max_seq_len: int = 2048
    max_batch_size: int = 1
    base: float = DEFAULT_BASE
    layout: str = "interleaved"
    scaling: RopeScaling | None = None
    tie_embeddings: bool = False
    dtype: torch.dtype = torch.float32
    device: Any = None
    position_encoding: str = "rope"

    def __post_init__(self):
        _validate.model_config(self, POSITION_ENCODINGS, RopeScaling, DEFAULT_BASE)

    @property
    def kv_heads(self) -> int:
        """The number of key/value heads: n_kv_heads, or n_heads when it is None."""
        return self.n_heads if self.n_kv_heads is None else self.n_kv_heads

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads


class RMSNorm(nn.Module):
    """x / √(mean(x²) + eps) · weight (Zhang and Sennrich 2019), computed in float32 or better and
    cast back to x's dtype before the weight multiplies it, as Meta and Hugging Face do."""

    @checked_by(_validate.rms_norm_arguments)
    def __init__(self, dim: int, eps: float = 1e-5, *, device=None, dtype: torch.dtype = torch.float32):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype in (torch.float32, torch.float64):
            return F.rms_norm(x, self.weight.shape, self.weight, self.eps)
        return F.rms_norm(x.float(), self.weight.shape, eps=self.eps).to(x.dtype) * self.weight


class FeedForward(nn.Module):
    """SwiGLU (Shazeer 2020): w2(silu(w1 x) ⊙ w3 x), without biases, w1 and w3 stacked into one matrix, w13, so
    that one product gives both. Hugging Face's gate_proj is w1, up_proj w3 and down_proj w2."""

    def __init__(self, dim: int, hidden_dim: int, *, device=None, dtype: torch.dtype = torch.float32):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.w13 = nn.Linear(dim, 2 * hidden_dim, bias=False, **factory)  # rows: w1 (the gate), then w3
        self.w2 = nn.Linear(hidden_dim, dim, bias=False, **factory)
        self.register_load_state_dict_pre_hook(stacking("w1", "w3", into="w13"))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.w13(x).chunk(2, dim=-1)  # w1 x, w3 x
        return self.w2(F.silu(gate) * up)


def stacking(*names: str, into: str):
    """A hook run before a module loads a state dict: Meta's separate weights `names` (e.g. wq, wk, wv), where the
    state dict holds them, become the one matrix `into` the module holds, their rows stacked in that order."""

    def stack(module: nn.Module, state_dict: dict, prefix: str, *args) -> None:
        keys = [f"{prefix}{name}.weight" for name in names]
        if all(key in state_dict for key in keys):
            state_dict[f"{prefix}{into}.weight"] = torch.cat([state_dict.pop(key) for key in keys])

    return stack


class RopeTable(nn.Module):
    """cos(m·θ_i) and sin(m·θ_i) for positions m = 0 … max_seq_len − 1, each (max_seq_len, rotary_dim/2),
    computed once (in float64, then cast) and shared by every layer of a model.

    scaling: a `RopeScaling` rule for longer contexts, or None. A rule whose frequencies depend on the
    length (dynamic NTK; LongRoPE past the trained length) has them recomputed for the current length,
    as Hugging Face does; so are positions past the table.
    """

    def __init__(self, rotary_dim: int, max_seq_len: int, *, base: float, scaling: RopeScaling | None, device, dtype: torch.dtype):
        super().__init__()
        self.rotary_dim, self.base, self.scaling = rotary_dim, base, scaling
        self.freqs = None if scaling is None else torch.from_numpy(scaling.frequencies(rotary_dim, base))  # θ'_i at the trained length
        self.attention_factor = 1.0 if scaling is None else scaling.attention_factor
        cos, sin = self.compute(torch.arange(max_seq_len, device=device), self.freqs, compute_dtype(dtype))
        self.register_buffer("cos", cos, persistent=False)  # (max_seq_len, rotary_dim/2)
        self.register_buffer("sin", sin, persistent=False)

    def compute(self, positions: torch.Tensor, freqs, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        return rope_cos_sin(positions, self.rotary_dim, base=self.base, dtype=dtype, inv_freq=freqs, attention_factor=self.attention_factor)

    def forward(self, positions: range | torch.Tensor, seq_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin of tokens at `positions` of a sequence seq_len long, each positions.shape + (rotary_dim/2,).

        positions: a range (a forward pass's consecutive tokens: rows of the table, sliced without a copy)
        or an integer tensor (any positions, rows gathered)."""
        rescale = self.scaling is not None and self.scaling.is_dynamic and seq_len > self.scaling.original_max_len
        if isinstance(positions, range):
            if not rescale and positions.stop <= self.cos.shape[0]:
                return self.cos[positions.start : positions.stop], self.sin[positions.start : positions.stop]
            positions = torch.arange(positions.start, positions.stop, device=self.cos.device)
        elif not rescale and positions.numel() and int(positions.max()) < self.cos.shape[0]:
            return self.cos[positions], self.sin[positions]
        freqs = torch.from_numpy(self.scaling.frequencies(self.rotary_dim, self.base, seq_len)) if rescale else self.freqs
        return self.compute(positions, freqs, self.cos.dtype)


class KVCache(nn.Module):
    """Rotated keys and values of max_batch_size sequences of up to max_seq_len positions, one verb: `update`.

    Keys arrive already rotated to their positions, are written once at `start_pos` and never rotated
    again. The buffers `k` and `v` are head-major, (B, Hkv, S, D), as gpt-fast keeps them and attention
    reads them: the keys of one head are one block of memory. The cache keeps values, not graphs: what it
    holds from earlier calls is a constant to later ones, so a model made of these blocks trains step after
    step. It knows how far its sequences go (`length`) and how many there are (`batch`), so that writes
    come in order: at 0 (new sequences), or within what is written.
    """

    @checked_by(_validate.kv_cache_arguments)
    def __init__(self, max_batch_size: int, max_seq_len: int, n_kv_heads: int, head_dim: int, *, device=None, dtype=torch.float32):
        super().__init__()
        shape = (max_batch_size, n_kv_heads, max_seq_len, head_dim)
        self.register_buffer("k", torch.zeros(shape, device=device, dtype=dtype), persistent=False)  # (B, Hkv, S, D)
        self.register_buffer("v", torch.zeros(shape, device=device, dtype=dtype), persistent=False)
        self.length = 0  # positions 0 … length − 1 hold the keys and values of the current sequences
        self.batch = 0  # how many sequences: rows 0 … batch − 1

    @property
    def max_batch_size(self) -> int:
        return self.k.shape[0]

    @property
    def max_seq_len(self) -> int:
        return self.k.shape[2]

    @checked_by(_validate.kv_cache_update_arguments)
    def update(
        self, start_pos: int, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Store k, v (B, Hkv, T, D) at positions
        start_pos … start_pos + T − 1 and return the keys and values of
        positions 0 … start_pos + T − 1, each (B, Hkv, start_pos + T, D).

        When k or v carry a graph, the returned tensors are the cached
        prefix (constants) followed by k and v themselves, so gradients
        reach this call's keys and values."""
        batch, seq = k.shape[0], k.shape[2]
        end = start_pos + seq
        self.length, self.batch = end, batch
        # values only: no graph enters the buffer
        self.k[:batch, :, start_pos:end] = k.detach()
        self.v[:batch, :, start_pos:end] = v.detach()
        if k.requires_grad or v.requires_grad:
            keys = torch.cat([self.k[:batch, :, :start_pos], k], dim=2)
            values = torch.cat([self.v[:batch, :, :start_pos], v], dim=2)
            return keys, values
        return self.k[:batch, :, :end], self.v[:batch, :, :end]

    def reset(self) -> None:
        """Forget every cached key and value."""
        self.k.zero_()
        self.v.zero_()
        self.length = self.batch = 0


class Attention(nn.Module):
    """Multi-head self-attention as in LLaMA: W_q, W_k, W_v stacked in wqkv, and wo, without bias; RoPE on
    q and k, optional grouped key/value heads, a causal mask and a KV cache filled at `start_pos`.

    device=None puts the module on CUDA when it is available (`default_device`).
    scaling: a `RopeScaling` rule for longer contexts, or None for plain RoPE.
    rotary_dim: rotate only the first rotary_dim coordinates of each head (None: all).
    position_encoding: "rope", "none" (no rotation) or "alibi" (no rotation, ALiBi's bias on the
    scores); base, layout, scaling and rotary_dim belong to "rope".
    rope_table: the model's shared `RopeTable` (None: the module makes its own).
    """

    @checked_by(functools.partial(_validate.attention_arguments, position_encodings=ATTENTION_POSITION_ENCODINGS, scaling_type=RopeScaling))
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
        rope_table: RopeTable | None = None,
    ):
        super().__init__()
        self.dim, self.n_heads, self.head_dim = dim, n_heads, dim // n_heads
        self.n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        self.max_seq_len, self.base, self.layout, self.scaling = max_seq_len, base, layout, scaling
        self.rotary_dim = self.head_dim if rotary_dim is None else rotary_dim
        self.position_encoding = position_encoding
        device = default_device() if device is None else device
        factory = {"device": device, "dtype": dtype}
        self.wqkv = nn.Linear(dim, (self.n_heads + 2 * self.n_kv_heads) * self.head_dim, bias=False, **factory)  # rows: W_q, W_k, W_v
        self.wo = nn.Linear(self.n_heads * self.head_dim, dim, bias=False, **factory)
        self.register_load_state_dict_pre_hook(stacking("wq", "wk", "wv", into="wqkv"))
        if position_encoding == "rope" and rope_table is None:
            rope_table = RopeTable(self.rotary_dim, max_seq_len, base=base, scaling=scaling, **factory)
        self.rope = rope_table if position_encoding == "rope" else None
        self.cache = KVCache(max_batch_size, max_seq_len, self.n_kv_heads, self.head_dim, **factory)

    @checked_by(_validate.attention_forward_arguments)
    def forward(
        self, x: torch.Tensor, start_pos: int = 0, *, use_cache: bool = True
    ) -> torch.Tensor:
        """x (B, T, dim) holding the tokens at positions
        start_pos … start_pos + T − 1 → (B, T, dim).

        use_cache=True: the keys and values of earlier positions are read
        from the cache, so calls come in order, a prefill at 0, then steps
        at its length. use_cache=False: the T tokens attend causally to
        each other only, and the cache is neither read nor written
        (training).
        """
        batch, seq, _ = x.shape
        # (B, T, H + Hkv, D): q's heads, then k's; (B, T, Hkv, D)
        qk, v = self.project(x)
        if self.rope is not None:
            positions = range(start_pos, start_pos + seq)
            # (T, rotary_dim/2) each
            cos, sin = self.rope(positions, seq_len=start_pos + seq)
            qk = self.rotate(qk, cos, sin)
        # head-major: (B, H, T, D), (B, Hkv, T, D)
        heads = [self.n_heads, self.n_kv_heads]
        q, k = qk.transpose(1, 2).split(heads, dim=1)
        v = v.transpose(1, 2)  # (B, Hkv, T, D)
        if use_cache:
            # (B, Hkv, S = start_pos + T, D): every key so far
            k, v = self.cache.update(start_pos, k, v)
        mask = self.mask(seq, start_pos if use_cache else 0, q.dtype)
        # softmax(q·kᵀ/√D + mask) · v
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, is_causal=mask is None and seq > 1,
            # each key/value head serves n_heads / n_kv_heads query heads
            enable_gqa=self.n_kv_heads != self.n_heads,
        )  # (B, H, T, D)
        out = out.transpose(1, 2)  # (B, T, H, D)
        out = out.reshape(batch, seq, self.n_heads * self.head_dim)
        return self.wo(out)

    def project(
        self, x: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, T, dim) → the query and key heads side by side,
        (B, T, H + Hkv, D), and the value heads, (B, T, Hkv, D): views of
        one product with wqkv."""
        batch, seq, _ = x.shape
        qkv = self.wqkv(x).view(
            batch, seq, self.n_heads + 2 * self.n_kv_heads, self.head_dim
        )
        return qkv.split(
            [self.n_heads + self.n_kv_heads, self.n_kv_heads], dim=2
        )

    def qkv_weights(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """W_q (H·D, dim), W_k and W_v (Hkv·D, dim): views of wqkv's rows, so writing to one writes wqkv."""
        return self.wqkv.weight.split([self.n_heads * self.head_dim, self.n_kv_heads * self.head_dim, self.n_kv_heads * self.head_dim])

    def rotate(
        self, qk: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor
    ) -> torch.Tensor:
        """The query and key heads (B, T, H + Hkv, D) turned to their
        positions (RoFormer eq. 34), all in one call."""
        return rotate_pairs(
            qk, cos, sin, layout=self.layout, rotary_dim=self.rotary_dim
        )

    def mask(self, seq: int, past: int, dtype: torch.dtype) -> torch.Tensor | None:
        """The additive mask (T, past + T) of queries at past … past + T − 1 over keys 0 … past + T − 1, or None
        where the attention call needs none: a causal pass from position 0 asks for its own, one query sees every key."""
        alibi = self.position_encoding == "alibi"
        mask = causal_mask(seq, past, device=self.wqkv.weight.device).to(dtype) if seq > 1 and (past > 0 or alibi) else None
        if alibi:
            bias = self.alibi(range(past, past + seq), range(past + seq), dtype)  # (H, T, S)
            mask = bias if mask is None else mask + bias
        return mask

    def reset_cache(self) -> None:
        """Forget every cached key and value."""
        self.cache.reset()

    @checked_by(_validate.attention_scores_arguments)
    def scores(self, x: torch.Tensor, positions) -> torch.Tensor:
        """Pre-softmax scores q_m·k_n/√D (B, H, T, T) for tokens x (B, T, dim) placed at `positions`
        ((T,) or (B, T) integers), ALiBi's bias included when it is the encoding. Uses no cache and no
        mask: the quantity the relative-position property is about. Dynamic NTK takes its frequencies for
        the length max(positions) + 1."""
        batch, seq, _ = x.shape
        qk, _ = self.project(x)
        if self.rope is not None:
            cos, sin = self.rope(positions, seq_len=int(positions.max()) + 1 if positions.numel() else 0)
            qk = self.rotate(qk, cos, sin)
        q, k = qk.split([self.n_heads, self.n_kv_heads], dim=2)
        k = k.repeat_interleave(self.n_heads // self.n_kv_heads, dim=2)  # (B, T, H, D)
        want = compute_dtype(q.dtype)
        scores = torch.einsum("bthd,bshd->bhts", q.to(want), k.to(want)) / self.head_dim**0.5  # (B, H, T, T)
        if self.position_encoding == "alibi":
            rows = positions.expand(batch, -1)  # (B, T)
            scores = scores + torch.stack([self.alibi(p, p, scores.dtype) for p in rows])  # (B, H, T, T)
        return scores

    def alibi(self, query_positions, key_positions, dtype: torch.dtype) -> torch.Tensor:
        """ALiBi's bias (H, T_q, T_k), −slope_h · (m − n), for queries and keys at these positions (ranges, or
        integer tensors on the module's device), on the module's device."""
        device = self.wqkv.weight.device
        query, key = (torch.arange(p.start, p.stop, device=device) if isinstance(p, range) else p for p in (query_positions, key_positions))
        return alibi_bias(query, key, self.n_heads, dtype=dtype)


def causal_mask(seq_len: int, start_pos: int, *, device=None) -> torch.Tensor:
    """(T, start_pos + T) additive mask: query t (at position start_pos + t) sees keys 0 … start_pos + t."""
    mask = torch.full((seq_len, start_pos + seq_len), float("-inf"), device=device)
    return torch.triu(mask, diagonal=start_pos + 1)


class TransformerBlock(nn.Module):
    """RMSNorm → Attention → residual → RMSNorm → FeedForward → residual."""

    def __init__(self, config: ModelConfig, rope_table: RopeTable | None, device: torch.device):
        super().__init__()
        factory = {"device": device, "dtype": config.dtype}
        self.attention = Attention(
            config.dim,
            config.n_heads,
            n_kv_heads=config.kv_heads,
            max_batch_size=config.max_batch_size,
            max_seq_len=config.max_seq_len,
            base=config.base,
            layout=config.layout,
            scaling=config.scaling,
            position_encoding=config.position_encoding if config.position_encoding in ATTENTION_POSITION_ENCODINGS else "none",
            rope_table=rope_table,
            **factory,
        )
        self.attention_norm = RMSNorm(config.dim, config.norm_eps, **factory)
        self.feed_forward = FeedForward(config.dim, config.hidden_dim, **factory)
        self.ffn_norm = RMSNorm(config.dim, config.norm_eps, **factory)

    def forward(self, x: torch.Tensor, start_pos: int, use_cache: bool) -> torch.Tensor:
        h = x + self.attention(self.attention_norm(x), start_pos, use_cache=use_cache)
        return h + self.feed_forward(self.ffn_norm(h))


class Model(nn.Module):
    """A LLaMA-style decoder built from a `ModelConfig`: forward gives logits, generate decodes.
    `rope_lib.hf.from_hf_state_dict` builds one holding a Hugging Face model's weights."""

    @checked_by(functools.partial(_validate.model_arguments, config_type=ModelConfig))
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        device = default_device() if config.device is None else torch.device(config.device)
        factory = {"device": device, "dtype": config.dtype}
        self.tok_embeddings = nn.Embedding(config.vocab_size, config.dim, **factory)
        if config.position_encoding == "learned":
            self.pos_embeddings = nn.Embedding(config.max_seq_len, config.dim, **factory)  # row m: the vector of position m
        if config.position_encoding == "sinusoidal":
            table = torch.from_numpy(sinusoidal_encoding(config.max_seq_len, config.dim)).to(**factory)
            self.register_buffer("pos_table", table, persistent=False)  # (max_seq_len, dim), fixed
        rope_table = None  # one table of cos and sin for every layer: they all turn by the same angles
        if config.position_encoding == "rope":
            rope_table = RopeTable(config.head_dim, config.max_seq_len, base=config.base, scaling=config.scaling, **factory)
        self.layers = nn.ModuleList(TransformerBlock(config, rope_table, device) for _ in range(config.n_layers))
        self.norm = RMSNorm(config.dim, config.norm_eps, **factory)
        self.output = nn.Linear(config.dim, config.vocab_size, bias=False, **factory)
        if config.tie_embeddings:
            self.output.weight = self.tok_embeddings.weight
        self._init_weights()

    @torch.no_grad()
    def _init_weights(self) -> None:
        """Weights that train well from the start: every projection N(0, INIT_STD²), the two that write into
        the residual stream (wo, w2) scaled by 1/√(2·n_layers) so that the stream does not grow with depth
        (GPT-2); token embeddings N(0, 1), or N(0, 1/dim) when the LM head shares them (logits of order 1);
        a learned position table at the scale of the token embeddings. The norms' weights stay 1."""
        residual_std = INIT_STD / (2 * self.config.n_layers) ** 0.5
        for layer in self.layers:
            attention, mlp = layer.attention, layer.feed_forward
            for weight in (*attention.qkv_weights(), *mlp.w13.weight.chunk(2)):  # views of the stacked rows: W_q, W_k, W_v, w1, w3
                weight.normal_(0.0, INIT_STD)
            for weight in (attention.wo.weight, mlp.w2.weight):
                weight.normal_(0.0, residual_std)
        embedding_std = self.config.dim**-0.5 if self.config.tie_embeddings else 1.0
        self.tok_embeddings.weight.normal_(0.0, embedding_std)
        if not self.config.tie_embeddings:
            self.output.weight.normal_(0.0, INIT_STD)
        if self.config.position_encoding == "learned":
            self.pos_embeddings.weight.normal_(0.0, embedding_std)

    @property
    def device(self) -> torch.device:
        return self.tok_embeddings.weight.device

    def reset_cache(self) -> None:
        """Forget every cached key and value, in every layer."""
        for layer in self.layers:
            layer.attention.reset_cache()

    @checked_by(_validate.model_forward_arguments)
    def forward(self, tokens: torch.Tensor, start_pos: int = 0, *, use_cache: bool = True) -> torch.Tensor:
        """tokens (B, T) at positions start_pos … start_pos + T − 1 → logits (B, T, vocab_size) in float32
        (float64 for a float64 model).

        use_cache=True: calls come in order, a prefill at 0, then steps at its length (inference).
        use_cache=False: the T tokens attend causally to each other only, no cache is read or written
        (training; start_pos must then be 0).
        """
        h = self.tok_embeddings(tokens)  # (B, T, dim)
        end = start_pos + tokens.shape[1]
        if self.config.position_encoding == "learned":
            h = h + self.pos_embeddings.weight[start_pos:end]  # (T, dim), broadcast over B
        elif self.config.position_encoding == "sinusoidal":
            table = self.pos_table
            if end > table.shape[0]:  # a pass longer than the table (use_cache=False): the same formula, further
                table = torch.from_numpy(sinusoidal_encoding(end, self.config.dim)).to(table)
            h = h + table[start_pos:end]  # (T, dim)
        for layer in self.layers:
            h = layer(h, start_pos, use_cache)
        logits = self.output(self.norm(h))  # (B, T, vocab_size)
        return logits if logits.dtype == torch.float64 else logits.float()

    @checked_by(_validate.generate_arguments)
    def generate(
        self,
        prompt_tokens: torch.Tensor,
        max_new_tokens: int,
        *,
        temperature: float = 0.0,
        top_k: int | None = None,
        generator: torch.Generator | None = None,
        eos_token_id: int | None = None,
    ) -> torch.Tensor:
        """Decode after prompt_tokens (B, T): one prefill, then one token a step through the KV cache.

        Returns the new tokens, (B, N) int64 with N ≤ max_new_tokens: N = max_new_tokens unless every
        sequence has produced eos_token_id, in which case decoding stops there; the end token is kept,
        and a sequence that ended earlier is filled with it after its end.
        temperature=0: greedy (argmax); top_k and generator are for sampling only. temperature > 0:
        sample from softmax(logits / temperature), restricted to the top_k most likely tokens when
        top_k is given, drawing from `generator` (a seeded torch.Generator gives the same tokens each run).
        The result is an ordinary tensor (not an inference-mode one): a loss may use it.
        """
        batch = prompt_tokens.shape[0]
        out = torch.empty((batch, max_new_tokens), dtype=torch.int64, device=prompt_tokens.device)
        done = torch.zeros(batch, dtype=torch.bool, device=prompt_tokens.device)
        tokens, start = prompt_tokens, 0
        with torch.inference_mode():
            for step in range(max_new_tokens):
                logits = self(tokens, start)[:, -1]  # (B, vocab): the prefill at 0, then one token a step
                token = self.pick(logits, temperature, top_k, generator)  # (B,)
                if eos_token_id is not None:
                    token = token.masked_fill(done, eos_token_id)  # a sequence that ended keeps ending
                    done = done | (token == eos_token_id)
                out[:, step] = token
                if eos_token_id is not None and bool(done.all()):
                    out = out[:, : step + 1]
                    break
                start += tokens.shape[1]
                tokens = token[:, None]  # (B, 1)
        return out.clone()  # made in inference mode, it could not enter autograd: a clone can

    @staticmethod
    def pick(logits: torch.Tensor, temperature: float, top_k: int | None, generator) -> torch.Tensor:
        """The next token of each sequence from its logits (B, vocab): argmax, or a sample."""
        if temperature == 0:
            return logits.argmax(dim=-1)
        logits = (logits - logits.amax(dim=-1, keepdim=True)) / temperature  # ≤ 0: no overflow, however small the temperature
        if top_k is not None:
            kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]  # (B, 1): the k-th largest
            logits = logits.masked_fill(logits < kth, float("-inf"))
        return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator)[:, 0]
