"""The LLaMA-style decoder, top to bottom (chapter "The LLaMA implementation").

`ModelConfig` gives its shape and checks itself when it is made; every module is built from it. Each of its
`n_layers` blocks is pre-norm, as in LLaMA: h = x + Attention(RMSNorm(x)), out = h + FeedForward(RMSNorm(h)).
`Model.forward` computes what every block shares once a call, the cos and sin of its positions and the
attention mask, and hands them to the blocks; `Attention` has one forward, which training, the prefill and
every decoding step go through: project → rotate → cache → attend → project.

The weights carry Meta's names (tok_embeddings, attention.wo, feed_forward.w2, output), except that the
matrices applied to the same input are stacked into one: W_q, W_k and W_v into attention.wqkv, as gpt-fast
keeps them, and the MLP's w1 and w3 into feed_forward.w13, so that one product gives all of them. A state
dict with Meta's separate names loads as it is (they are stacked on loading); `rope_lib.hf` loads Hugging
Face's weights and configs.

`ModelConfig.position_encoding` chooses how the model knows the order of its tokens: RoPE in every block
(the default), nothing but the causal mask (NoPE), the fixed sinusoidal table or a learned table added
to the token embeddings, or ALiBi's bias on the attention scores.

Arguments are checked where they enter: a `ModelConfig` when it is made, `Model.forward` and `Model.generate`
at each call (`rope_lib._model_checks`). The modules inside take what the model hands them, unchecked.
Shapes: B batch, T tokens, S cached positions, H query heads, Hkv key/value heads, D head dimension.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from . import _model_checks
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

INIT_STD = 0.02
"""The standard deviation of the initial weights of every projection (GPT-2's and LLaMA's choice)."""


def default_device() -> torch.device:
    """CUDA when a GPU is visible, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclass(frozen=True)
class ModelConfig:
    """The shape of a LLaMA-style decoder; every field is checked when it is made.

    dim: the width of the residual stream; n_heads query heads of head_dim = dim / n_heads coordinates and
    n_kv_heads key/value heads (None: as many as n_heads); hidden_dim: the width of the SwiGLU MLP.
    max_seq_len, max_batch_size: the KV cache, the RoPE table (and the rows of a learned position table).
    base, layout, scaling, rotary_dim: RoPE. rotary_dim: how many leading coordinates of each head turn
    (None: all of them, head_dim). With another position_encoding they keep their defaults.
    tie_embeddings: the LM head reuses the token embedding matrix. device=None: CUDA when available.
    position_encoding: one of `POSITION_ENCODINGS`.
    n_kv_heads and rotary_dim given as None read as their values once the config is made.
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
    rotary_dim: int | None = None
    tie_embeddings: bool = False
    dtype: torch.dtype = torch.float32
    device: Any = None
    position_encoding: str = "rope"

    def __post_init__(self):
        _model_checks.model_config(self, POSITION_ENCODINGS, DEFAULT_BASE)
        if self.n_kv_heads is None:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        if self.rotary_dim is None:
            object.__setattr__(self, "rotary_dim", self.head_dim)

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads


class RMSNorm(nn.Module):
    """x / √(mean(x²) + eps) · weight (Zhang and Sennrich 2019), computed in float32 or better and
    cast back to x's dtype before the weight multiplies it, as Meta and Hugging Face do."""

    def __init__(self, dim: int, eps: float, *, device, dtype: torch.dtype):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype in (torch.float32, torch.float64):
            return F.rms_norm(x, self.weight.shape, self.weight, self.eps)
        return F.rms_norm(x.float(), self.weight.shape, eps=self.eps).to(x.dtype) * self.weight


def stack_on_load(*names: str, into: str):
    """A hook run before a module loads a state dict: Meta's separate weights `names` (e.g. wq, wk, wv), where the
    state dict holds them, become the one matrix `into` the module holds, their rows stacked in that order."""

    def stack(module: nn.Module, state_dict: dict, prefix: str, *args) -> None:
        keys = [f"{prefix}{name}.weight" for name in names]
        if all(key in state_dict for key in keys):
            state_dict[f"{prefix}{into}.weight"] = torch.cat([state_dict.pop(key) for key in keys])

    return stack


class FeedForward(nn.Module):
    """SwiGLU (Shazeer 2020): w2(silu(w1 x) ⊙ w3 x), without biases, w1 and w3 stacked into one matrix, w13, so
    that one product gives both. Hugging Face's gate_proj is w1, up_proj w3 and down_proj w2."""

    def __init__(self, config: ModelConfig, device: torch.device):
        super().__init__()
        factory = {"device": device, "dtype": config.dtype}
        self.w13 = nn.Linear(config.dim, 2 * config.hidden_dim, bias=False, **factory)  # rows: w1 (the gate), then w3
        self.w2 = nn.Linear(config.hidden_dim, config.dim, bias=False, **factory)
        self.register_load_state_dict_pre_hook(stack_on_load("w1", "w3", into="w13"))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.w13(x).chunk(2, dim=-1)  # w1 x, w3 x
        return self.w2(F.silu(gate) * up)


class RopeTable(nn.Module):
    """cos(m·θ_i) and sin(m·θ_i) for positions m = 0 … max_seq_len − 1, each (max_seq_len, rotary_dim/2),
    computed once (in float64, then cast) for the whole model: every layer turns by the same angles.

    The config's `scaling` rule, if any, gives the frequencies θ_i and the factor cos and sin carry. A rule
    whose frequencies depend on the length (dynamic NTK; LongRoPE past the trained length) has them
    recomputed for the current length, as Hugging Face does; so are positions past the table.
    """

    def __init__(self, config: ModelConfig, device: torch.device):
        super().__init__()
        self.rotary_dim, self.base, self.scaling = config.rotary_dim, config.base, config.scaling
        positions = torch.arange(config.max_seq_len, device=device)
        trained = self.frequencies(None)  # the rule's frequencies at the trained length
        cos, sin = self.compute(positions, trained, compute_dtype(config.dtype))
        self.register_buffer("cos", cos, persistent=False)  # (max_seq_len, rotary_dim/2)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, positions: torch.Tensor, seq_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin of the tokens at `positions` (integers below seq_len) of a sequence seq_len long,
        each positions.shape + (rotary_dim/2,): rows of the table, or computed where the table cannot serve."""
        if seq_len <= self.cos.shape[0] and not self.rescales(seq_len):
            return self.cos[positions], self.sin[positions]
        return self.compute(positions, self.frequencies(seq_len), self.cos.dtype)

    def rescales(self, seq_len: int | None) -> bool:
        """Whether the frequencies at this length differ from those at the trained length (None)."""
        rule = self.scaling
        return seq_len is not None and rule is not None and rule.is_dynamic and seq_len > rule.original_max_len

    def frequencies(self, seq_len: int | None) -> torch.Tensor | None:
        """The rule's θ'_i for a sequence seq_len long (None: the trained length), or None for plain RoPE,
        base^(−2i/rotary_dim)."""
        if self.scaling is None:
            return None
        length = seq_len if self.rescales(seq_len) else None
        return torch.from_numpy(self.scaling.frequencies(self.rotary_dim, self.base, length))

    def compute(self, positions: torch.Tensor, inv_freq, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        factor = 1.0 if self.scaling is None else self.scaling.attention_factor
        return rope_cos_sin(positions, self.rotary_dim, base=self.base, dtype=dtype, inv_freq=inv_freq, attention_factor=factor)


class KVCache(nn.Module):
    """Rotated keys and values of max_batch_size sequences of up to max_seq_len positions, one verb: `update`.

    Keys arrive already rotated to their positions, are written once at `start_pos` and never rotated
    again. The buffers `k` and `v` are head-major, (B, Hkv, S, D), as gpt-fast keeps them and attention
    reads them: the keys of one head are one block of memory. The cache keeps values, not graphs: what it
    holds from earlier calls is a constant to later ones, so a model made of these blocks trains step after
    step. It knows how far its sequences go (`length`) and how many there are (`batch`): `Model.forward`
    lets writes come in order only, at 0 (new sequences) or within what is written.
    """

    def __init__(self, config: ModelConfig, device: torch.device):
        super().__init__()
        shape = (config.max_batch_size, config.n_kv_heads, config.max_seq_len, config.head_dim)
        self.register_buffer("k", torch.zeros(shape, device=device, dtype=config.dtype), persistent=False)  # (B, Hkv, S, D)
        self.register_buffer("v", torch.zeros(shape, device=device, dtype=config.dtype), persistent=False)
        self.length = 0  # positions 0 … length − 1 hold the keys and values of the current sequences
        self.batch = 0  # how many sequences: rows 0 … batch − 1

    def update(
        self,
        start_pos: int | torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Store k, v (B, Hkv, T, D) at positions
        start_pos … start_pos + T − 1 and return the keys and values of
        positions 0 … start_pos + T − 1, each (B, Hkv, start_pos + T, D).
        A compiled decoding step (`Model.step`) gives start_pos as a tensor
        of its T positions and gets the whole buffers back, (B, Hkv, S, D).

        When k or v carry a graph, the returned tensors are the cached
        prefix (constants) followed by k and v themselves, so gradients
        reach this call's keys and values."""
        batch, seq = k.shape[0], k.shape[2]
        if isinstance(start_pos, torch.Tensor):
            # a compiled step (Model.step): write at the positions,
            # return the whole buffers (B, Hkv, S, D), shapes fixed
            self.k[:batch].index_copy_(2, start_pos, k)
            self.v[:batch].index_copy_(2, start_pos, v)
            return self.k[:batch], self.v[:batch]
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
    q and k, optional grouped key/value heads, a mask and a KV cache filled at `start_pos`."""

    def __init__(self, config: ModelConfig, device: torch.device):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = config.n_heads, config.n_kv_heads, config.head_dim
        self.layout, self.rotary_dim = config.layout, config.rotary_dim
        factory = {"device": device, "dtype": config.dtype}
        qkv_rows = (self.n_heads + 2 * self.n_kv_heads) * self.head_dim
        self.wqkv = nn.Linear(config.dim, qkv_rows, bias=False, **factory)  # rows: W_q, W_k, W_v
        self.wo = nn.Linear(self.n_heads * self.head_dim, config.dim, bias=False, **factory)
        self.register_load_state_dict_pre_hook(stack_on_load("wq", "wk", "wv", into="wqkv"))
        self.cache = KVCache(config, device)

    def forward(
        self,
        x: torch.Tensor,
        start_pos: int,
        rope: tuple[torch.Tensor, torch.Tensor] | None,
        mask: torch.Tensor | None,
        use_cache: bool,
    ) -> torch.Tensor:
        """x (B, T, dim) holding the tokens at positions
        start_pos … start_pos + T − 1 → (B, T, dim).

        rope: their cos and sin, (T, rotary_dim/2) each, or None (no
        rotation). mask: added to the scores, or None for a causal pass
        from position 0. use_cache=True: the keys and values of earlier
        positions are read from the cache; use_cache=False: the T tokens
        attend to each other only, and the cache is neither read nor
        written (training).
        """
        batch, seq, _ = x.shape
        # (B, T, H + Hkv, D): q's heads, then k's; (B, T, Hkv, D)
        qk, v = self.project(x)
        if rope is not None:
            qk = self.rotate(qk, *rope)
        # head-major: (B, H, T, D), (B, Hkv, T, D)
        heads = [self.n_heads, self.n_kv_heads]
        q, k = qk.transpose(1, 2).split(heads, dim=1)
        v = v.transpose(1, 2)  # (B, Hkv, T, D)
        if use_cache:
            # (B, Hkv, S = start_pos + T, D): every key so far
            k, v = self.cache.update(start_pos, k, v)
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
        rows = [self.n_heads * self.head_dim, self.n_kv_heads * self.head_dim, self.n_kv_heads * self.head_dim]
        return self.wqkv.weight.split(rows)

    def rotate(
        self, qk: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor
    ) -> torch.Tensor:
        """The query and key heads (B, T, H + Hkv, D) turned to their
        positions (RoFormer eq. 34), all in one call."""
        return rotate_pairs(
            qk, cos, sin, layout=self.layout, rotary_dim=self.rotary_dim
        )


def causal_mask(seq_len: int, start_pos: int, *, device=None) -> torch.Tensor:
    """(T, start_pos + T) additive mask: query t (at position start_pos + t) sees keys 0 … start_pos + t."""
    mask = torch.full((seq_len, start_pos + seq_len), float("-inf"), device=device)
    return torch.triu(mask, diagonal=start_pos + 1)


class TransformerBlock(nn.Module):
    """RMSNorm → Attention → residual → RMSNorm → FeedForward → residual."""

    def __init__(self, config: ModelConfig, device: torch.device):
        super().__init__()
        self.attention = Attention(config, device)
        self.attention_norm = RMSNorm(config.dim, config.norm_eps, device=device, dtype=config.dtype)
        self.feed_forward = FeedForward(config, device)
        self.ffn_norm = RMSNorm(config.dim, config.norm_eps, device=device, dtype=config.dtype)

    def forward(self, x: torch.Tensor, start_pos: int, rope, mask: torch.Tensor | None, use_cache: bool) -> torch.Tensor:
        h = x + self.attention(self.attention_norm(x), start_pos, rope, mask, use_cache)
        return h + self.feed_forward(self.ffn_norm(h))


def _model_arguments(a) -> None:
    if not isinstance(a["config"], ModelConfig):
        raise TypeError(f"config must be a rope_lib.ModelConfig, got {type(a['config']).__name__}")


class Model(nn.Module):
    """A LLaMA-style decoder built from a `ModelConfig`: forward gives logits, generate decodes.
    `rope_lib.hf.from_hf_state_dict` builds one holding a Hugging Face model's weights."""

    @checked_by(_model_arguments)
    def __init__(self, config: ModelConfig) -> None:
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
        self.rope = RopeTable(config, device) if config.position_encoding == "rope" else None
        self._compiled_step = None  # generate(..., compile=True) makes it: compiled_step
        self.layers = nn.ModuleList(TransformerBlock(config, device) for _ in range(config.n_layers))
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
            layer.attention.cache.reset()

    @checked_by(_model_checks.forward_arguments)
    def forward(
        self,
        tokens: torch.Tensor,
        start_pos: int = 0,
        *,
        use_cache: bool = True,
    ) -> torch.Tensor:
        """tokens (B, T) at positions start_pos … start_pos + T − 1 →
        logits (B, T, vocab_size) in float32 (float64 for a float64 model).

        use_cache=True: calls come in order, a prefill at 0, then steps at
        its length (inference). use_cache=False: the T tokens attend
        causally to each other only, no cache is read or written (training;
        start_pos must then be 0).
        """
        h = self.tok_embeddings(tokens)  # (B, T, dim)
        seq = tokens.shape[1]
        end = start_pos + seq
        encoding = self.config.position_encoding
        if encoding == "learned":
            # (T, dim), broadcast over B
            h = h + self.pos_embeddings.weight[start_pos:end]
        elif encoding == "sinusoidal":
            table = self.pos_table
            if end > table.shape[0]:  # past the table: the formula, further
                longer = sinusoidal_encoding(end, self.config.dim)
                table = torch.from_numpy(longer).to(table)
            h = h + table[start_pos:end]  # (T, dim)
        # what every layer shares: the positions' cos and sin
        # (T, rotary_dim/2), and the mask
        positions = torch.arange(start_pos, end, device=h.device)
        rope = None if self.rope is None else self.rope(positions, end)
        mask = self.mask(start_pos, seq, h.dtype)
        for layer in self.layers:
            h = layer(h, start_pos, rope, mask, use_cache)
        logits = self.output(self.norm(h))  # (B, T, vocab_size)
        return logits if logits.dtype == torch.float64 else logits.float()

    def mask(self, start_pos: int, seq: int, dtype: torch.dtype) -> torch.Tensor | None:
        """The additive mask (T, start_pos + T) of queries at start_pos … start_pos + T − 1 over keys
        0 … start_pos + T − 1, ALiBi's bias (H, T, start_pos + T) included; None where attention needs
        none: a causal pass from position 0 asks for its own, and one query sees every key."""
        alibi = self.config.position_encoding == "alibi"
        mask = None
        if seq > 1 and (start_pos > 0 or alibi):
            mask = causal_mask(seq, start_pos, device=self.device).to(dtype)
        if alibi:
            queries = torch.arange(start_pos, start_pos + seq, device=self.device)
            keys = torch.arange(start_pos + seq, device=self.device)
            bias = alibi_bias(queries, keys, self.config.n_heads, dtype=dtype)
            mask = bias if mask is None else mask + bias
        return mask

    def step(self, token: torch.Tensor, position: torch.Tensor) -> torch.Tensor:
        """One decoding step as gpt-fast compiles it: token (B, 1) at `position`, a tensor (1,), → logits (B, vocab).
        The position is a tensor and the query attends over the whole cache, keys past it masked out, so
        every step has the same shapes and `torch.compile` compiles it once (`generate(..., compile=True)`)."""
        h = self.tok_embeddings(token)  # (B, 1, dim)
        if self.config.position_encoding == "learned":
            h = h + self.pos_embeddings.weight[position]
        elif self.config.position_encoding == "sinusoidal":
            h = h + self.pos_table[position]
        rope = None if self.rope is None else (self.rope.cos[position], self.rope.sin[position])
        keys = torch.arange(self.config.max_seq_len, device=h.device)
        mask = torch.zeros(1, keys.shape[0], dtype=h.dtype, device=h.device).masked_fill(keys > position, float("-inf"))
        for layer in self.layers:
            h = layer(h, position, rope, mask, True)
        logits = self.output(self.norm(h))[:, -1]  # (B, vocab_size)
        return logits if logits.dtype == torch.float64 else logits.float()

    @checked_by(_model_checks.generate_arguments)
    def generate(
        self,
        prompt_tokens: torch.Tensor,
        max_new_tokens: int,
        *,
        temperature: float = 0.0,
        top_k: int | None = None,
        generator: torch.Generator | None = None,
        eos_token_id: int | None = None,
        compile: bool = False,
    ) -> torch.Tensor:
        """Decode after prompt_tokens (B, T): one prefill, then one token a step through the KV cache.

        Returns the new tokens only, (B, N) int64 with N ≤ max_new_tokens, where Hugging Face's `generate`
        returns the prompt followed by them. N = max_new_tokens unless every sequence has produced
        eos_token_id, in which case decoding stops there; the end token is kept, and a sequence that ended
        earlier is filled with it after its end.
        temperature=0: greedy (argmax); top_k and generator are for sampling only. temperature > 0:
        sample from softmax(logits / temperature), restricted to the top_k most likely tokens when
        top_k is given, drawing from `generator` (a seeded torch.Generator gives the same tokens each run).
        The result is an ordinary tensor (not an inference-mode one): a loss may use it.
        compile=True: the steps after the prefill run `step` compiled by torch.compile (compiled once per
        model and batch size, on the first call), for the same tokens.
        """
        batch = prompt_tokens.shape[0]
        out = torch.empty((batch, max_new_tokens), dtype=torch.int64, device=prompt_tokens.device)
        done = torch.zeros(batch, dtype=torch.bool, device=prompt_tokens.device)
        tokens, start = prompt_tokens, 0
        decode = self.compiled_step() if compile else None
        with torch.inference_mode():
            for step in range(max_new_tokens):
                if decode is None or start == 0:
                    logits = self(tokens, start)[:, -1]  # (B, vocab): the prefill at 0, then one token a step
                else:
                    position = torch.tensor([start], device=tokens.device)
                    logits = decode(tokens, position)
                    for layer in self.layers:  # what Model.forward's checks read: the cache's length
                        layer.attention.cache.length = start + 1
                token = self.next_token(logits, temperature, top_k, generator)  # (B,)
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

    def compiled_step(self):
        """`step` compiled by torch.compile, made on the first call and kept (gpt-fast's decode_one_token)."""
        if self._compiled_step is None:
            self._compiled_step = torch.compile(self.step, fullgraph=True, dynamic=False)
        return self._compiled_step

    @staticmethod
    def next_token(logits: torch.Tensor, temperature: float, top_k: int | None, generator) -> torch.Tensor:
        """The next token of each sequence from its logits (B, vocab): argmax, or a sample."""
        if temperature == 0:
            return logits.argmax(dim=-1)
        logits = (logits - logits.amax(dim=-1, keepdim=True)) / temperature  # ≤ 0: no overflow, however small the temperature
        if top_k is not None:
            kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]  # (B, 1): the k-th largest
            logits = logits.masked_fill(logits < kth, float("-inf"))
        return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator)[:, 0]
