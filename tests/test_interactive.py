"""rope_lib.teach.shared.interactive: figures come from rope_lib, carry a description, and interactive figures offer only
values they can draw."""

import base64
import io
import math
import textwrap

import numpy as np
import pytest
from PIL import Image

from rope_lib.frequencies import wavelengths
from rope_lib.teach import rope_at_a_glance
from rope_lib.teach.shared.figure_style import BookFigure, new_figure
from rope_lib.teach.shared.interactive import Control, InteractiveFigure, PRINT_CAPTION_WIDTH, PRINT_DPI


def test_figures_are_book_figures_with_descriptions():
    rng = np.random.default_rng(0)
    figures = [rope_at_a_glance.plot_wavelengths(64), rope_at_a_glance.plot_score_grid(rng.standard_normal(8), rng.standard_normal(8), range(6))]
    for fig in figures:
        assert isinstance(fig, BookFigure)
        assert len(fig.alt_text.split()) >= 20
        assert fig.to_png().startswith(b"\x89PNG")
    # the description is written from the same numbers as the figure
    assert f"{wavelengths(64)[-1]:,.0f}" in figures[0].alt_text


def test_a_figure_needs_a_description():
    with pytest.raises(ValueError, match="alt must describe the figure"):
        new_figure("")


def test_interactive_figure_checks_its_controls():
    widget = InteractiveFigure(lambda d: rope_at_a_glance.plot_wavelengths(d), (Control("d", "dimension d", (8, 16), 16),))
    assert "d = 8," in widget.figure(d=8).alt_text
    with pytest.raises(ValueError, match=r"control 'd' must take one of \(8, 16\), got 12"):
        widget.figure(d=12)
    with pytest.raises(ValueError, match=r"unknown controls \['base'\]"):
        widget.figure(base=10)
    with pytest.raises(ValueError, match=r"value 4 must be one of its values"):
        Control("d", "d", (8, 16), 4)


def test_live_form_redraws_when_a_slider_moves():
    widget = InteractiveFigure(lambda d: rope_at_a_glance.plot_wavelengths(d), (Control("d", "dimension d", (8, 16), 16),))
    box = widget.live()
    slider, output = box.children
    first = output.outputs
    slider.value = 8
    assert output.outputs != first


@pytest.mark.slow
def test_static_form_has_one_frame_per_combination_and_labelled_controls():
    import json
    import re

    from rope_lib.teach.rope_at_a_glance import wavelength_explorer

    widget = wavelength_explorer()
    page = widget.static_html()
    frames = json.loads(re.search(r'<script type="application/json" class="rope-frames">(.*?)</script>', page, re.S).group(1))
    assert len(frames) == len(widget.controls[0].values) * len(widget.controls[1].values)
    d_at, base_at = widget.controls[0].values.index(128), widget.controls[1].values.index(10000.0)
    assert frames[f"{d_at},{base_at}"]["alt"] == widget.figure(d=128, base=10000.0).alt_text
    assert all(f["src"].startswith("data:image/png;base64,") for f in frames.values())
    ids = re.findall(r'<input type="range" class="rope-control" id="([^"]+)"', page)
    assert len(ids) == 2 and all(f'<label for="{i}">' in page and f'<output for="{i}"' in page for i in ids)
    assert widget.static_html() != page, "a second static form on a page must get fresh element ids"


def test_static_form_refuses_too_many_frames():
    from rope_lib.teach.shared.interactive import MAX_FRAMES

    many = tuple(range(MAX_FRAMES + 1))
    widget = InteractiveFigure(lambda d: rope_at_a_glance.plot_wavelengths(2), (Control("d", "d", many, 0),))
    with pytest.raises(ValueError, match=rf"{MAX_FRAMES + 1} = {MAX_FRAMES + 1} combinations, more than MAX_FRAMES={MAX_FRAMES}"):
        widget.static_html()


def test_script_safe_json_cannot_close_its_script_element():
    from rope_lib.teach.shared.interactive import script_safe_json

    text = script_safe_json({"alt": "</script><b>"})
    assert "</" not in text and __import__("json").loads(text) == {"alt": "</script><b>"}


def test_a_cell_shows_both_forms():
    widget = InteractiveFigure(lambda d: rope_at_a_glance.plot_wavelengths(d), (Control("d", "dimension d", (8, 16), 16),))
    bundle = widget._repr_mimebundle_()
    assert bundle["text/html"].startswith('<div class="rope-interactive"')
    assert "text/plain" in bundle
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == widget.print_png()


def test_print_form_is_the_default_frame_captioned_with_its_settings_and_description():
    widget = InteractiveFigure(lambda d: rope_at_a_glance.plot_wavelengths(d), (Control("d", "dimension d", (8, 16), 16),))
    caption = widget.print_caption()
    assert "shown at dimension d = 16." in caption
    assert caption.endswith(widget.figure(d=16).alt_text)
    assert widget.figure(d=8).alt_text not in caption
    printed = Image.open(io.BytesIO(widget.print_png()))
    uncaptioned = io.BytesIO()
    widget.figure().savefig(uncaptioned, format="png", dpi=PRINT_DPI, bbox_inches="tight")
    frame = Image.open(uncaptioned)
    assert printed.format == "PNG" and printed.info["dpi"][0] == pytest.approx(PRINT_DPI, abs=1)
    # the frame at print resolution, with the caption's lines (8 pt, at least 22 px each) beneath it
    caption_lines = len(textwrap.wrap(caption, PRINT_CAPTION_WIDTH))
    assert printed.height >= frame.height + 22 * caption_lines


def test_a_figure_shows_with_its_description_as_alt_text():
    import html

    fig = rope_at_a_glance.plot_wavelengths(16)
    shown = fig._repr_html_()
    assert shown.startswith('<img class="rope-figure" src="data:image/png;base64,')
    assert f'alt="{html.escape(fig.alt_text, quote=True)}"' in shown


def test_phasor_widget_offers_distance_and_base_on_fixed_axes():
    from rope_lib.teach.rope_nd import pair_products, rope_sum
    from rope_lib.teach.why_rope_works import phasor_widget

    q = np.random.default_rng(0).standard_normal(128)
    widget = phasor_widget(q)
    assert [c.name for c in widget.controls] == ["relative", "base"]
    assert [len(c.values) for c in widget.controls] == [8, 8] and 10000.0 in widget.controls[1].values
    assert {64, 1024, 16384} <= set(widget.controls[0].values)  # the distances the chapter names
    for values in ({"relative": 0}, {"relative": 1024, "base": 500000.0}):
        fig = widget.figure(**values)
        relative, base = values["relative"], values.get("base", 10000.0)
        score = rope_sum(pair_products(q, q), relative, base).real
        assert f"d = 128, base {base:g}, relative distance Δ = {relative}." in fig.alt_text
        assert f"its real part {score:.2f}" in fig.alt_text
    assert f"its real part {q @ q:.2f}" in widget.figure(relative=0).alt_text  # Δ = 0: the score is |q|²
    plane, running = widget.figure(relative=16384, base=1000.0).axes[:2]
    assert running.get_xscale() == "symlog" and running.get_xlim()[1] > 16384  # the whole range, whatever the frame
    assert plane.get_xlim()[1] > q @ q  # Δ = 0's arrows reach |q|² along the real axis in every frame
    assert "d = 64," in phasor_widget(q[:64]).figure().alt_text  # d is the query's length
    with pytest.raises(ValueError, match=r"q must be a vector of an even number of coordinates, at least 2, got shape \(63,\)"):
        phasor_widget(q[:63])


def test_phasor_widget_live_form_redraws_when_the_distance_moves():
    from rope_lib.teach.why_rope_works import phasor_widget

    box = phasor_widget(np.random.default_rng(0).standard_normal(128)).live()
    distance, _base, output = box.children
    first = output.outputs
    distance.value = 256
    assert output.outputs != first


def test_relative_bias_widget_offers_the_alibi_head_over_the_whole_range():
    from rope_lib.relative_bias import alibi_slopes
    from rope_lib.teach.why_rope_works import RELATIVE_BIAS_DISTANCE, relative_bias_widget

    widget = relative_bias_widget()
    assert [c.name for c in widget.controls] == ["head"] and widget.controls[0].choice
    assert math.prod(len(c.values) for c in widget.controls) == 8
    for head in (1, 8):
        slope = float(alibi_slopes(8)[head - 1])
        far = RELATIVE_BIAS_DISTANCE
        assert f"head {head} of slope {slope:.4g} reaches {-slope * far:.4g} at Δ = {far}" in widget.figure(head=head).alt_text
    ax = widget.figure().axes[0]
    assert ax.get_xscale() == "symlog" and ax.get_xlim()[1] == RELATIVE_BIAS_DISTANCE
    assert ax.get_ylim()[0] < -0.5 * RELATIVE_BIAS_DISTANCE  # room for the steepest head, whichever is chosen
    with pytest.raises(ValueError, match=r"control 'head' must take one of"):
        widget.figure(head=9)
