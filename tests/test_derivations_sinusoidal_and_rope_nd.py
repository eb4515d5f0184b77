"""Chapters "Absolute sinusoidal encoding" and "RoPE in d dimensions": each page shows the equations its
derivation checks, declares every other displayed equation with a reason, and a slip planted in a
checked equation (a sign flipped, a subscript swapped) fails its check."""

import re

import numpy as np
import pytest
import sympy as sp

import rope_lib
from checked_pages import report_block, report_cell
from paths import ROOT
from rope_lib.teach import rope_nd as rope_nd_chapter, sinusoidal_encoding
from rope_lib.teach.rope_nd import derivation as rope_nd
from rope_lib.teach.shared.displayed_equations import Page, page_equations, parse_sides
from rope_lib.teach.shared.language import Words, word_count

MODULES = [sinusoidal_encoding, rope_nd]
IDS = ["sinusoidal_encoding", "rope_nd"]
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
    """The claim under eq. sin-shift: the same angle per position, opposite directions, from the coordinate order alone."""
    d, t = 16, 2
    w = rope_lib.inv_freq(d)[t]
    turn = lambda u, v: np.arctan2(u[0] * v[1] - u[1] * v[0], u @ v)  # noqa: E731  counter-clockwise > 0
    before, after = rope_lib.sinusoidal.sinusoidal_pair(3, t, d), rope_lib.sinusoidal.sinusoidal_pair(4, t, d)
    assert np.allclose(after, rope_lib.rotation.rotation_matrix_2d(-w) @ before) and np.isclose(turn(before, after), -w)
    assert np.allclose(after[::-1], rope_lib.rotation.rotation_matrix_2d(w) @ before[::-1])
    x = np.array([0.6, 0.8])
    block = rope_lib.rotation.rotary_matrix(1, d)[2 * t : 2 * t + 2, 2 * t : 2 * t + 2]
    assert np.allclose(block, rope_lib.rotation.rotation_matrix_2d(w)) and np.isclose(turn(x, block @ x), w)


UNCHECKED_KINDS = {"a definition": "定义", "the goal": "目标", "a statement whose proof is the text": "由正文证明的命题"}
"""What an unchecked line of a deriving chapter may be, as its reason begins, in English and Chinese (issue 36)."""


@pytest.mark.parametrize("book", ["book", "book/zh"])
def test_the_sinusoidal_report_says_what_kind_each_unchecked_line_is(book):
    """sin-additive and sin-encoding are definitions, and the page's report, in either edition, says so first."""
    lang = "zh" if book == "book/zh" else "en"
    for why in sinusoidal_encoding.UNCHECKED.values():
        assert why.en.startswith(tuple(f"{kind}: " for kind in UNCHECKED_KINDS)), why.en
        assert why.zh.startswith(tuple(f"{kind}：" for kind in UNCHECKED_KINDS.values())), why.zh
    assert set(sinusoidal_encoding.UNCHECKED) == {"sin-additive", "sin-encoding"}
    report = Page(ROOT / book / sinusoidal_encoding.CHAPTER, sinusoidal_encoding.CHECKS,
                  unchecked=sinusoidal_encoding.UNCHECKED, lang=lang).report()
    shown = report._repr_markdown_()
    for label in sinusoidal_encoding.UNCHECKED:
        kind = "a definition: " if lang == "en" else "定义："
        assert re.search(rf"{{eq}}`{label}`(: |：){kind}", shown), shown


def test_a_wrong_sign_in_the_derived_block_fails_the_page(tmp_path):
    """The d-dimensional derivation is checked as displayed: flip the sign of one sine in eq. ropend-exp-block and
    the page's check fails, as the book build would."""
    text = chapter(rope_nd).read_text()
    latex = page_equations(chapter(rope_nd))["ropend-exp-block"]
    assert r"& -\sin m\theta_i" in latex
    path = tmp_path / rope_nd.CHAPTER
    path.write_text(text.replace(latex, latex.replace(r"& -\sin m\theta_i", r"& \sin m\theta_i", 1), 1))
    with pytest.raises(AssertionError, match="ropend-exp-block"):
        page(rope_nd, path).check("ropend-exp-block")
    page(rope_nd).check("ropend-exp-block")  # and the page as written passes
    zh = ROOT / "book" / "zh" / rope_nd.CHAPTER  # the Chinese page shows the same equation, checked the same way
    assert page_equations(zh)["ropend-exp-block"] == latex


def test_every_skew_symmetric_generator_meets_the_goal():
    """eq. ropend-exp-goal, numerically: R_m = exp(mA) with A skew-symmetric gives R_mᵀR_n = R_(n−m), R_0 = I."""

    for d, seed in [(2, 0), (5, 1), (6, 2)]:
        a = rope_nd_chapter.random_skew(d, seed)
        assert np.allclose(rope_nd_chapter.rotation_family(a, 0), np.eye(d))
        for m, n in [(0, 3), (2, 7), (5, -4), (1.5, 0.25)]:
            r_m, r_n = rope_nd_chapter.rotation_family(a, m), rope_nd_chapter.rotation_family(a, n)
            assert np.allclose(r_m.T @ r_m, np.eye(d), atol=1e-12)
            assert np.allclose(r_m.T @ r_n, rope_nd_chapter.rotation_family(a, n - m), atol=1e-10)
    b = np.random.default_rng(3).standard_normal((4, 4))  # not skew: exp(mB) is not orthogonal
    r = torch_free_expm(b)
    assert not np.allclose(r.T @ r, np.eye(4))


def torch_free_expm(b, terms=40):
    """exp(B) by its power series, for a matrix that is not skew-symmetric (rotation_family refuses it)."""
    out, term = np.eye(len(b)), np.eye(len(b))
    for k in range(1, terms):
        term = term @ b / k
        out = out + term
    return out


def test_the_canonical_form_turns_any_skew_generator_into_ropes_matrix():
    """eq. ropend-canonical, numerically: A = P diag(θ_i J) Pᵀ with P orthogonal, and exp(mA) = P R^d_{Θ,m} Pᵀ."""

    for d, seed in [(2, 0), (6, 0), (8, 5)]:
        a = rope_nd_chapter.random_skew(d, seed)
        p, thetas = rope_nd_chapter.canonical_form(a)
        assert thetas.shape == (d // 2,) and np.all(thetas > 0) and np.all(np.diff(thetas) <= 0)
        assert np.allclose(p.T @ p, np.eye(d), atol=1e-12)
        assert np.allclose(p @ rope_nd_chapter.block_generator(thetas) @ p.T, a, atol=1e-12)
        for m in (1, 5, 37.5):
            assert np.allclose(rope_nd_chapter.rotation_family(a, m), p @ rope_lib.rotation.rotary_matrix(m, d, inv_freq=thetas) @ p.T, atol=1e-10)
    theta = rope_lib.inv_freq(16)  # RoPE itself: the block generator of its frequencies
    assert np.allclose(rope_nd_chapter.rotation_family(rope_nd_chapter.block_generator(theta), 7), rope_lib.rotation.rotary_matrix(7, 16))
    repeated = rope_nd_chapter.block_generator([2.0, 2.0, 0.5])  # a repeated frequency still gives an orthonormal basis
    p, thetas = rope_nd_chapter.canonical_form(repeated)
    assert np.allclose(thetas, [2.0, 2.0, 0.5]) and np.allclose(p.T @ p, np.eye(6), atol=1e-12)


@pytest.mark.parametrize(("call", "match"), [
    (lambda s: s.canonical_form(np.ones((4, 4))), "skew-symmetric"),
    (lambda s: s.canonical_form(np.zeros((3, 4))), "square"),
    (lambda s: s.canonical_form(s.random_skew(5)), "even size"),
    (lambda s: s.canonical_form(np.zeros((4, 4))), "no zero eigenvalue"),
    (lambda s: s.rotation_family(np.array([[0.0, np.nan], [0.0, 0.0]]), 1), "finite"),
    (lambda s: s.random_skew(0), "d must be a positive integer"),
    (lambda s: s.block_generator([]), "thetas"),
])
def test_the_skew_helpers_refuse_bad_input_by_name(call, match):

    with pytest.raises(ValueError, match=match):
        call(rope_nd_chapter)


GLUE = {"sinusoidal_encoding": "sin_checks", "rope_nd": "ropend_checks"}


@pytest.mark.parametrize("module", MODULES, ids=IDS)
@pytest.mark.parametrize("book", ["book", "book/zh"])
def test_the_chapter_runs_every_check_in_one_collapsed_block(module, book):
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
@pytest.mark.parametrize("module", MODULES, ids=IDS)
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
