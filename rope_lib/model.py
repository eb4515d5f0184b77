"""The whole LLaMA-style decoder: embedding, blocks of attention and a SwiGLU MLP, the LM head,
`generate`, and loading Hugging Face weights (chapter "The LLaMA implementation").

Each block is pre-norm, as in LLaMA: h = x + Attention(RMSNorm(x)), out = h + FeedForward(RMSNorm(h)).
The attention is `rope_lib.Attention` (RoPE, grouped-query heads, the KV cache); the names of the
weights are Meta's (tok_embeddings, attention.wq, feed_forward.w1, w2, w3, output), and
`Model.from_hf_state_dict` maps Hugging Face's names onto them.

`ModelConfig.position_encoding` chooses how the model knows the order of its tokens: RoPE in every
block (the default), nothing but the causal mask (NoPE), the fixed sinusoidal table or a learned table
added to the token embeddings, or ALiBi's bias on the attention scores.

Arguments are checked once, where they enter (`forward`, `generate`); the layers below run unchecked,
so that a decoding step costs the arithmetic and little else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import torch
import torch.nn.functional as F
from torch import nn

from .attention import Attention, default_device
from .checks import (
    require_base,
    require_bool,
    require_device,
    require_float_dtype,
    require_layout,
    require_non_negative_int,
    require_positive_int,
    require_positive_real,
    require_real,
)
from .frequencies import DEFAULT_BASE
from .layouts import permute_rows_to_interleaved
from .rope import _rotate_pairs
from .scaling import RopeScaling
from .sinusoidal import sinusoidal_encoding

POSITION_ENCODINGS = ("rope", "none", "sinusoidal", "learned", "alibi")
"""The choices of `ModelConfig.position_encoding`: RoPE (Su et al. 2021), none at all (NoPE; Haviv et al.
2022, Kazemnejad et al. 2023), the Transformer's sinusoidal table (Vaswani et al. 2017), a learned table
of max_seq_len rows (GPT-2), ALiBi (Press et al. 2022)."""

INIT_STD = 0.02
"""The standard deviation of the initial weights of every projection (GPT-2's and LLaMA's choice)."""


@dataclass(frozen=True)
class ModelConfig:
    """The shape of a LLaMA-style decoder; every field is checked here.

    dim: the width of the residual stream; n_heads query heads of dim / n_heads coordinates each and
    n_kv_heads key/value heads (None: as many as n_heads); hidden_dim: the width of the SwiGLU MLP.
    max_seq_len, max_batch_size: the KV cache (and the rows of a learned position table).
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
        for name in ("vocab_size", "dim", "n_layers", "n_heads", "hidden_dim", "max_seq_len", "max_batch_size"):
            require_positive_int(getattr(self, name), name)
        if self.n_kv_heads is not None:
            require_positive_int(self.n_kv_heads, "n_kv_heads")
        if self.dim % self.n_heads:
            raise ValueError(f"dim={self.dim} must be divisible by n_heads={self.n_heads}")
        if self.n_heads % self.kv_heads:
            raise ValueError(f"n_heads={self.n_heads} must be a multiple of n_kv_heads={self.kv_heads}")
        if (self.dim // self.n_heads) % 2:
            raise ValueError(f"head_dim = dim / n_heads = {self.dim // self.n_heads} must be even (coordinates rotate in pairs)")
        require_positive_real(self.norm_eps, "norm_eps")
        require_base(self.base)
        require_layout(self.layout)
        if self.scaling is not None and not isinstance(self.scaling, RopeScaling):
            raise TypeError(f"scaling must be a rope_lib.RopeScaling or None, got {type(self.scaling).__name__}")
        require_bool(self.tie_embeddings, "tie_embeddings")
        require_float_dtype(self.dtype)
        if self.device is not None:
            require_device(self.device)
        if not isinstance(self.position_encoding, str) or self.position_encoding not in POSITION_ENCODINGS:
            raise ValueError(f"position_encoding must be one of {POSITION_ENCODINGS}, got {self.position_encoding!r}")
        if self.position_encoding != "rope" and (self.scaling is not None or self.base != DEFAULT_BASE or self.layout != "interleaved"):
            raise ValueError(
                f"base, layout and scaling are RoPE's settings; position_encoding={self.position_encoding!r} does not rotate, "
                f"so leave them at their defaults, got base={self.base}, layout={self.layout!r}, scaling={self.scaling}"
            )

    @property
    def kv_heads(self) -> int:
        """The number of key/value heads: n_kv_heads, or n_heads when it is None."""
        return self.n_heads if self.n_kv_heads is None else self.n_kv_heads

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """x / √(mean(x²) + eps) · weight over the last axis, in float32 or better, cast back to x's dtype
    before the weight multiplies it (Hugging Face's order of operations); unchecked."""
    if x.dtype in (torch.float32, torch.float64):
        return F.rms_norm(x, weight.shape, weight, eps)
    return F.rms_norm(x.float(), weight.shape, eps=eps).to(x.dtype) * weight


class RMSNorm(nn.Module):
    """x / √(mean(x²) + eps) · weight (Zhang and Sennrich 2019), computed in float32 or better and
    cast back to x's dtype before the weight multiplies it, as Meta and Hugging Face do."""

    def __init__(self, dim: int, eps: float = 1e-5, *, device=None, dtype: torch.dtype = torch.float32):
        super().__init__()
        self.eps = require_positive_real(eps, "eps")
        self.weight = nn.Parameter(torch.ones(require_positive_int(dim, "dim"), device=device, dtype=require_float_dtype(dtype)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rms_norm(x, self.weight, self.eps)


class FeedForward(nn.Module):
    """SwiGLU (Shazeer 2020): w2(silu(w1 x) ⊙ w3 x), without biases. Hugging Face's gate_proj is w1,
    up_proj w3 and down_proj w2."""

    def __init__(self, dim: int, hidden_dim: int, *, device=None, dtype: torch.dtype = torch.float32):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.w1 = nn.Linear(dim, hidden_dim, bias=False, **factory)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False, **factory)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False, **factory)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return swiglu(F.linear(x, self.w1.weight), F.linear(x, self.w3.weight), self.w2.weight)


def swiglu(gate: torch.Tensor, up: torch.Tensor, w2: torch.Tensor) -> torch.Tensor:
    """w2(silu(gate) ⊙ up), from the two projections w1 x (gate) and w3 x (up); unchecked."""
    return F.linear(F.silu(gate) * up, w2)


class TransformerBlock(nn.Module):
    """RMSNorm → Attention → residual → RMSNorm → FeedForward → residual."""

    def __init__(self, config: ModelConfig, device: torch.device):
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
            position_encoding=config.position_encoding if config.position_encoding in ("rope", "alibi") else "none",
            **factory,
        )
        self.attention_norm = RMSNorm(config.dim, config.norm_eps, **factory)
        self.feed_forward = FeedForward(config.dim, config.hidden_dim, **factory)
        self.ffn_norm = RMSNorm(config.dim, config.norm_eps, **factory)

    def forward(self, x: torch.Tensor, start_pos: int, use_cache: bool, pair_tables=None) -> torch.Tensor:
        """x (B, T, dim) → (B, T, dim), unchecked: `Model.forward` checked the tokens and positions.
        pair_tables: the step's RoPE tables (`Attention.pair_tables`), shared by every block."""
        h = x + self.attention._forward_unchecked(self.attention_norm(x), start_pos, use_cache, pair_tables)
        return h + self.feed_forward(self.ffn_norm(h))


class Model(nn.Module):
    """A LLaMA-style decoder built from a `ModelConfig`: forward gives logits, generate decodes."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        if not isinstance(config, ModelConfig):
            raise TypeError(f"config must be a rope_lib.ModelConfig, got {type(config).__name__}")
        self.config = config
        device = default_device() if config.device is None else require_device(config.device)
        factory = {"device": device, "dtype": config.dtype}
        self.tok_embeddings = nn.Embedding(config.vocab_size, config.dim, **factory)
        if config.position_encoding == "learned":
            self.pos_embeddings = nn.Embedding(config.max_seq_len, config.dim, **factory)  # row m: the vector of position m
        if config.position_encoding == "sinusoidal":
            table = torch.from_numpy(sinusoidal_encoding(config.max_seq_len, config.dim)).to(**factory)
            self.register_buffer("pos_table", table, persistent=False)  # (max_seq_len, dim), fixed
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
            for linear in (layer.attention.wq, layer.attention.wk, layer.attention.wv, layer.feed_forward.w1, layer.feed_forward.w3):
                linear.weight.normal_(0.0, INIT_STD)
            for linear in (layer.attention.wo, layer.feed_forward.w2):
                linear.weight.normal_(0.0, residual_std)
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

    def _check_tokens(self, tokens, name: str) -> torch.Tensor:
        if not isinstance(tokens, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor of token ids, got {type(tokens).__name__}")
        if tokens.dtype not in (torch.int64, torch.int32):
            raise TypeError(f"{name} must hold token ids as torch.int64 or torch.int32, got {tokens.dtype}")
        if tokens.dim() != 2 or 0 in tokens.shape:
            raise ValueError(f"{name} must have shape (B, T) with B, T ≥ 1, got {tuple(tokens.shape)}")
        if tokens.device != self.device:
            raise ValueError(f"{name} must be on the model's device {self.device}, got {tokens.device}")
        low, high = int(tokens.min()), int(tokens.max())
        if low < 0 or high >= self.config.vocab_size:
            raise ValueError(f"{name} must be token ids in [0, vocab_size={self.config.vocab_size}), got values from {low} to {high}")
        return tokens

    def _check_room(self, batch: int, end: int, what: str) -> None:
        if end > self.config.max_seq_len:
            raise ValueError(f"{what} = {end} is past the cache of max_seq_len={self.config.max_seq_len} positions")
        if batch > self.config.max_batch_size:
            raise ValueError(f"the batch has {batch} sequences, more than max_batch_size={self.config.max_batch_size}")

    def forward(self, tokens: torch.Tensor, start_pos: int = 0, *, use_cache: bool = True) -> torch.Tensor:
        """tokens (B, T) at positions start_pos … start_pos + T − 1 → logits (B, T, vocab_size) in float32
        (float64 for a float64 model).

        use_cache=True: calls come in order, a prefill at 0, then steps at its length (inference).
        use_cache=False: the T tokens attend causally to each other only, no cache is read or written
        (training; start_pos must then be 0).
        """
        tokens = self._check_tokens(tokens, "tokens")
        start_pos = require_non_negative_int(start_pos, "start_pos")
        use_cache = require_bool(use_cache, "use_cache")
        batch, seq = tokens.shape
        if use_cache:
            self._check_room(batch, start_pos + seq, f"start_pos + T = {start_pos} + {seq}")
            self.layers[0].attention.cache.require_in_order(start_pos, batch)  # every layer's cache holds the same
        elif start_pos:
            raise ValueError(f"start_pos must be 0 when use_cache=False (no earlier tokens are read), got {start_pos}")
        elif self.config.position_encoding == "learned" and seq > self.config.max_seq_len:
            raise ValueError(
                f"tokens has T = {seq} positions, but the learned position table has max_seq_len={self.config.max_seq_len} rows: "
                "a learned encoding knows no position past its table"
            )
        return self._logits(self._hidden(tokens, start_pos, use_cache))

    def _hidden(self, tokens: torch.Tensor, start_pos: int, use_cache: bool, blocks=None) -> torch.Tensor:
        """The final normed hidden states (B, T, dim), unchecked. blocks: what runs the layers, the
        `TransformerBlock`s themselves (None) or `generate`'s `_DecodeBlock`s for its one-token steps."""
        h = self._embed(tokens, start_pos)  # (B, T, dim)
        tables = None  # every block rotates by the same angles: one pair of tables per step serves them all
        if self.config.position_encoding == "rope":
            tables = self.layers[0].attention.pair_tables(start_pos, start_pos + tokens.shape[1])
        for layer in self.layers if blocks is None else blocks:
            h = layer(h, start_pos, use_cache, tables)
        return self.norm(h)

    def _embed(self, tokens: torch.Tensor, start_pos: int) -> torch.Tensor:
        """Token embeddings (B, T, dim), plus the absolute position vectors of start_pos … start_pos + T − 1
        for the sinusoidal and learned encodings; unchecked."""
        h = self.tok_embeddings(tokens)  # (B, T, dim)
        end = start_pos + tokens.shape[1]
        if self.config.position_encoding == "learned":
            h = h + self.pos_embeddings.weight[start_pos:end]  # (T, dim), broadcast over B
        elif self.config.position_encoding == "sinusoidal":
            table = self.pos_table
            if end > table.shape[0]:  # a pass longer than the table (use_cache=False): the same formula, further
                table = torch.from_numpy(sinusoidal_encoding(end, self.config.dim)).to(table)
            h = h + table[start_pos:end]  # (T, dim)
        return h

    def _logits(self, h: torch.Tensor) -> torch.Tensor:
        logits = self.output(h)  # (B, T, vocab)
        return logits if logits.dtype == torch.float64 else logits.float()

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
        """
        prompt_tokens = self._check_tokens(prompt_tokens, "prompt_tokens")
        max_new_tokens = require_positive_int(max_new_tokens, "max_new_tokens")
        temperature = require_real(temperature, "temperature")
        if temperature < 0:
            raise ValueError(f"temperature must be 0 (greedy) or greater, got {temperature}")
        if top_k is not None:
            top_k = require_positive_int(top_k, "top_k")
            if top_k > self.config.vocab_size:
                raise ValueError(f"top_k must be at most vocab_size={self.config.vocab_size}, got {top_k}")
        if generator is not None:
            if not isinstance(generator, torch.Generator):
                raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
            if generator.device.type != self.device.type:
                raise ValueError(f"generator must be on the model's device {self.device}, got {generator.device}")
        if temperature == 0 and (top_k is not None or generator is not None):
            raise ValueError("top_k and generator apply to sampling only: pass temperature > 0, or leave them None for greedy decoding")
        if eos_token_id is not None:
            eos_token_id = require_non_negative_int(eos_token_id, "eos_token_id")
            if eos_token_id >= self.config.vocab_size:
                raise ValueError(f"eos_token_id must be a token id below vocab_size={self.config.vocab_size}, got {eos_token_id}")
        batch, prompt_len = prompt_tokens.shape
        self._check_room(batch, prompt_len + max_new_tokens - 1, f"the prompt plus max_new_tokens − 1 = {prompt_len} + {max_new_tokens} − 1")

        with torch.inference_mode():
            tokens = self._decode(prompt_tokens, max_new_tokens, temperature, top_k, generator, eos_token_id)
        return tokens.clone()  # an ordinary tensor: one made in inference mode cannot enter autograd or change in place

    def _decode(self, prompt, max_new_tokens, temperature, top_k, generator, eos_token_id) -> torch.Tensor:
        """The loop of `generate`, on checked arguments."""
        batch = prompt.shape[0]
        out = torch.empty((batch, max_new_tokens), dtype=torch.int64, device=prompt.device)
        done = torch.zeros(batch, dtype=torch.bool, device=prompt.device) if eos_token_id is not None else None
        tokens, start = prompt, 0
        blocks = [_DecodeBlock(layer) for layer in self.layers]
        for step in range(max_new_tokens):
            # the prefill runs the whole prompt through the blocks' own forward, each later step its one token through blocks
            logits = self._logits(self._hidden(tokens, start, True, None if step == 0 else blocks)[:, -1])  # (B, vocab)
            token = self._pick(logits, temperature, top_k, generator)  # (B,)
            if done is not None:
                token = token.masked_fill(done, eos_token_id)
                done = done | (token == eos_token_id)
            out[:, step] = token
            if done is not None and bool(done.all()):
                return out[:, : step + 1]
            start += tokens.shape[1]
            tokens = token[:, None]  # (B, 1)
        return out

    @staticmethod
    def _pick(logits: torch.Tensor, temperature: float, top_k: int | None, generator) -> torch.Tensor:
        """The next token of each sequence from its logits (B, vocab): argmax, or a sample."""
        if temperature == 0:
            return logits.argmax(dim=-1)
        logits = (logits - logits.amax(dim=-1, keepdim=True)) / temperature  # ≤ 0: no overflow, however small the temperature
        if top_k is not None:
            kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]  # (B, 1): the k-th largest
            logits = logits.masked_fill(logits < kth, float("-inf"))
        probs = torch.softmax(logits, dim=-1)
        return torch.multinomial(probs, 1, generator=generator)[:, 0]

    @classmethod
    def from_hf_state_dict(
        cls,
        state_dict: Mapping[str, torch.Tensor],
        hf_config,
        *,
        layout: str = "half",
        max_seq_len: int | None = None,
        max_batch_size: int = 1,
        device=None,
    ) -> "Model":
        """A model holding the weights of a Hugging Face `LlamaForCausalLM` (its `state_dict()`), whose config
        (a `LlamaConfig` or its `to_dict()`) is read by `config_from_hf`. The weights keep their dtype.

        layout="half" runs Hugging Face's pairing with its weights as they are; layout="interleaved" runs
        Meta's pairing, with the rows of W_q and W_k reordered head by head (`permute_rows_to_interleaved`)
        so that the model computes the same numbers.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"state_dict must be a mapping of names to tensors (a model's state_dict()), got {type(state_dict).__name__}")
        dtypes = {t.dtype for t in state_dict.values() if isinstance(t, torch.Tensor)}
        if len(dtypes) != 1:
            raise TypeError(f"state_dict must hold tensors of one floating dtype, got {sorted(map(str, dtypes))}")
        config = config_from_hf(
            hf_config, layout=layout, max_seq_len=max_seq_len, max_batch_size=max_batch_size, dtype=dtypes.pop(), device=device
        )
        model = cls(config)
        model.load_state_dict(meta_state_dict(state_dict, config), strict=True)
        return model


class _DecodeBlock:
    """One `TransformerBlock` for `Model.generate`'s steps of one token a sequence: its weights gathered
    once per call, W_q, W_k and W_v stacked into one matrix and W1, W3 into another. The stacks are
    copies, made per `generate` call, so the attention and MLP weights are held twice while it runs;
    in return each step makes 5 matrix products a block instead of 7 and turns q and k in one call.
    The arithmetic is the block's: `rms_norm`, `Attention._attend`, `swiglu`, the cache's write."""

    def __init__(self, layer: TransformerBlock):
        a, f = layer.attention, layer.feed_forward
        self.attention, self.cache = a, a.cache
        self.norm_1, self.norm_2, self.eps = layer.attention_norm.weight, layer.ffn_norm.weight, layer.attention_norm.eps
        self.w_qkv = torch.cat([a.wq.weight, a.wk.weight, a.wv.weight])  # (H·D + 2·Hkv·D, dim)
        self.w_13 = torch.cat([f.w1.weight, f.w3.weight])  # (2·hidden_dim, dim)
        self.wo, self.w2, self.hidden = a.wo.weight, f.w2.weight, f.w1.weight.shape[0]
        self.heads, self.turned = a.n_heads, a.n_heads + a.n_kv_heads  # q's heads, then k's: the heads that turn

    def __call__(self, x: torch.Tensor, start_pos: int, use_cache: bool, tables) -> torch.Tensor:
        """x (B, 1, dim) at start_pos → (B, 1, dim), as `TransformerBlock.forward` (use_cache is always True
        in a decoding step); tables: the step's `Attention.pair_tables` or None."""
        a = self.attention
        qkv = F.linear(rms_norm(x, self.norm_1, self.eps), self.w_qkv).view(x.shape[0], 1, -1, a.head_dim)  # (B, 1, H + 2·Hkv, D)
        qk, v = qkv[:, :, : self.turned], qkv[:, :, self.turned :]
        if tables is not None:
            qk = _rotate_pairs(qk, *tables, a.layout, a.rotary_dim)
        keys, values = self.cache._write(start_pos, qk[:, :, self.heads :], v)  # (B, start_pos + 1, Hkv, D)
        h = x + F.linear(a._attend(qk[:, :, : self.heads], keys, values, start_pos), self.wo)
        gate_up = F.linear(rms_norm(h, self.norm_2, self.eps), self.w_13)  # (B, 1, 2·hidden_dim)
        return h + swiglu(gate_up[..., : self.hidden], gate_up[..., self.hidden :], self.w2)


_HF_NAMES = {
    "attention.wq": ("self_attn.q_proj", lambda c: (c.n_heads * c.head_dim, c.dim)),
    "attention.wk": ("self_attn.k_proj", lambda c: (c.kv_heads * c.head_dim, c.dim)),
    "attention.wv": ("self_attn.v_proj", lambda c: (c.kv_heads * c.head_dim, c.dim)),
    "attention.wo": ("self_attn.o_proj", lambda c: (c.dim, c.n_heads * c.head_dim)),
    "feed_forward.w1": ("mlp.gate_proj", lambda c: (c.hidden_dim, c.dim)),
    "feed_forward.w2": ("mlp.down_proj", lambda c: (c.dim, c.hidden_dim)),
    "feed_forward.w3": ("mlp.up_proj", lambda c: (c.hidden_dim, c.dim)),
    "attention_norm": ("input_layernorm", lambda c: (c.dim,)),
    "ffn_norm": ("post_attention_layernorm", lambda c: (c.dim,)),
}
"""Each block's weight by Meta's name → Hugging Face's name (both followed by ".weight") and the shape a
`ModelConfig` gives it."""


def meta_state_dict(hf_state_dict: Mapping[str, torch.Tensor], config: ModelConfig) -> dict[str, torch.Tensor]:
    """Hugging Face's `LlamaForCausalLM` weights under the names of `Model`, W_q and W_k rows permuted for
    the interleaved layout. Every weight the model needs must be there, of the shape the config gives it,
    and no other."""
    want = {"tok_embeddings.weight": "model.embed_tokens.weight", "norm.weight": "model.norm.weight"}
    shapes = {"model.embed_tokens.weight": (config.vocab_size, config.dim), "model.norm.weight": (config.dim,),
              "lm_head.weight": (config.vocab_size, config.dim)}
    if not config.tie_embeddings:
        want["output.weight"] = "lm_head.weight"
    for i in range(config.n_layers):
        for ours, (theirs, shape) in _HF_NAMES.items():
            want[f"layers.{i}.{ours}.weight"] = f"model.layers.{i}.{theirs}.weight"
            shapes[f"model.layers.{i}.{theirs}.weight"] = shape(config)
    given = set(hf_state_dict)
    optional = {"lm_head.weight"} if config.tie_embeddings else set()  # a tied head may be saved twice
    missing, extra = sorted(set(want.values()) - given), sorted(given - set(want.values()) - optional)
    if missing or extra:
        raise ValueError(f"state_dict does not fit the config: missing {missing[:4]}{' …' if len(missing) > 4 else ''}, unexpected {extra[:4]}{' …' if len(extra) > 4 else ''}")
    for name in sorted(given):
        tensor = hf_state_dict[name]
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"state_dict[{name!r}] must be a torch.Tensor, got {type(tensor).__name__}")
        if tuple(tensor.shape) != shapes[name]:
            raise ValueError(f"state_dict does not fit the config: {name} has shape {tuple(tensor.shape)}, the config needs {shapes[name]}")
    out = {ours: hf_state_dict[theirs] for ours, theirs in want.items()}
    if config.tie_embeddings:
        out["output.weight"] = out["tok_embeddings.weight"]  # one matrix under both names, as the model holds it
    if config.layout == "interleaved":
        for i in range(config.n_layers):
            for name, heads in (("wq", config.n_heads), ("wk", config.kv_heads)):
                key = f"layers.{i}.attention.{name}.weight"
                out[key] = permute_rows_to_interleaved(out[key], heads)
    return out


def _read(hf_config, key: str, default=...):
    """One setting of a Hugging Face config, an object or a dict (its `to_dict()`)."""
    value = hf_config.get(key, default) if isinstance(hf_config, Mapping) else getattr(hf_config, key, default)
    if value is ...:
        raise ValueError(f"hf_config has no {key!r}, which a LLaMA config sets")
    return value


HF_ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional")
"""The values of Hugging Face's `rope_type` that `scaling_from_hf` reads: plain RoPE and each `RopeScaling` method."""


def scaling_from_hf(rope_parameters: Mapping, max_position_embeddings: int) -> RopeScaling | None:
    """Hugging Face's RoPE settings (`rope_parameters`, or the `rope_scaling` of older configs) as a
    `RopeScaling`; None for rope_type "default". Keys that rope_lib does not model are refused, and so are
    settings that are not numbers (True is not 1.0, nor "2" 2.0), each by its key."""
    if not isinstance(rope_parameters, Mapping):
        raise TypeError(f"rope_parameters must be a dict, got {type(rope_parameters).__name__}")
    params = dict(rope_parameters)
    kind = params.pop("rope_type", params.pop("type", "default"))
    if kind not in HF_ROPE_TYPES:
        raise ValueError(f"rope_parameters['rope_type'] must be one of {HF_ROPE_TYPES}, got {kind!r}")
    params.pop("rope_theta", None)

    def number(key: str, default=...):
        """The setting `key` as a float; `default` when it is absent (or None), and an error naming it without one."""
        value = params.pop(key, None)
        if value is None:
            if default is ...:
                raise ValueError(f"rope_parameters of rope_type {kind!r} needs {key!r}")
            return default
        return require_real(value, f"rope_parameters[{key!r}]")

    def factors(key: str) -> tuple[float, ...]:
        value = params.pop(key, None)
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"rope_parameters[{key!r}] must be a list of numbers, one per pair, got {value!r:.60}")
        return tuple(require_real(v, f"rope_parameters[{key!r}][{i}]") for i, v in enumerate(value))

    if kind == "proportional":  # its partial_rotary_factor is the share of pairs that turn, over the whole head
        proportion = number("partial_rotary_factor", 1.0)
        rule = RopeScaling("proportional", number("factor", 1.0), proportion=proportion)
    else:
        if number("partial_rotary_factor", 1.0) != 1.0:
            raise ValueError("rope_parameters sets partial_rotary_factor, which rope_lib.Model does not support")
        rule = None if kind == "default" else _scaling_rule(kind, params, number, factors, max_position_embeddings)
    params.pop("original_max_position_embeddings", None)
    if params:
        raise ValueError(f"rope_parameters of rope_type {kind!r} has keys rope_lib does not model: {sorted(params)}")
    return rule


def _scaling_rule(kind: str, params: dict, number, factors, max_position_embeddings: int) -> RopeScaling:
    """The `RopeScaling` of one context-extension type of `scaling_from_hf`, its settings read by `number` and
    `factors` (which take them out of `params`)."""
    if kind in ("linear", "dynamic"):
        return RopeScaling(kind, number("factor"), original_max_len=max_position_embeddings if kind == "dynamic" else None)
    original = params.pop("original_max_position_embeddings", None)
    if original is None and kind == "longrope":
        raise ValueError("rope_parameters of rope_type 'longrope' needs 'original_max_position_embeddings', the trained length")
    original = require_positive_int(max_position_embeddings if original is None else original, "rope_parameters['original_max_position_embeddings']")
    if kind == "llama3":
        return RopeScaling(
            "llama3", number("factor"), original_max_len=original,
            low_freq_factor=number("low_freq_factor"), high_freq_factor=number("high_freq_factor"),
        )
    factor = number("factor", max_position_embeddings / original)  # Hugging Face's default: the lengths' ratio
    if kind == "longrope":
        return RopeScaling(
            "longrope", max(factor, 1.0), original_max_len=original, short_factor=factors("short_factor"),
            long_factor=factors("long_factor"), attention_factor_override=number("attention_factor", None),
        )
    mscale, mscale_all_dim = number("mscale", None), number("mscale_all_dim", None)
    both = bool(mscale and mscale_all_dim)  # Hugging Face ignores a lone one
    return RopeScaling(
        "yarn", factor, original_max_len=original, beta_fast=number("beta_fast", None) or 32.0,
        beta_slow=number("beta_slow", None) or 1.0, truncate=require_bool(params.pop("truncate", True), "rope_parameters['truncate']"),
        attention_factor_override=number("attention_factor", None),
        mscale=mscale if both else None, mscale_all_dim=mscale_all_dim if both else None,
    )


def config_from_hf(hf_config, *, layout: str = "half", max_seq_len: int | None = None, max_batch_size: int = 1, dtype=torch.float32, device=None) -> ModelConfig:
    """A `ModelConfig` from a Hugging Face `LlamaConfig` (read by attribute, nothing imported) or its dict.

    max_seq_len=None: the config's max_position_embeddings. Settings `Model` cannot honour (biases,
    an activation other than SiLU, a head_dim other than hidden_size / num_attention_heads) are refused,
    and so is a setting of the wrong kind, by its key.
    """
    sizes = {key: require_positive_int(_read(hf_config, key), f"hf_config's {key}") for key in _HF_SIZES}
    optional = {key: _read(hf_config, key, None) for key in ("head_dim", "num_key_value_heads")}
    optional = {key: None if value is None else require_positive_int(value, f"hf_config's {key}") for key, value in optional.items()}
    hidden, heads = sizes["hidden_size"], sizes["num_attention_heads"]
    if optional["head_dim"] is not None and optional["head_dim"] * heads != hidden:
        raise ValueError(f"hf_config has head_dim={optional['head_dim']}, not hidden_size / num_attention_heads = {hidden} / {heads}")
    for key, wanted in (("hidden_act", "silu"), ("attention_bias", False), ("mlp_bias", False)):
        if _read(hf_config, key, wanted) != wanted:
            raise ValueError(f"hf_config has {key}={_read(hf_config, key)!r}; rope_lib.Model supports {wanted!r} only")
    positions = sizes["max_position_embeddings"]
    rope = _read(hf_config, "rope_parameters", None)
    if rope is None:  # configs before transformers 5: rope_theta beside rope_scaling
        rope = {"rope_theta": _read(hf_config, "rope_theta", DEFAULT_BASE), **(_read(hf_config, "rope_scaling", None) or {})}
    trained = _read(hf_config, "original_max_position_embeddings", None)  # Phi-3 sets it beside rope_scaling
    if isinstance(rope, Mapping) and trained is not None and "original_max_position_embeddings" not in rope:
        rope = {**rope, "original_max_position_embeddings": trained}
    scaling = scaling_from_hf(rope, positions)  # first: it checks that rope is a dict
    return ModelConfig(
        vocab_size=sizes["vocab_size"],
        dim=hidden,
        n_layers=sizes["num_hidden_layers"],
        n_heads=heads,
        n_kv_heads=optional["num_key_value_heads"],
        hidden_dim=sizes["intermediate_size"],
        norm_eps=require_positive_real(_read(hf_config, "rms_norm_eps"), "hf_config's rms_norm_eps"),
        max_seq_len=positions if max_seq_len is None else max_seq_len,
        max_batch_size=max_batch_size,
        base=require_base(rope.get("rope_theta", DEFAULT_BASE), "rope_parameters['rope_theta']"),
        layout=layout,
        scaling=scaling,
        tie_embeddings=require_bool(_read(hf_config, "tie_word_embeddings", False), "hf_config's tie_word_embeddings"),
        dtype=dtype,
        device=device,
    )


_HF_SIZES = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "max_position_embeddings")
"""The sizes every LLaMA config sets, each a positive integer."""
