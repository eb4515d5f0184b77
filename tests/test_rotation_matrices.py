"""Chapter "2D rotation matrices" (rope_lib.teach.rotation_matrices; both editions): the rotation matrix is read off
the complex product; its figures, widget and check in both languages. Its derivation is checked with the other
chapters' in tests/test_derivations.py."""

import numpy as np
import pytest
import sympy as sp

import rope_lib
from glyphs import has_chinese, missing_glyphs
from rope_lib.teach import rotation_matrices
from rope_lib.teach.exercises import check_rotate
from rope_lib.teach.rotation_matrices import (
    plot_rotated_query_key,
    plot_rotation_composition,
    rotation_shift_widget,
    turn_text,
)
from rope_lib.teach.shared.language import word_count
from test_derivations import same
from test_exercises import rotate


# --- the rotation matrix, read off the complex product ----------------------------------------------------------------

def test_the_rotation_matrix_is_read_off_the_complex_product():
    """rotation(θ), for which every R(…) of the rotation chapter stands, is the matrix of (a + ib) ↦ (a + ib)e^{iθ}:
    the usual [[cos, −sin], [sin, cos]], and rope_lib's rotation_matrix_2d in floating point."""
    theta = sp.Symbol("theta", real=True)
    written_out = sp.Matrix([[sp.cos(theta), -sp.sin(theta)], [sp.sin(theta), sp.cos(theta)]])
    assert same(rotation_matrices.rotation(theta), written_out)
    assert same(rotation_matrices.rotation(theta) * sp.Matrix(sp.symbols("a b", real=True)), rotation_matrices.turned(theta))
    for angle in (0.0, 0.7, -2.5, 40.0):
        exact = np.array(rotation_matrices.rotation(sp.Float(angle)).evalf(), dtype=float)
        assert np.allclose(exact, rope_lib.rotation.rotation_matrix_2d(angle), rtol=0, atol=1e-15)


# --- both languages: the figures, widget and check --------------------------------------------------------------------

FIGURES = {
    "plot_rotation_composition": lambda lang: plot_rotation_composition([1.2, 0.4], np.radians(50), np.radians(70), lang=lang),
    "plot_rotated_query_key": lambda lang: plot_rotated_query_key([1.0, 0.2], [0.3, 0.9], 2, 0, np.pi / 4, shift=5, lang=lang),
}


@pytest.mark.parametrize("name", FIGURES)
def test_a_chinese_figure_has_chinese_words_and_every_glyph(name):
    fig = FIGURES[name]("zh")
    ax = fig.axes[0]
    assert has_chinese(fig.alt_text) and word_count(fig.alt_text) >= 25, fig.alt_text
    assert "$" not in fig.alt_text
    for words in (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()):
        assert has_chinese(words), words
    for other in fig.axes[1:]:
        assert has_chinese(other.get_xlabel()) and has_chinese(other.get_ylabel())
    assert missing_glyphs(fig) == []


@pytest.mark.parametrize("name", FIGURES)
def test_an_english_figure_is_unchanged_and_has_no_chinese(name):
    fig = FIGURES[name]("en")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "first coordinate" and ax.get_ylabel() == "second coordinate"
    assert not has_chinese(fig.alt_text) and not any(has_chinese(a.get_title()) for a in fig.axes)
    assert missing_glyphs(fig) == []


def test_the_default_language_is_english():
    assert plot_rotation_composition([1.0, 0.5], 0.5, 1.0).axes[0].get_title() == "R(b)R(a) = R(a+b)"
    fig = plot_rotated_query_key([1.0, 0.0], [0.0, 1.0], 2, 1, 0.3, 4)
    assert fig.axes[0].get_title().startswith("dot product = ")
    assert fig.alt_text.startswith("Two panels. Left: the plane with the query q turned")


def test_the_chinese_figures_show_the_same_numbers():
    en, zh = FIGURES["plot_rotated_query_key"]("en"), FIGURES["plot_rotated_query_key"]("zh")
    number = en.axes[0].get_title().split("=")[1].split()[0]
    assert number in zh.axes[0].get_title() and number in zh.alt_text


@pytest.mark.parametrize(("degrees", "en", "zh"), [
    (-29.71, "29.7 degrees clockwise", "顺时针方向 29.7 度"),
    (29.71, "29.7 degrees counter-clockwise", "逆时针方向 29.7 度"),
    (-0.01, "0.0 degrees", "0.0 度"),
])
def test_a_signed_angle_reads_as_a_direction(degrees, en, zh):
    assert turn_text(degrees) == en and turn_text(degrees, lang="zh") == zh


def test_the_figure_says_which_way_the_key_sits():
    """q0 = (1, 0.2) and k0 = (0.3, 0.9) at m = 2, n = 0, θ = 45°: the key sits 29.7° clockwise of the query, no minus sign."""
    en, zh = FIGURES["plot_rotated_query_key"]("en"), FIGURES["plot_rotated_query_key"]("zh")
    assert "The key sits 29.7 degrees clockwise from the query" in en.alt_text
    assert "键位于查询的顺时针方向 29.7 度处" in zh.alt_text and "-29.7" not in en.alt_text + zh.alt_text


def test_the_widget_moves_theta_and_the_shift_and_keeps_the_dot_product_under_a_shift():
    widget = rotation_shift_widget()
    theta, shift = widget.controls
    assert len(theta.values) >= 8 and len(shift.values) >= 8 and len(theta.values) * len(shift.values) <= 96
    assert np.isclose(theta.value, np.pi / 4) and shift.value == 0  # the chapter's θ, no shift
    dot = lambda fig: fig.axes[0].get_title().split("=")[1].strip()
    assert len({dot(widget.figure(theta=t)) for t in theta.values}) == len(theta.values)  # θ moves the score
    assert len({dot(widget.figure(shift=s)) for s in shift.values}) == 1  # a shift of both does not


def test_the_chinese_widget_labels_its_sliders_and_frames_in_chinese():
    widget = rotation_shift_widget(lang="zh")
    assert widget.lang == "zh"
    assert [c.name for c in widget.controls] == [c.name for c in rotation_shift_widget().controls]
    assert all(has_chinese(c.label) for c in widget.controls if c.name != "theta")
    assert has_chinese(widget.print_caption())
    fig = widget.figure(**widget.defaults())
    assert has_chinese(fig.axes[0].get_title()) and missing_glyphs(fig) == []
    english = rotation_shift_widget()
    assert [c.label for c in english.controls] == ["θ", "shift both by s"]


@pytest.mark.parametrize("call", [
    lambda: plot_rotation_composition([1.0, 0.5], 0.5, 1.0, lang="fr"),
    lambda: plot_rotated_query_key([1.0, 0.0], [0.0, 1.0], 2, 1, 0.3, lang="fr"),
    lambda: rotation_shift_widget(lang="fr"),
    lambda: check_rotate(lambda vec, angle: vec, lang="fr"),
], ids=["plot_rotation_composition", "plot_rotated_query_key", "rotation_shift_widget", "check_rotate"])
def test_an_unknown_language_is_refused(call):
    with pytest.raises(ValueError, match="lang"):
        call()


def test_the_success_message_in_each_language():
    en, zh = check_rotate(rotate), check_rotate(rotate, lang="zh")
    assert en and zh
    assert en.message == "rotate matches rope_lib.rotation.rotation_matrix_2d on 27 vectors and angles, 25 of them seeded random ones."
    assert has_chinese(zh.message) and "rope_lib.rotation.rotation_matrix_2d" in zh.message and str(zh).startswith("通过")


MISTAKES = {
    "direction": (lambda vec, angle: rotate(vec, -angle), "direction — a positive angle turns counter-clockwise", "逆时针"),
    "units": (lambda vec, angle: rotate(vec, np.radians(angle)), "units — angle is in radians, not degrees", "弧度"),
    "complex": (lambda vec, angle: complex(*rotate(vec, angle)), "returned the complex number", "复数"),
    "length": (lambda vec, angle: 2 * rotate(vec, angle), "a rotation keeps lengths", "长度"),
    "other": (lambda vec, angle: rotate(vec, angle + 0.5), "the result is not R(angle)·vec", "结果不是 R(angle)·vec"),
}


@pytest.mark.parametrize("mistake", MISTAKES)
def test_each_hint_in_each_language(mistake):
    answer, english, chinese = MISTAKES[mistake]
    en, zh = check_rotate(answer), check_rotate(answer, lang="zh")
    assert not en and not zh
    assert english in en.message and not has_chinese(en.message) and str(en).startswith("NOT YET")
    assert chinese in zh.message and str(zh).startswith("尚未通过")
