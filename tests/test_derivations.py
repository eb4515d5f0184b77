"""The derivations of the deriving chapters (complex_numbers, rotation_matrices, sinusoidal_encoding, rope_nd; rope_2d's
is in tests/test_rope_2d.py), checked as displayed: every labelled display of a page is checked or declared with a
reason, the page runs every check in one collapsed block, and a wrong sign or a swapped subscript planted in a page's
LaTeX fails the check of that equation."""

import random
import re

import pytest
import sympy as sp

from checked_pages import report_block, report_cell
from paths import ROOT
from rope_lib.teach import complex_numbers, rope_nd, rotation_matrices, sinusoidal_encoding
from rope_lib.teach.shared import displayed_equations
from rope_lib.teach.shared.displayed_equations import Page, page_equations, parse_sides
from rope_lib.teach.shared.language import Words, word_count


# --- complex numbers and rotation matrices: every display checked, a planted sign or subscript caught -----------------

COMPLEX_AND_ROTATION = {"complex_numbers": complex_numbers, "rotation_matrices": rotation_matrices}

SIGN_MUTANTS, SUBSCRIPT_MUTANTS = 2, 1
"""Mutants tried per checked equation, a fixed sample where it has more, to keep the test fast: a wrong
side can take sympy seconds to tell from the right one (cx-relative's, with two complex numbers, ten)."""


def page_of(module, path=None) -> displayed_equations.Page:
    return displayed_equations.Page(path or ROOT / "book" / module.CHAPTER, module.CHECKS, unchecked=module.UNCHECKED)


def squeeze(latex: str) -> str:
    return " ".join(latex.split())


@pytest.mark.parametrize("name", COMPLEX_AND_ROTATION)
def test_every_displayed_equation_is_declared_and_its_check_passes(name):
    module = COMPLEX_AND_ROTATION[name]
    page = page_of(module)
    assert list(page.equations), f"{module.CHAPTER} displays labelled equations"
    assert set(page.equations) == set(module.CHECKS) | set(module.UNCHECKED)
    assert not set(module.CHECKS) & set(module.UNCHECKED)
    for label, why in module.UNCHECKED.items():
        assert isinstance(why, str) and why.strip(), f"{label} is unchecked without a reason"
    checked = page.check_all()
    assert [result.label for result in checked] == [label for label in page.equations if label in module.CHECKS]
    assert sorted(page.checked) == sorted(module.CHECKS)


@pytest.mark.parametrize("name", COMPLEX_AND_ROTATION)
@pytest.mark.parametrize("book", ["book", "book/zh"])
def test_the_chapter_runs_every_check_in_one_collapsed_block(name, book):
    """No check on the reading path: the chapter builds its Page from the derivation module and glues its report (which
    runs every check) in a removed cell, shown in one collapsed block at the end of the main text."""
    text = (ROOT / book / COMPLEX_AND_ROTATION[name].CHAPTER).read_text()
    prefix = {"complex_numbers": "cx", "rotation_matrices": "rot"}[name]
    assert "page.check(" not in text and "page.summary(" not in text
    cell = report_cell(COMPLEX_AND_ROTATION[name], f"{prefix}_checks")
    assert text.count(cell) == 1
    block = report_block(book, f"{prefix}_checks")
    exercises = "\n## Exercises" if book == "book" else "\n## 练习"
    assert text.count(block) == 1 and text.index(cell) < text.index(block) < text.index(exercises), "before the exercises"
    assert not re.search(r"assert_\w+\([^\n]*\"eq\. ", text), "no hand-typed assertion speaks for a displayed equation"


@pytest.mark.parametrize("name", COMPLEX_AND_ROTATION)
def test_what_a_check_shows_is_the_page_and_no_tautology(name):
    """Under each equation the reader sees its sides as sympy read them off the page, all different,
    and the rule in words; never the same expression on both sides."""
    for shown in page_of(COMPLEX_AND_ROTATION[name]).check_all():
        sides = [str(side) for side in shown.shown]
        assert len(set(sides)) == len(sides), f"{shown.label} shows identical sides: {sides}"
        assert shown.rule.strip()


def test_names_cover_only_pieces_the_page_shows():
    """Each named piece of LaTeX is on the page as written (one line of the source), so the mutation test
    below can tell a change inside a named piece from one the parser sees."""
    for module in COMPLEX_AND_ROTATION.values():
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
    for name, module in COMPLEX_AND_ROTATION.items():
        for label in module.CHECKS:
            yield pytest.param(name, label, id=label)


@pytest.mark.parametrize("name, label", list(mutation_cases()))
@pytest.mark.slow
def test_a_wrong_sign_or_subscript_on_the_page_fails_the_check(name, label, tmp_path):
    module = COMPLEX_AND_ROTATION[name]
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


# --- the sinusoidal encoding and RoPE in d dimensions: every display checked or declared, a planted slip caught -------

SINUSOIDAL_AND_ROPE_ND = [sinusoidal_encoding, rope_nd.derivation]
IDS = ["sinusoidal_encoding", "rope_nd"]
LABELS = [(module, label) for module in SINUSOIDAL_AND_ROPE_ND for label in module.CHECKS]

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


@pytest.mark.parametrize("module", SINUSOIDAL_AND_ROPE_ND, ids=IDS)
def test_every_checked_equation_holds_as_displayed(module):
    checked = page(module).check_all()
    assert [c.label for c in checked] == [label for label in page_equations(chapter(module)) if label in module.CHECKS]


@pytest.mark.parametrize("module", SINUSOIDAL_AND_ROPE_ND, ids=IDS)
def test_every_displayed_equation_is_checked_or_declared_with_a_reason(module):
    text, equations = chapter(module).read_text(), page_equations(chapter(module))
    assert text.count("$$") == 2 * len(equations), "every $$ … $$ block is a labelled equation"
    assert set(equations) == set(module.CHECKS) | set(module.UNCHECKED)
    assert not set(module.CHECKS) & set(module.UNCHECKED)
    assert all(isinstance(why, Words) and word_count(why.en) >= 3 and word_count(why.zh) >= 3 for why in module.UNCHECKED.values()), \
        "each reason in words, in both languages"
    assert module.CHECKS, "the chapter checks some of its equations"


@pytest.mark.parametrize("module", SINUSOIDAL_AND_ROPE_ND, ids=IDS)
def test_no_shown_check_is_a_tautology(module):
    equations = page_equations(chapter(module))
    for label, make in module.CHECKS.items():
        shown = parse_sides(equations[label], names=make().names, shown=True)
        assert len({str(side) for side in shown}) == len(shown), f"{label} shows identical sides"


def test_the_d_dimensional_checks_say_which_small_d_they_take():
    for label, make in rope_nd.derivation.CHECKS.items():
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


@pytest.mark.parametrize("module", SINUSOIDAL_AND_ROPE_ND, ids=IDS)
def test_a_page_must_declare_every_equation(module, tmp_path):
    label = next(iter(module.CHECKS))
    path = tmp_path / module.CHAPTER
    path.write_text(chapter(module).read_text().replace(f"$$ ({label})", f"$$ ({label}-renamed)", 1))
    with pytest.raises(ValueError, match="neither checked nor declared unchecked"):
        page(module, path)


GLUE = {"sinusoidal_encoding": "sin_checks", "rope_nd": "ropend_checks"}


@pytest.mark.parametrize("module", SINUSOIDAL_AND_ROPE_ND, ids=IDS)
@pytest.mark.parametrize("book", ["book", "book/zh"])
def test_the_chapter_runs_every_check_in_one_collapsed_block_before_its_summary(module, book):
    """No check on the reading path: the chapter glues its Page's report (which runs every check) in a removed cell,
    shown in one collapsed block before the summary, and no visible cell names the machinery."""
    name = module.CHAPTER.removesuffix(".md")
    text = (ROOT / book / module.CHAPTER).read_text()
    assert "page.check(" not in text and "page.summary(" not in text and "Page(" not in text
    cell = report_cell(module, GLUE[name])
    assert text.count(cell) == 1
    block = report_block(book, GLUE[name])
    summary = "\n## Summary" if book == "book" else "\n## 小结"
    assert text.count(block) == 1 and text.index(cell) < text.index(block) < text.index(summary)
    rest = text.replace(cell, "")
    assert "displayed_equations" not in rest and "Page.of(" not in rest and "CHECKS" not in rest


@pytest.mark.slow
@pytest.mark.parametrize("module", SINUSOIDAL_AND_ROPE_ND, ids=IDS)
@pytest.mark.parametrize("book", ["book", "book/zh"])
def test_the_report_fails_on_a_sign_planted_in_a_copy_of_the_chapter(module, book, tmp_path, monkeypatch):
    """The report, the only place the chapter's checks run, raises when one + of a checked equation is made a −,
    in either edition (each edition's page is read from its own folder)."""
    source = (ROOT / book / module.CHAPTER).read_text()
    equations = page_equations(ROOT / book / module.CHAPTER)
    label = next(label for label in module.CHECKS if "+" in equations[label] or "-" in equations[label])
    latex = equations[label]
    planted = latex.replace("+", "-", 1) if "+" in latex else latex.replace("-", "+", 1)
    (tmp_path / module.CHAPTER).write_text(source.replace(latex, planted, 1))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match=re.escape(label)):
        Page.of(module, lang="zh" if book == "book/zh" else "en").report()
