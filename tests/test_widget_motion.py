"""Every interactive figure of the book moves visibly: a slider over a quantity offers at least QUANTITY_STOPS values,
and the axes stay put across a figure's frames, so that a move shows as a change of the curve, not of its labels."""

import numpy as np
import pytest

from rope_lib.teach.shared.interactive import Control, InteractiveFigure, QUANTITY_STOPS
from rope_lib.teach.tokens_and_attention import attention_weights_widget
from rope_lib.teach.complex_numbers import complex_rotation_widget
from rope_lib.teach.longer_contexts import context_extension_explorer
from rope_lib.teach.rope_at_a_glance import wavelength_explorer
from rope_lib.teach.rope_for_images import patch_score_widget
from rope_lib.teach.why_rope_works import phasor_widget
from rope_lib.teach.why_rope_works import relative_bias_widget
from rope_lib.teach.rope_2d import rope_2d_widget
from rope_lib.teach.rope_nd import clock_widget
from rope_lib.teach.rope_variants import variant_explorer
from rope_lib.teach.rotation_matrices import rotation_shift_widget
from rope_lib.teach.sinusoidal_encoding import sinusoidal_pair_widget
from rope_lib.teach.trained_models import attention_map_widget

_RNG = np.random.default_rng(0)
_WEIGHTS = _RNG.random((4, 4))
_MAPS = _RNG.random((2, 1, 2, 6, 6))

BOOK_WIDGETS = {
    "attention_weights": lambda: attention_weights_widget(["the", "cat", "sat", "down"], _WEIGHTS / _WEIGHTS.sum(1, keepdims=True)),
    "complex_rotation": complex_rotation_widget,
    "context_extension": context_extension_explorer,
    "wavelength": wavelength_explorer,
    "patch_score": patch_score_widget,
    "phasor": lambda: phasor_widget(_RNG.standard_normal(64)),
    "relative_bias": relative_bias_widget,
    "rope_2d": rope_2d_widget,
    "clock": clock_widget,
    "variant": variant_explorer,
    "rotation_shift": rotation_shift_widget,
    "sinusoidal_pair": lambda: sinusoidal_pair_widget(d=8),
    "attention_map": lambda: attention_map_widget(_MAPS / _MAPS.sum(-1, keepdims=True)),
}
"""Each interactive figure a chapter shows, made as the chapter makes it (small data where it hands its own)."""


def _is_quantity(control: Control) -> bool:
    numbers = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in control.values)
    return numbers and not control.choice


def short_sliders(widget: InteractiveFigure) -> list[str]:
    """The controls over a quantity that offer fewer than QUANTITY_STOPS values."""
    return [f"{c.name}: {len(c.values)} values" for c in widget.controls if _is_quantity(c) and len(c.values) < QUANTITY_STOPS]


def axes_limits(figure) -> list[tuple]:
    """Each axes' limits and scales, in the figure's order (a 3D axes adds its z limits)."""
    limits = []
    for ax in figure.axes:
        entry = (tuple(np.round(ax.get_xlim(), 9)), tuple(np.round(ax.get_ylim(), 9)), ax.get_xscale(), ax.get_yscale())
        if hasattr(ax, "get_zlim"):
            entry += (tuple(np.round(ax.get_zlim(), 9)),)
        limits.append(entry)
    return limits


def moving_axes(widget: InteractiveFigure) -> list[str]:
    """The frames whose axes differ from the default frame's, as 'control=value, …'."""
    default = axes_limits(widget.figure())
    moved = []
    for control in widget.controls:
        for value in control.values:
            if axes_limits(widget.figure(**{control.name: value})) != default:
                moved.append(f"{control.name}={control.fmt(value)}")
    return moved


@pytest.mark.parametrize("name", sorted(BOOK_WIDGETS))
def test_sliders_over_a_quantity_have_enough_stops(name):
    assert not short_sliders(BOOK_WIDGETS[name]()), f"{name}: {short_sliders(BOOK_WIDGETS[name]())}"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BOOK_WIDGETS))
def test_axes_stay_fixed_across_frames(name):
    moved = moving_axes(BOOK_WIDGETS[name]())
    assert not moved, f"{name}: the axes change with {moved}"


def test_the_checks_catch_a_short_slider_and_moving_axes():
    from rope_lib.teach.shared.figure_style import new_figure

    def draw(scale):
        fig = new_figure("a line whose height follows the slider, drawn on axes that rescale with it")
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, scale])
        return fig

    few = InteractiveFigure(draw, (Control("scale", "scale", (1.0, 2.0, 3.0), 1.0),))
    assert short_sliders(few) == ["scale: 3 values"]
    assert moving_axes(few)  # autoscaled axes follow the curve
    chosen = InteractiveFigure(draw, (Control("scale", "scale", (1.0, 2.0, 3.0), 1.0, choice=True),))
    assert short_sliders(chosen) == []
