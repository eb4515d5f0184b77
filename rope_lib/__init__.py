"""rope_lib: the tested code behind every number and figure of "RoPE, from first principles".

The public API is flat: `from rope_lib import apply_rope, precompute_freqs_cis, …`.
"""

from .attention import Attention, causal_mask, default_device
from .frequencies import DEFAULT_BASE, angles, inv_freq, wavelengths
from .layouts import (
    half_order,
    half_to_interleaved,
    interleaved_order,
    interleaved_to_half,
    permute_rows_to_half,
    permute_rows_to_interleaved,
)
from .rope import (
    apply_rope,
    apply_rotary_emb,
    compute_dtype,
    expand_to_pairs,
    precompute_freqs_cis,
    reshape_for_broadcast,
    rope_angles,
    rope_cos_sin,
    rotate_pairs,
    rotate_quarter,
)
from .rotation import apply_rope_matrix, rotary_matrix, rotation_matrix_2d, score_grid
from .sinusoidal import sinusoidal_encoding, sinusoidal_encoding_loop

__all__ = [
    "DEFAULT_BASE",
    "Attention",
    "angles",
    "apply_rope",
    "apply_rope_matrix",
    "apply_rotary_emb",
    "causal_mask",
    "compute_dtype",
    "default_device",
    "expand_to_pairs",
    "half_order",
    "half_to_interleaved",
    "interleaved_order",
    "interleaved_to_half",
    "inv_freq",
    "permute_rows_to_half",
    "permute_rows_to_interleaved",
    "precompute_freqs_cis",
    "reshape_for_broadcast",
    "rope_angles",
    "rope_cos_sin",
    "rotary_matrix",
    "rotate_pairs",
    "rotate_quarter",
    "rotation_matrix_2d",
    "score_grid",
    "sinusoidal_encoding",
    "sinusoidal_encoding_loop",
    "wavelengths",
]
