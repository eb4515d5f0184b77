"""The chapter's example LongRoPE factor sets: built from the NTK-aware and YaRN rules, rising from 1."""

import numpy as np

from rope_lib import RopeScaling, inv_freq
from rope_lib.scaling import ntk_inv_freq, yarn_inv_freq
from rope_lib.teach.rope_variants import EXAMPLE_SHORT_NTK_FACTOR, example_longrope_factors


def test_example_sets_are_the_ntk_and_yarn_ratios():
    short, long = example_longrope_factors(128, 10000.0, 32.0, 4096)
    theta = inv_freq(128)
    np.testing.assert_allclose(theta / np.array(short), ntk_inv_freq(128, 10000.0, EXAMPLE_SHORT_NTK_FACTOR), rtol=1e-15)
    np.testing.assert_allclose(theta / np.array(long), yarn_inv_freq(128, 10000.0, 32.0, original_max_len=4096), rtol=1e-15)
    assert short[0] == long[0] == 1.0 and np.all(np.diff(long) >= 0) and np.isclose(long[-1], 32.0)
    RopeScaling("longrope", 32.0, original_max_len=4096, short_factor=short, long_factor=long)  # a valid rule
