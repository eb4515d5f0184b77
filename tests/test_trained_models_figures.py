"""The figures and the widget of chapter "RoPE in a trained model": described from their own numbers, refusing bad
input, and the attention-map widget offering one frame per layer and head."""

import numpy as np
import pytest

from rope_lib.teach.shared.figure_style import BookFigure
from rope_lib.teach.trained_models import (
    plot_attention_map,
    plot_learning_curves,
    plot_length_generalisation,
    plot_loss_curve,
    plot_offset_probe,
)
from rope_lib.teach.trained_models import attention_map_widget
from test_experiment_report import report


def offset_maps(layers=2, heads=3, seq=10, offset=2):
    """Weights (n_layers, 1, H, T, T) in which every head looks `offset` back (or at the first token before that)."""
    w = np.zeros((layers, 1, heads, seq, seq))
    t = np.arange(seq)
    w[..., t, np.where(t >= offset, t - offset, 0)] = 1.0
    return w


def test_the_figures_are_described_from_their_numbers():
    r = report()
    figures = [plot_loss_curve([3.0, 2.0, 0.125], title="a test run"), plot_learning_curves(r), plot_length_generalisation(r),
               plot_offset_probe(r), plot_attention_map(offset_maps(), 1, 2, offset=2)]
    for fig in figures:
        assert isinstance(fig, BookFigure) and len(fig.alt_text.split()) >= 20 and fig.to_png().startswith(b"\x89PNG")
    assert "starts at 3.00 and ends at 0.125" in figures[0].alt_text
    assert "RoPE on copy 0.5" in figures[1].alt_text  # the mean of the last losses 0.5, 0.5, 0.5
    assert "NoPE 0.23" in figures[2].alt_text and "RoPE + YaRN 0.23" in figures[2].alt_text  # (0.225 + 0.235 + 0.245) / 3, printed as 0.23
    assert "RoPE: 0.80" in figures[3].alt_text
    assert "puts 1.00 of its weight" in figures[4].alt_text


def test_the_widget_has_a_frame_per_layer_and_head():
    widget = attention_map_widget(offset_maps(), layer=1, head=2, offset=2)
    assert [c.name for c in widget.controls] == ["layer", "head"] and widget.defaults() == {"layer": 1, "head": 2}
    assert len(widget.frames()) == 6
    assert "layer 0, head 1" in widget.figure(layer=0, head=1).alt_text


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="losses must be a curve of at least two steps"):
        plot_loss_curve([1.0], title="x")
    with pytest.raises(ValueError, match=r"layer must be in \[0, 2\) and head in \[0, 3\)"):
        plot_attention_map(offset_maps(), 2, 0)
    with pytest.raises(ValueError, match=r"weights must have shape \(n_layers, B, H, T, T\)"):
        attention_map_widget(np.ones((2, 3, 4, 4)))
    with pytest.raises(ValueError, match="at least two layers and two heads"):
        attention_map_widget(offset_maps(layers=1))
