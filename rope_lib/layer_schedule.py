"""Which layers rotate, and the temperature of those that do not (chapter "RoPE in today's models").

Llama 4 and SmolLM3 leave RoPE out of every n-th layer (NoPE layers: no position encoding at all, only the causal
mask tells the order). Llama 4 also multiplies the queries of those layers by a temperature that grows with the
log of the position, so that their attention stays sharp over very long contexts.
"""

from __future__ import annotations

import numpy as np
import torch

from ._validate import arguments, checked_by, optional, refuse, require_positions, require_positive_int, require_positive_real


@checked_by(arguments(n_layers=require_positive_int, nope_layer_interval=optional(require_positive_int)))
def rope_layers(
    n_layers: int, nope_layer_interval: int | None = None
) -> tuple[bool, ...]:
    """One flag per layer, True where the layer rotates: layer l (from 0)
    is a NoPE layer when (l + 1) is a multiple of the interval, as in
    Llama 4's `nope_layer_interval` (llama-models) and Hugging Face's
    `no_rope_layer_interval` (Llama 4, SmolLM3); no interval: every layer
    rotates."""
    if nope_layer_interval is None:
        return (True,) * n_layers
    return tuple(
        (layer + 1) % nope_layer_interval != 0 for layer in range(n_layers)
    )


def attention_temperature_arguments(a) -> None:
    positions = require_positions(a["positions"])
    if positions.ndim != 1:
        refuse("positions", "have shape (T,)", tuple(positions.shape))
    if (positions < 0).any():
        refuse("positions", "be non-negative token indices", f"min {int(positions.min())}")


@checked_by(attention_temperature_arguments, arguments(floor_scale=require_positive_real, attn_scale=require_positive_real))
def attention_temperature(
    positions, floor_scale: float = 8192.0, attn_scale: float = 0.1
) -> np.ndarray:
    """τ(m) = 1 + attn_scale · ln(⌊(m + 1) / floor_scale⌋ + 1), shape (T,):
    Llama 4's factor on the queries of its NoPE layers
    (`attn_temperature_tuning`). It is exactly 1 for the first
    floor_scale − 1 positions, so short contexts are untouched, and grows
    like ln m beyond (a stepped form of Nakanishi's scalable softmax,
    2025)."""
    positions = torch.as_tensor(positions)  # a range or a list too
    steps = np.floor(
        (positions.numpy().astype(np.float64) + 1.0) / floor_scale
    )
    return 1.0 + attn_scale * np.log(steps + 1.0)
