"""Chapter "RoPE in d dimensions" (book/rope_nd.md), a package for its size; the chapter imports it whole,
`from rope_lib.teach import rope_nd`, and reads its helpers flat (`rope_nd.rope_sum`, `rope_nd.clock_widget`):

- `derivation`: the derivation of the block-diagonal rotary matrix from the goal, checked with sympy
  (`displayed_equations.Page.of(rope_nd.derivation)`);
- `generators`: from the goal to RoPE's matrix, numerically: skew-symmetric generators and their canonical form;
- `decay`: long-term decay (RoFormer §3.4.3), which "Why does RoPE work?" takes up again;
- `figures`: the pairs turning at their speeds, the clock (an interactive figure), the rotary matrix, RoFormer's Fig. 2;
- `checks`: the auto-check of the chapter's exercise.
"""

from . import derivation
from .checks import check_first_below_half
from .decay import abel_bound, abel_sum, pair_products, partial_sums, phasor_terms, relative_upper_bound, rope_sum, unturned_pairs
from .figures import CLOCK_BASES, CLOCK_D, CLOCK_POSITIONS, clock_widget, plot_clock, plot_pair_rotations, plot_relative_upper_bound, plot_rotary_matrix
from .generators import QUARTER_TURN, SKEW_TOLERANCE, block_generator, canonical_form, random_skew, rotation_family

__all__ = [
    "CLOCK_BASES",
    "CLOCK_D",
    "CLOCK_POSITIONS",
    "QUARTER_TURN",
    "SKEW_TOLERANCE",
    "abel_bound",
    "abel_sum",
    "block_generator",
    "canonical_form",
    "check_first_below_half",
    "clock_widget",
    "derivation",
    "pair_products",
    "partial_sums",
    "phasor_terms",
    "plot_clock",
    "plot_pair_rotations",
    "plot_relative_upper_bound",
    "plot_rotary_matrix",
    "random_skew",
    "relative_upper_bound",
    "rope_sum",
    "rotation_family",
    "unturned_pairs",
]
