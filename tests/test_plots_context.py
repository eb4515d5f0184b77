"""Figures and the interactive figure of chapters "Longer contexts" and "Why does RoPE work?"."""

import time

import numpy as np
import pytest

from rope_lib import RopeScaling, b_m_theta, inv_freq
from rope_lib.plotting import (
    BookFigure,
    plot_angle_coverage,
    plot_b_m_theta,
    plot_base_bounds,
    plot_base_reach,
    plot_cache_gaps,
    plot_context_extension,
    plot_decay_revisited,
    plot_frequency_roles,
    plot_scaled_frequencies,
    plot_similarity_vs_distance,
)
from rope_lib.plotting.context_extension import scaled_frequencies, similarity_curve
from rope_lib.widgets import MAX_FRAMES
from rope_lib.widgets.context_extension import context_extension_explorer

FIGURES = [
    lambda: plot_angle_coverage(),
    lambda: plot_scaled_frequencies(),
    lambda: plot_similarity_vs_distance(),
    lambda: plot_context_extension("llama3", 8.0),
    lambda: plot_cache_gaps({"dynamic NTK": (np.arange(5, 9), np.array([0.0, 0.0, 0.1, 0.2]))}, 6),
    lambda: plot_decay_revisited(max_distance=128),
    lambda: plot_frequency_roles(max_distance=256),
    lambda: plot_b_m_theta(max_len=4096),
    lambda: plot_base_reach(low=1e4, high=3e4, points=40, context_len=2048),
    lambda: plot_base_bounds([4096, 8192], np.array([3.9e4, 1.4e5]), np.array([2.7e4, 8.4e4]), fine=([4096], [2.9e4])),
]


@pytest.mark.parametrize("make", FIGURES)
def test_figures_are_described(make):
    fig = make()
    assert isinstance(fig, BookFigure) and len(fig.alt_text.split()) > 25
    assert fig.to_png().startswith(b"\x89PNG")


def test_scaled_frequencies_and_similarity_curve():
    freqs, attention = scaled_frequencies("yarn", 4.0, 64, 10000.0, 1024)
    rule = RopeScaling("yarn", 4.0, original_max_len=1024)
    np.testing.assert_array_equal(freqs, rule.frequencies(64, 10000.0))
    assert attention == rule.attention_factor
    dynamic, _ = scaled_frequencies("dynamic", 4.0, 64, 10000.0, 1024)
    np.testing.assert_array_equal(dynamic, rule.__class__("dynamic", 4.0, original_max_len=1024).frequencies(64, 10000.0, 4096))
    plain, one = scaled_frequencies("none", 4.0, 64, 10000.0, 1024)
    np.testing.assert_array_equal(plain, inv_freq(64)) and one == 1.0
    m = np.arange(0, 300)
    np.testing.assert_allclose(similarity_curve(freqs, attention, m), attention**2 * b_m_theta(m, freqs) / 32)
    assert similarity_curve(plain, 1.0, [0])[0] == 1.0


def test_explorer_stays_within_the_frame_budget_and_draws_quickly():
    widget = context_extension_explorer()
    counts = np.prod([len(c.values) for c in widget.controls])
    assert counts <= MAX_FRAMES
    start = time.perf_counter()
    for method in ("linear", "ntk", "dynamic", "yarn", "llama3"):
        fig = widget.figure(method=method, factor=16.0)
        assert fig.get_size_inches()[0] <= 5.5
    assert (time.perf_counter() - start) / 5 < 1.0  # drawing only; the PNG is made when the page is built
