"""The figures and interactive figures of the chapters' modules of rope_lib.teach: described, drawn from the
library's numbers, quick, bounded, and saying what each one claims."""

import math
import re
import time

import numpy as np
import pytest
import torch

from rope_lib import RopeScaling, inv_freq
from rope_lib.rope import rope_angles
from rope_lib.rotation import rotation_matrix_2d, score_grid
from rope_lib.scaling import scaled_frequencies
from rope_lib.teach import llama_implementation, rope_2d, rope_nd, why_rope_works
from rope_lib.teach.llama_implementation import bf16_angles
from rope_lib.teach.rope_nd import relative_upper_bound
from rope_lib.teach.tokens_and_attention import build_vocab, embed, embedding_table, projection, self_attention, token_ids, tokenize
from rope_lib.teach.why_rope_works import b_m_theta, similarity_curve
from rope_lib.teach.complex_numbers import plot_complex_product, plot_complex_rotation, plot_euler_partial_sums
from rope_lib.teach.longer_contexts import (
    plot_angle_coverage,
    plot_cache_gaps,
    plot_context_extension,
    plot_scaled_frequencies,
    plot_similarity_vs_distance,
)
from rope_lib.teach.rotation_matrices import plot_rotated_query_key, plot_rotation_composition
from rope_lib.teach.shared.figure_style import BookFigure
from rope_lib.teach.sinusoidal_encoding import (
    plot_absolute_scores_under_shift,
    plot_sinusoidal_encoding,
    plot_sinusoidal_pair,
)
from rope_lib.teach.tokens_and_attention import plot_attention_matrix, plot_attention_weights
from rope_lib.teach.why_rope_works import (
    plot_b_m_theta,
    plot_base_bounds,
    plot_base_reach,
    plot_decay_revisited,
    plot_frequency_roles,
)
from rope_lib.teach.shared.interactive import MAX_FRAMES, frame_png
from rope_lib.teach.tokens_and_attention import attention_weights_widget
from rope_lib.teach.complex_numbers import complex_rotation_widget
from rope_lib.teach.longer_contexts import context_extension_explorer
from rope_lib.teach.why_rope_works import phasor_widget
from rope_lib.teach.why_rope_works import relative_bias_widget
from rope_lib.teach.rope_2d import rope_2d_widget
from rope_lib.teach.rope_nd import clock_widget
from rope_lib.teach.rotation_matrices import rotation_shift_widget
from rope_lib.teach.sinusoidal_encoding import sinusoidal_pair_widget


def sentence():
    tokens = tokenize("The dog bites the man.")
    x = embed(token_ids(tokens, build_vocab(tokens)), embedding_table(len(set(tokens)), 8))
    _, weights = self_attention(x, *(projection(8, 8, seed=i) for i in range(3)))
    return tokens, weights


def static_figures():
    tokens, weights = sentence()
    rng = np.random.default_rng(0)
    return [
        plot_attention_weights(tokens, weights, 1),
        plot_attention_matrix(tokens, weights),
        plot_sinusoidal_encoding(40, 16),
        plot_sinusoidal_pair(5, 0, 8),
        plot_absolute_scores_under_shift(rng.standard_normal(8), rng.standard_normal(8), projection(8, 8, 1), projection(8, 8, 2), 3, 1, range(10)),
        plot_complex_product(1 + 1j, 0.5 + 1.5j),
        plot_euler_partial_sums([1.0, 3.0], 12),
        plot_complex_rotation(1 + 0.5j, 1.0),
        plot_rotation_composition([1.0, 0.5], 0.5, 1.0),
        plot_rotated_query_key([1.0, 0.0], [0.0, 1.0], 2, 1, 0.3, 4),
    ]


def test_every_figure_is_a_described_book_figure():
    for fig in static_figures():
        assert isinstance(fig, BookFigure)
        assert len(fig.alt_text.split()) >= 25, fig.alt_text
        assert fig.to_png().startswith(b"\x89PNG")


def test_descriptions_come_from_the_same_numbers():
    tokens, weights = sentence()
    assert f"{weights[1].max():.2f}" in plot_attention_weights(tokens, weights, 1).alt_text
    assert f"{abs((1 + 1j) * (0.5 + 1.5j)):.2f}" in plot_complex_product(1 + 1j, 0.5 + 1.5j).alt_text
    q, k = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    expected = math.cos((1 - 2) * 0.3 + math.pi / 2)  # angle of k minus angle of q after turning
    assert f"{expected:.3f}" in plot_rotated_query_key(q, k, 2, 1, 0.3, 4).alt_text


def frames(widget):
    names = [c.name for c in widget.controls]
    for values in np.ndindex(*[len(c.values) for c in widget.controls]):
        yield dict(zip(names, (c.values[i] for c, i in zip(widget.controls, values))))


def widgets():
    return [attention_weights_widget(*sentence()), sinusoidal_pair_widget(), complex_rotation_widget(), rotation_shift_widget()]


@pytest.mark.parametrize("index", range(4))
def test_widgets_stay_small_and_draw_quickly(index):
    widget = widgets()[index]
    count = math.prod(len(c.values) for c in widget.controls)
    assert 2 <= count <= MAX_FRAMES
    start = time.process_time()
    fig = widget.figure()
    fig.to_png()
    assert time.process_time() - start < 1.0  # CPU seconds, which other processes do not inflate; 0.3 s is the goal
    width, height = fig.get_size_inches()
    assert width <= 6 and height <= 5


def test_rotation_widget_shows_one_dot_product_for_every_shift():
    widget = rotation_shift_widget()
    titles = {}
    for values in frames(widget):
        fig = widget.figure(**values)
        titles.setdefault(values["theta"], set()).add(re.search(r"dot product = (-?[\d.]+)", fig.axes[0].get_title()).group(1))
    assert all(len(t) == 1 for t in titles.values()), titles
    assert len({next(iter(t)) for t in titles.values()}) > 1  # but it does change with θ, which turns the two apart


def test_sinusoidal_widget_point_lies_on_the_unit_circle():
    widget = sinusoidal_pair_widget()
    for values in list(frames(widget))[::7]:
        point = re.search(r"is at \((-?[\d.]+), (-?[\d.]+)\)", widget.figure(**values).alt_text)
        assert abs(math.hypot(float(point.group(1)), float(point.group(2))) - 1) < 2e-3


def test_bad_input_is_named():
    tokens, weights = sentence()
    with pytest.raises(ValueError, match=r"query must be a row index in \[0, 6\)"):
        plot_attention_weights(tokens, weights, 6)
    with pytest.raises(ValueError, match=r"weights must have shape \(N, 6\)"):
        plot_attention_matrix(tokens, weights[:, :3])
    with pytest.raises(ValueError, match="tokens must hold 2 to 12 tokens"):
        attention_weights_widget(tokenize("a b c d e f g h i j k l m"), np.eye(13))
    with pytest.raises(ValueError, match=r"weights must have shape \(6, 6\)"):
        attention_weights_widget(tokens, weights[:3])
    with pytest.raises(ValueError, match="q and k must be plane vectors"):
        plot_rotated_query_key([1.0, 0.0, 0.0], [0.0, 1.0], 0, 0, 0.1)


def figures():
    return {
        "plot_rope_2d": rope_2d.plot_rope_2d(3, 1, 0.35, 2),
        "plot_pair_rotations": rope_nd.plot_pair_rotations(np.arange(8.0), [0, 1, 2, 3]),
        "plot_clock": rope_nd.plot_clock(100, 16, 10000.0),
        "plot_rotary_matrix": rope_nd.plot_rotary_matrix(3, 16),
        "plot_relative_upper_bound": rope_nd.plot_relative_upper_bound(128, 256, bases=(100.0, 10000.0)),
        "plot_bf16_angles": llama_implementation.plot_bf16_angles(range(250, 262)),
    }


@pytest.mark.parametrize("name", list(figures()))
def test_figures_are_described_book_figures(name):
    fig = figures()[name]
    assert isinstance(fig, BookFigure)
    assert len(fig.alt_text.split()) >= 20
    assert fig.to_png().startswith(b"\x89PNG")


def test_descriptions_carry_the_figures_numbers():
    texts = {name: fig.alt_text for name, fig in figures().items()}
    score = (rotation_matrix_2d(5 * 0.35) @ np.array(rope_2d.DEFAULT_Q)) @ (rotation_matrix_2d(3 * 0.35) @ np.array(rope_2d.DEFAULT_K))
    assert f"{score:.3f}" in texts["plot_rope_2d"]
    assert f"{relative_upper_bound(256, 128, 100.0):.2f} at 256" in texts["plot_relative_upper_bound"]
    assert "32.5 at 0" in texts["plot_relative_upper_bound"]
    assert f"{rope_angles([100], 16)[0, 0].item():.2f} rad" in texts["plot_clock"]
    assert "224 of the 256 entries are zero" in texts["plot_rotary_matrix"]


def test_score_grid_with_one_frequency_is_the_2d_chapter_grid():
    q, k = np.array([0.3, -1.2]), np.array([0.7, 0.4])
    grid = score_grid(q, k, range(6), inv_freq=[0.6])  # what plot_rope_2d draws
    for m in range(6):
        for n in range(6):
            assert math.isclose(grid[m, n], (rotation_matrix_2d(0.6 * m) @ q) @ (rotation_matrix_2d(0.6 * n) @ k), abs_tol=1e-12)
            assert math.isclose(grid[m, n], grid[m - min(m, n), n - min(m, n)], abs_tol=1e-12)  # constant diagonals


def test_bf16_angles_merge_256_and_257():
    careless = bf16_angles([255, 256, 257, 258], 64)
    assert careless.shape == (4, 32) and careless.dtype == torch.float64
    assert torch.equal(careless[1], careless[2]) and not torch.equal(careless[0], careless[1])
    exact = rope_angles([256, 257], 64)
    assert not torch.equal(exact[0], exact[1])


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match=r"m \+ shift and n \+ shift must lie in 0 … 7, got m=3, n=1, shift=5"):
        rope_2d.plot_rope_2d(3, 1, 0.35, 5)
    with pytest.raises(ValueError, match=r"q must be a plane vector of shape \(2,\), got shape \(3,\)"):
        rope_2d.plot_rope_2d(1, 0, 0.1, q=np.ones(3))
    with pytest.raises(ValueError, match=r"x must be a vector of even length 2 … 16, got shape \(5,\)"):
        rope_nd.plot_pair_rotations(np.ones(5), [0, 1])
    with pytest.raises(ValueError, match=r"d must be a positive even integer"):
        rope_nd.plot_clock(3, 7)


def phasors_of_one_query():
    return phasor_widget(np.random.default_rng(0).standard_normal(128))


@pytest.mark.parametrize("make", [rope_2d_widget, clock_widget, phasors_of_one_query, relative_bias_widget])
def test_widgets_stay_within_the_frame_budget_and_draw_quickly(make):
    widget = make()
    count = math.prod(len(c.values) for c in widget.controls)
    assert count <= MAX_FRAMES == 96
    assert widget.draw.__module__.startswith("rope_lib.teach.") and ".shared." not in widget.draw.__module__  # its chapter's; it may bind its data
    widget.figure()  # warm up matplotlib
    slowest = 0.0
    for values in [{c.name: c.values[0] for c in widget.controls}, {c.name: c.values[-1] for c in widget.controls}]:
        start = time.process_time()
        fig = widget.figure(**values)
        frame_png(fig)
        slowest = max(slowest, time.process_time() - start)
        w, h = fig.get_size_inches()
        assert w <= 8.5 and h <= 4.5
    assert slowest < 1.5  # CPU seconds, which other processes do not inflate; the budget is 0.3 s


def test_the_2d_widget_shows_shift_invariance():
    widget = rope_2d_widget()
    titles = {s: widget.figure(shift=s).axes[0].get_title() for s in (0, 2, 4)}
    assert len(set(titles.values())) == 1, titles
    assert widget.figure(shift=0, m=2).axes[0].get_title() != titles[0]


def test_the_clock_has_one_hand_per_pair():
    from rope_lib.teach.rope_nd import plot_clock
    from rope_lib.teach.rope_nd import CLOCK_D

    for d in (4, 8, 16):
        assert len(plot_clock(3, d, 10000.0).axes[0].get_legend().get_texts()) == d // 2
    assert len(clock_widget().figure(position=4).axes[0].get_legend().get_texts()) == CLOCK_D // 2


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
    start = time.process_time()
    for method in ("linear", "ntk", "dynamic", "yarn", "llama3"):
        fig = widget.figure(method=method, factor=16.0)
        assert fig.get_size_inches()[0] <= 5.5
    assert (time.process_time() - start) / 5 < 1.0  # drawing only; the PNG is made when the page is built


def test_the_phasor_figure_draws_the_score_it_describes():
    from matplotlib.quiver import Quiver

    from rope_lib import apply_rope
    from rope_lib.teach.rope_nd import pair_products, phasor_terms, unturned_pairs
    from rope_lib.teach.shared.figure_style import series_style

    rng = np.random.default_rng(4)
    q, k = rng.standard_normal(32), rng.standard_normal(32)
    fig = why_rope_works.plot_phasor_sum(q, k, 40, 500.0)
    assert isinstance(fig, BookFigure) and len(fig.alt_text.split()) > 40
    x = torch.tensor(np.stack([q, k]))[:, None, None, :]
    turned = apply_rope(x, [[45], [5]], base=500.0, layout="interleaved")
    score = float(turned[0, 0, 0] @ turned[1, 0, 0])
    assert f"its real part {score:.2f}" in fig.alt_text
    assert f"{unturned_pairs(40, 32, 500.0)} of the 16 arrows" in fig.alt_text
    plane, running = fig.axes[:2]
    (arrows,) = [c for c in plane.collections if isinstance(c, Quiver)]
    assert arrows.N == 16  # one arrow per pair
    path = phasor_terms(pair_products(q, k), 40, 500.0)
    np.testing.assert_allclose(arrows.X, path[:-1].real)
    np.testing.assert_allclose(arrows.U, np.diff(path).real)
    np.testing.assert_allclose(arrows.V, np.diff(path).imag)
    marked = [line.get_xdata()[0] for line in plane.get_lines() if line.get_marker() == series_style(3)["marker"]]
    assert marked and math.isclose(marked[0], score, abs_tol=1e-9)  # the score, marked on the real axis
    curve = running.get_lines()[0]
    assert list(curve.get_xdata()) == list(range(41)) and math.isclose(curve.get_ydata()[-1], score, abs_tol=1e-9)
    assert fig.to_png().startswith(b"\x89PNG")


def test_the_relative_bias_figure_draws_each_scheme():
    from rope_lib.relative_bias import alibi_slopes, t5_relative_bias, t5_relative_bucket
    from rope_lib.teach.why_rope_works import t5_table_following

    fig = why_rope_works.plot_relative_biases(3, 300)
    assert isinstance(fig, BookFigure) and len(fig.alt_text.split()) > 60
    slope = float(alibi_slopes(8)[2])
    assert f"slope {slope:.4g} reaches {-slope * 300:.4g} at Δ = 300" in fig.alt_text
    first_of_last = int(np.argmax(t5_relative_bucket(-torch.arange(301), bidirectional=False).numpy() == 31))
    assert first_of_last == 113 and f"from Δ = {first_of_last} on" in fig.alt_text
    rope = 2 * (b_m_theta(np.arange(301), inv_freq(128)) - 64) / math.sqrt(128)
    assert f"between {rope.min():.3g} and 0" in fig.alt_text
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    np.testing.assert_allclose(lines["ALiBi head 3: −0.125·Δ"].get_ydata(), -0.125 * np.arange(301))
    np.testing.assert_allclose(lines["NoPE: 0"].get_ydata(), 0)
    np.testing.assert_allclose(lines["RoPE, similar key: 2σ²(B_Δ − B_0)/√d"].get_ydata(), rope)
    # the T5 steps read a table that holds the ALiBi line at each bucket's first distance
    table = t5_table_following(-slope * np.arange(301.0), 32, 128)
    t5 = t5_relative_bias([300], range(300, -1, -1), torch.from_numpy(table[:, None]), bidirectional=False)[0, 0].numpy()
    np.testing.assert_allclose(lines["T5, 32 buckets (table following head 3)"].get_ydata(), t5)
    buckets = t5_relative_bucket(-torch.arange(301), bidirectional=False).numpy()
    for b in np.unique(buckets):
        first = int(np.flatnonzero(buckets == b)[0])
        assert table[b] == -slope * first and np.all(t5[buckets == b] == table[b])
    assert np.all(np.diff(t5) <= 0)  # following a falling line, the steps fall
    assert fig.to_png().startswith(b"\x89PNG")


def test_relative_bias_figure_refuses_a_head_it_does_not_have():
    with pytest.raises(ValueError, match=r"head must be one of the heads 1 … 8, got 9"):
        why_rope_works.plot_relative_biases(9)
    with pytest.raises(ValueError, match=r"max_distance must be a positive integer, got 0"):
        why_rope_works.plot_relative_biases(1, 0)


def test_the_why_rope_works_widgets_share_one_page_budget():
    """The chapter holds two interactive figures beside its static ones: together they keep the page light."""
    frames = [math.prod(len(c.values) for c in widget.controls) for widget in (phasors_of_one_query(), relative_bias_widget())]
    assert sum(frames) <= MAX_FRAMES


def test_an_index_in_subscripts_for_a_chinese_label():
    """Chinese labels cannot use mathtext, so their indices are Unicode subscripts: digits, m and n."""
    from rope_lib.teach.shared.figure_style import subscript

    assert subscript(12) == "₁₂" and subscript("m,n") == "ₘ,ₙ" and subscript("2,n") == "₂,ₙ"
