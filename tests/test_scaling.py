"""The context-extension rules against slow, obvious references; their plug-in points
(apply_rope, rope_cos_sin, rotate_pairs, Attention); and their bad-input errors."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rope_lib
from rope_lib import (
    LLAMA3_BASE,
    Attention,
    RopeScaling,
    angle_coverage,
    apply_rope,
    apply_rope_matrix,
    dynamic_ntk_factor,
    dynamic_ntk_inv_freq,
    inv_freq,
    llama3_inv_freq,
    llama3_scale_freqs,
    ntk_base,
    ntk_inv_freq,
    partial_rotary_dim,
    position_interpolation_inv_freq,
    rope_angles,
    rope_cos_sin,
    rotate_pairs,
    yarn_attention_factor,
    yarn_correction_pair,
    yarn_inv_freq,
    yarn_ramp,
)

dims = st.sampled_from([4, 8, 16, 64, 128])
factors = st.floats(1.0, 64.0)
bases = st.floats(100.0, 1e7)


@given(dims, bases, factors)
def test_position_interpolation_is_squeezing_the_positions(d, base, factor):
    """θ'_i = θ_i/s, so the angle at position s·m equals the old angle at m."""
    m = np.arange(0, 50)
    np.testing.assert_allclose(np.outer(factor * m, position_interpolation_inv_freq(d, base, factor)), rope_lib.angles(m, d, base), rtol=1e-12, atol=1e-12)


@given(dims, bases, factors)
def test_ntk_keeps_the_fastest_pair_and_interpolates_the_slowest(d, base, factor):
    new, old = ntk_inv_freq(d, base, factor), inv_freq(d, base)
    assert new[0] == old[0] == 1.0
    assert new[-1] == pytest.approx(old[-1] / factor, rel=1e-9)
    assert ntk_base(d, base, factor) == pytest.approx(base * factor ** (d / (d - 2)), rel=1e-12)
    ratio = new / old
    assert np.all(np.diff(ratio) <= 1e-12)  # slower pairs are squeezed more


@given(st.integers(1, 100000), st.integers(16, 8192), factors)
def test_dynamic_ntk_is_unchanged_within_the_original_length_and_grows_beyond(seq_len, original, factor):
    s = dynamic_ntk_factor(factor, seq_len, original)
    expected = factor * seq_len / original - (factor - 1) if seq_len > original else 1.0
    assert s == pytest.approx(expected, rel=1e-12)
    if seq_len <= original:
        np.testing.assert_array_equal(dynamic_ntk_inv_freq(64, 10000.0, factor, seq_len=seq_len, original_max_len=original), inv_freq(64))


def slow_yarn(d, base, factor, original, beta_fast, beta_slow):
    """The ramp written out pair by pair, without rounding the ends (truncate=False)."""
    out = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        start = d * math.log(original / (2 * math.pi * beta_fast)) / (2 * math.log(base))
        stop = d * math.log(original / (2 * math.pi * beta_slow)) / (2 * math.log(base))
        start, stop = max(start, 0), min(stop, d - 1)
        fraction = min(1.0, max(0.0, (i - start) / (stop - start)))
        keep = 1 - fraction
        out.append(keep * theta + (1 - keep) * theta / factor)
    return np.array(out)


@given(st.sampled_from([32, 64, 128]), st.sampled_from([10000.0, 500000.0]), st.floats(1.5, 32.0), st.sampled_from([2048, 4096, 8192]))
def test_yarn_against_a_pair_by_pair_reference(d, base, factor, original):
    ours = yarn_inv_freq(d, base, factor, original_max_len=original, truncate=False)
    np.testing.assert_allclose(ours, slow_yarn(d, base, factor, original, 32.0, 1.0), rtol=1e-12)


def test_yarn_ramp_ends_and_the_correction_pairs():
    d, base, original = 128, 10000.0, 4096
    gamma = yarn_ramp(d, base, original_max_len=original)
    start, stop = yarn_correction_pair(32, d, base, original), yarn_correction_pair(1, d, base, original)
    # the pair at `start` turns exactly 32 times over L, the pair at `stop` once
    assert original * base ** (-2 * start / d) / (2 * math.pi) == pytest.approx(32)
    assert original * base ** (-2 * stop / d) / (2 * math.pi) == pytest.approx(1)
    assert np.all(gamma[: math.floor(start) + 1] == 1) and np.all(gamma[math.ceil(stop) :] == 0)
    assert np.all(np.diff(gamma) <= 0)
    new = yarn_inv_freq(d, base, 8.0, original_max_len=original)
    np.testing.assert_array_equal(new[gamma == 1], inv_freq(d, base)[gamma == 1])
    np.testing.assert_allclose(new[gamma == 0], inv_freq(d, base)[gamma == 0] / 8.0, rtol=1e-15)


def test_yarn_attention_factor():
    assert yarn_attention_factor(1.0) == 1.0
    assert yarn_attention_factor(16.0) == pytest.approx(0.1 * math.log(16) + 1)


@given(st.floats(1.0, 1e7), st.floats(1.0, 32.0))
def test_llama3_rule_pair_by_pair(wavelength, factor):
    """Kept below L/4 = 2048, divided by the factor above L = 8192, a linear blend in L/λ between."""
    freq = 2 * math.pi / wavelength
    (new,) = llama3_scale_freqs([freq], factor)
    if wavelength < 2048:
        assert new == freq
    elif wavelength > 8192:
        assert new == pytest.approx(freq / factor, rel=1e-15)
    else:
        smooth = (8192 / wavelength - 1) / 3
        assert new == pytest.approx((1 - smooth) * freq / factor + smooth * freq, rel=1e-12)


def test_llama3_rule_is_continuous_at_both_boundaries():
    for wavelength, limit in [(2048.0, 1.0), (8192.0, 1 / 8)]:
        freqs = 2 * math.pi / np.array([wavelength * (1 - 1e-12), wavelength, wavelength * (1 + 1e-12)])
        np.testing.assert_allclose(llama3_scale_freqs(freqs) / freqs, limit, rtol=1e-9)
    assert LLAMA3_BASE == 500000.0
    theta = inv_freq(128, LLAMA3_BASE)
    lam = 2 * np.pi / theta
    ratio = llama3_inv_freq(128) / theta
    assert np.all(ratio[lam < 2048] == 1) and np.allclose(ratio[lam > 8192], 1 / 8)


def test_partial_rotary_dim_and_angle_coverage():
    assert partial_rotary_dim(64, 0.25) == 16 and partial_rotary_dim(128, 1.0) == 128
    cover = angle_coverage(128, 10000.0, 4096)
    lam = rope_lib.wavelengths(128)
    np.testing.assert_array_equal(cover == 1, 4095 >= lam)
    np.testing.assert_allclose(cover[cover < 1], 4095 / lam[cover < 1])
    np.testing.assert_allclose(angle_coverage(128, 10000.0, 4 * 4095 + 1, freqs=inv_freq(128) / 4), cover, rtol=1e-12)  # PI: 4× the length, the same angles


@pytest.mark.parametrize("method", rope_lib.scaling.METHODS)
def test_rope_scaling_dispatches_to_the_rules(method):
    rule = RopeScaling(method, 4.0, original_max_len=2048)
    expected = {
        "linear": position_interpolation_inv_freq(64, 10000.0, 4.0),
        "ntk": ntk_inv_freq(64, 10000.0, 4.0),
        "dynamic": dynamic_ntk_inv_freq(64, 10000.0, 4.0, seq_len=5000, original_max_len=2048),
        "yarn": yarn_inv_freq(64, 10000.0, 4.0, original_max_len=2048),
        "llama3": llama3_inv_freq(64, 10000.0, 4.0, original_max_len=2048),
    }[method]
    np.testing.assert_array_equal(rule.frequencies(64, 10000.0, seq_len=5000), expected)
    assert rule.is_dynamic == (method == "dynamic")
    assert rule.attention_factor == (yarn_attention_factor(4.0) if method == "yarn" else 1.0)


# ---------- the plug-in points ----------


def test_inv_freq_and_rotary_dim_against_the_matrix_reference():
    """Partial rotary with rescaled frequencies = the block-diagonal rotation of the first coordinates."""
    b, t, h, d, rotary = 2, 5, 3, 24, 8
    x = torch.randn(b, t, h, d, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    positions = torch.arange(3000, 3000 + t)
    freqs = yarn_inv_freq(rotary, 10000.0, 4.0, original_max_len=64)
    out = apply_rope(x, positions, inv_freq=freqs, rotary_dim=rotary, attention_factor=1.3)
    expected = np.empty_like(x.numpy())
    for m_index, m in enumerate(positions.tolist()):
        R = np.zeros((rotary, rotary))
        for i, th in enumerate(freqs):
            R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = rope_lib.rotation_matrix_2d(m * th)
        expected[:, m_index, :, :rotary] = 1.3 * x[:, m_index, :, :rotary].numpy() @ R.T
        expected[:, m_index, :, rotary:] = x[:, m_index, :, rotary:].numpy()
    np.testing.assert_allclose(out.numpy(), expected, rtol=0, atol=1e-9)


def test_plain_defaults_are_unchanged():
    x = torch.randn(1, 6, 2, 16, dtype=torch.float64)
    pos = torch.arange(6)
    torch.testing.assert_close(apply_rope(x, pos), apply_rope(x, pos, inv_freq=inv_freq(16), attention_factor=1.0, rotary_dim=16), rtol=0, atol=0)
    torch.testing.assert_close(apply_rope(x, pos), torch.from_numpy(apply_rope_matrix(x.numpy(), pos.numpy())), rtol=0, atol=1e-12)
    torch.testing.assert_close(rope_angles(pos, 16, inv_freq=torch.from_numpy(inv_freq(16))), rope_angles(pos, 16), rtol=0, atol=0)
    cos, sin = rope_cos_sin(pos, 16, attention_factor=2.0, dtype=torch.float64)
    cos1, sin1 = rope_cos_sin(pos, 16, dtype=torch.float64)
    torch.testing.assert_close((cos, sin), (2 * cos1, 2 * sin1), rtol=0, atol=0)


def test_rotate_pairs_with_rotary_dim_passes_the_rest_through():
    x = torch.randn(1, 4, 2, 12)
    cos, sin = rope_cos_sin(range(4), 4)
    out = rotate_pairs(x, cos, sin, layout="half", rotary_dim=4)
    torch.testing.assert_close(out[..., 4:], x[..., 4:], rtol=0, atol=0)
    torch.testing.assert_close(out[..., :4], rotate_pairs(x[..., :4].contiguous(), cos, sin, layout="half"), rtol=0, atol=0)


@pytest.mark.parametrize("method", ["ntk", "yarn", "llama3", "linear"])
def test_attention_with_a_static_rule_caches_consistently(method):
    torch.manual_seed(0)
    rule = RopeScaling(method, 4.0, original_max_len=8)
    attention = Attention(32, 2, max_seq_len=32, scaling=rule, rotary_dim=8, device="cpu", dtype=torch.float64)
    x = torch.randn(1, 20, 32, dtype=torch.float64)
    with torch.no_grad():
        full = attention(x, 0)
        attention.reset_cache()
        steps = torch.cat([attention(x[:, :5], 0)] + [attention(x[:, t : t + 1], t) for t in range(5, 20)], dim=1)
        scores = attention.scores(x, torch.arange(20))
        shifted = attention.scores(x, torch.arange(7, 27))
    torch.testing.assert_close(steps, full, rtol=0, atol=1e-12)
    torch.testing.assert_close(scores, shifted, rtol=0, atol=1e-9)  # still relative-only


def test_attention_with_dynamic_ntk_shows_the_cache_pitfall():
    """Within the original length cached decoding matches a full pass; past it the cached keys keep the old base."""
    torch.manual_seed(0)
    rule = RopeScaling("dynamic", 4.0, original_max_len=8)
    attention = Attention(32, 2, max_seq_len=32, scaling=rule, device="cpu", dtype=torch.float64)
    x = torch.randn(1, 20, 32, dtype=torch.float64)
    with torch.no_grad():
        full = attention(x, 0)
        attention.reset_cache()
        steps = torch.cat([attention(x[:, :4], 0)] + [attention(x[:, t : t + 1], t) for t in range(4, 20)], dim=1)
        short = attention(x[:, :8], 0)
    gaps = (steps - full).abs().amax(dim=(0, 2))
    assert gaps[19] > 1e-3  # the full pass used the base for length 20 everywhere
    # a full pass over 8 tokens uses the original base, like the prefix of the step-by-step run
    attention.reset_cache()
    with torch.no_grad():
        again = torch.cat([attention(x[:, :4], 0)] + [attention(x[:, t : t + 1], t) for t in range(4, 8)], dim=1)
    torch.testing.assert_close(again, short, rtol=0, atol=1e-12)
    freqs = rule.frequencies(16, 10000.0, 20)
    with torch.no_grad():
        q, k, _ = attention._project(x)
    expected = torch.einsum(
        "bthd,bshd->bhts", apply_rope(q, torch.arange(20), inv_freq=freqs), apply_rope(k, torch.arange(20), inv_freq=freqs)
    ) / 4
    torch.testing.assert_close(attention.scores(x, torch.arange(20)).detach(), expected.detach(), rtol=0, atol=1e-9)


# ---------- bad input ----------


def test_bad_factors_and_settings_are_refused():
    with pytest.raises(ValueError, match=r"factor must be at least 1"):
        position_interpolation_inv_freq(8, 10000.0, 0.5)
    with pytest.raises(TypeError, match=r"factor must be a finite real number"):
        ntk_inv_freq(8, 10000.0, float("nan"))
    with pytest.raises(ValueError, match=r"d must be at least 4"):
        ntk_base(2, 10000.0, 2.0)
    with pytest.raises(ValueError, match=r"seq_len must be a positive integer"):
        dynamic_ntk_factor(2.0, 0, 16)
    with pytest.raises(ValueError, match=r"beta_slow and beta_fast must satisfy"):
        yarn_ramp(64, original_max_len=4096, beta_fast=1.0, beta_slow=32.0)
    with pytest.raises(ValueError, match=r"low_freq_factor and high_freq_factor must satisfy"):
        llama3_scale_freqs([0.1], low_freq_factor=4.0, high_freq_factor=1.0)
    with pytest.raises(ValueError, match=r"partial_rotary_factor must lie in \(0, 1\]"):
        partial_rotary_dim(64, 1.5)
    with pytest.raises(ValueError, match=r"must be a positive even integer"):
        partial_rotary_dim(64, 0.3)  # int(19.2) = 19
    with pytest.raises(ValueError, match=r"method must be one of"):
        RopeScaling("rope", 2.0)
    with pytest.raises(ValueError, match=r"original_max_len \(the trained context length\) is needed by method 'yarn'"):
        RopeScaling("yarn", 2.0)


def test_bad_plug_in_arguments_are_refused():
    x = torch.randn(1, 4, 2, 16)
    with pytest.raises(ValueError, match=r"inv_freq must have shape \(rotary_dim/2,\) = \(8,\), got \(7,\)"):
        apply_rope(x, range(4), inv_freq=np.ones(7))
    with pytest.raises(ValueError, match=r"inv_freq must hold positive finite frequencies"):
        apply_rope(x, range(4), inv_freq=-np.ones(8))
    with pytest.raises(TypeError, match=r"inv_freq must hold real numbers"):
        apply_rope(x, range(4), inv_freq=np.array(["a"] * 8))
    with pytest.raises(ValueError, match=r"attention_factor must be greater than 0"):
        apply_rope(x, range(4), attention_factor=0.0)
    with pytest.raises(TypeError, match=r"attention_factor must be a finite real number"):
        rope_cos_sin(range(4), 16, attention_factor="2")
    with pytest.raises(ValueError, match=r"rotary_dim must be at most the head dimension D=16, got 18"):
        apply_rope(x, range(4), rotary_dim=18)
    with pytest.raises(ValueError, match=r"rotary_dim must be a positive even integer"):
        apply_rope(x, range(4), rotary_dim=5)
    cos, sin = rope_cos_sin(range(4), 16)
    with pytest.raises(ValueError, match=r"cos must have shape \(T, rotary_dim/2\) = \(4, 2\)"):
        rotate_pairs(x, cos, sin, rotary_dim=4)
    with pytest.raises(TypeError, match=r"scaling must be a rope_lib.RopeScaling or None"):
        Attention(32, 2, device="cpu", scaling={"rope_type": "yarn"})
    with pytest.raises(ValueError, match=r"rotary_dim must be at most the head dimension D=16"):
        Attention(32, 2, device="cpu", rotary_dim=32)
