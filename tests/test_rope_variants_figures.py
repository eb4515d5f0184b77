"""The figures and the interactive figure of chapter "RoPE in today's models" (plotting/rope_variants.py,
widgets/rope_variants.py): what they draw comes from rope_lib, every control changes the picture."""

import numpy as np
import pytest

from rope_lib import RopeScaling, inv_freq
from rope_lib.teach.rope_variants import VARIANTS, plot_layer_schedule, plot_variant_wavelengths, variant_frequencies
from rope_lib.teach.shared.interactive import MAX_FRAMES
from rope_lib.teach.rope_variants import variant_explorer


def test_variant_frequencies_come_from_the_rules():
    np.testing.assert_array_equal(variant_frequencies("plain", 64, 100)[0], inv_freq(64))
    np.testing.assert_array_equal(variant_frequencies("p0.25", 64, 100)[0], RopeScaling("proportional", 1.0, proportion=0.25).frequencies(64, 10000.0))
    short_freqs, note_short = variant_frequencies("longrope", 64, 4096)
    long_freqs, note_long = variant_frequencies("longrope", 64, 4097)
    assert "short" in note_short and "long" in note_long and not np.allclose(short_freqs, long_freqs)
    with pytest.raises(ValueError, match=r"variant must be one of \('plain', 'p0.25', 'p0.75', 'longrope'\), got 'rope'"):
        variant_frequencies("rope", 64, 100)


@pytest.mark.slow
def test_every_control_changes_the_picture_within_the_frame_budget():
    widget = variant_explorer()
    assert np.prod([len(c.values) for c in widget.controls]) <= MAX_FRAMES
    base = widget.figure().to_png()
    for control in widget.controls:
        for value in control.values:
            if value != control.value:
                assert widget.figure(**{control.name: value}).to_png() != base, (control.name, value)
    assert [widget.controls[0].fmt(v) for v in widget.controls[0].values] == list(VARIANTS.values())


def test_figures_describe_themselves():
    fig = plot_variant_wavelengths("p0.25", 128, 8192)
    assert "48 pairs never turn" in fig.alt_text and "16 pairs turn" in fig.alt_text
    assert "12 NoPE layers" in plot_layer_schedule(48, 4).alt_text
