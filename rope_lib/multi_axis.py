"""RoPE for positions with several coordinates: a patch's (h, w), a video token's (t, h, w).

Each pair i of a head has a frequency vector f_i, one entry per axis, and turns by the dot product of the
token's position with it: angle_i = Σ_a p_a · f_{i,a}. With one axis this is plain RoPE (f_i = θ_i); axial
RoPE (`rope_lib.axial`) and M-RoPE (`rope_lib.mrope`) give each pair one non-zero entry, RoPE-Mixed gives it
two. The rotation itself is RoFormer eq. 34, `rope.rotate_pairs` (chapter "RoPE for images and video").
Shapes: B batch, T tokens, H heads, D head dimension, A axes.
"""

from __future__ import annotations

import torch

from ._validate import checked_by, compute_dtype, refuse, require_axis_frequencies, require_bthd, require_layout, require_positions
from .rope import rotate_pairs


def multi_axis_angles_arguments(a) -> None:
    axes = require_axis_frequencies(a["inv_freq"]).shape[1]
    positions = require_positions(a["positions"])
    if positions.dim() == 0 or positions.shape[-1] != axes:
        refuse("positions", f"end in one coordinate per axis, (..., A) with A = {axes} as inv_freq has", f"shape {tuple(positions.shape)}")


@checked_by(multi_axis_angles_arguments)
def multi_axis_angles(positions, inv_freq) -> torch.Tensor:
    """angle_i = Σ_a p_a · f_{i,a} in float64: positions (..., A) integers,
    inv_freq (D/2, A) → (..., D/2)."""
    positions = torch.as_tensor(positions)  # a list of ints too
    # (D/2, A) float64; a tensor keeps its graph
    table = torch.as_tensor(
        inv_freq, dtype=torch.float64, device=positions.device
    )
    return positions.to(torch.float64) @ table.T  # (..., D/2)


def apply_multi_axis_rope_arguments(a) -> None:
    x = require_bthd(a["x"], "x")
    require_layout(a["layout"])
    pairs, axes = require_axis_frequencies(a["inv_freq"]).shape
    if pairs != x.shape[-1] // 2:
        refuse("inv_freq", f"have one row per pair, D/2 = {x.shape[-1] // 2} rows for x of shape {tuple(x.shape)}", pairs)
    batch, seq = x.shape[:2]
    positions = require_positions(a["positions"], device=x.device)
    if tuple(positions.shape) not in ((seq, axes), (batch, seq, axes)):
        refuse("positions", f"have shape (T, A) = ({seq}, {axes}) or (B, T, A) = ({batch}, {seq}, {axes})", tuple(positions.shape))


@checked_by(apply_multi_axis_rope_arguments)
def apply_multi_axis_rope(x: torch.Tensor, positions, inv_freq, *, layout: str = "interleaved") -> torch.Tensor:
    """Rotate every head vector of x (B, T, H, D) by the angles of its token's position.

    positions: integers (T, A) or (B, T, A) on x's device; inv_freq: (D/2, A), from `axial_inv_freq_2d`,
    `mixed_inv_freq_2d` or `mrope_inv_freq`. layout says where pair i sits: (2i, 2i+1) or (i, i + D/2).
    """
    positions = torch.as_tensor(positions, device=x.device)  # a list of ints too
    a = multi_axis_angles(positions, inv_freq)  # (T, D/2) or (B, T, D/2), float64
    want = compute_dtype(x.dtype)
    return rotate_pairs(x, a.cos().to(want), a.sin().to(want), layout=layout)
