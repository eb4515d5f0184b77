"""Optional one-pass RoPE kernels, built on the eager reference of `rope_lib.rope` (chapter "Implementations and speed").

`rotate_pairs_fused` computes what `rope_lib.rope.rotate_pairs` computes, in one pass over memory,
into a buffer or in place; `FusedAttention` is `rope_lib.llama.Attention` rotating with it.
"""

from .attention import FusedAttention
from .fused import fused_kernels_available, kernel_name, kernels_for, rotate_pairs_fused

__all__ = ["FusedAttention", "fused_kernels_available", "kernel_name", "kernels_for", "rotate_pairs_fused"]
