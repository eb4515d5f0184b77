"""`Attention` with the one-pass kernels: queries and keys rotated in place (chapter "Implementations and speed")."""

from __future__ import annotations

import torch

from ..llama import Attention
from .fused import rotate_pairs_fused


class FusedAttention(Attention):
    """`rope_lib.llama.Attention` whose `rotate` writes RoFormer eq. 34 over the fresh query and key heads in place
    with `rotate_pairs_fused`: no temporaries and one pass. For inference: when autograd has to record
    the rotation, the eager form of `Attention.rotate` runs instead."""

    def rotate(self, qk: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and qk.requires_grad:
            return super().rotate(qk, cos, sin)
        return rotate_pairs_fused(qk, cos, sin, out=qk, layout=self.layout, rotary_dim=self.rotary_dim)
