"""Figures and widgets of chapters 5–7: described, drawn from the library's numbers, quick, and bounded."""

import math
import time

import numpy as np
import pytest
import torch

from rope_lib import plotting, relative_upper_bound, rope_angles, rotation_matrix_2d
from rope_lib.plotting import BookFigure
from rope_lib.widgets import MAX_FRAMES, frame_png
from rope_lib.widgets.rope_2d import rope_2d_widget
from rope_lib.widgets.rope_nd import clock_widget


def figures():
    return {
        "plot_rope_2d": plotting.plot_rope_2d(3, 1, 0.35, 2),
        "plot_pair_rotations": plotting.plot_pair_rotations(np.arange(8.0), [0, 1, 2, 3]),
        "plot_clock": plotting.plot_clock(100, 16, 10000.0),
        "plot_rotary_matrix": plotting.plot_rotary_matrix(3, 16),
        "plot_relative_upper_bound": plotting.plot_relative_upper_bound(128, 256, bases=(100.0, 10000.0)),
        "plot_bf16_angles": plotting.plot_bf16_angles(range(250, 262)),
    }


@pytest.mark.parametrize("name", list(figures()))
def test_figures_are_described_book_figures(name):
    fig = figures()[name]
    assert isinstance(fig, BookFigure)
    assert len(fig.alt_text.split()) >= 20
    assert fig.to_png().startswith(b"\x89PNG")


def test_descriptions_carry_the_figures_numbers():
    texts = {name: fig.alt_text for name, fig in figures().items()}
    score = (rotation_matrix_2d(5 * 0.35) @ np.array(plotting.rope_2d.DEFAULT_Q)) @ (rotation_matrix_2d(3 * 0.35) @ np.array(plotting.rope_2d.DEFAULT_K))
    assert f"{score:.3f}" in texts["plot_rope_2d"]
    assert f"{relative_upper_bound(256, 128, 100.0):.2f} at 256" in texts["plot_relative_upper_bound"]
    assert "32.5 at 0" in texts["plot_relative_upper_bound"]
    assert f"{rope_angles([100], 16)[0, 0].item():.2f} rad" in texts["plot_clock"]
    assert "224 of the 256 entries are zero" in texts["plot_rotary_matrix"]


def test_score_2d_grid_matches_rotations():
    q, k = np.array([0.3, -1.2]), np.array([0.7, 0.4])
    grid = plotting.score_2d_grid(q, k, 0.6, 6)
    for m in range(6):
        for n in range(6):
            assert math.isclose(grid[m, n], (rotation_matrix_2d(0.6 * m) @ q) @ (rotation_matrix_2d(0.6 * n) @ k), abs_tol=1e-12)
            assert math.isclose(grid[m, n], grid[m - min(m, n), n - min(m, n)], abs_tol=1e-12)  # constant diagonals


def test_bf16_angles_merge_256_and_257():
    careless = plotting.bf16_angles([255, 256, 257, 258], 64)
    assert careless.shape == (4, 32) and careless.dtype == torch.float64
    assert torch.equal(careless[1], careless[2]) and not torch.equal(careless[0], careless[1])
    exact = rope_angles([256, 257], 64)
    assert not torch.equal(exact[0], exact[1])


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match=r"m \+ shift and n \+ shift must lie in 0 … 7, got m=3, n=1, shift=5"):
        plotting.plot_rope_2d(3, 1, 0.35, 5)
    with pytest.raises(ValueError, match=r"q must be a plane vector of shape \(2,\), got shape \(3,\)"):
        plotting.score_2d_grid(np.ones(3), np.ones(2), 0.1, 4)
    with pytest.raises(ValueError, match=r"x must be a vector of even length 2 … 16, got shape \(5,\)"):
        plotting.plot_pair_rotations(np.ones(5), [0, 1])
    with pytest.raises(ValueError, match=r"d must be a positive even integer"):
        plotting.plot_clock(3, 7)


@pytest.mark.parametrize("make", [rope_2d_widget, clock_widget])
def test_widgets_stay_within_the_frame_budget_and_draw_quickly(make):
    widget = make()
    count = math.prod(len(c.values) for c in widget.controls)
    assert count <= MAX_FRAMES == 96
    assert widget.draw.__module__.startswith("rope_lib.plotting.")
    widget.figure()  # warm up matplotlib
    slowest = 0.0
    for values in [{c.name: c.values[0] for c in widget.controls}, {c.name: c.values[-1] for c in widget.controls}]:
        start = time.perf_counter()
        fig = widget.figure(**values)
        frame_png(fig)
        slowest = max(slowest, time.perf_counter() - start)
        w, h = fig.get_size_inches()
        assert w <= 8.5 and h <= 4.5
    assert slowest < 1.5  # the budget is 0.3 s; the margin absorbs a busy test machine


def test_the_2d_widget_shows_shift_invariance():
    widget = rope_2d_widget()
    titles = {s: widget.figure(shift=s).axes[0].get_title() for s in (0, 2, 4)}
    assert len(set(titles.values())) == 1, titles
    assert widget.figure(shift=0, m=2).axes[0].get_title() != titles[0]


def test_the_clock_has_one_hand_per_pair():
    widget = clock_widget()
    for d in (4, 8, 16):
        fig = widget.figure(d=d)
        assert len(fig.axes[0].get_legend().get_texts()) == d // 2
