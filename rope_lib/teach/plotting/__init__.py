"""Pure functions that return matplotlib Figures: every figure in the book is drawn here.

One module per topic; each function builds its figure with `style.new_figure`,
so it carries a description (`fig.alt_text`) written from the same numbers.
"""

from .attention_weights import plot_attention_matrix, plot_attention_weights
from .complex_plane import plot_complex_product, plot_complex_rotation, plot_euler_partial_sums
from .context_extension import plot_angle_coverage, plot_cache_gaps, plot_context_extension, plot_scaled_frequencies, plot_similarity_vs_distance
from .decay import plot_relative_upper_bound
from .frequencies import plot_wavelengths
from .llama import plot_bf16_angles, plot_pairing_layouts
from .phasors import plot_phasor_sum
from .relative_bias import plot_relative_biases
from .rope_2d import plot_rope_2d
from .rope_nd import plot_clock, plot_pair_rotations, plot_rotary_matrix
from .rotations import plot_rotated_query_key, plot_rotation_composition
from .scores import plot_score_grid
from .sinusoidal import plot_absolute_scores_under_shift, plot_sinusoidal_encoding, plot_sinusoidal_pair
from .speed import plot_speed
from .style import BookFigure, new_figure, series_style
from .why_rope_works import plot_b_m_theta, plot_base_bounds, plot_base_reach, plot_decay_revisited, plot_frequency_roles
