"""The register of the book's exercise auto-checks: every `check_…` of every chapter, by name, in one place, from
which the chapters' solutions, the student editions and the teacher's guide import them
(`from rope_lib.teach.exercises import check_rope_pairs`). Pass your function, get a pass or a hint.

Each `check_…` runs the student's function on fixed inputs, among them the edge cases that tell the common mistakes
apart, and on a few random ones drawn with fixed seeds, so that a wrong answer gets the same verdict every time. It
compares the result with rope_lib's reference and reports the first property that fails, for which input (a random one
by the seed that rebuilds it), and, when the answer matches a mistake people often make, which one. It never shows the
solution. Whatever the student's function does (raise, exit, loop past `shared.checking.TIME_LIMIT_S`, change its input in
place, return None or something unreadable) is reported as NOT YET with a hint, never raised, and so is None in place
of the function; only something else that is not callable raises TypeError. The result prints itself and is truthy
when the answer passes, so a solution cell can `assert check_…(my_function)`.

Each check sits in its chapter's module, named after the chapter's file (`rope_lib.teach.rope_at_a_glance` for
book/rope_at_a_glance.md), beside the helpers it compares with; the machinery they share is
`rope_lib.teach.shared.checking`. This module sits above the chapters' modules: none of them imports it.
"""

from .shared.checking import CheckResult
from .rope_at_a_glance import check_rope_pairs
from .tokens_and_attention import check_attention_by_hand
from .sinusoidal_encoding import check_walk_encoding
from .complex_numbers import check_terms_needed
from .rotation_matrices import check_rotate
from .rope_2d import check_real_goal_rule, check_score_complex
from .rope_nd import check_first_below_half
from .llama_implementation import check_permute_rows, check_rope_half, check_rotate_qk
from .why_rope_works import check_b_m
from .longer_contexts import check_rotate_cache
from .rope_variants import check_longrope_frequencies
from .rope_for_images import check_axial_rotate
from .trained_models import check_offset_weight
from .implementations_and_speed import check_bf16_position_error

__all__ = [
    "CheckResult",
    "check_rope_pairs",
    "check_attention_by_hand",
    "check_walk_encoding",
    "check_terms_needed",
    "check_rotate",
    "check_real_goal_rule",
    "check_score_complex",
    "check_first_below_half",
    "check_rope_half",
    "check_permute_rows",
    "check_rotate_qk",
    "check_b_m",
    "check_rotate_cache",
    "check_longrope_frequencies",
    "check_axial_rotate",
    "check_offset_weight",
    "check_bf16_position_error",
]
