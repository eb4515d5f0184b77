"""rope_lib: the tested code behind every number and figure of "RoPE, from first principles".

The public API is flat: `from rope_lib import apply_rope, precompute_freqs_cis, …`.
"""

from .attention import Attention, causal_mask, default_device
from .complex_plane import complex_to_pair, exp_partial_sums, pair_to_complex
from .decay import abel_bound, abel_sum, pair_products, partial_sums, relative_upper_bound, rope_sum
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
from .sinusoidal import (
    absolute_position_score,
    sinusoidal_encoding,
    sinusoidal_encoding_loop,
    sinusoidal_pair,
    sinusoidal_position,
)
from .tokens import (
    attention_outputs,
    attention_scores,
    build_vocab,
    embed,
    embedding_table,
    is_permutation_equivariant,
    projection,
    self_attention,
    softmax,
    token_ids,
    tokenize,
)

__all__ = [
    "DEFAULT_BASE",
    "Attention",
    "abel_bound",
    "abel_sum",
    "absolute_position_score",
    "angles",
    "apply_rope",
    "apply_rope_matrix",
    "apply_rotary_emb",
    "attention_outputs",
    "attention_scores",
    "build_vocab",
    "causal_mask",
    "complex_to_pair",
    "compute_dtype",
    "default_device",
    "embed",
    "embedding_table",
    "exp_partial_sums",
    "expand_to_pairs",
    "half_order",
    "half_to_interleaved",
    "interleaved_order",
    "interleaved_to_half",
    "inv_freq",
    "is_permutation_equivariant",
    "pair_products",
    "pair_to_complex",
    "partial_sums",
    "permute_rows_to_half",
    "permute_rows_to_interleaved",
    "precompute_freqs_cis",
    "projection",
    "relative_upper_bound",
    "reshape_for_broadcast",
    "rope_angles",
    "rope_cos_sin",
    "rope_sum",
    "rotary_matrix",
    "rotate_pairs",
    "rotate_quarter",
    "rotation_matrix_2d",
    "score_grid",
    "self_attention",
    "sinusoidal_encoding",
    "sinusoidal_encoding_loop",
    "sinusoidal_pair",
    "sinusoidal_position",
    "softmax",
    "token_ids",
    "tokenize",
    "wavelengths",
]
