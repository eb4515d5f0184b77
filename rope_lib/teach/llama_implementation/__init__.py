"""Chapter "The implementation in LLaMA" (book/llama_implementation.md), a package for its size; the chapter imports it
whole, `from rope_lib.teach import llama_implementation`, and reads its helpers flat:

- `bf16_positions`: positions computed in bfloat16, the pitfall the library avoids;
- `attention_scores`: one block's pre-softmax scores with its tokens placed at any positions (`layer_scores`), which
  "Longer contexts" uses again and "RoPE in a trained model" builds its attention maps on;
- `figures`: the bf16 pitfall, and the two ways of pairing a head's coordinates;
- `checks`: the auto-checks of the chapter's exercises.
"""

from .attention_scores import layer_scores, require_model
from .bf16_positions import bf16_angles
from .checks import check_permute_rows, check_rope_half, check_rotate_qk
from .figures import PAIRING_ROWS, plot_bf16_angles, plot_pairing_layouts

__all__ = [
    "PAIRING_ROWS",
    "bf16_angles",
    "check_permute_rows",
    "check_rope_half",
    "check_rotate_qk",
    "layer_scores",
    "plot_bf16_angles",
    "plot_pairing_layouts",
    "require_model",
]
