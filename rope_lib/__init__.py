"""rope_lib: Rotary Position Embedding in numpy and torch, the tested core behind "RoPE, from first principles".

`import rope_lib` imports numpy and torch and nothing else. The top level holds what a practitioner uses: the
rotation (`apply_rope`, `rope_cos_sin`, Meta's `precompute_freqs_cis` and `apply_rotary_emb`, the frequencies
`inv_freq`), the context-extension rules (`RopeScaling`), the model (`Model`, `ModelConfig`), the loaders of Hugging
Face's weights and configs, and the permutations between the two pairing layouts. The rest is reached through its
module: `rope_lib.scaling.yarn_inv_freq`, `rope_lib.rotation.rotation_matrix_2d`, `rope_lib.llama.Attention`, …
Two layers sit beside the core and build on it: `rope_lib.kernels` (optional one-pass kernels) and
`rope_lib.teach` (the book's teaching helpers, figures and exercise checks; `pip install 'rope_lib[book]'`).
"""

__version__ = "0.1.0"

from . import (
    axial,
    frequencies,
    hf,
    layer_schedule,
    layouts,
    llama,
    mrope,
    multi_axis,
    relative_bias,
    rope,
    rotation,
    scaling,
    sinusoidal,
)
from .frequencies import DEFAULT_BASE, inv_freq
from .hf import config_from_hf, from_hf_state_dict, scaling_from_hf
from .layouts import permute_rows_to_half, permute_rows_to_interleaved
from .llama import Model, ModelConfig
from .rope import apply_rope, apply_rotary_emb, precompute_freqs_cis, rope_cos_sin
from .scaling import RopeScaling

__all__ = [
    "DEFAULT_BASE",
    "Model",
    "ModelConfig",
    "RopeScaling",
    "apply_rope",
    "apply_rotary_emb",
    "config_from_hf",
    "from_hf_state_dict",
    "inv_freq",
    "permute_rows_to_half",
    "permute_rows_to_interleaved",
    "precompute_freqs_cis",
    "rope_cos_sin",
    "scaling_from_hf",
]
