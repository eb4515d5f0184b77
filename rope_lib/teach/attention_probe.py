"""What a trained model attends to: every layer's and head's softmax weights, and a score that finds a head
attending by a fixed relative offset (chapter "RoPE in a trained model").

The weights are computed from the model's own modules: the input of each attention block is the output of its
`attention_norm` (caught with a forward hook during one ordinary pass), and `layer_scores` turns it into
q_m·k_n/√D at positions 0 … T − 1 (ALiBi's bias included); the causal mask and a softmax over the keys give the
weights a_(t,n) the block used. `layer_scores` places the tokens at any positions: chapters "Longer contexts"
and "The LLaMA implementation" use it to see that the scores depend on the offsets only.

A head attends by offset o when, query after query, its weight sits on the key o positions back: the mean of
a_(t, t−o) over the queries t is near 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .._validate import (
    arguments,
    checked_by,
    compute_dtype,
    optional,
    refuse,
    require_non_negative_int,
    require_positive_int,
    require_token_positions,
)
from ..llama import Model, causal_mask
from ..relative_bias import alibi_bias
from .training import require_model

OFFSET_HEAD_THRESHOLD = 0.5
"""A head counts as attending by offset o when, on average over its queries, at least half of its weight goes to
the one key o positions back: more than to all the others together."""


def attention_weights(model: Model, tokens: torch.Tensor) -> torch.Tensor:
    """The softmax weights of every layer and head for a batch of tokens (B, T) at positions 0 … T − 1:
    (n_layers, B, H, T, T), float32 or better, on the CPU; row t of each map sums to 1 over keys 0 … t."""
    require_model(model)
    inputs = []
    hooks = [layer.attention_norm.register_forward_hook(lambda _module, _args, out: inputs.append(out)) for layer in model.layers]
    try:
        with torch.no_grad():
            model(tokens, use_cache=False)  # checks the tokens; the hooks keep each block's input
            seq = tokens.shape[1]
            positions = torch.arange(seq, device=model.device)
            mask = causal_mask(seq, 0, device=model.device)  # (T, T)
            maps = [torch.softmax(layer_scores(model, i, x, positions) + mask, dim=-1) for i, x in enumerate(inputs)]
    finally:
        for hook in hooks:
            hook.remove()
    return torch.stack(maps).cpu()  # (n_layers, B, H, T, T)


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


def _offset_scores_arguments(a) -> None:
    weights = a["weights"].numpy() if isinstance(a["weights"], torch.Tensor) else np.asarray(a["weights"], dtype=np.float64)
    if weights.ndim != 5 or weights.shape[-1] != weights.shape[-2]:
        refuse("weights", "have shape (n_layers, B, H, T, T)", weights.shape)
    arguments(first_query=require_non_negative_int, max_offset=optional(require_positive_int))(a)
    for name in ("max_offset", "first_query"):  # the default max_offset, T // 2, is below T
        if a[name] is not None and a[name] > weights.shape[-1] - 1:
            refuse(name, f"be at most T − 1 = {weights.shape[-1] - 1}", a[name])


@checked_by(_offset_scores_arguments)
def offset_scores(
    weights, *, max_offset: int | None = None, first_query: int = 0
) -> np.ndarray:
    """s_(l,h)(o), the mean weight a_(t, t−o) of layer l's head h over the
    batch and the queries t ≥ max(o, first_query), for o = 1 … max_offset:
    shape (n_layers, H, max_offset); entry [l, h, o − 1] is offset o.

    max_offset defaults to T // 2, so that every score averages over at
    least half the queries: at offset T − 1 only the last query has a key,
    and a head that looks at the first token (as many do) would score 1
    there.
    """
    seq = weights.shape[-1]
    max_offset = seq // 2 if max_offset is None else max_offset
    scores = np.empty(
        weights.shape[:1] + weights.shape[2:3] + (max_offset,)
    )
    for o in range(1, max_offset + 1):
        # every query with a key o back
        queries = np.arange(max(o, first_query), seq)
        scores[:, :, o - 1] = (
            weights[:, :, :, queries, queries - o].mean(axis=(1, 3))
            if queries.size
            else 0.0
        )
    return scores


@dataclass(frozen=True)
class OffsetHead:
    """The head whose weight sits most on one relative offset: layer, head, offset o and its score s_(l,h)(o)."""

    layer: int
    head: int
    offset: int
    score: float

    @property
    def attends_by_offset(self) -> bool:
        """True when the score reaches OFFSET_HEAD_THRESHOLD."""
        return self.score >= OFFSET_HEAD_THRESHOLD


def best_offset_head(weights, *, max_offset: int | None = None, first_query: int = 0) -> OffsetHead:
    """The (layer, head, offset) with the highest `offset_scores`."""
    scores = offset_scores(weights, max_offset=max_offset, first_query=first_query)
    layer, head, o = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return OffsetHead(int(layer), int(head), int(o) + 1, float(scores[layer, head, o]))
