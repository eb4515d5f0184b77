"""Chapter "RoPE in two dimensions": the page shows the equations its derivation checks, and a wrong sign
planted in any of them is caught."""

import re

import pytest

from paths import ROOT
from rope_lib.teach.derivations import rope_2d
from rope_lib.teach.displayed_equations import Page, page_equations, parse_sides

CHAPTER = ROOT / "book" / rope_2d.CHAPTER


def page(path=CHAPTER):
    return Page(path, rope_2d.CHECKS, unchecked=rope_2d.UNCHECKED)


def test_every_checked_equation_holds_as_displayed():
    shown = page().check_all()
    assert [c.label for c in shown] == [label for label in page_equations(CHAPTER) if label in rope_2d.CHECKS]
    assert all(c._repr_latex_().endswith(r"\end{aligned}$$") and r"\text{" in c._repr_latex_() for c in shown)


def test_the_derivation_finds_the_solution_before_it_checks_it():
    labels = list(page_equations(CHAPTER))
    for found in ("rope2d-polar-product", "rope2d-radial-growth", "rope2d-angle-linear", "rope2d-assembled-query"):
        assert labels.index(found) < labels.index("rope2d-solution") < labels.index("rope2d-step-query-product")


def test_no_shown_check_is_a_tautology():
    for shown in page().check_all():
        sides = [shown.shown[0], shown.worked, *shown.shown[1:]]
        assert len({str(side) for side in shown.shown}) == len(shown.shown), f"{shown.label} shows identical sides"
        assert str(shown.shown[0]) != str(shown.worked) or len(sides) > 2


def slips(latex: str):
    """The mistakes of a hand-typed equation, one at a time: a sign flipped, an m or n swapped, a 1 or 2 swapped."""
    signs = [m.start(1) for m in re.finditer(r"(?<=[^\s{(=,])\s*([+-])", latex)]
    indices = [m.start() for m in re.finditer(r"(?<![\\a-zA-Z])[mn12](?![a-zA-Z])", latex)]
    for i in signs[:: max(1, len(signs) // 3)]:  # about three signs and three indices an equation, spread over it
        yield latex[:i] + {"+": "-", "-": "+"}[latex[i]] + latex[i + 1 :]
    for i in indices[:: max(1, len(indices) // 3)]:
        yield latex[:i] + {"m": "n", "n": "m", "1": "2", "2": "1"}[latex[i]] + latex[i + 1 :]


@pytest.mark.parametrize("label", sorted(rope_2d.CHECKS))
@pytest.mark.slow
def test_a_slip_on_the_page_is_caught(label, tmp_path):
    text = CHAPTER.read_text()
    latex = page_equations(CHAPTER)[label]
    step = rope_2d.CHECKS[label]()
    original = parse_sides(latex, symbols=sorted(set().union(*(s.free_symbols for s in step.sides)), key=str), names=step.names)
    caught = 0
    for mutant in slips(latex):
        path = tmp_path / rope_2d.CHAPTER
        path.write_text(text.replace(latex, mutant, 1))
        try:
            same = parse_sides(mutant, symbols=sorted(set().union(*(s.free_symbols for s in step.sides)), key=str), names=step.names) == original
        except ValueError:
            continue  # the flip made LaTeX the parser cannot read: the check fails too, but not by a sign
        if same:
            continue
        with pytest.raises(AssertionError, match=label):
            page(path).check(label)
        caught += 1
    assert caught >= 1, f"no slip in {label} was tried"


def test_a_page_must_declare_every_equation(tmp_path):
    path = tmp_path / rope_2d.CHAPTER
    path.write_text(CHAPTER.read_text().replace("$$ (rope2d-step-euler)", "$$ (rope2d-step-euler-renamed)", 1))
    with pytest.raises(ValueError, match="neither checked nor declared unchecked"):
        page(path)
