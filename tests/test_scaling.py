"""rope_lib.scaling: the context-extension rules against slow, obvious references and against the packages
practitioners run, installed (never copied in): Hugging Face transformers' rope-initialisation functions and Meta's
`apply_scaling` from llama-models; their plug-in points (apply_rope, rope_cos_sin, rotate_pairs, a model's
attention); and their bad-input errors.

Hugging Face computes its frequencies in float32, so those comparisons allow float32 rounding; Meta's
`apply_scaling` is fed float64 frequencies and must agree to float64 rounding.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import rope_lib
from rope_lib import apply_rope, inv_freq, precompute_freqs_cis, rope_cos_sin, RopeScaling, scaling
from rope_lib.kernels import rotate_pairs_fused
from rope_lib.rope import rope_angles, rotate_pairs
from rope_lib.rotation import apply_rope_matrix
from rope_lib.scaling import (
    angle_coverage,
    deepseek_yarn_attention_factor,
    dynamic_ntk_factor,
    dynamic_ntk_inv_freq,
    LLAMA3_BASE,
    llama3_inv_freq,
    llama3_scale_inv_freq,
    llama3_wavelength_bounds,
    METHOD_FIELDS,
    ntk_base,
    ntk_inv_freq,
    partial_rotary_dim,
    position_interpolation_inv_freq,
    RULE_ONLY_FIELDS,
    SCALING_RULES,
    yarn_attention_factor,
    yarn_correction_pair,
    yarn_inv_freq,
    yarn_ramp,
)

from attention_block import Block


dims = st.sampled_from([4, 8, 16, 64, 128])
factors = st.floats(1.0, 64.0)
bases = st.floats(100.0, 1e7)


@given(dims, bases, factors)
def test_position_interpolation_is_squeezing_the_positions(d, base, factor):
    """θ'_i = θ_i/s, so the angle at position s·m equals the old angle at m."""
    m = np.arange(0, 50)
    np.testing.assert_allclose(np.outer(factor * m, position_interpolation_inv_freq(d, base, factor)), rope_lib.frequencies.angles(m, d, base), rtol=1e-12, atol=1e-12)


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
    (new,) = llama3_scale_inv_freq([freq], factor)
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
        np.testing.assert_allclose(llama3_scale_inv_freq(freqs) / freqs, limit, rtol=1e-9)
    assert LLAMA3_BASE == 500000.0
    theta = inv_freq(128, LLAMA3_BASE)
    lam = 2 * np.pi / theta
    ratio = llama3_inv_freq(128) / theta
    assert np.all(ratio[lam < 2048] == 1) and np.allclose(ratio[lam > 8192], 1 / 8)


def llama3_expected_ratio(wavelength, factor, low, high, original):
    """θ'/θ of the Llama 3.1 rule at one wavelength, written from the rule's definition (Dubey et al. 2024)."""
    if wavelength < original / high:
        return 1.0
    if wavelength > original / low:
        return 1 / factor
    smooth = (original / wavelength - low) / (high - low)
    return (1 - smooth) / factor + smooth


LLAMA3_SETTINGS = [(8.0, 1.0, 4.0, 8192), (4.0, 2.0, 8.0, 4096), (32.0, 1.0, 4.0, 8192)]
"""(factor, low_freq_factor, high_freq_factor, original_max_len): Llama 3.1's own, and two others."""


def llama3_threshold_wavelengths(low, high, original):
    """Wavelengths one position (and half a position) either side of both thresholds L/high and L/low."""
    return np.array([edge + step for edge in (original / high, original / low) for step in (-1.0, -0.5, 0.5, 1.0)])


def llama3_threshold_mismatches(factor, low, high, original):
    """The wavelengths near the thresholds where `llama3_scale_inv_freq` leaves the rule's definition."""
    lam = llama3_threshold_wavelengths(low, high, original)
    ours = llama3_scale_inv_freq(2 * np.pi / lam, factor, low_freq_factor=low, high_freq_factor=high, original_max_len=original) / (2 * np.pi / lam)
    expected = np.array([llama3_expected_ratio(w, factor, low, high, original) for w in lam])
    return [float(w) for w, a, b in zip(lam, ours, expected) if not math.isclose(a, b, rel_tol=1e-12)]


@pytest.mark.parametrize("factor, low, high, original", LLAMA3_SETTINGS)
def test_llama3_rule_just_inside_and_outside_both_thresholds(factor, low, high, original):
    """Half a position inside L/high the frequency is already blended, half a position past L/low divided."""
    assert llama3_wavelength_bounds(original, low, high) == (original / high, original / low)
    assert llama3_threshold_mismatches(factor, low, high, original) == []
    lam = llama3_threshold_wavelengths(low, high, original)
    freqs = 2 * np.pi / lam
    ratio = llama3_scale_inv_freq(freqs, factor, low_freq_factor=low, high_freq_factor=high, original_max_len=original) / freqs
    assert np.all(ratio[:2] == 1) and np.all(ratio[2:4] < 1 - 1e-5)  # kept below L/high, blended just above
    assert np.all(ratio[4:6] > 1 / factor + 1e-6) and np.allclose(ratio[6:], 1 / factor, rtol=1e-15)  # blended below L/low, divided above


@pytest.mark.parametrize("shift", [(1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 1.0)])
@pytest.mark.parametrize("factor, low, high, original", LLAMA3_SETTINGS)
def test_llama3_threshold_tests_catch_a_threshold_moved_by_one_position(monkeypatch, factor, low, high, original, shift):
    """Plant the bug (2048 → 2049, 8192 → 8191, or the other way): the threshold check must see it."""
    true_bounds = llama3_wavelength_bounds

    def moved(original_max_len, low_freq_factor, high_freq_factor):
        short, long = true_bounds(original_max_len, low_freq_factor, high_freq_factor)
        return short + shift[0], long + shift[1]

    monkeypatch.setattr(scaling, "llama3_wavelength_bounds", moved)
    assert llama3_threshold_mismatches(factor, low, high, original) != []


def test_partial_rotary_dim_and_angle_coverage():
    assert partial_rotary_dim(64, 0.25) == 16 and partial_rotary_dim(128, 1.0) == 128
    cover = angle_coverage(128, 10000.0, 4096)
    lam = rope_lib.frequencies.wavelengths(128)
    np.testing.assert_array_equal(cover == 1, 4095 >= lam)
    np.testing.assert_allclose(cover[cover < 1], 4095 / lam[cover < 1])
    np.testing.assert_allclose(angle_coverage(128, 10000.0, 4 * 4095 + 1, inv_freq=inv_freq(128) / 4), cover, rtol=1e-12)  # PI: 4× the length, the same angles


@pytest.mark.parametrize("method", rope_lib.scaling.FACTOR_RULES)
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


def test_the_table_names_every_rule_and_rope_scaling_reads_it(monkeypatch):
    assert tuple(SCALING_RULES) == rope_lib.scaling.METHODS == ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional")
    assert rope_lib.scaling.FACTOR_RULES == ("linear", "ntk", "dynamic", "yarn", "llama3")
    assert all(callable(rule) for rule in SCALING_RULES.values())
    with pytest.raises(TypeError):
        SCALING_RULES["mine"] = lambda rule, d, base, seq_len: inv_freq(d, base)  # read-only: METHODS cannot drift from it
    for method, compute in SCALING_RULES.items():
        sets = {"short_factor": (1.5,) * 32, "long_factor": (4.0,) * 32} if method == "longrope" else {}
        rule = RopeScaling(method, 4.0, original_max_len=2048, **sets)
        np.testing.assert_array_equal(rule.frequencies(64, 10000.0, 5000), compute(rule, 64, 10000.0, 5000))
    calls = []

    def spy(rule, d, base, seq_len):
        calls.append((rule.method, d, base, seq_len))
        return np.full(d // 2, 0.5)

    monkeypatch.setattr(scaling, "SCALING_RULES", {**SCALING_RULES, "linear": spy})
    np.testing.assert_array_equal(RopeScaling("linear", 2.0).frequencies(8, 100.0, 7), np.full(4, 0.5))
    assert calls == [("linear", 8, 100.0, 7)]


def test_scaled_frequencies_reads_the_table():
    from rope_lib.scaling import scaled_frequencies

    for method in rope_lib.scaling.FACTOR_RULES:
        compute = SCALING_RULES[method]
        rule = RopeScaling(method, 4.0, original_max_len=1024)
        freqs, attention = scaled_frequencies(method, 4.0, 64, 10000.0, 1024)
        np.testing.assert_array_equal(freqs, compute(rule, 64, 10000.0, 4096))
        assert attention == rule.attention_factor
    with pytest.raises(ValueError, match=r"method must be 'none' or one of FACTOR_RULES \('linear', 'ntk', 'dynamic', 'yarn', 'llama3'\), got 'rope'"):
        scaled_frequencies("rope", 4.0, 64, 10000.0, 1024)


def test_every_rule_has_a_display_name_and_the_widget_offers_every_rule():
    from rope_lib.teach.longer_contexts import METHOD_NAMES
    from rope_lib.teach.longer_contexts import context_extension_explorer

    assert list(METHOD_NAMES) == ["none", *rope_lib.scaling.FACTOR_RULES]
    assert all(isinstance(name, str) and name for name in METHOD_NAMES.values())
    assert len(set(METHOD_NAMES.values())) == len(METHOD_NAMES)
    (method,) = [c for c in context_extension_explorer().controls if c.name == "method"]
    assert method.values == rope_lib.scaling.FACTOR_RULES
    assert [method.fmt(m) for m in method.values] == [METHOD_NAMES[m] for m in rope_lib.scaling.FACTOR_RULES]


# ---------- YaRN's attention factor: mscale, mscale_all_dim and an explicit value ----------


def test_yarn_attention_factor_with_mscale():
    assert yarn_attention_factor(40.0, mscale=0.707) == pytest.approx(0.1 * 0.707 * math.log(40) + 1, rel=1e-15)
    assert yarn_attention_factor(40.0) == yarn_attention_factor(40.0, mscale=1.0)
    assert yarn_attention_factor(1.0, mscale=5.0) == 1.0
    assert deepseek_yarn_attention_factor(40.0, 1.0, 1.0) == 1.0
    assert deepseek_yarn_attention_factor(40.0, 0.707, 1.0) == pytest.approx((0.0707 * math.log(40) + 1) / (0.1 * math.log(40) + 1), rel=1e-15)
    with pytest.raises(ValueError, match=r"mscale must be greater than 0"):
        yarn_attention_factor(4.0, mscale=0.0)
    with pytest.raises(TypeError, match=r"mscale_all_dim must be a finite real number"):
        deepseek_yarn_attention_factor(4.0, 1.0, float("nan"))


@pytest.mark.parametrize(
    "settings, expected",
    [
        ({}, 0.1 * math.log(40) + 1),  # the paper's √(1/t)
        ({"mscale": 1.0, "mscale_all_dim": 1.0}, 1.0),  # DeepSeek-V2/V3: the ratio of two equal mscales
        ({"mscale": 0.707, "mscale_all_dim": 1.0}, (0.0707 * math.log(40) + 1) / (0.1 * math.log(40) + 1)),
        ({"mscale": 0.707, "attention_factor_override": 0.9}, 0.9),  # a lone mscale is allowed beside an explicit value
        ({"attention_factor_override": 0.8}, 0.8),
        ({"attention_factor_override": 1.25, "mscale": 1.0, "mscale_all_dim": 1.0}, 1.25),  # an explicit value wins
    ],
)
def test_rope_scaling_attention_factor_for_yarn(settings, expected):
    rule = RopeScaling("yarn", 40.0, original_max_len=4096, **settings)
    assert rule.attention_factor == pytest.approx(expected, rel=1e-15)
    np.testing.assert_array_equal(rule.frequencies(64, 10000.0), yarn_inv_freq(64, 10000.0, 40.0, original_max_len=4096))  # frequencies unchanged


def test_attention_multiplies_cos_and_sin_by_the_resolved_factor():
    def first_cos(rule):
        return float(Block(dim=32, n_heads=2, max_seq_len=8, scaling=rule).model.rope.cos[0, 0])

    assert first_cos(RopeScaling("yarn", 40.0, original_max_len=8)) == pytest.approx(0.1 * math.log(40) + 1, rel=1e-15)
    assert first_cos(RopeScaling("yarn", 40.0, original_max_len=8, mscale=1.0, mscale_all_dim=1.0)) == 1.0
    assert first_cos(RopeScaling("yarn", 40.0, original_max_len=8, attention_factor_override=0.5)) == 0.5


# ---------- the plug-in points ----------


def test_inv_freq_and_rotary_dim_against_the_matrix_reference():
    """Partial rotary with rescaled frequencies = the block-diagonal rotation of the first coordinates."""
    b, t, h, d, rotary = 2, 5, 3, 24, 8
    x = torch.randn(b, t, h, d, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    positions = torch.arange(3000, 3000 + t)
    freqs = yarn_inv_freq(rotary, 10000.0, 4.0, original_max_len=64)
    out = apply_rope(x, positions, inv_freq=freqs, rotary_dim=rotary, attention_factor=1.3, layout="interleaved")
    expected = np.empty_like(x.numpy())
    for m_index, m in enumerate(positions.tolist()):
        R = np.zeros((rotary, rotary))
        for i, th in enumerate(freqs):
            R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = rope_lib.rotation.rotation_matrix_2d(m * th)
        expected[:, m_index, :, :rotary] = 1.3 * x[:, m_index, :, :rotary].numpy() @ R.T
        expected[:, m_index, :, rotary:] = x[:, m_index, :, rotary:].numpy()
    np.testing.assert_allclose(out.numpy(), expected, rtol=0, atol=1e-9)


def test_plain_defaults_are_unchanged():
    x = torch.randn(1, 6, 2, 16, dtype=torch.float64)
    pos = torch.arange(6)
    torch.testing.assert_close(apply_rope(x, pos, layout="interleaved"), apply_rope(x, pos, inv_freq=inv_freq(16), attention_factor=1.0, rotary_dim=16, layout="interleaved"), rtol=0, atol=0)
    torch.testing.assert_close(apply_rope(x, pos, layout="interleaved"), torch.from_numpy(apply_rope_matrix(x.numpy(), pos.numpy())), rtol=0, atol=1e-12)
    torch.testing.assert_close(rope_angles(pos, 16, inv_freq=torch.from_numpy(inv_freq(16))), rope_angles(pos, 16), rtol=0, atol=0)
    cos, sin = rope_cos_sin(pos, 16, attention_factor=2.0, dtype=torch.float64)
    cos1, sin1 = rope_cos_sin(pos, 16, dtype=torch.float64)
    torch.testing.assert_close((cos, sin), (2 * cos1, 2 * sin1), rtol=0, atol=0)


def test_yarn_through_scaling_equals_its_frequencies_and_factor_passed_by_hand():
    """apply_rope(scaling=rule, layout="interleaved") takes both from the rule, so the factor on cos and sin cannot be forgotten."""
    x = torch.randn(2, 6, 3, 24, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    positions = torch.arange(3000, 3006)
    rule = RopeScaling("yarn", 8.0, original_max_len=512)
    by_hand = apply_rope(x, positions, inv_freq=rule.frequencies(16, 10000.0), attention_factor=rule.attention_factor, rotary_dim=16, layout="interleaved")
    torch.testing.assert_close(apply_rope(x, positions, scaling=rule, rotary_dim=16, layout="interleaved"), by_hand, rtol=0, atol=0)
    assert not torch.allclose(apply_rope(x, positions, inv_freq=rule.frequencies(16, 10000.0), rotary_dim=16, layout="interleaved"), by_hand)  # the factor matters
    cos, sin = rope_cos_sin(positions, 16, scaling=rule, dtype=torch.float64)
    want = rope_cos_sin(positions, 16, inv_freq=rule.frequencies(16, 10000.0), attention_factor=rule.attention_factor, dtype=torch.float64)
    torch.testing.assert_close((cos, sin), want, rtol=0, atol=0)


@pytest.mark.parametrize("method", ["dynamic", "longrope"])
def test_a_rule_that_depends_on_the_length_takes_the_length_the_positions_reach(method):
    """As Hugging Face does: the largest position + 1. Past the trained length L the rule rescales; up to it, not."""
    sets = {"short_factor": (1.0,) * 4, "long_factor": (3.0,) * 4} if method == "longrope" else {}
    rule = RopeScaling(method, 4.0, original_max_len=64, **sets)
    for positions in (torch.arange(10, 40), torch.arange(100, 130)):
        cos, _ = rope_cos_sin(positions, 8, scaling=rule, dtype=torch.float64)
        freqs = rule.frequencies(8, 10000.0, int(positions.max()) + 1)
        want, _ = rope_cos_sin(positions, 8, inv_freq=freqs, attention_factor=rule.attention_factor, dtype=torch.float64)
        torch.testing.assert_close(cos, want, rtol=0, atol=0)
    with pytest.raises(ValueError, match=r"positions must include one ≥ 0"):
        rope_cos_sin(torch.arange(-5, 0), 8, scaling=rule)


def test_scaling_comes_alone():
    rule = RopeScaling("yarn", 8.0, original_max_len=512)
    x = torch.randn(1, 4, 2, 16)
    with pytest.raises(ValueError, match=r"pass scaling or inv_freq, not both"):
        apply_rope(x, range(4), scaling=rule, inv_freq=inv_freq(16), layout="interleaved")
    with pytest.raises(ValueError, match=r"pass scaling or inv_freq, not both"):
        rope_cos_sin(range(4), 16, scaling=rule, inv_freq=inv_freq(16))
    with pytest.raises(ValueError, match=r"pass scaling or attention_factor, not both"):
        apply_rope(x, range(4), scaling=rule, attention_factor=2.0, layout="interleaved")
    with pytest.raises(TypeError, match=r"scaling must be a rope_lib.RopeScaling or None, got dict"):
        apply_rope(x, range(4), scaling={"rope_type": "yarn"}, layout="interleaved")


def test_every_rule_has_one_field_rule():
    """As Hugging Face keeps one validation per rope_type: METHOD_FIELDS has an entry for each rule of SCALING_RULES, and
    every field only some rules use is read by one of them."""
    assert tuple(METHOD_FIELDS) == tuple(SCALING_RULES)
    used = {name for needs, reads in METHOD_FIELDS.values() for name in needs + reads}
    assert set(RULE_ONLY_FIELDS) == used - {"original_max_len"}


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
    attention = Block(dim=32, n_heads=2, max_seq_len=32, scaling=rule, rotary_dim=8)
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
    attention = Block(dim=32, n_heads=2, max_seq_len=32, scaling=rule)
    x = torch.randn(1, 20, 32, dtype=torch.float64)
    with torch.no_grad():
        attention.attention.wqkv.weight.normal_(0.0, 0.3)  # scores of order 1: the softmax sees the angles
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
        wq, wk, _ = attention.attention.qkv_weights()
        q, k = (x @ wq.T).view(*x.shape[:2], -1, 16), (x @ wk.T).view(*x.shape[:2], -1, 16)
    expected = torch.einsum(
        "bthd,bshd->bhts", apply_rope(q, torch.arange(20), inv_freq=freqs, layout="interleaved"), apply_rope(k, torch.arange(20), inv_freq=freqs, layout="interleaved")
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
        llama3_scale_inv_freq([0.1], low_freq_factor=4.0, high_freq_factor=1.0)
    with pytest.raises(ValueError, match=r"partial_rotary_factor must lie in \(0, 1\]"):
        partial_rotary_dim(64, 1.5)
    with pytest.raises(ValueError, match=r"must be a positive even integer"):
        partial_rotary_dim(64, 0.3)  # int(19.2) = 19
    with pytest.raises(ValueError, match=r"method must be one of"):
        RopeScaling("rope", 2.0)
    with pytest.raises(ValueError, match=r"original_max_len \(the trained context length\) is needed by method 'yarn'"):
        RopeScaling("yarn", 2.0)


GOOD = {"method": "yarn", "factor": 4.0, "original_max_len": 4096}


@pytest.mark.parametrize(
    "changes, error, message",
    [
        ({"method": 3}, ValueError, r"method must be one of SCALING_RULES \('linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional'\), got 3"),
        ({"method": ["yarn"]}, ValueError, r"method must be one of SCALING_RULES"),
        ({"method": "none"}, ValueError, r"method must be one of SCALING_RULES .*, got 'none'"),
        ({"factor": 0.5}, ValueError, r"factor must be at least 1"),
        ({"factor": float("nan")}, TypeError, r"factor must be a finite real number"),
        ({"factor": "4"}, TypeError, r"factor must be a finite real number"),
        ({"original_max_len": 4096.0}, TypeError, r"original_max_len must be an int"),
        ({"original_max_len": 0}, ValueError, r"original_max_len must be a positive integer"),
        ({"original_max_len": None}, ValueError, r"original_max_len \(the trained context length\) is needed by method 'yarn'"),
        ({"beta_fast": 1.0, "beta_slow": 32.0}, ValueError, r"beta_slow and beta_fast must satisfy 0 < beta_slow < beta_fast, got beta_slow=32.0 and beta_fast=1.0"),
        ({"beta_fast": 2.0, "beta_slow": 2.0}, ValueError, r"beta_slow and beta_fast must satisfy 0 < beta_slow < beta_fast"),
        ({"beta_slow": 0.0}, ValueError, r"beta_slow and beta_fast must satisfy 0 < beta_slow < beta_fast"),
        ({"beta_fast": float("nan")}, TypeError, r"beta_fast must be a finite real number, got nan"),
        ({"beta_slow": float("inf")}, TypeError, r"beta_slow must be a finite real number, got inf"),
        ({"beta_fast": "32"}, TypeError, r"beta_fast must be a finite real number"),
        ({"truncate": "no"}, TypeError, r"truncate must be True or False, got 'no'"),
        ({"truncate": 1}, TypeError, r"truncate must be True or False, got 1"),
        ({"truncate": None}, TypeError, r"truncate must be True or False, got None"),
        ({"method": "llama3", "low_freq_factor": 4.0, "high_freq_factor": 4.0}, ValueError,
         r"low_freq_factor and high_freq_factor must satisfy 0 < low_freq_factor < high_freq_factor, got low_freq_factor=4.0 and high_freq_factor=4.0"),
        ({"method": "llama3", "low_freq_factor": 4.0, "high_freq_factor": 1.0}, ValueError, r"low_freq_factor and high_freq_factor must satisfy"),
        ({"method": "llama3", "low_freq_factor": 0.0}, ValueError, r"low_freq_factor and high_freq_factor must satisfy"),
        ({"method": "llama3", "high_freq_factor": float("nan")}, TypeError, r"high_freq_factor must be a finite real number"),
        ({"method": "linear", "beta_fast": float("nan")}, TypeError, r"beta_fast must be a finite real number"),  # every field, whatever the rule
        ({"method": "ntk", "low_freq_factor": 2.0, "high_freq_factor": 1.0}, ValueError, r"low_freq_factor and high_freq_factor must satisfy"),
        ({"mscale": 0.0}, ValueError, r"mscale must be greater than 0 \(or None\)"),
        ({"mscale": -1.0}, ValueError, r"mscale must be greater than 0"),
        ({"mscale": float("nan")}, TypeError, r"mscale must be a finite real number"),
        ({"mscale_all_dim": 0.0}, ValueError, r"mscale_all_dim must be greater than 0 \(or None\)"),
        ({"mscale_all_dim": "1"}, TypeError, r"mscale_all_dim must be a finite real number"),
        ({"attention_factor_override": 0.0}, ValueError, r"attention_factor_override must be greater than 0"),
        ({"attention_factor_override": float("inf")}, TypeError, r"attention_factor_override must be a finite real number"),
        ({"mscale": 0.707}, ValueError, r"mscale and mscale_all_dim are used together"),  # readers disagree on a lone one
        ({"mscale_all_dim": 0.707}, ValueError, r"mscale and mscale_all_dim are used together"),
        ({"method": "linear", "mscale": 1.0}, ValueError, r"mscale is used only by method 'yarn', got method 'linear'"),
        ({"method": "llama3", "mscale_all_dim": 1.0}, ValueError, r"mscale_all_dim is used only by method 'yarn', got method 'llama3'"),
        ({"method": "dynamic", "attention_factor_override": 1.0}, ValueError, r"attention_factor_override is used only by methods 'yarn' and 'longrope'"),
    ],
)
def test_rope_scaling_refuses_bad_fields_at_construction(changes, error, message):
    """The error names the field when the rule is built, not later inside a model."""
    with pytest.raises(error, match=message):
        RopeScaling(**(GOOD | changes))


def test_rope_scaling_accepts_good_fields():
    RopeScaling("yarn", 4, original_max_len=4096, beta_fast=16, beta_slow=2, truncate=False, mscale=0.707, mscale_all_dim=0.707)
    RopeScaling("llama3", 8.0, original_max_len=8192, low_freq_factor=np.float64(1.0), high_freq_factor=4)
    RopeScaling("linear", 2.0)
    with pytest.raises(ValueError, match=r"seq_len must be a positive integer"):
        RopeScaling("dynamic", 2.0, original_max_len=16).frequencies(8, 10000.0, 0)
    with pytest.raises(TypeError, match=r"seq_len must be an int"):
        RopeScaling("linear", 2.0).frequencies(8, 10000.0, 3.5)


def test_bad_plug_in_arguments_are_refused():
    x = torch.randn(1, 4, 2, 16)
    with pytest.raises(ValueError, match=r"inv_freq must have shape \(rotary_dim/2,\) = \(8,\), got \(7,\)"):
        apply_rope(x, range(4), inv_freq=np.ones(7), layout="interleaved")
    with pytest.raises(ValueError, match=r"inv_freq must hold finite frequencies of at least 0"):
        apply_rope(x, range(4), inv_freq=-np.ones(8), layout="interleaved")
    with pytest.raises(TypeError, match=r"inv_freq must hold real numbers"):
        apply_rope(x, range(4), inv_freq=np.array(["a"] * 8), layout="interleaved")
    with pytest.raises(ValueError, match=r"attention_factor must be greater than 0"):
        apply_rope(x, range(4), attention_factor=0.0, layout="interleaved")
    with pytest.raises(TypeError, match=r"attention_factor must be a finite real number"):
        rope_cos_sin(range(4), 16, attention_factor="2")
    with pytest.raises(ValueError, match=r"rotary_dim must be at most the head dimension D=16, got 18"):
        apply_rope(x, range(4), rotary_dim=18, layout="interleaved")
    with pytest.raises(ValueError, match=r"rotary_dim must be a positive even integer"):
        apply_rope(x, range(4), rotary_dim=5, layout="interleaved")
    cos, sin = rope_cos_sin(range(4), 16)
    with pytest.raises(ValueError, match=r"cos must have shape \(T, rotary_dim/2\) = \(4, 2\)"):
        rotate_pairs_fused(x, cos, sin, rotary_dim=4)
    with pytest.raises(TypeError, match=r"scaling must be a rope_lib.RopeScaling or None"):
        Block(dim=32, n_heads=2, scaling={"rope_type": "yarn"})
    with pytest.raises(ValueError, match=r"rotary_dim must be at most the head dimension D=16"):
        Block(dim=32, n_heads=2, rotary_dim=32)


# ---------- LongRoPE and p-RoPE (chapter "RoPE in today's models") ----------


def test_longrope_against_a_pair_by_pair_reference():
    """θ'_i = θ_i / λ_i, one factor per pair; the long set only past the trained length; √(1 + ln s / ln L)."""
    d, base, L = 16, 10000.0, 64
    short, long = tuple(1.0 + 0.1 * i for i in range(8)), tuple(1.0 + 3.0 * i for i in range(8))
    rule = RopeScaling("longrope", 4.0, original_max_len=L, short_factor=short, long_factor=long)
    for seq_len, factors in [(None, short), (1, short), (L, short), (L + 1, long), (10 * L, long)]:
        expected = [base ** (-2 * i / d) / factors[i] for i in range(d // 2)]
        np.testing.assert_allclose(rule.frequencies(d, base, seq_len), expected, rtol=1e-15)
    assert rule.attention_factor == pytest.approx(math.sqrt(1 + math.log(4) / math.log(64)), rel=1e-15)
    assert rope_lib.scaling.longrope_attention_factor(1.0, L) == 1.0
    assert rope_lib.scaling.longrope_uses_long_factors(L + 1, L) and not rope_lib.scaling.longrope_uses_long_factors(L, L)


def test_proportional_against_a_pair_by_pair_reference():
    for d, p, s in [(16, 0.25, 1.0), (16, 0.3, 2.0), (256, 0.25, 1.0), (8, 0.0, 1.0), (8, 1.0, 1.0)]:
        kept = math.floor(p * d / 2)
        expected = [(base ** (-2 * i / d) if i < kept else 0.0) / s for base in [1e6] for i in range(d // 2)]
        np.testing.assert_allclose(rope_lib.scaling.proportional_inv_freq(d, 1e6, p, s), expected, rtol=1e-15, atol=0)
        assert rope_lib.scaling.proportional_kept_pairs(d, p) == kept
    np.testing.assert_array_equal(RopeScaling("proportional", 1.0).frequencies(16, 100.0), inv_freq(16, 100.0))  # p = 1 when unset


def test_proportional_kept_pairs_turn_and_the_rest_pass_through():
    """p-RoPE = apply_rope on the first 2k coordinates (interleaved) with the kept frequencies; zero frequencies do not turn."""
    x = torch.randn(1, 6, 2, 32, dtype=torch.float64)  # (B, T, H, D)
    freqs = rope_lib.scaling.proportional_inv_freq(32, 10000.0, 0.25)
    kept = rope_lib.scaling.proportional_kept_pairs(32, 0.25)
    by_angles = torch.from_numpy(np.outer(np.arange(6), freqs))  # (T, D/2): 0 for the dropped pairs
    reference = rotate_pairs(x, torch.cos(by_angles), torch.sin(by_angles))
    torch.testing.assert_close(apply_rope(x, range(6), rotary_dim=2 * kept, inv_freq=freqs[:kept], layout="interleaved"), reference, rtol=0, atol=1e-12)


def test_config_rotary_dim():
    assert rope_lib.scaling.config_rotary_dim(64) == 64
    assert rope_lib.scaling.config_rotary_dim(64, rotary_pct=0.25) == 16 == rope_lib.scaling.config_rotary_dim(64, partial_rotary_factor=0.25)
    with pytest.raises(ValueError, match=r"set rotary_pct \(GPT-NeoX\) or partial_rotary_factor \(Phi\), not both"):
        rope_lib.scaling.config_rotary_dim(64, rotary_pct=0.25, partial_rotary_factor=0.25)
    with pytest.raises(ValueError, match=r"rotary_pct must lie in \(0, 1\], got 1.5"):
        rope_lib.scaling.config_rotary_dim(64, rotary_pct=1.5)
    with pytest.raises(ValueError, match=r"int\(head_dim · rotary_pct\) = int\(64 · 0.3\) must be a positive even integer"):
        rope_lib.scaling.config_rotary_dim(64, rotary_pct=0.3)


SETS = {"short_factor": (1.0,) * 4, "long_factor": (2.0,) * 4}


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: RopeScaling("longrope", 4.0, original_max_len=64, short_factor=(1.0,) * 4), ValueError, r"long_factor is needed by method 'longrope'"),
        (lambda: RopeScaling("yarn", 4.0, original_max_len=64, **SETS), ValueError, r"short_factor is used only by method 'longrope', got method 'yarn'"),
        (lambda: RopeScaling("longrope", 4.0, **SETS), ValueError, r"original_max_len \(the trained context length\) is needed by method 'longrope'"),
        (lambda: RopeScaling("longrope", 4.0, original_max_len=64, short_factor=[1.0] * 4, long_factor=(2.0,) * 4), TypeError, r"short_factor must be a tuple"),
        (lambda: RopeScaling("longrope", 4.0, original_max_len=64, short_factor=(1.0, 0.0), long_factor=(2.0,) * 4), ValueError, r"short_factor must hold finite factors above 0"),
        (lambda: RopeScaling("longrope", 4.0, original_max_len=64, short_factor=("1",), long_factor=(2.0,)), TypeError, r"short_factor must hold real numbers"),
        (lambda: RopeScaling("longrope", 4.0, original_max_len=64, **SETS).frequencies(16, 10000.0), ValueError, r"short_factor must hold one factor per pair, shape \(d/2,\) = \(8,\), got \(4,\)"),
        (lambda: RopeScaling("longrope", 4.0, original_max_len=64, short_factor=(1.0,) * 4, long_factor=(2.0,) * 3),
         ValueError, r"short_factor and long_factor must hold one factor per pair each, the same number, got 4 and 3"),
        (lambda: rope_lib.scaling.longrope_inv_freq(8, rescale_factors=np.ones(3)), ValueError, r"rescale_factors must hold one factor per pair"),
        (lambda: rope_lib.scaling.longrope_attention_factor(4.0, 1), ValueError, r"original_max_len must be at least 2"),
        (lambda: rope_lib.scaling.longrope_attention_factor(0.5, 64), ValueError, r"factor must be at least 1"),
        (lambda: RopeScaling("proportional", 1.0, proportion=1.5), ValueError, r"proportion must lie in \[0, 1\], got 1.5"),
        (lambda: RopeScaling("linear", 2.0, proportion=0.5), ValueError, r"proportion is used only by method 'proportional', got method 'linear'"),
        (lambda: rope_lib.scaling.proportional_inv_freq(30, proportion=float("nan")), TypeError, r"proportion must be a finite real number"),
        (lambda: rope_lib.scaling.proportional_inv_freq(31), ValueError, r"head_dim must be a positive even integer"),
    ],
)
def test_longrope_and_proportional_refuse_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


FLOAT32_RTOL = 1e-6


def hf_config(rope_parameters, head_dim=128, max_position_embeddings=4096):
    from transformers import LlamaConfig

    return LlamaConfig(
        hidden_size=head_dim * 4,
        num_attention_heads=4,
        head_dim=head_dim,
        max_position_embeddings=max_position_embeddings,
        rope_parameters=rope_parameters,
    )


def hf_init(rope_type, config, seq_len=None):
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    freqs, attention_factor = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=seq_len)
    return freqs.double().numpy(), attention_factor


@pytest.mark.parametrize("head_dim, base, factor", [(64, 10000.0, 2.0), (128, 10000.0, 4.0), (128, 500000.0, 8.0)])
def test_linear_matches_hugging_face(head_dim, base, factor):
    theirs, attention = hf_init("linear", hf_config({"rope_type": "linear", "rope_theta": base, "factor": factor}, head_dim))
    np.testing.assert_allclose(position_interpolation_inv_freq(head_dim, base, factor), theirs, rtol=FLOAT32_RTOL)
    assert attention == 1.0 == RopeScaling("linear", factor).attention_factor


@pytest.mark.parametrize("seq_len", [1, 1000, 2048, 2049, 3000, 8192, 20000])
@pytest.mark.parametrize("head_dim, base, factor", [(64, 10000.0, 2.0), (128, 10000.0, 4.0)])
def test_dynamic_ntk_matches_hugging_face_at_every_length(head_dim, base, factor, seq_len):
    config = hf_config({"rope_type": "dynamic", "rope_theta": base, "factor": factor}, head_dim, max_position_embeddings=2048)
    theirs, _ = hf_init("dynamic", config, seq_len=seq_len)
    ours = dynamic_ntk_inv_freq(head_dim, base, factor, seq_len=seq_len, original_max_len=2048)
    np.testing.assert_allclose(ours, theirs, rtol=FLOAT32_RTOL)
    if seq_len <= 2048:
        np.testing.assert_allclose(ours, inv_freq(head_dim, base), rtol=0, atol=0)


@pytest.mark.parametrize("factor", [2.0, 4.0, 16.0])
def test_static_ntk_is_hugging_face_dynamic_rule_at_length_s_times_l_with_factor_one(factor):
    """HF has no static NTK-aware type; its dynamic rule with factor 1 at length s·L is exactly base·s^(d/(d−2))."""
    config = hf_config({"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 1.0}, 128, max_position_embeddings=2048)
    theirs, _ = hf_init("dynamic", config, seq_len=int(factor * 2048))
    np.testing.assert_allclose(ntk_inv_freq(128, 10000.0, factor), theirs, rtol=FLOAT32_RTOL)


@pytest.mark.parametrize("truncate", [True, False])
@pytest.mark.parametrize(
    "head_dim, base, factor, original, beta_fast, beta_slow",
    [(128, 10000.0, 4.0, 4096, 32.0, 1.0), (64, 10000.0, 16.0, 2048, 32.0, 1.0), (128, 500000.0, 8.0, 8192, 16.0, 2.0), (128, 1e6, 2.0, 4096, 32.0, 1.0)],
)
def test_yarn_matches_hugging_face(head_dim, base, factor, original, beta_fast, beta_slow, truncate):
    params = {
        "rope_type": "yarn", "rope_theta": base, "factor": factor, "original_max_position_embeddings": original,
        "beta_fast": beta_fast, "beta_slow": beta_slow, "truncate": truncate,
    }
    theirs, attention = hf_init("yarn", hf_config(params, head_dim, max_position_embeddings=int(factor * original)))
    ours = yarn_inv_freq(head_dim, base, factor, original_max_len=original, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate)
    np.testing.assert_allclose(ours, theirs, rtol=FLOAT32_RTOL)
    assert attention == pytest.approx(yarn_attention_factor(factor), rel=1e-12)
    assert RopeScaling("yarn", factor, original_max_len=original).attention_factor == pytest.approx(attention, rel=1e-12)


YARN_ATTENTION_CASES = {
    "plain YaRN": {},
    "DeepSeek-style, mscale = mscale_all_dim = 1": {"mscale": 1.0, "mscale_all_dim": 1.0},
    "DeepSeek-style, mscale 0.707 over mscale_all_dim 1": {"mscale": 0.707, "mscale_all_dim": 1.0},
    "mscale only, beside an explicit attention_factor": {"mscale": 0.707, "attention_factor": 0.9},
    "explicit attention_factor": {"attention_factor": 0.8},
    "explicit attention_factor beside both mscales": {"attention_factor": 1.25, "mscale": 1.0, "mscale_all_dim": 0.707},
}


@pytest.mark.parametrize("case", YARN_ATTENTION_CASES)
@pytest.mark.parametrize("head_dim, base, factor, original", [(128, 10000.0, 40.0, 4096), (64, 500000.0, 4.0, 8192), (128, 10000.0, 1.0, 4096)])
def test_yarn_attention_factor_and_frequencies_match_hugging_face(case, head_dim, base, factor, original):
    """Hugging Face's `_compute_yarn_parameters` with the optional mscale, mscale_all_dim and attention_factor keys."""
    extra = YARN_ATTENTION_CASES[case]
    params = {"rope_type": "yarn", "rope_theta": base, "factor": factor, "original_max_position_embeddings": original, **extra}
    theirs, attention = hf_init("yarn", hf_config(params, head_dim, max_position_embeddings=int(factor * original)))
    ours = {"attention_factor_override" if key == "attention_factor" else key: value for key, value in extra.items()}
    rule = RopeScaling("yarn", factor, original_max_len=original, **ours)
    np.testing.assert_allclose(rule.frequencies(head_dim, base), theirs, rtol=FLOAT32_RTOL)
    assert rule.attention_factor == pytest.approx(attention, rel=1e-12)
    if case.startswith("DeepSeek-style, mscale = mscale_all_dim"):
        assert rule.attention_factor == attention == 1.0  # not 0.1·ln s + 1 = 1.3689 at s = 40


@pytest.mark.parametrize("head_dim, base, factor, original", [(128, 500000.0, 8.0, 8192), (64, 10000.0, 4.0, 4096), (128, 500000.0, 32.0, 8192)])
def test_llama3_matches_hugging_face(head_dim, base, factor, original):
    params = {
        "rope_type": "llama3", "rope_theta": base, "factor": factor, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": original,
    }
    theirs, attention = hf_init("llama3", hf_config(params, head_dim, max_position_embeddings=int(factor * original)))
    np.testing.assert_allclose(llama3_inv_freq(head_dim, base, factor, original_max_len=original), theirs, rtol=FLOAT32_RTOL)
    assert attention == 1.0


@pytest.mark.parametrize("head_dim", [64, 128])
def test_llama3_matches_metas_apply_scaling_exactly(head_dim):
    from llama_models.llama3.model import apply_scaling

    freqs = torch.from_numpy(inv_freq(head_dim, 500000.0))  # float64 in, so both compute in float64
    np.testing.assert_allclose(llama3_inv_freq(head_dim), apply_scaling(freqs).numpy(), rtol=1e-15, atol=0)


def test_llama3_rule_matches_meta_on_arbitrary_frequencies_including_both_boundaries():
    from llama_models.llama3.model import apply_scaling

    wavelengths = np.concatenate([np.geomspace(2.0, 1e6, 997), [2048.0, 8192.0, 2047.999, 8192.001]])
    freqs = 2 * np.pi / wavelengths
    np.testing.assert_allclose(llama3_scale_inv_freq(freqs), apply_scaling(torch.from_numpy(freqs)).numpy(), rtol=1e-15, atol=0)


def meta_threshold_mismatches():
    """The wavelengths, within a position of Llama 3.1's thresholds 2048 and 8192, where `llama3_scale_inv_freq`
    (float64, Meta's settings) differs from Meta's `apply_scaling` by more than float64 rounding."""
    from llama_models.llama3.model import apply_scaling

    wavelengths = np.array([edge + step for edge in (2048.0, 8192.0) for step in (-1.0, -0.5, -1e-6, 0.0, 1e-6, 0.5, 1.0)])
    freqs = 2 * np.pi / wavelengths
    ours, theirs = llama3_scale_inv_freq(freqs), apply_scaling(torch.from_numpy(freqs)).numpy()
    return [float(w) for w, a, b in zip(wavelengths, ours, theirs) if not abs(a - b) <= 1e-15 * abs(b)]


def test_llama3_thresholds_match_meta_just_inside_and_outside():
    assert meta_threshold_mismatches() == []


@pytest.mark.parametrize("shift", [(1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 1.0)])
def test_the_meta_threshold_check_catches_a_threshold_moved_by_one_position(monkeypatch, shift):
    """Plant 2048 → 2049 or 8192 → 8191 (or the other way) in rope_lib: the comparison with Meta must fail."""
    true_bounds = llama3_wavelength_bounds
    monkeypatch.setattr(scaling, "llama3_wavelength_bounds", lambda *args: tuple(b + db for b, db in zip(true_bounds(*args), shift)))
    assert meta_threshold_mismatches() != []


def hf_llama3_threshold_config(wavelength, factor, low, high, original):
    """A config whose second and last pair (head_dim 4) has the given wavelength: 2π·√base = λ."""
    base = (wavelength / (2 * np.pi)) ** 2
    params = {
        "rope_type": "llama3", "rope_theta": base, "factor": factor, "low_freq_factor": low, "high_freq_factor": high,
        "original_max_position_embeddings": original,
    }
    return base, hf_config(params, head_dim=4, max_position_embeddings=int(factor * original))


def hf_threshold_mismatches(factor, low, high, original):
    """The wavelengths, within a position of L/high and L/low, where rope_lib's Llama 3.1 rule and Hugging Face's
    `_compute_llama3_parameters` differ by more than float32 rounding (half a position away, the blend differs by > 1e-5)."""
    mismatches = []
    for edge in (original / high, original / low):
        for wavelength in (edge - 1.0, edge - 0.5, edge + 0.5, edge + 1.0):
            base, config = hf_llama3_threshold_config(wavelength, factor, low, high, original)
            theirs, _ = hf_init("llama3", config)
            ours = RopeScaling("llama3", factor, original_max_len=original, low_freq_factor=low, high_freq_factor=high).frequencies(4, base)
            if not np.allclose(ours, theirs, rtol=FLOAT32_RTOL, atol=0):
                mismatches.append(wavelength)
    return mismatches


HF_LLAMA3_SETTINGS = [(8.0, 1.0, 4.0, 8192), (4.0, 2.0, 8.0, 4096)]


@pytest.mark.parametrize("factor, low, high, original", HF_LLAMA3_SETTINGS)
def test_llama3_thresholds_match_hugging_face_just_inside_and_outside(factor, low, high, original):
    assert hf_threshold_mismatches(factor, low, high, original) == []


@pytest.mark.parametrize("shift", [(1.0, 0.0), (0.0, -1.0)])
@pytest.mark.parametrize("factor, low, high, original", HF_LLAMA3_SETTINGS)
def test_the_hugging_face_threshold_check_catches_a_threshold_moved_by_one_position(monkeypatch, factor, low, high, original, shift):
    true_bounds = llama3_wavelength_bounds
    monkeypatch.setattr(scaling, "llama3_wavelength_bounds", lambda *args: tuple(b + db for b, db in zip(true_bounds(*args), shift)))
    assert hf_threshold_mismatches(factor, low, high, original) != []


def test_scaled_table_matches_metas_use_scaled():
    from llama_models.llama3 import model as meta

    theirs = meta.precompute_freqs_cis(128, 3000, 500000.0, use_scaled=True)
    ours = precompute_freqs_cis(128, 3000, 500000.0, inv_freq=llama3_inv_freq(128))
    torch.testing.assert_close(ours, theirs, rtol=0, atol=4 * torch.finfo(torch.float32).eps * 3000 + 1e-5)


@pytest.mark.parametrize("rope_type", ["linear", "dynamic", "yarn", "llama3"])
@pytest.mark.parametrize("fraction", [0.25, 0.5])
def test_partial_rotary_frequencies_match_hugging_face(rope_type, fraction):
    head_dim, base, factor, original = 128, 10000.0, 4.0, 2048
    params = {"rope_type": rope_type, "rope_theta": base, "factor": factor, "partial_rotary_factor": fraction}
    if rope_type in ("yarn", "llama3"):
        params |= {"original_max_position_embeddings": original}
    if rope_type == "llama3":
        params |= {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    max_len = original if rope_type == "dynamic" else int(factor * original)
    theirs, attention = hf_init(rope_type, hf_config(params, head_dim, max_position_embeddings=max_len), seq_len=3 * original)
    rotary = partial_rotary_dim(head_dim, fraction)
    rule = RopeScaling(rope_type, factor, original_max_len=original)
    np.testing.assert_allclose(rule.frequencies(rotary, base, seq_len=3 * original), theirs, rtol=FLOAT32_RTOL)
    assert attention == pytest.approx(rule.attention_factor, rel=1e-12)


def test_partial_rotary_default_matches_gpt_neox():
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

    config = GPTNeoXConfig(hidden_size=256, num_attention_heads=4, rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25})
    theirs, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(config)
    np.testing.assert_allclose(inv_freq(partial_rotary_dim(64, 0.25), 10000.0), theirs.double().numpy(), rtol=FLOAT32_RTOL)


def test_partial_rotary_half_layout_matches_gpt_neox():
    """GPT-NeoX rotates the first rotary_dim coordinates with rotate_half and passes the rest through."""
    from transformers.models.gpt_neox.modeling_gpt_neox import apply_rotary_pos_emb

    b, t, h, d, rotary = 2, 9, 3, 64, 16
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(b, t, h, d, generator=gen), torch.randn(b, t, h, d, generator=gen)
    positions = torch.arange(100, 100 + t)
    freqs = yarn_inv_freq(rotary, 10000.0, 4.0, original_max_len=64)
    attention = yarn_attention_factor(4.0)
    cos, sin = rope_lib.rope_cos_sin(positions, rotary, inv_freq=freqs, attention_factor=attention)  # (T, rotary/2)
    cos_hf, sin_hf = torch.cat([cos, cos], -1)[None], torch.cat([sin, sin], -1)[None]  # (1, T, rotary)
    q_hf, k_hf = apply_rotary_pos_emb(q.transpose(1, 2), k.transpose(1, 2), cos_hf, sin_hf)
    opts = {"layout": "half", "inv_freq": freqs, "attention_factor": attention, "rotary_dim": rotary}
    torch.testing.assert_close(apply_rope(q, positions, **opts), q_hf.transpose(1, 2), rtol=0, atol=1e-5)
    torch.testing.assert_close(apply_rope(k, positions, **opts), k_hf.transpose(1, 2), rtol=0, atol=1e-5)


def test_partial_rotary_interleaved_layout_matches_gpt_j():
    """GPT-J rotates the first rotary_dim coordinates in adjacent pairs and passes the rest through."""
    from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb, create_sinusoidal_positions

    b, t, h, d, rotary = 1, 7, 2, 32, 8
    x = torch.randn(b, t, h, d, generator=torch.Generator().manual_seed(1))
    positions = torch.arange(t)
    table = create_sinusoidal_positions(64, rotary)  # (positions, rotary): sin then cos
    sin, cos = torch.split(table[positions][None], rotary // 2, dim=-1)  # (1, T, rotary/2) each
    rotated = apply_rotary_pos_emb(x[..., :rotary], sin, cos)
    expected = torch.cat([rotated, x[..., rotary:]], dim=-1)
    torch.testing.assert_close(apply_rope(x, positions, rotary_dim=rotary, layout="interleaved"), expected, rtol=0, atol=1e-5)


# ---------- LongRoPE, p-RoPE and the rope_type table ----------


def test_the_table_covers_every_hugging_face_rope_type():
    """Hugging Face's ROPE_INIT_FUNCTIONS keys are SCALING_RULES' names less "ntk" (which HF has not); "default" is plain RoPE."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    assert set(ROPE_INIT_FUNCTIONS) == set(rope_lib.scaling.SCALING_RULES) - {"ntk"}


def longrope_sets(n_pairs, seed):
    """Rising factor sets like a searched one: short from 1 to ~2, long from 1 to ~40 (float32-exact, as HF stores them)."""
    rng = np.random.default_rng(seed)
    short = np.sort(rng.uniform(1.0, 2.0, n_pairs)).astype(np.float32).astype(np.float64)
    long = np.sort(rng.uniform(1.0, 40.0, n_pairs)).astype(np.float32).astype(np.float64)
    return tuple(short.tolist()), tuple(long.tolist())


@pytest.mark.parametrize("seq_len", [None, 1, 4096, 4097, 131072])
@pytest.mark.parametrize(
    "head_dim, base, original, max_len, fraction, explicit_factor",
    [(96, 10000.0, 4096, 131072, 1.0, None), (128, 10000.0, 4096, 16384, 1.0, None), (64, 500000.0, 4096, 65536, 1.0, 8.0), (128, 10000.0, 4096, 32768, 0.5, None)],
)
def test_longrope_matches_hugging_face(head_dim, base, original, max_len, fraction, explicit_factor, seq_len):
    """HF `longrope` (Phi-3): frequencies to float32 rounding, the attention factor to 1e-12; without a `factor`
    key HF takes s = max_position_embeddings / original_max_position_embeddings, as the config passes it here."""
    rotary = partial_rotary_dim(head_dim, fraction)
    short, long = longrope_sets(rotary // 2, head_dim)
    params = {"rope_type": "longrope", "rope_theta": base, "short_factor": list(short), "long_factor": list(long),
              "original_max_position_embeddings": original, "partial_rotary_factor": fraction}
    if explicit_factor is not None:
        params["factor"] = explicit_factor
    theirs, attention = hf_init("longrope", hf_config(params, head_dim, max_position_embeddings=max_len), seq_len=seq_len)
    factor = explicit_factor if explicit_factor is not None else max_len / original
    rule = RopeScaling("longrope", factor, original_max_len=original, short_factor=short, long_factor=long)
    np.testing.assert_allclose(rule.frequencies(rotary, base, seq_len), theirs, rtol=FLOAT32_RTOL)
    assert rule.attention_factor == pytest.approx(attention, rel=1e-12)
    chosen = long if seq_len is not None and seq_len > original else short
    np.testing.assert_allclose(rope_lib.scaling.longrope_inv_freq(rotary, base, rescale_factors=chosen), theirs, rtol=FLOAT32_RTOL)


def test_longrope_parity_catches_the_factor_sets_swapped(monkeypatch):
    """Plant the slip T ≥ L for T > L (the long set at exactly the trained length): the comparison with HF must fail."""
    short, long = longrope_sets(48, 0)
    params = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": list(short), "long_factor": list(long), "original_max_position_embeddings": 4096}
    theirs, _ = hf_init("longrope", hf_config(params, 96, max_position_embeddings=131072), seq_len=4096)
    monkeypatch.setattr(scaling, "longrope_uses_long_factors", lambda seq_len, original: seq_len is not None and seq_len >= original)
    rule = RopeScaling("longrope", 32.0, original_max_len=4096, short_factor=short, long_factor=long)
    assert not np.allclose(rule.frequencies(96, 10000.0, 4096), theirs, rtol=FLOAT32_RTOL)


@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.3, 0.5, 0.75, 1.0])
@pytest.mark.parametrize("head_dim, base, factor", [(256, 1e6, 1.0), (128, 10000.0, 1.0), (64, 10000.0, 4.0), (512, 1e6, 1.0)])
def test_proportional_matches_hugging_face(head_dim, base, factor, fraction):
    """HF `proportional` (p-RoPE): d/2 frequencies over the whole head, the slow ones 0; float32 rounding, zeros exact."""
    params = {"rope_type": "proportional", "rope_theta": base, "factor": factor, "partial_rotary_factor": fraction}
    theirs, attention = hf_init("proportional", hf_config(params, head_dim))
    rule = RopeScaling("proportional", factor, proportion=fraction)
    ours = rule.frequencies(head_dim, base)
    np.testing.assert_allclose(ours, theirs, rtol=FLOAT32_RTOL, atol=0)
    np.testing.assert_array_equal(ours == 0, theirs == 0)
    assert attention == 1.0 == rule.attention_factor


def test_proportional_is_not_partial_rotary_at_the_same_fraction():
    """Gemma 4's full-attention layers: p = 0.25 of a 256-wide head keeps base^(−2i/256), i < 32; partial rotary at
    0.25 would rotate 64 coordinates with base^(−2i/64), i < 32: the same count, other frequencies."""
    p_rope = rope_lib.scaling.proportional_inv_freq(256, 1e6, 0.25)
    partial = inv_freq(partial_rotary_dim(256, 0.25), 1e6)
    assert np.count_nonzero(p_rope) == partial.size == 32
    assert not np.allclose(p_rope[:32], partial)
    np.testing.assert_allclose(p_rope[:32], partial ** 0.25, rtol=1e-12)  # base^(−2i/256) = (base^(−2i/64))^(1/4)


@pytest.mark.parametrize("fraction", [0.0, 0.25, 1.0])
def test_proportional_rotates_in_apply_rope_and_attention_as_hugging_face_does(fraction):
    """p-RoPE's zero frequencies are pairs that never turn, not bad input: apply_rope and Attention take the rule's
    frequencies and rotate as Hugging Face's apply_rotary_pos_emb does with its own proportional table."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    head_dim, base, length = 16, 10000.0, 12
    params = {"rope_type": "proportional", "rope_theta": base, "partial_rotary_factor": fraction}
    theirs, _ = hf_init("proportional", hf_config(params, head_dim))
    angles = torch.arange(length, dtype=torch.float64)[:, None] * torch.from_numpy(theirs)  # (T, D/2)
    cos, sin = torch.cat([angles, angles], -1).cos(), torch.cat([angles, angles], -1).sin()  # (T, D): HF's halves
    q, k = torch.randn(2, 1, length, 2, head_dim, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    hf_q, hf_k = apply_rotary_pos_emb(q.transpose(1, 2), k.transpose(1, 2), cos[None], sin[None])  # (B, H, T, D)
    rule = RopeScaling("proportional", 1.0, proportion=fraction)
    freqs = rule.frequencies(head_dim, base)
    torch.testing.assert_close(apply_rope(q, range(length), layout="half", inv_freq=freqs), hf_q.transpose(1, 2), rtol=0, atol=1e-6)
    torch.testing.assert_close(apply_rope(k, range(length), layout="half", inv_freq=freqs), hf_k.transpose(1, 2), rtol=0, atol=1e-6)
    shape = dict(vocab_size=4, dim=2 * head_dim, n_layers=1, n_heads=2, hidden_dim=8, device="cpu", dtype=torch.float64)
    model = rope_lib.Model(rope_lib.ModelConfig(scaling=rule, layout="half", **shape))
    ours_cos, ours_sin = model.rope(torch.arange(length), seq_len=length)  # (T, D/2)
    torch.testing.assert_close(ours_cos, cos[:, : head_dim // 2], rtol=0, atol=1e-6)
    torch.testing.assert_close(ours_sin, sin[:, : head_dim // 2], rtol=0, atol=1e-6)


@pytest.mark.parametrize("model, fraction_key, default", [("gpt_neox", "rotary_pct", 0.25), ("phi", "partial_rotary_factor", 0.5)])
@pytest.mark.parametrize("fraction", [None, 0.25, 0.4, 0.5, 1.0])
def test_config_rotary_dim_matches_hugging_face_attention(model, fraction_key, default, fraction):
    """GPT-NeoX's `rotary_pct` and Phi's `partial_rotary_factor` (each with its model's default when absent) → the
    `rotary_ndims` Hugging Face's attention layer rotates."""
    import transformers

    head_dim, heads = 80, 4
    if model == "gpt_neox":
        kwargs = {} if fraction is None else {"rotary_pct": fraction}
        config = transformers.GPTNeoXConfig(hidden_size=head_dim * heads, num_attention_heads=heads, **kwargs)
        theirs = transformers.models.gpt_neox.modeling_gpt_neox.GPTNeoXAttention(config, 0).rotary_ndims
    else:
        kwargs = {} if fraction is None else {"partial_rotary_factor": fraction}
        config = transformers.PhiConfig(hidden_size=head_dim * heads, num_attention_heads=heads, **kwargs)
        theirs = transformers.models.phi.modeling_phi.PhiAttention(config, 0).rotary_ndims
    ours = rope_lib.scaling.config_rotary_dim(head_dim, **{fraction_key: default if fraction is None else fraction})
    assert ours == theirs
