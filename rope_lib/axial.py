"""2D RoPE for the patches of an image: axial frequencies, RoPE-Mixed's learnable ones, and the patch grid.

A patch at row h, column w turns pair i by h·f_{i,h} + w·f_{i,w} (`rope_lib.multi_axis`). Axial RoPE gives each
pair one axis: half the pairs turn with h, half with w. RoPE-Mixed (Heo et al. 2024) lets every pair turn with both,
along a direction that training learns. Chapter "RoPE for images and video".
"""

from __future__ import annotations

import numpy as np
import torch

from ._validate import (
    arguments,
    checked_by,
    refuse,
    require_axis_frequencies,
    require_base,
    require_int,
    require_positive_int,
    require_real,
    require_real_array,
)
from .frequencies import inv_freq

AXIAL_SPLITS = ("shared", "alternating")
"""How axial RoPE hands frequencies to the two axes. "shared": both axes get the same d/4 frequencies
base^(−4j/d) (Heo et al.'s RoPE-Axial, Qwen2-VL's vision encoder); "alternating": the d/2 frequencies of
1D RoPE, the even-numbered ones to h and the odd-numbered ones to w (Pixtral)."""


def require_quarter_dim(d, name: str = "d") -> None:
    """A head dimension divisible by 4: half its pairs go to each of the two axes."""
    if require_positive_int(d, name) % 4:
        refuse(name, "be a multiple of 4 (d/2 pairs, half of them per axis)", d)


def require_split(split, name: str = "split") -> None:
    if split not in AXIAL_SPLITS:
        refuse(name, f"be one of {AXIAL_SPLITS}", repr(split))


@checked_by(arguments(d=require_quarter_dim, base=require_base, split=require_split))
def axial_inv_freq_2d(
    d: int, base: float = 100.0, *, split: str = "shared"
) -> np.ndarray:
    """Frequency vectors (f_h, f_w) of axial RoPE, shape (d/2, 2): pairs
    0 … d/4−1 turn with h, the rest with w.

    base 100 is Heo et al.'s for ViTs; Pixtral and Qwen2-VL's vision
    encoder use 10000.
    """
    if split == "shared":
        # base^(−2j/(d/2)) = base^(−4j/d), j = 0 … d/4 − 1
        theta = inv_freq(d // 2, base)
        for_h, for_w = theta, theta
    else:
        theta = inv_freq(d, base)  # base^(−2i/d), i = 0 … d/2 − 1
        for_h, for_w = theta[0::2], theta[1::2]
    zeros = np.zeros(d // 4)
    first = np.stack([for_h, zeros], axis=1)  # (d/4, 2)
    second = np.stack([zeros, for_w], axis=1)  # (d/4, 2)
    return np.concatenate([first, second])  # (d/2, 2)


@checked_by(arguments(d=require_quarter_dim, angle=require_real, base=require_base))
def mixed_inv_freq_2d(
    d: int, angle: float, base: float = 10.0
) -> np.ndarray:
    """RoPE-Mixed's frequency vectors as Heo et al. initialise them for one
    head, shape (d/2, 2).

    The d/4 magnitudes base^(−4j/d) point along the direction `angle`
    (radians from the h axis) for pairs 0 … d/4−1 and along angle + π/2 for
    the rest; training then moves every vector freely.
    angle = 0 gives axial RoPE with shared frequencies.
    """
    magnitude = inv_freq(d // 2, base)  # (d/4,)
    first = np.stack(
        [magnitude * np.cos(angle), magnitude * np.sin(angle)], axis=1
    )
    normal = angle + np.pi / 2
    second = np.stack(
        [magnitude * np.cos(normal), magnitude * np.sin(normal)], axis=1
    )
    return np.concatenate([first, second])  # (d/2, 2)


def patch_positions(height: int, width: int, *, device=None) -> torch.Tensor:
    """(row h, column w) of every patch of a height × width grid, in reading order, shape (height·width, 2)."""
    require_positive_int(height, "height"), require_positive_int(width, "width")
    h, w = torch.meshgrid(torch.arange(height, device=device), torch.arange(width, device=device), indexing="ij")
    return torch.stack([h.flatten(), w.flatten()], dim=-1)  # (N, 2)


def pair_scores_2d_arguments(a) -> None:
    q, k = (require_real_array(a[name], name) for name in ("q", "k"))
    inv_freq = require_axis_frequencies(a["inv_freq"])
    if q.ndim != 1 or q.shape != k.shape or inv_freq.shape != (q.size // 2, 2) or q.size % 2:
        raise ValueError(f"q and k must be vectors of one even length d and inv_freq of shape (d/2, 2), got {q.shape}, {k.shape}, {inv_freq.shape}")
    delta = np.asarray(a["offsets"])
    if not np.issubdtype(delta.dtype, np.integer) or delta.ndim == 0 or delta.shape[-1] != 2:
        refuse("offsets", "be integers of shape (..., 2), (Δh, Δw) each", f"dtype {delta.dtype} and shape {delta.shape}")


@checked_by(pair_scores_2d_arguments)
def pair_scores_2d(q, k, inv_freq, offsets) -> np.ndarray:
    """Each pair's share of the score q·k between a query and a key `offsets` (Δh, Δw) apart, shape (..., d/2).

    Pair i contributes Re[q_i k_i* e^{i Δ·f_i}] with q_i = q_{2i} + i q_{2i+1} (interleaved pairs): the scores
    of the rotated vectors, split by pair. Only Δ enters, so this is the whole story for any two patches.
    """
    q, k, delta = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64), np.asarray(offsets)
    inv_freq = inv_freq.detach().cpu().numpy() if isinstance(inv_freq, torch.Tensor) else np.asarray(inv_freq, dtype=np.float64)  # numbers, not a graph
    qc, kc = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]  # (d/2,)
    turn = delta.astype(np.float64) @ inv_freq.T  # (..., d/2)
    return np.real(qc * np.conj(kc) * np.exp(1j * turn))


def grid_score_map_arguments(a) -> None:
    height, width = require_positive_int(a["height"], "height"), require_positive_int(a["width"], "width")
    qh, qw = (require_int(v, "query") for v in a["query"])
    if not (0 <= qh < height and 0 <= qw < width):
        refuse("query", f"be a patch (h, w) of the {height} × {width} grid", a["query"])


@checked_by(grid_score_map_arguments)
def grid_score_map(q, k, inv_freq, query: tuple[int, int], height: int, width: int) -> np.ndarray:
    """The score of the query patch at `query` = (h, w) to every key patch of a height × width grid, shape (height, width)."""
    qh, qw = query
    offsets = np.stack(np.meshgrid(qh - np.arange(height), qw - np.arange(width), indexing="ij"), axis=-1)  # (H, W, 2): query − key
    return pair_scores_2d(q, k, inv_freq, offsets).sum(axis=-1)
