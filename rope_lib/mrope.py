"""M-RoPE (Qwen2-VL, Wang et al. 2024): one head shares its pairs among a time, a height and a width position.

`mrope_section` = (s_t, s_h, s_w), with s_t + s_h + s_w = D/2, says how many pairs follow each axis. Qwen2-VL gives
them in blocks (pairs 0 … s_t−1 turn with t, the next s_h with h, the last s_w with w); Qwen3-VL interleaves them
(t, h, w, t, h, w, …, then t for the pairs left over). Pair i keeps the frequency θ_i = base^(−2i/D) of 1D RoPE.
`mrope_position_ids` numbers a sequence of text and images or videos. Chapter "RoPE for images and video".
"""

from __future__ import annotations

import numpy as np
import torch

from ._validate import checked_by, refuse, require_base, require_bool, require_even_dim, require_non_negative_int, require_positive_int
from .frequencies import inv_freq

MROPE_AXES = ("t", "h", "w")
"""The three position streams of M-RoPE, in the order of mrope_section and of the position ids' last axis."""


def mrope_axis_of_pair_arguments(a) -> None:
    section = a["mrope_section"]
    if not isinstance(section, (list, tuple)) or len(section) != 3:
        refuse("mrope_section", "be three pair counts (s_t, s_h, s_w)", repr(section))
    s_t, s_h, s_w = (require_non_negative_int(s, "mrope_section entries") for s in section)
    n_pairs = s_t + s_h + s_w
    if n_pairs == 0:
        raise ValueError("mrope_section must give at least one pair")
    if require_bool(a["interleaved"], "interleaved"):  # pair p ≡ 1 (mod 3) is h while p < 3·s_h, p ≡ 2 is w while p < 3·s_w
        h, w = len(range(1, min(n_pairs, 3 * s_h), 3)), len(range(2, min(n_pairs, 3 * s_w), 3))
        if (h, w) != (s_h, s_w):
            counts = (n_pairs - h - w, h, w)
            raise ValueError(f"interleaved mrope_section {tuple(section)} cannot be laid out as t, h, w, t, h, w, …: it gives {counts} pairs")


@checked_by(mrope_axis_of_pair_arguments)
def mrope_axis_of_pair(
    mrope_section, *, interleaved: bool = False
) -> np.ndarray:
    """The axis (0 = t, 1 = h, 2 = w) that each of the sum(mrope_section)
    pairs follows, shape (D/2,)."""
    s_t, s_h, s_w = mrope_section
    if not interleaved:
        return np.repeat(np.arange(3), [s_t, s_h, s_w])
    pair = np.arange(s_t + s_h + s_w)
    axis = np.zeros_like(pair)  # t unless claimed below
    axis[(pair % 3 == 1) & (pair < 3 * s_h)] = 1
    axis[(pair % 3 == 2) & (pair < 3 * s_w)] = 2
    return axis


def mrope_inv_freq(d: int, base: float, mrope_section, *, interleaved: bool = False) -> np.ndarray:
    """Frequency vectors (f_t, f_h, f_w) of M-RoPE, shape (d/2, 3): row i holds θ_i in its axis' column, 0 elsewhere."""
    require_even_dim(d, "d"), require_base(base)
    axis = mrope_axis_of_pair(mrope_section, interleaved=interleaved)
    if axis.size != d // 2:
        refuse("mrope_section", f"add up to d/2 = {d // 2} pairs", f"{mrope_section!r} (sum {axis.size})")
    theta = np.zeros((d // 2, 3))
    theta[np.arange(d // 2), axis] = inv_freq(d, base)
    return theta


def mrope_position_ids_arguments(a) -> None:
    segments, kinds = a["segments"], "('text', n), ('image', (h, w)) or ('video', (t, h, w))"
    if not isinstance(segments, (list, tuple)) or not segments:
        refuse("segments", f"be a non-empty list of {kinds}", f"{segments!r:.80}")
    for segment in segments:
        if not (isinstance(segment, tuple) and len(segment) == 2 and segment[0] in ("text", "image", "video")):
            refuse("each segment", f"be {kinds}", f"{segment!r:.80}")
        kind, size = segment
        if kind == "text":
            require_positive_int(size, "a text segment's length")
            continue
        want = 2 if kind == "image" else 3
        if not isinstance(size, tuple) or len(size) != want:
            refuse(f"an {kind} segment's grid", f"be a tuple of {want} sizes", repr(size))
        for g in size:
            require_positive_int(g, f"an {kind} segment's grid sizes")


@checked_by(mrope_position_ids_arguments)
def mrope_position_ids(segments) -> torch.Tensor:
    """(t, h, w) of every token of a sequence of segments, shape (T, 3), as
    the Qwen2-VL paper numbers them.

    segments: ("text", n) for n text tokens, ("image", (h, w)) and
    ("video", (t, h, w)) for a grid of visual tokens (the grid the language
    model sees, after Qwen2-VL merges 2×2 patches into one token). Each
    segment starts at s = 1 + the largest id so far (0 at first). Text
    token j gets t = h = w = s + j; the visual token at frame a, row b,
    column c gets (s + a, s + b, s + c), read frame by frame in reading
    order.
    """
    blocks, start = [], 0
    for kind, size in segments:
        if kind == "text":
            ids = start + torch.arange(size)  # (n,)
            block = ids[:, None].expand(size, 3)  # (n, 3): t = h = w
        else:
            # an image is one frame
            t, h, w = (1, *size) if kind == "image" else size
            axes = torch.arange(t), torch.arange(h), torch.arange(w)
            frames, rows, cols = torch.meshgrid(*axes, indexing="ij")
            grid = [frames.flatten(), rows.flatten(), cols.flatten()]
            block = start + torch.stack(grid, dim=-1)  # (t·h·w, 3)
        blocks.append(block)
        start = int(block.max()) + 1
    return torch.cat(blocks)  # (T, 3)
