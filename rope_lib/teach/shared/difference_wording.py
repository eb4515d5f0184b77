"""How the book words a largest difference between two results that should agree.

A difference of exactly 0 reads "exactly 0" rather than "0.0e+00"; any other
difference is written in scientific notation, e.g. "3.3e-16". Imported by name,
`from rope_lib.teach.shared.difference_wording import difference_text`.
"""

from __future__ import annotations

import math
import numbers

from .language import text


def difference_text(value, digits: int = 1, *, lang: str = "en") -> str:
    """`value` (a largest absolute difference, ≥ 0) as prose in `lang`: "exactly 0" ("恰好为 0"), or with `digits`
    decimals, "3.3e-16"."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"value must be a real number, got {type(value).__name__} {value!r:.40}")
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
        raise ValueError(f"digits must be an int ≥ 0, got {digits!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"value must be a finite difference ≥ 0, got {value}")
    exactly_zero = text(lang, en="exactly 0", zh="恰好为 0")
    return exactly_zero if value == 0 else f"{value:.{digits}e}"
