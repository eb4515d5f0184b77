"""Positions computed in bfloat16, the pitfall the library avoids (chapter "The LLaMA implementation")."""

from __future__ import annotations

import torch

from ...frequencies import DEFAULT_BASE, inv_freq


def bf16_angles(positions, d: int, base: float = DEFAULT_BASE) -> torch.Tensor:
    """m·θ_i computed the careless way, positions and frequencies in bfloat16: shape (P, d/2), float64.

    bf16 keeps 8 significant bits, so integers above 256 are rounded (257 → 256) and
    neighbouring positions get the same angles. The pitfall `rope_angles` avoids.
    """
    m = torch.as_tensor(list(positions), dtype=torch.bfloat16)  # (P,) rounded to bf16
    theta = torch.from_numpy(inv_freq(d, base)).to(torch.bfloat16)  # (d/2,)
    return (m[:, None] * theta).to(torch.float64)  # (P, d/2)
