import numpy as np
import pytest

from rope_lib import inv_freq
from rope_lib.frequencies import angles, wavelengths
from rope_lib.sinusoidal import sinusoidal_encoding, sinusoidal_encoding_loop


@pytest.mark.parametrize("seq_len, d", [(1, 2), (7, 4), (50, 16), (33, 64)])
def test_loop_and_vectorised_encodings_agree(seq_len, d):
    np.testing.assert_allclose(sinusoidal_encoding(seq_len, d), sinusoidal_encoding_loop(seq_len, d), rtol=0, atol=1e-12)


def test_encoding_matches_the_formula_entry_by_entry():
    d, table = 8, sinusoidal_encoding(20, 8)
    for i in (0, 3, 19):
        for t in range(d // 2):
            np.testing.assert_allclose(table[i, 2 * t], np.sin(i / 10000 ** (2 * t / d)), atol=1e-15)
            np.testing.assert_allclose(table[i, 2 * t + 1], np.cos(i / 10000 ** (2 * t / d)), atol=1e-15)


def test_inv_freq_is_base_to_minus_2i_over_d():
    theta = inv_freq(8, 10000.0)
    np.testing.assert_allclose(theta, [1.0, 10000 ** -0.25, 10000 ** -0.5, 10000 ** -0.75], rtol=1e-15)
    assert theta.dtype == np.float64


def test_wavelengths_form_a_geometric_progression():
    lam = wavelengths(64, 10000.0)
    ratios = lam[1:] / lam[:-1]
    np.testing.assert_allclose(ratios, 10000 ** (2 / 64), rtol=1e-12)
    np.testing.assert_allclose(lam[0], 2 * np.pi)


def test_angles_are_position_times_frequency():
    a = angles(np.array([0, 1, 5]), 4, 100.0)
    np.testing.assert_allclose(a, np.outer([0, 1, 5], [1.0, 0.1]))


@pytest.mark.parametrize("d", [0, 3, -2])
def test_bad_dimension_is_named(d):
    with pytest.raises(ValueError, match=r"d must be a positive even integer"):
        inv_freq(d)


def test_bad_base_is_named():
    with pytest.raises(ValueError, match=r"base must be a finite number greater than 1"):
        inv_freq(8, 1.0)
    with pytest.raises(TypeError, match=r"seq_len must be an int"):
        sinusoidal_encoding(2.5, 8)


def test_a_larger_d_stretches_the_longest_wavelength_towards_2pi_base():
    """"RoPE at a glance": a larger d keeps the shortest wavelength at 2π and stretches the longest, 2π·base^((d−2)/d),
    towards 2π·base; it does not keep the same range."""
    base = 10000.0
    longest = {d: wavelengths(d, base)[-1] for d in range(2, 1026, 2)}
    assert round(longest[16]) == 19869 and round(longest[256]) == 58470
    assert all(wavelengths(d, base)[0] == pytest.approx(2 * np.pi) for d in (2, 16, 256, 1024))
    assert all(longest[d] < longest[d + 2] < 2 * np.pi * base for d in range(2, 1024, 2))
    np.testing.assert_allclose([longest[d] for d in (16, 256)], 2 * np.pi * base ** (np.array([14, 254]) / [16, 256]), rtol=1e-12)
    assert longest[1024] / (2 * np.pi * base) > 0.98 and longest[16] / (2 * np.pi * base) < 0.32
