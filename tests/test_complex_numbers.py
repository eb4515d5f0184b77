"""Chapter "Complex numbers and Euler's formula" (rope_lib.teach.complex_numbers; both editions): pairs as complex numbers
and the partial sums of Euler's series; its figures, widget and check in both languages. Its derivation is checked with
the other chapters' in tests/test_derivations.py."""

import math

import cmath
import numpy as np
import pytest
from hypothesis import given, strategies as st

from glyphs import assert_chinese_figure, assert_english_figure, has_chinese, missing_glyphs
from rope_lib.rotation import rotation_matrix_2d
from rope_lib.teach.complex_numbers import (
    complex_rotation_widget,
    complex_to_pair,
    exp_partial_sums,
    pair_to_complex,
    plot_complex_product,
    plot_complex_rotation,
    plot_euler_partial_sums,
)
from rope_lib.teach.exercises import check_terms_needed
from rope_lib.teach.shared.language import word_count
from test_exercises import terms_needed


# --- pairs as complex numbers, and the partial sums of Euler's series -------------------------------------------------

real = st.floats(min_value=-100, max_value=100, allow_nan=False)


def test_pairs_and_complex_numbers_round_trip():
    v = np.array([[1.0, 2.0], [-3.0, 0.5]])
    np.testing.assert_array_equal(pair_to_complex(v), [1 + 2j, -3 + 0.5j])
    np.testing.assert_array_equal(complex_to_pair(pair_to_complex(v)), v)


@given(real, real, st.floats(min_value=-10, max_value=10, allow_nan=False))
def test_multiplying_by_e_i_theta_is_the_rotation_matrix(a, b, theta):
    turned = pair_to_complex([a, b]) * cmath.exp(1j * theta)
    np.testing.assert_allclose(complex_to_pair(turned), rotation_matrix_2d(theta) @ [a, b], atol=1e-9 * (1 + abs(a) + abs(b)))


@given(real, real, real, real)
def test_real_part_of_z1_times_conjugate_z2_is_the_dot_product(a, b, c, d):
    z1, z2 = pair_to_complex([a, b]), pair_to_complex([c, d])
    np.testing.assert_allclose((z1 * np.conj(z2)).real, a * c + b * d, rtol=1e-12, atol=1e-9)


def test_partial_sums_match_the_factorial_formula():
    z = 0.7 - 1.3j
    slow = [sum(z**k / math.factorial(k) for k in range(n + 1)) for n in range(12)]
    np.testing.assert_allclose(exp_partial_sums(z, 12), slow, rtol=1e-14)


@pytest.mark.parametrize("x", [0.0, 1.0, -2.5, math.pi, 6.0])
def test_partial_sums_converge_to_cos_plus_i_sin(x):
    sums = exp_partial_sums(1j * x, 40)
    assert abs(sums[-1] - complex(math.cos(x), math.sin(x))) < 1e-13
    assert sums[0] == 1


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="v must have a last axis of length 2"):
        pair_to_complex([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="n_terms must be a positive integer"):
        exp_partial_sums(1j, 0)
    with pytest.raises(TypeError, match="z must be a number"):
        exp_partial_sums("1j", 3)


def test_sympy_reads_the_rotation_matrix_off_the_complex_product():
    """The chapter's symbolic step, and a false version of it that must be caught."""
    import sympy as sp

    from rope_lib.teach.shared import symbolic

    a, b, theta = sp.symbols("a b theta", real=True)
    v = sp.Matrix([a, b])
    turned = symbolic.as_vector(symbolic.as_complex(v) * sp.exp(sp.I * theta))
    symbolic.assert_equal(turned.jacobian(v), symbolic.rotation_matrix(theta), "R(θ) from (a + ib)e^{iθ}")
    with pytest.raises(AssertionError, match="R"):
        symbolic.assert_equal(turned.jacobian(v), symbolic.rotation_matrix(-theta), "R(−θ) from (a + ib)e^{iθ}")


# --- both languages: the figures, widget and check --------------------------------------------------------------------

FIGURES = {
    "plot_complex_product": lambda lang: plot_complex_product(1.5 + 0.5j, 0.4 + 0.9j, lang=lang),
    "plot_euler_partial_sums": lambda lang: plot_euler_partial_sums([1.0, 2.0, math.pi], 30, lang=lang),
    "plot_complex_rotation": lambda lang: plot_complex_rotation(1.2 + 0.5j, np.radians(45), lang=lang),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figures_have_chinese_words_and_every_glyph(name):
    fig = FIGURES[name]("zh")
    assert has_chinese(fig.alt_text) and word_count(fig.alt_text) >= 5
    for ax in fig.axes:
        assert has_chinese(ax.get_title()) and has_chinese(ax.get_xlabel())
    assert_chinese_figure(fig)


@pytest.mark.parametrize("name", FIGURES)
def test_english_figures_stay_english(name):
    assert_english_figure(FIGURES[name]("en"))


def test_english_words_are_unchanged():
    fig = plot_complex_product(1.5 + 0.5j, 0.4 + 0.9j)
    assert (fig.axes[0].get_title(), fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()) == (
        "multiplying complex numbers", "real part", "imaginary part")
    assert plot_euler_partial_sums([1.0]).axes[1].get_title() == "error of the partial sum"
    assert plot_complex_rotation(1 + 0j, np.radians(30)).axes[0].get_title() == "multiplying by e^(iθ) turns by θ = 30°"


def test_the_chinese_rotation_widget():
    widget = complex_rotation_widget(lang="zh")
    assert widget.lang == "zh"
    fig = widget.figure(theta=widget.controls[1].values[5])
    assert has_chinese(fig.alt_text) and has_chinese(fig.axes[0].get_title()) and missing_glyphs(fig) == []
    assert complex_rotation_widget().lang == "en"
    assert not has_chinese(complex_rotation_widget().figure().alt_text)


@pytest.mark.parametrize("make", [*FIGURES.values(), lambda lang: complex_rotation_widget(lang=lang),
                                  lambda lang: check_terms_needed(lambda x, tol: 1, lang=lang)])
def test_another_language_is_refused(make):
    with pytest.raises(ValueError, match="lang"):
        make("fr")


def test_the_check_speaks_chinese():
    passed = check_terms_needed(terms_needed, lang="zh")
    assert passed and has_chinese(passed.message) and str(passed).startswith("通过")
    assert check_terms_needed(terms_needed).message.startswith("terms_needed returns the smallest N within tol")
    for wrong, zh, en in [
        (lambda x, tol: terms_needed(x, tol, count_terms=True), "数了项数", "count terms"),
        (lambda x, tol: terms_needed(x, tol, real_only=True), "虚部也要比", "imaginary part"),
        (lambda x, tol: terms_needed(x, tol) - 1, "还没有小于 tol", "not yet within tol"),
        (lambda x, tol: -1, "不可能是负数", "never negative"),
    ]:
        result = check_terms_needed(wrong, lang="zh")
        assert not result and zh in result.message and str(result).startswith("尚未通过")
        result = check_terms_needed(wrong)
        assert not result and en in result.message and not has_chinese(result.message)
