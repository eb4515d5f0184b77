"""rope_lib: Rotary Position Embedding in numpy and torch, the tested core behind "RoPE, from first principles".

`import rope_lib` imports numpy and torch and nothing else. The public API is flat:
`from rope_lib import apply_rope, precompute_freqs_cis, Attention, …`. Two layers sit beside
the core and build on it: `rope_lib.kernels` (optional one-pass kernels) and `rope_lib.teach`
(the book's teaching helpers, figures and exercise checks; `pip install 'rope_lib[book]'`).
"""

from .attention import Attention, causal_mask, default_device
from .frequencies import DEFAULT_BASE, angles, inv_freq, wavelengths
from .kv_cache import KVCache
from .layouts import (
    half_order,
    half_to_interleaved,
    interleaved_order,
    interleaved_to_half,
    permute_rows_to_half,
    permute_rows_to_interleaved,
)
from .model import FeedForward, Model, ModelConfig, RMSNorm, TransformerBlock, config_from_hf, meta_state_dict, scaling_from_hf
from .relative_bias import alibi_bias, alibi_slopes, t5_relative_bias, t5_relative_bucket
from .rope import (
    apply_rope,
    apply_rotary_emb,
    expand_to_pairs,
    precompute_freqs_cis,
    reshape_for_broadcast,
    rope_angles,
    rope_cos_sin,
    rotate_pairs,
    rotate_quarter,
)
from .rotation import apply_rope_matrix, rotary_matrix, rotation_matrix_2d, score_grid
from .scaling import (
    LLAMA3_BASE,
    SCALING_RULES,
    RopeScaling,
    angle_coverage,
    deepseek_yarn_attention_factor,
    dynamic_ntk_factor,
    dynamic_ntk_inv_freq,
    llama3_inv_freq,
    llama3_scale_freqs,
    llama3_wavelength_bounds,
    ntk_base,
    ntk_inv_freq,
    partial_rotary_dim,
    position_interpolation_inv_freq,
    scaled_frequencies,
    yarn_attention_factor,
    yarn_correction_pair,
    yarn_inv_freq,
    yarn_ramp,
)
from .sinusoidal import (
    absolute_position_score,
    sinusoidal_encoding,
    sinusoidal_encoding_loop,
    sinusoidal_pair,
    sinusoidal_position,
)

__all__ = [
    "DEFAULT_BASE",
    "LLAMA3_BASE",
    "Attention",
    "FeedForward",
    "KVCache",
    "Model",
    "ModelConfig",
    "RMSNorm",
    "RopeScaling",
    "TransformerBlock",
    "SCALING_RULES",
    "absolute_position_score",
    "alibi_bias",
    "alibi_slopes",
    "angle_coverage",
    "angles",
    "apply_rope",
    "apply_rope_matrix",
    "apply_rotary_emb",
    "causal_mask",
    "config_from_hf",
    "default_device",
    "deepseek_yarn_attention_factor",
    "dynamic_ntk_factor",
    "dynamic_ntk_inv_freq",
    "expand_to_pairs",
    "half_order",
    "half_to_interleaved",
    "interleaved_order",
    "interleaved_to_half",
    "inv_freq",
    "llama3_inv_freq",
    "llama3_scale_freqs",
    "llama3_wavelength_bounds",
    "meta_state_dict",
    "ntk_base",
    "ntk_inv_freq",
    "partial_rotary_dim",
    "permute_rows_to_half",
    "permute_rows_to_interleaved",
    "position_interpolation_inv_freq",
    "precompute_freqs_cis",
    "reshape_for_broadcast",
    "rope_angles",
    "rope_cos_sin",
    "rotary_matrix",
    "rotate_pairs",
    "rotate_quarter",
    "rotation_matrix_2d",
    "scaled_frequencies",
    "scaling_from_hf",
    "score_grid",
    "sinusoidal_encoding",
    "sinusoidal_encoding_loop",
    "sinusoidal_pair",
    "sinusoidal_position",
    "t5_relative_bias",
    "t5_relative_bucket",
    "wavelengths",
    "yarn_attention_factor",
    "yarn_correction_pair",
    "yarn_inv_freq",
    "yarn_ramp",
]

