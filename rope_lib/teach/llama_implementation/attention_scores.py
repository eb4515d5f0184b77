"""The pre-softmax scores of one attention block, its tokens placed at any positions (chapter "The implementation in
LLaMA"): a block's queries and keys rotated to the positions given, so that a chapter can see that the scores depend on
the offsets only. "Longer contexts" uses it again, and "RoPE in a trained model" builds its attention maps on it.
"""

from __future__ import annotations

import torch

from ..._validate import checked_by, compute_dtype, refuse, require_token_positions
from ...llama import Model
from ...relative_bias import alibi_bias


def require_model(model) -> None:
    """The check every helper that takes a trained or built model makes: it must be a rope_lib.Model."""
    if not isinstance(model, Model):
        refuse("model", "be a rope_lib.Model", type(model).__name__, TypeError)


def _layer_scores_arguments(a) -> None:
    model, layer, x = a["model"], a["layer"], a["x"]
    require_model(model)
    if not isinstance(layer, int) or not 0 <= layer < model.config.n_layers:
        raise ValueError(f"layer must be a layer index in [0, n_layers={model.config.n_layers}), got {layer!r}")
    if not isinstance(x, torch.Tensor) or x.dim() != 3 or x.shape[-1] != model.config.dim:
        raise ValueError(f"x must be a tensor of shape (B, T, dim={model.config.dim}), got {getattr(x, 'shape', type(x).__name__)}")
    if x.dtype != model.config.dtype or x.device != model.device:
        raise TypeError(f"x must have the model's dtype {model.config.dtype} on {model.device}, got {x.dtype} on {x.device}")
    positions = require_token_positions(a["positions"], *x.shape[:2], device=None)  # any device: moved to x's
    if positions.numel() and int(positions.min()) < 0:
        raise ValueError(f"positions must be non-negative, got {int(positions.min())}")


@checked_by(_layer_scores_arguments)
def layer_scores(model: Model, layer: int, x: torch.Tensor, positions) -> torch.Tensor:
    """Pre-softmax scores q_m·k_n/√D (B, H, T, T) of block `layer` of `model` for its attention's input x (B, T, dim)
    placed at `positions` ((T,) or (B, T) integers; a range or a list is taken too), ALiBi's bias included when it
    is the encoding. No cache and no mask: the quantity the relative-position property is about. A rule whose
    frequencies depend on the length (dynamic NTK) takes them for the length max(positions) + 1."""
    attention = model.layers[layer].attention
    positions = torch.as_tensor(positions, device=x.device)
    qk, _ = attention.project(x)  # (B, T, H + Hkv, D)
    if model.rope is not None:
        cos, sin = model.rope(positions, seq_len=int(positions.max()) + 1)
        qk = attention.rotate(qk, cos, sin)
    q, k = qk.split([attention.n_heads, attention.n_kv_heads], dim=2)
    k = k.repeat_interleave(attention.n_heads // attention.n_kv_heads, dim=2)  # (B, T, H, D)
    want = compute_dtype(q.dtype)
    scores = torch.einsum("bthd,bshd->bhts", q.to(want), k.to(want)) / attention.head_dim**0.5  # (B, H, T, T)
    if model.config.position_encoding == "alibi":
        rows = positions.expand(x.shape[0], -1)  # (B, T)
        scores = scores + torch.stack([alibi_bias(p, p, attention.n_heads, dtype=scores.dtype) for p in rows])
    return scores
