"""The checks of the decoder's edges (`rope_lib.llama`): a `ModelConfig` when it is made, and each call of
`Model.forward` and `Model.generate`. A model is read through its `config`
and its first layer's cache (every layer's holds the same positions); nothing here imports the model.
"""

from __future__ import annotations

import torch

from ._validate import (
    require_base,
    require_bool,
    require_device,
    require_even_dim,
    require_float_dtype,
    require_layout,
    require_non_negative_int,
    require_ntk_dim,
    require_positive_int,
    require_positive_real,
    require_real,
    require_rotary_dim,
)
from .scaling import RopeScaling


def model_config(config, position_encodings: tuple[str, ...], default_base: float) -> None:
    """Every field of a `ModelConfig`; RoPE's settings at their defaults unless the encoding is RoPE."""
    for name in ("vocab_size", "dim", "n_layers", "n_heads", "hidden_dim", "max_seq_len", "max_batch_size"):
        require_positive_int(getattr(config, name), name)
    n_kv_heads = config.n_heads if config.n_kv_heads is None else require_positive_int(config.n_kv_heads, "n_kv_heads")
    if config.dim % config.n_heads:
        raise ValueError(f"dim={config.dim} must be divisible by n_heads={config.n_heads}")
    if config.n_heads % n_kv_heads:
        raise ValueError(f"n_heads={config.n_heads} must be a multiple of n_kv_heads={n_kv_heads}")
    head_dim = require_even_dim(config.dim // config.n_heads, "head_dim (dim / n_heads)")
    rotary_dim = require_rotary_dim(config.rotary_dim, head_dim)
    require_positive_real(config.norm_eps, "norm_eps")
    require_base(config.base)
    require_layout(config.layout)
    if config.scaling is not None and not isinstance(config.scaling, RopeScaling):
        raise TypeError(f"scaling must be a rope_lib.RopeScaling or None, got {type(config.scaling).__name__}")
    if config.scaling is not None and config.scaling.method in ("ntk", "dynamic"):
        require_ntk_dim(rotary_dim, f"the rotary dimension of scaling method {config.scaling.method!r}")
    require_bool(config.tie_embeddings, "tie_embeddings")
    require_float_dtype(config.dtype)
    if config.device is not None:
        require_device(config.device)
    if not isinstance(config.position_encoding, str) or config.position_encoding not in position_encodings:
        raise ValueError(f"position_encoding must be one of {position_encodings}, got {config.position_encoding!r}")
    rope_settings = (config.base, config.layout, config.scaling, config.rotary_dim)
    if config.position_encoding != "rope" and rope_settings != (default_base, "interleaved", None, None):
        raise ValueError(
            f"base, layout, scaling and rotary_dim are RoPE's settings; position_encoding={config.position_encoding!r} "
            f"does not rotate, so leave them at their defaults, got base={config.base}, layout={config.layout!r}, "
            f"scaling={config.scaling}, rotary_dim={config.rotary_dim}"
        )


def require_tokens(model, tokens, name: str) -> None:
    """Token ids (B, T), B, T ≥ 1, int64 or int32, on the model's device, below its vocab_size."""
    if not isinstance(tokens, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of token ids, got {type(tokens).__name__}")
    if tokens.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"{name} must hold token ids as torch.int64 or torch.int32, got {tokens.dtype}")
    if tokens.dim() != 2 or 0 in tokens.shape:
        raise ValueError(f"{name} must have shape (B, T) with B, T ≥ 1, got {tuple(tokens.shape)}")
    if tokens.device != model.device:
        raise ValueError(f"{name} must be on the model's device {model.device}, got {tokens.device}")
    low, high = int(tokens.min()), int(tokens.max())
    if low < 0 or high >= model.config.vocab_size:
        raise ValueError(f"{name} must be token ids in [0, vocab_size={model.config.vocab_size}), got values from {low} to {high}")


def require_room(model, batch: int, start_pos: int, seq: int) -> None:
    """A write of `batch` sequences of `seq` positions at start_pos fits the caches and continues what they hold:
    at 0, any batch (new sequences); else at most at their length (no gap), with the same batch (no row without
    its past)."""
    config, cache = model.config, model.layers[0].attention.cache  # every layer's cache holds the same
    end = start_pos + seq
    if end > config.max_seq_len:
        raise ValueError(f"start_pos + T = {start_pos} + {seq} = {end} is past the cache of max_seq_len={config.max_seq_len} positions")
    if batch > config.max_batch_size:
        raise ValueError(f"the batch has {batch} sequences, more than max_batch_size={config.max_batch_size}")
    if start_pos == 0:
        return
    if cache.length == 0:
        raise ValueError(f"start_pos={start_pos}, but the cache is empty (new, or reset): a sequence starts at start_pos=0")
    if start_pos > cache.length:
        raise ValueError(
            f"start_pos={start_pos} would leave a gap: the cache holds positions 0 … {cache.length - 1}, so the next "
            f"write starts at {cache.length} or before"
        )
    if batch != cache.batch:
        raise ValueError(
            f"the write has {batch} sequences, the cache holds {cache.batch}: another batch starts at start_pos=0 "
            "(its rows would attend to keys of other sequences, or to none)"
        )


def forward_arguments(a) -> None:
    model, tokens = a["self"], a["tokens"]
    require_tokens(model, tokens, "tokens")
    start_pos = require_non_negative_int(a["start_pos"], "start_pos")
    require_bool(a["use_cache"], "use_cache")
    batch, seq = tokens.shape
    if a["use_cache"]:
        require_room(model, batch, start_pos, seq)
    elif start_pos:
        raise ValueError(f"start_pos must be 0 when use_cache=False (no earlier tokens are read), got {start_pos}")
    elif model.config.position_encoding == "learned" and seq > model.config.max_seq_len:
        raise ValueError(
            f"tokens has T = {seq} positions, but the learned position table has max_seq_len={model.config.max_seq_len} rows: "
            "a learned encoding knows no position past its table"
        )


def generate_arguments(a) -> None:
    model, prompt, config = a["self"], a["prompt_tokens"], a["self"].config
    require_tokens(model, prompt, "prompt_tokens")
    new_tokens = require_positive_int(a["max_new_tokens"], "max_new_tokens")
    temperature, top_k, generator, eos = a["temperature"], a["top_k"], a["generator"], a["eos_token_id"]
    if require_real(temperature, "temperature") < 0:
        raise ValueError(f"temperature must be 0 (greedy) or greater, got {temperature}")
    if top_k is not None and require_positive_int(top_k, "top_k") > config.vocab_size:
        raise ValueError(f"top_k must be at most vocab_size={config.vocab_size}, got {top_k}")
    if generator is not None:
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
        if generator.device.type != model.device.type:
            raise ValueError(f"generator must be on the model's device {model.device}, got {generator.device}")
    if temperature == 0 and (top_k is not None or generator is not None):
        raise ValueError("top_k and generator apply to sampling only: pass temperature > 0, or leave them None for greedy decoding")
    if eos is not None and require_non_negative_int(eos, "eos_token_id") >= config.vocab_size:
        raise ValueError(f"eos_token_id must be a token id below vocab_size={config.vocab_size}, got {eos}")
    if require_bool(a["compile"], "compile") and config.position_encoding == "alibi":
        raise ValueError("compile=True needs a step whose shapes never change, and ALiBi's bias grows with every step; use compile=False")
    if a["compile"] and config.scaling is not None and config.scaling.is_dynamic:
        raise ValueError(f"compile=True needs a step whose shapes never change, and scaling method {config.scaling.method!r} "
                         "takes new frequencies as the sequence grows; use compile=False")
    batch, prompt_len = prompt.shape
    end = prompt_len + new_tokens - 1
    if end > config.max_seq_len:
        raise ValueError(
            f"the prompt plus max_new_tokens − 1 = {prompt_len} + {new_tokens} − 1 = {end} is past the cache of "
            f"max_seq_len={config.max_seq_len} positions"
        )
    if batch > config.max_batch_size:
        raise ValueError(f"the batch has {batch} sequences, more than max_batch_size={config.max_batch_size}")
