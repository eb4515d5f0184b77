"""The context-extension rules against slow, obvious references; their plug-in points
(apply_rope, rope_cos_sin, rotate_pairs, a model's attention); and their bad-input errors."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rope_lib
from attention_block import Block
from rope_lib import RopeScaling, apply_rope, inv_freq, rope_cos_sin
from rope_lib.rope import rope_angles, rotate_pairs
from rope_lib.rotation import apply_rope_matrix
from rope_lib.scaling import LLAMA3_BASE, angle_coverage, dynamic_ntk_factor, dynamic_ntk_inv_freq, llama3_inv_freq, llama3_scale_freqs, ntk_base, ntk_inv_freq, partial_rotary_dim, position_interpolation_inv_freq, yarn_attention_factor, yarn_correction_pair, yarn_inv_freq, yarn_ramp
from rope_lib import scaling
from rope_lib.kernels import rotate_pairs_fused
from rope_lib.scaling import METHOD_FIELDS, RULE_ONLY_FIELDS, SCALING_RULES, deepseek_yarn_attention_factor, llama3_wavelength_bounds

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
    """The wavelengths near the thresholds where `llama3_scale_freqs` leaves the rule's definition."""
    lam = llama3_threshold_wavelengths(low, high, original)
    ours = llama3_scale_freqs(2 * np.pi / lam, factor, low_freq_factor=low, high_freq_factor=high, original_max_len=original) / (2 * np.pi / lam)
    expected = np.array([llama3_expected_ratio(w, factor, low, high, original) for w in lam])
    return [float(w) for w, a, b in zip(lam, ours, expected) if not math.isclose(a, b, rel_tol=1e-12)]


@pytest.mark.parametrize("factor, low, high, original", LLAMA3_SETTINGS)
def test_llama3_rule_just_inside_and_outside_both_thresholds(factor, low, high, original):
    """Half a position inside L/high the frequency is already blended, half a position past L/low divided."""
    assert llama3_wavelength_bounds(original, low, high) == (original / high, original / low)
    assert llama3_threshold_mismatches(factor, low, high, original) == []
    lam = llama3_threshold_wavelengths(low, high, original)
    freqs = 2 * np.pi / lam
    ratio = llama3_scale_freqs(freqs, factor, low_freq_factor=low, high_freq_factor=high, original_max_len=original) / freqs
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
    np.testing.assert_allclose(angle_coverage(128, 10000.0, 4 * 4095 + 1, freqs=inv_freq(128) / 4), cover, rtol=1e-12)  # PI: 4× the length, the same angles


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
        llama3_scale_freqs([0.1], low_freq_factor=4.0, high_freq_factor=1.0)
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
