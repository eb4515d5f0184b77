"""Chapter "Why does RoPE work?" (rope_lib.teach.why_rope_works; both editions): B_{m,θ} and the search for the
smallest base keeping it non-negative (Men et al. 2024); the synthetic positional-head and semantic-channel example
(Barbero et al. 2024); its figures, widgets and check in both languages."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from glyphs import assert_chinese_figure, assert_english_figure, has_chinese
from rope_lib import inv_freq
from rope_lib.teach.exercises import check_b_m
from rope_lib.teach.rope_nd import rope_sum
from rope_lib.teach.why_rope_works import (
    b_m_theta,
    b_m_theta_blocks,
    b_slope_bound,
    band_pairs,
    base_grid,
    base_keeping_non_negative_in,
    base_lower_bounds,
    first_negative,
    keeps_non_negative,
    phasor_widget,
    plot_b_m_theta,
    plot_base_bounds,
    plot_base_reach,
    plot_decay_revisited,
    plot_frequency_roles,
    plot_phasor_sum,
    plot_relative_biases,
    positional_head_score,
    relative_bias_widget,
    retrieval_rate,
    rounding_interval,
    smallest_base,
)
from test_exercises import b_m


# --- B_{m,θ} = Σ cos(mθ_i), and the smallest base keeping it non-negative (Men et al. 2024) ---------------------------

TABLE_LENGTHS = [2**k for k in range(12, 21)]  # 4k … 1M, as in the chapter


def slow_b(m, d, base):
    return sum(np.cos(m * base ** (-2 * i / d)) for i in range(d // 2))


@given(st.integers(0, 10**6), st.sampled_from([8, 64, 128]), st.floats(10.0, 1e9))
def test_b_m_theta_is_the_sum_of_cosines(m, d, base):
    assert b_m_theta(m, inv_freq(d, base)) == pytest.approx(slow_b(m, d, base), abs=1e-9)


@pytest.mark.parametrize("max_len, base", [(1, 100.0), (1000, 10000.0), (70000, 5e5), (2**20, 4e8)])
def test_blocked_sum_agrees_with_the_direct_sum(max_len, base):
    theta = inv_freq(128, base)
    np.testing.assert_allclose(b_m_theta_blocks(max_len, theta), b_m_theta(np.arange(max_len + 1), theta), rtol=0, atol=1e-9)


def test_first_negative_against_a_plain_scan():
    for base in [500.0, 1e4, 2.7e4, 3e4, 5e5]:
        values = b_m_theta(np.arange(40001), inv_freq(128, base))
        negative = np.flatnonzero(values < 0)
        expected = int(negative[0]) if negative.size else 40001
        assert first_negative(128, base, 40000) == expected
    assert first_negative(128, 1e12, 1000) == 1001  # never negative within reach


def test_b_is_not_monotone_in_the_base():
    """2.7e4 keeps B ≥ 0 up to m = 4000 while the larger 3e4 does not: no bisection over the base."""
    assert keeps_non_negative(128, 2.7e4, 4000)
    assert not keeps_non_negative(128, 3e4, 4000)
    reach = [first_negative(128, b, 20000) for b in base_grid(1e4, 1e5, 100)]
    assert np.any(np.diff(reach) < 0)


@pytest.mark.slow
def test_the_reported_bases_really_keep_b_non_negative_up_to_l():
    """The table of the chapter: every reported base passes the direct sum for every m = 0 … L."""
    found = base_lower_bounds(128, TABLE_LENGTHS)
    assert np.all(np.diff(found) > 0)
    for length, base in zip(TABLE_LENGTHS, found):
        assert keeps_non_negative(128, base, length), (length, base)


def test_the_search_reports_the_first_passing_base_of_its_grids():
    """Every grid base below the answer fails, and so does every refined candidate below it."""
    length = 8192
    found = smallest_base(128, length, points_per_decade=32, refine=16)
    grid = base_grid(10.0, 1e12, 32)
    below = grid[grid < found]
    assert all(first_negative(128, b, length) <= length for b in below)
    failing, passing = below[-1], grid[grid >= found][0]
    candidates = np.geomspace(failing, passing, 17)[1:]
    assert found == candidates[np.argmax([first_negative(128, b, length) > length for b in candidates])]
    # a finer grid can only find a smaller or equal base
    assert smallest_base(128, length, points_per_decade=128, refine=16) <= found


def test_keeps_non_negative_can_fail():
    assert not keeps_non_negative(128, 10000.0, 4096)
    assert keeps_non_negative(128, 10000.0, 1000)


def test_bad_input():
    with pytest.raises(ValueError, match=r"inv_freq must be a non-empty vector"):
        b_m_theta(3, np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"high must exceed low"):
        base_grid(100.0, 10.0, 8)
    with pytest.raises(ValueError, match=r"no base up to high=1000 keeps"):
        smallest_base(128, 4096, high=1000.0)
    with pytest.raises(ValueError, match=r"context_len must be a positive integer"):
        base_lower_bounds(128, [0])
    with pytest.raises(ValueError, match=r"max_len must be a positive integer"):
        first_negative(128, 1e4, 0)


# Men et al.'s published lower bounds for d = 128, and the context length each is for (the chapter's table).
PUBLISHED = {2**14: 3.1e5, 2**15: 6.4e5, 2**17: 7.8e6}


def test_rounding_interval():
    assert rounding_interval(3.1e5) == (3.05e5, 3.15e5)
    assert rounding_interval(7.8e6) == pytest.approx((7.75e6, 7.85e6), rel=1e-15)
    assert rounding_interval(27000.0, digits=3) == (26950.0, 27050.0)
    with pytest.raises(ValueError, match=r"digits must be a positive integer"):
        rounding_interval(3.1e5, digits=0)
    with pytest.raises(ValueError, match=r"value"):
        rounding_interval(-1.0)


@pytest.mark.parametrize("length", sorted(PUBLISHED))
def test_each_published_base_fails_its_own_bound(length):
    """The published 16k, 32k and 128k bases let B turn negative before their own context length."""
    assert first_negative(128, PUBLISHED[length], length) <= length
    assert not keeps_non_negative(128, PUBLISHED[length], length)


@pytest.mark.parametrize("length", [2**14, 2**15])
def test_no_base_that_rounds_to_the_published_16k_or_32k_base_keeps_b_non_negative(length):
    assert base_keeping_non_negative_in(128, *rounding_interval(PUBLISHED[length]), length) is None


def test_a_base_that_rounds_to_the_published_128k_base_keeps_b_non_negative():
    """At 128k rounding can explain the gap: 7.788e6, which rounds to 7.8e6, passes the direct sum."""
    found = base_keeping_non_negative_in(128, *rounding_interval(PUBLISHED[2**17]), 2**17)
    assert found is not None and round(found, -5) == 7.8e6
    assert keeps_non_negative(128, found, 2**17)


def test_the_interval_search_finds_a_narrow_window_a_coarse_grid_misses():
    """[26500, 27500] around the published 4k base: most bases fail, a few keep B ≥ 0 up to 4096."""
    low, high = rounding_interval(2.7e4)
    grid = np.linspace(low, high, 11)
    assert not any(keeps_non_negative(128, b, 4096) for b in grid)
    found = base_keeping_non_negative_in(128, low, high, 4096)
    assert found is not None and low <= found <= high and keeps_non_negative(128, found, 4096)


def test_the_slope_bound_bounds_how_fast_b_changes_with_the_base():
    """|B_m(x) − B_m(c)| ≤ m·K(a)·|x − c| for bases x, c in [a, b]: the ground of the certificate."""
    rng = np.random.default_rng(0)
    m = np.arange(20001.0)
    for a in (1e3, 3.05e5, 7.75e6):
        b = 1.05 * a
        bound = m * b_slope_bound(128, a)
        c = 0.5 * (a + b)
        centre = b_m_theta(m, inv_freq(128, c))
        for x in rng.uniform(a, b, 20):
            assert np.all(np.abs(b_m_theta(m, inv_freq(128, x)) - centre) <= bound * abs(x - c) + 1e-9)
    # and it is not loose by orders of magnitude: some m comes within a factor 10 of it
    x, c = 1.0001e3, 1e3
    change = np.abs(b_m_theta(m, inv_freq(128, x)) - b_m_theta(m, inv_freq(128, c)))
    assert np.max(change[1:] / (m[1:] * b_slope_bound(128, c) * (x - c))) > 0.1


def test_the_interval_search_refuses_bad_input_and_reports_when_undecided():
    with pytest.raises(ValueError, match=r"high must exceed low"):
        base_keeping_non_negative_in(128, 3e5, 2e5, 16384)
    with pytest.raises(ValueError, match=r"context_len must be a positive integer"):
        base_keeping_non_negative_in(128, 2e5, 3e5, 0)
    with pytest.raises(RuntimeError, match=r"undecided after max_intervals=3"):
        base_keeping_non_negative_in(128, *rounding_interval(3.1e5), 16384, max_intervals=3)
    with pytest.raises(ValueError, match=r"d must be"):
        b_slope_bound(7, 1e4)


def test_seven_of_the_nine_published_bases_fail_their_own_bound():
    """The chapter's count: Men et al.'s bases for 4k … 1M; only those for 8k and 64k keep B ≥ 0 up to their L."""
    published = [2.7e4, 8.4e4, 3.1e5, 6.4e5, 2.1e6, 7.8e6, 3.6e7, 6.4e7, 5.1e8]
    fails = [k for k, (b, length) in enumerate(zip(published, TABLE_LENGTHS)) if first_negative(128, b, length) <= length]
    assert fails == [0, 2, 3, 5, 6, 7, 8]


# --- the synthetic positional-head and semantic-channel example (Barbero et al. 2024) ---------------------------------

def test_band_pairs():
    np.testing.assert_array_equal(band_pairs(16, "fast", 3), [0, 1, 2])
    np.testing.assert_array_equal(band_pairs(16, "slow", 3), [5, 6, 7])
    with pytest.raises(ValueError, match=r"band must be one of"):
        band_pairs(16, "middle", 3)
    with pytest.raises(ValueError, match=r"n_pairs must be at most d/2 = 8"):
        band_pairs(16, "fast", 9)


def test_positional_head_score_is_a_sum_of_shifted_cosines():
    distances = np.arange(0, 200)
    theta = inv_freq(64)[:8]
    expected = np.cos((distances[:, None] - 3) * theta).sum(-1)
    np.testing.assert_allclose(positional_head_score(distances, 64, band="fast", n_pairs=8, offset=3), expected, atol=1e-12)
    fast = positional_head_score(distances, 64, band="fast", n_pairs=8, offset=1)
    slow = positional_head_score(distances, 64, band="slow", n_pairs=8, offset=1)
    assert np.argmax(fast) == 1 and fast[1] == pytest.approx(8) and fast.min() < 0
    assert slow.min() > 7.9  # the slow pairs barely turn: no position stands out
    h = np.zeros(32, complex)
    h[:8] = np.exp(-1j * 1 * theta)
    np.testing.assert_allclose(fast, rope_sum(h, distances).real)


def test_retrieval_needs_slow_pairs_at_a_distance():
    distances = np.array([0, 16, 64, 256])
    slow = retrieval_rate(distances, 64, band="slow", n_pairs=8)
    fast = retrieval_rate(distances, 64, band="fast", n_pairs=8)
    assert slow.min() > 0.9 and fast[0] > 0.9 and fast[1:].max() < 0.3
    with pytest.raises(ValueError, match=r"distances must be a vector of non-negative integers"):
        retrieval_rate(np.array([-1, 2]), 64)
    with pytest.raises(ValueError, match=r"noise must be non-negative"):
        retrieval_rate(distances, 64, noise=-1.0)


# --- both languages: the figures, widgets and check -------------------------------------------------------------------

Q = np.random.default_rng(0).standard_normal(128)
LENGTHS = [4096, 8192, 16384]

FIGURES = {
    "plot_decay_revisited": lambda lang: plot_decay_revisited(128, 10000.0, 128, lang=lang),
    "plot_frequency_roles": lambda lang: plot_frequency_roles(64, 10000.0, 8, 256, lang=lang),
    "plot_b_m_theta": lambda lang: plot_b_m_theta(128, (1e4, 5e5), 4096, lang=lang),
    "plot_base_reach": lambda lang: plot_base_reach(128, 1e4, 1e5, 40, 4096, lang=lang),
    "plot_base_bounds": lambda lang: plot_base_bounds(LENGTHS, [2.7e4, 8.4e4, 3.1e5], [2.7e4, 8.4e4, 3.1e5],
                                                      fine=(LENGTHS[:2], [2.6e4, 8e4]), lang=lang),
    "plot_phasor_sum": lambda lang: plot_phasor_sum(Q[:16], Q[:16], 64, lang=lang),
    "plot_relative_biases": lambda lang: plot_relative_biases(2, 256, lang=lang),
    "phasor_widget": lambda lang: phasor_widget(Q, lang=lang).figure(),
    "relative_bias_widget": lambda lang: relative_bias_widget(lang=lang).figure(),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figure_has_chinese_words_and_every_glyph(name):
    assert_chinese_figure(FIGURES[name]("zh"))


@pytest.mark.parametrize("name", FIGURES)
def test_english_figure_is_unchanged_by_default(name):
    assert_english_figure(FIGURES[name]("en"))


def test_default_language_is_english():
    assert plot_decay_revisited(128, 10000.0, 128).alt_text == plot_decay_revisited(128, 10000.0, 128, lang="en").alt_text
    assert plot_phasor_sum(Q, Q, 64).alt_text.startswith("Two panels for d = 128, base 10000, relative distance Δ = 64.")
    assert plot_decay_revisited(128, 10000.0, 128).axes[0].get_title() == "Long-term decay, revisited (d = 128)"
    assert plot_decay_revisited(128, 10000.0, 128, lang="zh").axes[0].get_title() == "再看远程衰减（d = 128）"


@pytest.mark.parametrize("name", FIGURES)
def test_an_unknown_language_is_refused(name):
    with pytest.raises(ValueError, match="lang"):
        FIGURES[name]("fr")


def test_widgets_label_their_controls_and_caption_in_chinese():
    for widget, labels in ((phasor_widget(Q, lang="zh"), ["距离 Δ = m − n", "底数"]),
                           (relative_bias_widget(lang="zh"), ["ALiBi 的头（共 8 个）"])):
        assert [c.label for c in widget.controls] == labels
        assert widget.lang == "zh" and widget.print_caption().startswith("在线版中可交互")
    assert [c.label for c in phasor_widget(Q).controls] == ["distance Δ = m − n", "base"]
    assert [c.label for c in relative_bias_widget().controls] == ["ALiBi head (of 8)"]
    assert math.prod(len(c.values) for c in relative_bias_widget(lang="zh").controls) == 8
    frame = relative_bias_widget(lang="zh").figure(head=8)
    assert "第 8 个头" in frame.alt_text and has_chinese(frame.axes[0].get_xlabel())


def test_check_b_m_speaks_chinese(capsys):
    passed = check_b_m(b_m, lang="zh")
    assert passed and passed.message.startswith("b_m 与 rope_lib.b_m_theta 一致") and "通过" in capsys.readouterr().out
    english = check_b_m(b_m)
    assert english.message == ("b_m matches rope_lib.b_m_theta for d = 2 to 128, m up to 3000, bases 100, 10000 and 500000 "
                               "and three seeded random cases.")
    wrong = {
        "sin": (lambda m, d, base: sum(math.sin(m * base ** (-2 * i / d)) for i in range(d // 2)), "应该用 cos", "cos, not sin"),
        "scaled": (lambda m, d, base: b_m(m, d, base) / (d // 2), "缩放成了 1", "scaled to 1"),
        "twice": (lambda m, d, base: 2 * b_m(m, d, base), "两倍", "twice"),
        "terms": (lambda m, d, base: np.cos(m * base ** (-2 * np.arange(d // 2) / d)), "只是一个数", "their sum, one number"),
        "float32": (lambda m, d, base: float(np.cos(np.float32(m) * np.float32(base) ** (-2 * np.arange(d // 2, dtype=np.float32) / np.float32(d))).sum()),
                    "float64", "float64"),
    }
    for name, (function, zh, en) in wrong.items():
        chinese, english = check_b_m(function, lang="zh"), check_b_m(function)
        assert not chinese and zh in chinese.message and has_chinese(chinese.message), (name, chinese.message)
        assert not english and en in english.message and not has_chinese(english.message), (name, english.message)
    with pytest.raises(ValueError, match="lang"):
        check_b_m(b_m, lang="fr")
