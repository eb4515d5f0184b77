"""Hugging Face's Llama weights and configs, read onto `rope_lib.llama.Model` (chapter "The LLaMA implementation").

`from_hf_state_dict` builds a model from a `LlamaForCausalLM`'s state dict and config; `config_from_hf` reads
the config (by attribute or as its dict, nothing imported from transformers), `scaling_from_hf` its RoPE
settings, and `meta_state_dict` renames the weights to Meta's names, permuting the rows of W_q and W_k for the
interleaved layout. Whatever rope_lib cannot honour is refused by its key, never dropped or coerced.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch

from ._validate import require_base, require_bool, require_positive_int, require_positive_real, require_real
from .frequencies import DEFAULT_BASE
from .layouts import permute_rows_to_interleaved
from .llama import Model, ModelConfig
from .scaling import RopeScaling

CACHE_POSITIONS = 4096
"""How many positions the KV cache holds when max_seq_len is not given: max_position_embeddings if that is fewer.
A Llama 3.1 config says 131,072, which in bf16 would be 16 GiB of cache for the 8B model, allocated at once."""


def from_hf_state_dict(
    state_dict: Mapping[str, torch.Tensor],
    hf_config: Any,
    *,
    layout: str,
    max_seq_len: int | None = None,
    max_batch_size: int = 1,
    device: torch.device | str | None = None,
) -> Model:
    """A model holding the weights of a Hugging Face `LlamaForCausalLM` (its `state_dict()`), whose config
    (a `LlamaConfig` or its `to_dict()`) is read by `config_from_hf`. The weights keep their dtype.

    layout, which has no default: "half" runs Hugging Face's pairing with its weights as they are; "interleaved" runs
    Meta's pairing, with the rows of W_q and W_k reordered head by head (`permute_rows_to_interleaved`)
    so that the model computes the same numbers. max_seq_len: the positions the KV cache holds
    (None: `CACHE_POSITIONS`, or max_position_embeddings if fewer); pass more to decode further.
    """
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"state_dict must be a mapping of names to tensors (a model's state_dict()), got {type(state_dict).__name__}")
    dtypes = {t.dtype for t in state_dict.values() if isinstance(t, torch.Tensor)}
    if len(dtypes) != 1:
        raise TypeError(f"state_dict must hold tensors of one floating dtype, got {sorted(map(str, dtypes))}")
    config = config_from_hf(
        hf_config, layout=layout, max_seq_len=max_seq_len, max_batch_size=max_batch_size, dtype=dtypes.pop(), device=device
    )
    model = Model(config)
    model.load_state_dict(meta_state_dict(state_dict, config), strict=True)
    return model


_HF_NAMES = {
    "attention.wq": ("self_attn.q_proj", lambda c: (c.n_heads * c.head_dim, c.dim)),
    "attention.wk": ("self_attn.k_proj", lambda c: (c.n_kv_heads * c.head_dim, c.dim)),
    "attention.wv": ("self_attn.v_proj", lambda c: (c.n_kv_heads * c.head_dim, c.dim)),
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
            for name, heads in (("wq", config.n_heads), ("wk", config.n_kv_heads)):
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


def config_from_hf(
    hf_config: Any,
    *,
    layout: str,
    max_seq_len: int | None = None,
    max_batch_size: int = 1,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> ModelConfig:
    """A `ModelConfig` from a Hugging Face `LlamaConfig` (read by attribute, nothing imported) or its dict.

    layout: as `from_hf_state_dict`'s. max_seq_len=None: `CACHE_POSITIONS`, or the config's max_position_embeddings
    if that is fewer. Settings `Model` cannot honour (biases, an activation other than SiLU, a head_dim other than
    hidden_size / num_attention_heads) are refused, and so is a setting of the wrong kind, by its key.
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
        max_seq_len=min(positions, CACHE_POSITIONS) if max_seq_len is None else max_seq_len,
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
