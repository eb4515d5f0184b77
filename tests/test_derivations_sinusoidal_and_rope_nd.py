"""Chapters "Absolute sinusoidal encoding" and "RoPE in d dimensions": each page shows the equations its
derivation checks, declares every other displayed equation with a reason, and a slip planted in a
checked equation (a sign flipped, a subscript swapped) fails its check."""

import re

import numpy as np
import pytest
import sympy as sp

import rope_lib
from paths import ROOT
from rope_lib.teach.derivations import rope_nd, sinusoidal_encoding
from rope_lib.teach.displayed_equations import Page, page_equations, parse_sides
from rope_lib.teach.language import Words, word_count

MODULES = [sinusoidal_encoding, rope_nd]
IDS = [module.__name__.rsplit(".", 1)[-1] for module in MODULES]
LABELS = [(module, label) for module in MODULES for label in module.CHECKS]

SWAPS_PER_EQUATION = 4
"""At most this many subscript swaps are planted in one equation, spread over it (every sign is flipped, in turn)."""


def chapter(module):
    return ROOT / "book" / module.CHAPTER


def page(module, path=None) -> Page:
    return Page(chapter(module) if path is None else path, module.CHECKS, unchecked=module.UNCHECKED)


def symbols_of(step) -> list:
    found = set().union(*(side.free_symbols for side in step.sides))
    for value in step.names.values():
        found |= getattr(value, "free_symbols", set())
    return sorted(found, key=str)


def spread(items: list, at_most: int) -> list:
    """At most `at_most` of `items`, evenly spaced, first and last included."""
    if len(items) <= at_most:
        return items
    return [items[round(i * (len(items) - 1) / (at_most - 1))] for i in range(at_most)]


SUBSCRIPT = re.compile(r"_(\{[^{}=]*\}|[A-Za-z0-9])")
"""A subscript: _x or _{…} (not the _{i=0} of a sum)."""


def slips(latex: str):
    """(what, mutated LaTeX): every '+' or '-' flipped, and some subscripts swapped for another one of the equation."""
    for i in [m.start() for m in re.finditer(r"[+-]", latex)]:
        yield f"sign {latex[i]} at {i}", latex[:i] + {"+": "-", "-": "+"}[latex[i]] + latex[i + 1 :]
    subscripts = list(SUBSCRIPT.finditer(latex))
    values = sorted({m[1] for m in subscripts})
    if len(values) < 2:
        return
    for m in spread(subscripts, SWAPS_PER_EQUATION):
        other = values[(values.index(m[1]) + 1) % len(values)]
        yield f"subscript {m[1]} → {other} at {m.start()}", latex[: m.start(1)] + other + latex[m.end(1) :]


def same_equation(a: list, b: list) -> bool:
    """sympy shows that the two lists of sides are the same equation, side by side."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        x, y = (v if isinstance(v, sp.MatrixBase) else sp.Matrix([v]) for v in (x, y))
        if x.shape != y.shape:
            return False
        for u, v in zip(x, y):
            difference = sp.expand_complex(sp.expand(sp.sympify(u).doit() - sp.sympify(v).doit()))
            if sp.simplify(sp.expand_trig(difference)) != 0:
                return False
    return True


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_every_checked_equation_holds_as_displayed(module):
    checked = page(module).check_all()
    assert [c.label for c in checked] == [label for label in page_equations(chapter(module)) if label in module.CHECKS]


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_every_displayed_equation_is_checked_or_declared_with_a_reason(module):
    text, equations = chapter(module).read_text(), page_equations(chapter(module))
    assert text.count("$$") == 2 * len(equations), "every $$ … $$ block is a labelled equation"
    assert set(equations) == set(module.CHECKS) | set(module.UNCHECKED)
    assert not set(module.CHECKS) & set(module.UNCHECKED)
    assert all(isinstance(why, Words) and word_count(why.en) >= 3 and word_count(why.zh) >= 3 for why in module.UNCHECKED.values()), \
        "each reason in words, in both languages"
    assert module.CHECKS, "the chapter checks some of its equations"


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_no_shown_check_is_a_tautology(module):
    equations = page_equations(chapter(module))
    for label, make in module.CHECKS.items():
        shown = parse_sides(equations[label], names=make().names, shown=True)
        assert len({str(side) for side in shown}) == len(shown), f"{label} shows identical sides"


def test_the_d_dimensional_checks_say_which_small_d_they_take():
    for label, make in rope_nd.CHECKS.items():
        for rule in (make().rule.en, make().rule.zh):
            assert re.search(r"\bd = \d", rule), f"{label}: the rule must say for which d sympy checks it"
    assert "d = 4" in sinusoidal_encoding.CHECKS["sin-dot"]().rule.en and "d = 4" in sinusoidal_encoding.CHECKS["sin-dot"]().rule.zh


@pytest.mark.parametrize(("module", "label"), LABELS, ids=[label for _, label in LABELS])
@pytest.mark.slow
def test_a_slip_on_the_page_is_caught(module, label, tmp_path):
    text = chapter(module).read_text()
    latex = page_equations(chapter(module))[label]
    step = module.CHECKS[label]()
    original = parse_sides(latex, symbols=symbols_of(step), names=step.names)
    path = tmp_path / module.CHAPTER
    by_sympy, by_name, same = [], [], []
    for what, mutant in slips(latex):
        assert mutant != latex
        path.write_text(text.replace(latex, mutant, 1))
        try:
            page(module, path).check(label)
        except AssertionError as error:
            assert str(error).startswith(f"{label}:"), str(error)
            # a slip inside a piece of LaTeX the check names (or one that leaves LaTeX the parser cannot read)
            # fails because the page no longer shows that piece, not by sympy's algebra: counted apart
            refused_by_name = "does not contain" in str(error) or "cannot read" in str(error)
            (by_name if refused_by_name else by_sympy).append(what)
            continue
        mutated = parse_sides(mutant, symbols=symbols_of(step), names=step.names)
        assert same_equation(mutated, original), f"{label}: the slip ({what}) was not caught: {mutant!r}"
        same.append(what)
    assert by_sympy, f"{label}: no slip was caught by sympy (refused by a name: {by_name}; the same equation: {same})"


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_a_page_must_declare_every_equation(module, tmp_path):
    label = next(iter(module.CHECKS))
    path = tmp_path / module.CHAPTER
    path.write_text(chapter(module).read_text().replace(f"$$ ({label})", f"$$ ({label}-renamed)", 1))
    with pytest.raises(ValueError, match="neither checked nor declared unchecked"):
        page(module, path)


def test_the_sinusoidal_pair_turns_clockwise_and_rope_counter_clockwise():
    """The claim of "Mind the sign": the same angle per position, opposite directions, from the coordinate order."""
    d, t = 16, 2
    w = rope_lib.inv_freq(d)[t]
    turn = lambda u, v: np.arctan2(u[0] * v[1] - u[1] * v[0], u @ v)  # noqa: E731  counter-clockwise > 0
    before, after = rope_lib.sinusoidal_pair(3, t, d), rope_lib.sinusoidal_pair(4, t, d)
    assert np.allclose(after, rope_lib.rotation_matrix_2d(-w) @ before) and np.isclose(turn(before, after), -w)
    assert np.allclose(after[::-1], rope_lib.rotation_matrix_2d(w) @ before[::-1])
    x = np.array([0.6, 0.8])
    block = rope_lib.rotary_matrix(1, d)[2 * t : 2 * t + 2, 2 * t : 2 * t + 2]
    assert np.allclose(block, rope_lib.rotation_matrix_2d(w)) and np.isclose(turn(x, block @ x), w)
