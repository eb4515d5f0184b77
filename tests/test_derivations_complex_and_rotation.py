"""The derivations of rope_lib.teach.complex_numbers and .rotation_matrices: every labelled display of the chapters
"Complex numbers and Euler's formula" and "2D rotation matrices" is checked as displayed, and a wrong sign or a
swapped subscript planted in a page's LaTeX makes the check of that equation fail."""

import random
import re

import numpy as np
import pytest
import sympy as sp

import rope_lib
from checked_pages import report_block, report_cell
from paths import ROOT
from rope_lib.teach import complex_numbers, rotation_matrices
from rope_lib.teach.shared import displayed_equations

MODULES = {"complex_numbers": complex_numbers, "rotation_matrices": rotation_matrices}

SIGN_MUTANTS, SUBSCRIPT_MUTANTS = 2, 1
"""Mutants tried per checked equation, a fixed sample where it has more, to keep the test fast: a wrong
side can take sympy seconds to tell from the right one (cx-relative's, with two complex numbers, ten)."""


def page_of(module, path=None) -> displayed_equations.Page:
    return displayed_equations.Page(path or ROOT / "book" / module.CHAPTER, module.CHECKS, unchecked=module.UNCHECKED)


def squeeze(latex: str) -> str:
    return " ".join(latex.split())


@pytest.mark.parametrize("name", MODULES)
def test_every_displayed_equation_is_declared_and_its_check_passes(name):
    module = MODULES[name]
    page = page_of(module)
    assert list(page.equations), f"{module.CHAPTER} displays labelled equations"
    assert set(page.equations) == set(module.CHECKS) | set(module.UNCHECKED)
    assert not set(module.CHECKS) & set(module.UNCHECKED)
    for label, why in module.UNCHECKED.items():
        assert isinstance(why, str) and why.strip(), f"{label} is unchecked without a reason"
    checked = page.check_all()
    assert [result.label for result in checked] == [label for label in page.equations if label in module.CHECKS]
    assert sorted(page.checked) == sorted(module.CHECKS)


@pytest.mark.parametrize("name", MODULES)
@pytest.mark.parametrize("book", ["book", "book/zh"])
def test_the_chapter_runs_every_check_in_one_collapsed_block(name, book):
    """No check on the reading path: the chapter builds its Page from the derivation module and glues its report (which
    runs every check) in a removed cell, shown in one collapsed block at the end of the main text."""
    text = (ROOT / book / MODULES[name].CHAPTER).read_text()
    prefix = {"complex_numbers": "cx", "rotation_matrices": "rot"}[name]
    assert "page.check(" not in text and "page.summary(" not in text
    cell = report_cell(MODULES[name], f"{prefix}_checks")
    assert text.count(cell) == 1
    block = report_block(book, f"{prefix}_checks")
    exercises = "\n## Exercises" if book == "book" else "\n## 练习"
    assert text.count(block) == 1 and text.index(cell) < text.index(block) < text.index(exercises), "before the exercises"
    assert not re.search(r"assert_\w+\([^\n]*\"eq\. ", text), "no hand-typed assertion speaks for a displayed equation"


@pytest.mark.parametrize("name", MODULES)
def test_what_a_check_shows_is_the_page_and_no_tautology(name):
    """Under each equation the reader sees its sides as sympy read them off the page, all different,
    and the rule in words; never the same expression on both sides."""
    for shown in page_of(MODULES[name]).check_all():
        sides = [str(side) for side in shown.shown]
        assert len(set(sides)) == len(sides), f"{shown.label} shows identical sides: {sides}"
        assert shown.rule.strip()


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


def test_names_cover_only_pieces_the_page_shows():
    """Each named piece of LaTeX is on the page as written (one line of the source), so the mutation test
    below can tell a change inside a named piece from one the parser sees."""
    for module in MODULES.values():
        equations = displayed_equations.page_equations(ROOT / "book" / module.CHAPTER)
        for label, make in module.CHECKS.items():
            for piece in make().names:
                assert squeeze(piece) in squeeze(equations[label]), f"{label}: {piece!r} is not on the page"


def sign_mutants(latex: str) -> list[str]:
    """Each + made − and each − made +, one at a time."""
    return [latex[:i] + {"+": "-", "-": "+"}[ch] + latex[i + 1 :] for i, ch in enumerate(latex) if ch in "+-"]


def subscript_mutants(latex: str) -> list[str]:
    """Each subscript digit 1 made 2 and 2 made 1, one at a time (z_1 → z_2, x_{2} → x_{1})."""
    return [
        latex[: m.start(1)] + {"1": "2", "2": "1"}[m[1]] + latex[m.end(1) :]
        for m in re.finditer(r"_\{?([12])(?![0-9])", latex)
    ]


def sampled(mutants: list[str], count: int, seed: str) -> list[str]:
    mutants = list(dict.fromkeys(mutants))
    return mutants if len(mutants) <= count else random.Random(seed).sample(mutants, count)


def same(x, y) -> bool:
    """x and y are the same expression or Matrix: different at a random point means different (fast),
    otherwise sympy must simplify their difference to 0."""
    x, y = (v if isinstance(v, sp.MatrixBase) else sp.Matrix([v]) for v in (x, y))
    if x.shape != y.shape:
        return False
    for u, v in zip(x, y):
        difference = sp.sympify(u).doit() - sp.sympify(v).doit()
        point = {s: sp.Rational(random.Random(s.name).randint(30, 170), 100) for s in difference.free_symbols}
        try:
            if abs(complex(difference.evalf(30, subs=point))) > 1e-9:
                return False
        except (TypeError, ValueError, ZeroDivisionError):
            pass  # not a number there (a pole, say): let sympy decide
        if sp.simplify(sp.expand_trig(sp.expand_complex(sp.expand(difference)))) != 0:
            return False
    return True


def sides_as_parsed(latex: str, check) -> list:
    symbols = set()
    for expr in [*check.sides, *check.names.values()]:
        symbols |= getattr(expr, "free_symbols", set())
    return displayed_equations.parse_sides(latex, symbols=sorted(symbols, key=str), names=check.names)


def mutation_cases():
    for name, module in MODULES.items():
        for label in module.CHECKS:
            yield pytest.param(name, label, id=label)


@pytest.mark.parametrize("name, label", list(mutation_cases()))
@pytest.mark.slow
def test_a_wrong_sign_or_subscript_on_the_page_fails_the_check(name, label, tmp_path):
    module = MODULES[name]
    source = (ROOT / "book" / module.CHAPTER).read_text()
    block = next(m for m in displayed_equations.DISPLAY.finditer(source) if m["label"] == label)
    original = block["latex"]
    check = module.CHECKS[label]()
    sample = sampled(sign_mutants(original), SIGN_MUTANTS, label) + sampled(subscript_mutants(original), SUBSCRIPT_MUTANTS, label)
    assert sample, f"{label} has no sign or subscript to plant a mistake in"
    parsed_original = sides_as_parsed(original, check)
    caught = 0
    for mutant in sample:
        in_a_name = [piece for piece in check.names if squeeze(piece) in squeeze(original) and squeeze(piece) not in squeeze(mutant)]
        if not in_a_name:
            parsed = sides_as_parsed(mutant, check)
            if len(parsed) == len(parsed_original) and all(same(p, q) for p, q in zip(parsed, parsed_original)):
                continue  # the same equation written differently: no mistake to catch
        path = tmp_path / module.CHAPTER
        path.write_text(source[: block.start("latex")] + mutant + source[block.end("latex") :])
        page = page_of(module, path)
        # a slip inside a named piece fails too: the page no longer shows the piece the check names
        with pytest.raises(AssertionError, match=re.escape(label) + (": names has" if in_a_name else "")):
            page.check(label)
        caught += 1
    assert caught, f"no mutant of {label} was caught"
