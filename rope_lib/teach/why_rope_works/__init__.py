"""Chapter "Why does RoPE work?" (book/why_rope_works.md), a package for its size; the chapter imports it whole,
`from rope_lib.teach import why_rope_works`, and reads its helpers flat (`why_rope_works.b_m_theta`):

- `frequency_roles`: which frequencies do what (Barbero et al. 2024), on a small synthetic example;
- `base_bound`: the base of RoPE bounds the context length (Men et al. 2024), which "Longer contexts" uses again;
- `figures`: the decay revisited, the frequencies' roles, the bound on the base, and two interactive figures: the
  score as turning arrows, and RoPE among its relatives;
- `checks`: the auto-check of the chapter's exercise.

The decay itself, the phasors' sums included, is chapter "RoPE in d dimensions"'s (`rope_lib.teach.rope_nd`).
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
    rounding_interval,
    similarity_curve,
    smallest_base,
)
from .checks import check_b_m
from .figures import (
    PHASOR_BASES,
    PHASOR_DISTANCES,
    RELATIVE_BIAS_DISTANCE,
    phasor_widget,
    plot_b_m_theta,
    plot_base_bounds,
    plot_base_reach,
    plot_decay_revisited,
    plot_frequency_roles,
    plot_phasor_sum,
    plot_relative_biases,
    relative_bias_widget,
    t5_table_following,
)
from .frequency_roles import BANDS, band_pairs, positional_head_score, retrieval_rate

__all__ = [
    "BANDS",
    "PHASOR_BASES",
    "PHASOR_DISTANCES",
    "RELATIVE_BIAS_DISTANCE",
    "b_m_theta",
    "b_m_theta_blocks",
    "b_slope_bound",
    "band_pairs",
    "base_grid",
    "base_keeping_non_negative_in",
    "base_lower_bounds",
    "check_b_m",
    "first_negative",
    "keeps_non_negative",
    "phasor_widget",
    "plot_b_m_theta",
    "plot_base_bounds",
    "plot_base_reach",
    "plot_decay_revisited",
    "plot_frequency_roles",
    "plot_phasor_sum",
    "plot_relative_biases",
    "positional_head_score",
    "relative_bias_widget",
    "retrieval_rate",
    "rounding_interval",
    "similarity_curve",
    "smallest_base",
    "t5_table_following",
]
