"""rope_lib.teach.shared.difference_wording.difference_text: a largest difference as the book's prose writes it."""

import numpy as np
import pytest

from rope_lib.teach.shared.difference_wording import difference_text


def test_zero_reads_exactly_zero_and_others_in_scientific_notation():
    assert difference_text(0.0) == "exactly 0" and difference_text(0) == "exactly 0"
    assert difference_text(np.float64(0.0)) == "exactly 0" and difference_text(-0.0) == "exactly 0"
    assert difference_text(3.3306690738754696e-16) == "3.3e-16"
    assert difference_text(np.float32(2.5e-3), digits=2) == "2.50e-03"
    assert difference_text(5e-324) != "exactly 0"  # the smallest subnormal is not zero


@pytest.mark.parametrize("bad", [-1e-16, float("nan"), float("inf")])
def test_a_negative_or_non_finite_difference_is_refused(bad):
    with pytest.raises(ValueError, match="finite difference"):
        difference_text(bad)


@pytest.mark.parametrize("bad", ["0", None, True, 1j])
def test_a_non_number_is_refused(bad):
    with pytest.raises(TypeError, match="real number"):
        difference_text(bad)


@pytest.mark.parametrize("digits", [-1, 1.5, True])
def test_digits_must_be_a_non_negative_int(digits):
    with pytest.raises(ValueError, match="digits"):
        difference_text(1e-3, digits)
