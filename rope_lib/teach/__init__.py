"""The book's teaching helpers, beside the core they teach: small worked examples in numpy, sympy checks
(`symbolic`), the students' exercise checks (`exercises`), figures (`plotting`) and interactive figures
(`widgets`). The mathematics a figure shows lives here or in the core and is tested there; `plotting` only
draws. Needs the book's extra: `pip install 'rope_lib[book]'`.

`from rope_lib import teach` gives the numeric helpers flat (`teach.tokenize`, `teach.abel_sum`, …);
`symbolic`, `exercises`, `plotting` and `widgets` are imported by name.
"""

from .base_bound import (
    b_m_theta,
    b_m_theta_blocks,
    b_slope_bound,
    base_grid,
    base_keeping_non_negative_in,
    base_lower_bounds,
    first_negative,
    keeps_non_negative,
    similarity_curve,
    rounding_interval,
    smallest_base,
)
from .bf16_positions import bf16_angles
from .complex_plane import complex_to_pair, exp_partial_sums, pair_to_complex
from .decay import abel_bound, abel_sum, pair_products, partial_sums, phasor_terms, relative_upper_bound, rope_sum, unturned_pairs
from .frequency_roles import band_pairs, positional_head_score, retrieval_rate
from .tokens import (
    attention_outputs,
    attention_scores,
    build_vocab,
    causal_visibility,
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
    "abel_bound",
    "abel_sum",
    "attention_outputs",
    "attention_scores",
    "b_m_theta",
    "b_m_theta_blocks",
    "b_slope_bound",
    "band_pairs",
    "base_grid",
    "base_keeping_non_negative_in",
    "base_lower_bounds",
    "bf16_angles",
    "build_vocab",
    "causal_visibility",
    "complex_to_pair",
    "embed",
    "embedding_table",
    "exp_partial_sums",
    "first_negative",
    "is_permutation_equivariant",
    "keeps_non_negative",
    "pair_products",
    "pair_to_complex",
    "partial_sums",
    "phasor_terms",
    "positional_head_score",
    "projection",
    "relative_upper_bound",
    "retrieval_rate",
    "rope_sum",
    "rounding_interval",
    "self_attention",
    "similarity_curve",
    "smallest_base",
    "softmax",
    "token_ids",
    "tokenize",
    "unturned_pairs",
]
