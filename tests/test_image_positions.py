"""The figures of chapter "RoPE for images and video": described from their own numbers, every control moves them."""

import math

import numpy as np
import pytest

from rope_lib.teach.rope_for_images import patch_rule_freqs, plot_mrope_positions, plot_patch_scores
from rope_lib.teach.shared.figure_style import BookFigure
from rope_lib.teach.shared.interactive import MAX_FRAMES
from rope_lib.teach.rope_for_images import patch_score_widget


def test_patch_score_widget_stays_small_and_every_control_moves_the_picture():
    widget = patch_score_widget()
    assert math.prod(len(c.values) for c in widget.controls) <= MAX_FRAMES
    assert [len(c.values) for c in widget.controls] == [8, 8]
    base = widget.figure()
    assert isinstance(base, BookFigure) and "row 3, column 6" in base.alt_text
    assert "left under axial RoPE, right under frequencies that all point along the diagonal" in base.alt_text
    assert [ax.get_title() for ax in base.axes[:2]] == ["axial RoPE", "diagonal RoPE"]
    for control in widget.controls:
        other = next(v for v in control.values if v != control.value)
        assert widget.figure(**{control.name: other}).to_png() != base.to_png(), control.name


def test_patch_scores_draw_a_cross_or_a_diagonal_stripe():
    assert "cross along its row and its column" in plot_patch_scores(2, 3, "axial").alt_text
    assert "stripe along the anti-diagonal" in plot_patch_scores(2, 3, "diagonal").alt_text
    diagonal = patch_rule_freqs("diagonal", 8, 10.0)
    assert np.allclose(diagonal[:, 0], diagonal[:, 1])
    with pytest.raises(ValueError, match="rule must be one of"):
        patch_rule_freqs("mixed", 8, 10.0)


def test_mrope_figure_describes_its_sequence():
    fig = plot_mrope_positions([("text", 4), ("image", (3, 4)), ("text", 4)])
    assert "text 4, image 3×4, text 4 (20 tokens)" in fig.alt_text and "t stays at 4" in fig.alt_text and "ending at 11" in fig.alt_text
