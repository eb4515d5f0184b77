"""M-RoPE (Qwen2-VL, Wang et al. 2024): one head shares its pairs among a time, a height and a width position.

`mrope_section` = (s_t, s_h, s_w), with s_t + s_h + s_w = D/2, says how many pairs follow each axis. Qwen2-VL gives
them in blocks (pairs 0 … s_t−1 turn with t, the next s_h with h, the last s_w with w); Qwen3-VL interleaves them
(t, h, w, t, h, w, …, then t for the pairs left over). Pair i keeps the frequency θ_i = base^(−2i/D) of 1D RoPE.
`mrope_position_ids` numbers a sequence of text and images or videos. Chapter "RoPE for images and video".
"""

from __future__ import annotations

import numpy as np
import torch

from ._validate import require_base, require_bool, require_even_dim, require_non_negative_int, require_positive_int
from .frequencies import inv_freq

MROPE_AXES = ("t", "h", "w")
"""The three position streams of M-RoPE, in the order of mrope_section and of the position ids' last axis."""


def mrope_axis_of_pair(mrope_section, *, interleaved: bool = False) -> np.ndarray:
    """The axis (0 = t, 1 = h, 2 = w) that each of the sum(mrope_section) pairs follows, shape (D/2,)."""
    if not isinstance(mrope_section, (list, tuple)) or len(mrope_section) != 3:
        raise ValueError(f"mrope_section must be three pair counts (s_t, s_h, s_w), got {mrope_section!r}")
    s_t, s_h, s_w = (require_non_negative_int(s, "mrope_section entries") for s in mrope_section)
    interleaved = require_bool(interleaved, "interleaved")
    n_pairs = s_t + s_h + s_w
    if n_pairs == 0:
        raise ValueError("mrope_section must give at least one pair")
    if not interleaved:
        return np.repeat(np.arange(3), [s_t, s_h, s_w])
    axis = np.zeros(n_pairs, dtype=np.int64)  # t unless claimed below
    pair = np.arange(n_pairs)
    axis[(pair % 3 == 1) & (pair < 3 * s_h)] = 1
    axis[(pair % 3 == 2) & (pair < 3 * s_w)] = 2
    counts = tuple(np.bincount(axis, minlength=3).tolist())
    if counts != (s_t, s_h, s_w):
        raise ValueError(f"interleaved mrope_section {tuple(mrope_section)} cannot be laid out as t, h, w, t, h, w, …: it gives {counts} pairs")
    return axis


def mrope_freqs(d: int, base: float, mrope_section, *, interleaved: bool = False) -> np.ndarray:
    """Frequency vectors (f_t, f_h, f_w) of M-RoPE, shape (d/2, 3): row i holds θ_i in its axis' column, 0 elsewhere."""
    d = require_even_dim(d, "d")
    axis = mrope_axis_of_pair(mrope_section, interleaved=interleaved)
    if axis.size != d // 2:
        raise ValueError(f"mrope_section must add up to d/2 = {d // 2} pairs, got {mrope_section!r} (sum {axis.size})")
    freqs = np.zeros((d // 2, 3))
    freqs[np.arange(d // 2), axis] = inv_freq(d, require_base(base, "base"))
    return freqs


def mrope_position_ids(segments) -> torch.Tensor:
    """(t, h, w) of every token of a sequence of segments, shape (T, 3), as the Qwen2-VL paper numbers them.

    segments: ("text", n) for n text tokens, ("image", (h, w)) and ("video", (t, h, w)) for a grid of visual tokens
    (the grid the language model sees, after Qwen2-VL merges 2×2 patches into one token). Each segment starts at
    s = 1 + the largest id so far (0 at first). Text token j gets t = h = w = s + j; the visual token at frame a,
    row b, column c gets (s + a, s + b, s + c), read frame by frame in reading order.
    """
    if not isinstance(segments, (list, tuple)) or not segments:
        raise ValueError(f"segments must be a non-empty list of ('text', n), ('image', (h, w)) or ('video', (t, h, w)), got {segments!r:.80}")
    blocks, start = [], 0
    for segment in segments:
        if not (isinstance(segment, tuple) and len(segment) == 2 and segment[0] in ("text", "image", "video")):
            raise ValueError(f"each segment must be ('text', n), ('image', (h, w)) or ('video', (t, h, w)), got {segment!r:.80}")
        kind, size = segment
        if kind == "text":
            n = require_positive_int(size, "a text segment's length")
            block = (start + torch.arange(n))[:, None].expand(n, 3)  # (n, 3): t = h = w
        else:
            want = 2 if kind == "image" else 3
            if not isinstance(size, tuple) or len(size) != want:
                raise ValueError(f"an {kind} segment's grid must be a tuple of {want} sizes, got {size!r}")
            grid = (1, *size) if kind == "image" else size
            t, h, w = (require_positive_int(g, f"an {kind} segment's grid sizes") for g in grid)
            frames, rows, cols = torch.meshgrid(torch.arange(t), torch.arange(h), torch.arange(w), indexing="ij")
            block = start + torch.stack([frames.flatten(), rows.flatten(), cols.flatten()], dim=-1)  # (t·h·w, 3)
        blocks.append(block)
        start = int(block.max()) + 1
    return torch.cat(blocks)  # (T, 3)
