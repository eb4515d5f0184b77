"""The two pairing conventions and the permutation that links them.

Meta's LLaMA code pairs adjacent coordinates (2i, 2i+1) ("interleaved"); Hugging
Face pairs coordinate i with i + D/2 ("half"). Reordering the last axis by
`half_order` turns an interleaved vector into the half layout; reordering the
rows of W_q and W_k the same way, head by head, makes a model written for one
convention compute identical scores under the other (chapter "The LLaMA
implementation").
"""

from __future__ import annotations

import numpy as np
import torch

from ._validate import require_even_dim, require_positive_int


def half_order(d: int) -> np.ndarray:
    """Indices that reorder an interleaved vector into the half layout: [0, 2, …, d−2, 1, 3, …, d−1]."""
    require_even_dim(d, "d")
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def interleaved_order(d: int) -> np.ndarray:
    """The inverse of `half_order`: reorders a half-layout vector back to interleaved."""
    return np.argsort(half_order(d))


def _reorder_last(x: torch.Tensor, order: np.ndarray) -> torch.Tensor:
    return x[..., torch.as_tensor(order, device=x.device)]


def interleaved_to_half(x: torch.Tensor) -> torch.Tensor:
    """Activations (..., D): pair (2i, 2i+1) moves to (i, i + D/2)."""
    return _reorder_last(x, half_order(x.shape[-1]))


def half_to_interleaved(x: torch.Tensor) -> torch.Tensor:
    """Activations (..., D): the inverse of `interleaved_to_half`."""
    return _reorder_last(x, interleaved_order(x.shape[-1]))


def _reorder_head_rows(w: torch.Tensor, n_heads: int, order_of) -> torch.Tensor:
    require_positive_int(n_heads, "n_heads")
    if w.dim() != 2:
        raise ValueError(f"w must be a 2-D weight (n_heads·head_dim, in_features), got shape {tuple(w.shape)}")
    if w.shape[0] % n_heads:
        raise ValueError(f"w has {w.shape[0]} rows, not a multiple of n_heads={n_heads}")
    head_dim = w.shape[0] // n_heads
    order = torch.as_tensor(order_of(head_dim), device=w.device)
    per_head = w.reshape(n_heads, head_dim, w.shape[1])  # (H, D, in)
    return per_head[:, order, :].reshape(w.shape)


def permute_rows_to_half(w: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Rows of W_q or W_k (H·D, in) reordered per head so that the half layout
    computes what the interleaved layout computed with the original weights."""
    return _reorder_head_rows(w, n_heads, half_order)


def permute_rows_to_interleaved(
    w: torch.Tensor, n_heads: int
) -> torch.Tensor:
    """The inverse of `permute_rows_to_half`."""
    return _reorder_head_rows(w, n_heads, interleaved_order)
