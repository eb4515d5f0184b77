"""`Attention` with the one-pass kernels: queries and keys rotated in place (chapter "Implementations and speed")."""

from __future__ import annotations

import torch

from ..llama import Attention
from .fused import rotate_pairs_fused


class FusedAttention(Attention):
    """`rope_lib.Attention` whose `rotate` writes RoFormer eq. 34 over the fresh projections in place
    with `rotate_pairs_fused`: no temporaries and one pass over each. For inference: when autograd
    has to record the rotation, the eager form of `Attention.rotate` runs instead."""

    def rotate(self, q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad):
            return super().rotate(q, k, cos, sin)
        rope = {"layout": self.layout, "rotary_dim": self.rotary_dim}
        return rotate_pairs_fused(q, cos, sin, out=q, **rope), rotate_pairs_fused(k, cos, sin, out=k, **rope)
