"""rope_lib.teach.shared.displayed_equations: a chapter's labelled equations read from its source, parsed by sympy
as displayed, and checked; what the parser reads and refuses, and what a Page demands of a chapter."""

import re
from pathlib import Path

import pytest
import sympy as sp

from rope_lib.teach.shared.displayed_equations import (
    Check,
    DISPLAY,
    Page,
    assert_displayed,
    page_equations,
    parse_sides,
)
from rope_lib.teach.shared.language import Words

a, b, c, d, x, theta = sp.symbols("a b c d x theta", real=True)
q1, q2 = sp.symbols("q1 q2", real=True)


def write(tmp_path, *blocks):
    path = tmp_path / "chapter.md"
    path.write_text("# A chapter\n\n" + "\n\nSome text.\n\n".join(f"$$\n{latex}\n$$ ({label})" for label, latex in blocks) + "\n")
    return path


def test_page_equations_finds_labelled_displays_in_order_indented_too(tmp_path):
    path = tmp_path / "chapter.md"
    path.write_text("$$\nx = 1\n$$ (first)\n\n1. An item:\n\n   $$\n   y = 2\n   $$ (second)\n")
    assert page_equations(path) == {"first": "x = 1", "second": "y = 2"}
    with pytest.raises(FileNotFoundError, match="path must name a chapter's .md source"):
        page_equations(tmp_path / "missing.md")


@pytest.mark.parametrize(
    "latex, expected",
    [
        (r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}\,(ad + bc),", [(a + sp.I * b) * (c + sp.I * d), a * c - b * d + sp.I * (a * d + b * c)]),
        (r"e^{\mathrm{i}x} = \cos x + \mathrm{i}\sin x.", [sp.exp(sp.I * x), sp.cos(x) + sp.I * sp.sin(x)]),
        (r"\overline{q_1 + \mathrm{i}q_2} = q_1 - \mathrm{i}q_2", [sp.conjugate(q1 + sp.I * q2), q1 - sp.I * q2]),
        (r"\begin{aligned} a ={}& \big(b + c\big) \\ &+ d \end{aligned}", [a, b + c + d]),
        (r"\sum_{j=1}^{3} x = 3x", [sp.Sum(x, (sp.Symbol("j"), 1, 3)), 3 * x]),
    ],
)
def test_the_book_notation_is_read(latex, expected):
    sides = parse_sides(latex, symbols=[a, b, c, d, x, q1, q2])
    assert len(sides) == len(expected)
    for side, want in zip(sides, expected):
        assert sp.simplify(sp.expand_complex(side.doit() - want.doit())) == 0


def test_matrices_side_by_side_multiply_in_the_order_written():
    latex = r"\begin{pmatrix} \cos x & -\sin x \\ \sin x & \cos x \end{pmatrix}\begin{pmatrix} q_1 \\ q_2 \end{pmatrix}"
    (side,) = parse_sides(latex, symbols=[x, q1, q2])
    assert side == sp.Matrix([[sp.cos(x), -sp.sin(x)], [sp.sin(x), sp.cos(x)]]) * sp.Matrix([q1, q2])
    (shown,) = parse_sides(latex, shown=True)
    assert isinstance(shown, sp.MatMul), "shown to a reader as the product, not its result"


def test_names_stand_for_what_the_parser_cannot_read():
    f = sp.Matrix([q1, q2])
    (side, other) = parse_sides(r"f(\mathbf{x}, m) = \begin{pmatrix} q_1 \\ q_2 \end{pmatrix}", symbols=[q1, q2], names={r"f(\mathbf{x}, m)": f})
    assert side == f == other
    with pytest.raises(ValueError, match=r"names has .*, which the equation .* does not contain"):
        parse_sides("a = b", names={r"f(\mathbf{x}, m)": f})


def test_unreadable_latex_is_named():
    with pytest.raises(ValueError, match="sympy's LaTeX parser cannot read"):
        parse_sides(r"a = \frac{b")
    with pytest.raises(ValueError, match="latex must be a non-empty string of LaTeX"):
        parse_sides("  ")


def test_a_wrong_sign_a_wrong_index_or_a_missing_side_is_caught():
    sides = [(a + sp.I * b) * (c + sp.I * d), a * c - b * d + sp.I * (a * d + b * c)]
    assert_displayed(r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}(ad + bc)", sides, what="product")
    for wrong in (r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac + bd) + \mathrm{i}(ad + bc)", r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}(ad + bd)"):
        with pytest.raises(AssertionError, match=r"product: side 2 on the page"):
            assert_displayed(wrong, sides, what="product")
    with pytest.raises(AssertionError, match=r"the page shows 3 sides, the check has 2"):
        assert_displayed(r"(a + \mathrm{i}b)(c + \mathrm{i}d) = x = (ac - bd) + \mathrm{i}(ad + bc)", sides, what="product")


def product():
    return Check((a + sp.I * b) * (c + sp.I * d), a * c - b * d + sp.I * (a * d + b * c), rule=Words("multiply out", "展开相乘"))


def test_a_page_checks_its_equations_and_says_how_many(tmp_path):
    path = write(tmp_path, ("product", r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}(ad + bc)"), ("goal", "f = g"))
    page = Page(path, {"product": product}, unchecked={"goal": Words("a requirement", "一个要求")})
    shown = page.check("product")
    assert page.checked == ["product"] and r"\text{multiply out}" in shown._repr_latex_()
    assert page.summary() == "1 of the 2 displayed equations of chapter.md are checked as displayed; not checked: goal (a requirement)"
    chinese = Page(path, {"product": product}, unchecked={"goal": Words("a requirement", "一个要求")}, lang="zh")
    assert r"\text{展开相乘}" in chinese.check("product")._repr_latex_() and chinese.unchecked == {"goal": "一个要求"}
    assert chinese.summary() == "chapter.md 所展示的 2 个公式中，有 1 个按页面上的写法检验过；未检验：goal (一个要求)"
    with pytest.raises(ValueError, match="lang must be one of"):
        Page(path, {"product": product}, unchecked={"goal": Words("a requirement", "一个要求")}, lang="fr")
    with pytest.raises(ValueError, match="unchecked must give each reason in both languages"):
        Page(path, {"product": product}, unchecked={"goal": "a requirement"})
    with pytest.raises(KeyError, match="label must be one of the checked equations"):
        page.check("goal")


def test_a_false_step_is_caught_before_the_page_is_read(tmp_path):
    path = write(tmp_path, ("product", r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}(ad + bc)"))
    page = Page(path, {"product": lambda: Check(a * b, a + b, rule=Words("wishful", "一厢情愿"))})
    with pytest.raises(AssertionError, match=r"product: side 2 does not follow from side 1 \(wishful\)"):
        page.check("product")


def test_a_page_must_account_for_every_equation(tmp_path):
    path = write(tmp_path, ("product", r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}(ad + bc)"), ("goal", "f = g"))
    with pytest.raises(ValueError, match=r"displays equations neither checked nor declared unchecked: \['goal'\]"):
        Page(path, {"product": product})
    with pytest.raises(ValueError, match=r"does not display the labelled equations \['missing'\]"):
        Page(path, {"product": product}, unchecked={"goal": Words("a requirement", "一个要求"), "missing": Words("gone", "没了")})
    with pytest.raises(ValueError, match="labels both checked and unchecked"):
        Page(path, {"product": product}, unchecked={"goal": Words("a requirement", "一个要求"), "product": Words("twice", "两次")})


def test_a_check_needs_an_equation_and_a_rule():
    with pytest.raises(ValueError, match="sides must be at least two expressions"):
        Check(a, rule=Words("alone", "单独"))
    with pytest.raises(ValueError, match="rule must say in words"):
        Check(a, a, rule=Words(" ", "展开"))
    with pytest.raises(ValueError, match="rule must say in words, in English and Chinese"):
        Check(a, a, rule="multiply out")


def test_a_rule_is_plain_text():
    with pytest.raises(ValueError, match=r"rule is shown as plain text.*write exp\(iθ\), not e\^\{iθ\}"):
        Check(a, a, rule=Words("e^{iθ} turns", "旋转"))


def test_an_underscore_in_a_rule_leaves_the_text_for_math_mode(tmp_path):
    """LaTeX refuses "_" inside \\text{…} (the PDF build stops there) and MathJax prints "\\_" there literally: the rule's
    underscore is set in math mode between two text groups, which both read as "_"."""
    path = write(tmp_path, ("product", r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}(ad + bc)"))
    page = Page(path, {"product": lambda: Check((a + sp.I * b) * (c + sp.I * d), a * c - b * d + sp.I * (a * d + b * c), rule=Words("λ_t = 2π/ω_t & more", "更多"))})
    shown = page.check("product")._repr_latex_()
    assert r"\text{λ}\_\text{t = 2π/ω}\_\text{t \& more}" in shown
    assert not any("_" in group for group in re.findall(r"\\text\{([^}]*)\}", shown))


def test_a_rule_has_no_caret():
    """A caret, like an underscore, is math in LaTeX: plain text cannot hold it (write ᵀ for a transpose)."""
    with pytest.raises(ValueError, match=r"rule is shown as plain text, so it must not use LaTeX's \^"):
        Check(a, a, rule=Words("A = W_q^⊤W_k", "转置"))


def pythagoras():
    return Check(sp.cos(theta) ** 2 + sp.sin(theta) ** 2, 1, rule=Words("Pythagoras", "勾股定理"))


def test_the_report_runs_every_check_and_shows_each_with_the_counts(tmp_path):
    """The one collapsed block of a chapter: every checked equation run and shown as sympy read it (with an {eq}
    reference to it), every undisplayed step confirmed, the unchecked ones with their reasons, and the counts."""
    path = write(tmp_path, ("product", r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}(ad + bc)"), ("goal", "f = g"))
    page = Page(path, {"product": product}, unchecked={"goal": Words("a requirement", "一个要求")}, confirmations={"unit": pythagoras})
    report = page.report()
    assert page.checked == ["product"]
    shown = report._repr_markdown_()
    assert ("1 of the 2 displayed equations are checked as displayed; the other 1 is named below for what it is, and "
            "sympy confirms 1 further step that the page does not display.") in shown
    assert "{eq}`product`\n\n$$\n\\begin{aligned}" in shown and r"\text{multiply out}" in shown
    assert r"\text{Pythagoras}" in shown and "- {eq}`goal`: a requirement" in shown
    assert shown.count("$$") % 2 == 0 and "sympy's LaTeX parser reads each labelled equation" in shown
    chinese = Page(path, {"product": product}, unchecked={"goal": Words("a requirement", "一个要求")}, lang="zh").report()
    assert "本页展示的 2 个公式中，有 1 个按页面上的写法检验过；其余 1 个在下面注明是哪一类式子。" in chinese._repr_markdown_()
    assert r"\text{展开相乘}" in chinese._repr_markdown_() and "未检验：goal (一个要求)" in repr(chinese)


def test_the_report_fails_on_a_wrong_sign_on_the_page_or_a_false_undisplayed_step(tmp_path):
    path = write(tmp_path, ("product", r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac + bd) + \mathrm{i}(ad + bc)"))
    with pytest.raises(AssertionError, match="product: side 2 on the page"):
        Page(path, {"product": product}).report()
    path = write(tmp_path, ("product", r"(a + \mathrm{i}b)(c + \mathrm{i}d) = (ac - bd) + \mathrm{i}(ad + bc)"))
    false = {"unit": lambda: Check(sp.cos(theta) ** 2 - sp.sin(theta) ** 2, 1, rule=Words("wishful", "一厢情愿"))}
    with pytest.raises(AssertionError, match=r"unit: side 2 does not follow from side 1 \(wishful\)"):
        Page(path, {"product": product}, confirmations=false).report()
    with pytest.raises(ValueError, match="confirmations must map each name to a function"):
        Page(path, {"product": product}, confirmations={"unit": "cos² + sin² = 1"})


@pytest.mark.parametrize("chapter", ["complex_numbers", "rotation_matrices", "rope_2d"])
def test_a_chapter_report_fails_on_a_sign_planted_in_a_copy_of_the_chapter(chapter, tmp_path, monkeypatch):
    """The chapter's page.report(), the only place its checks run, raises when one + of a checked equation in a copy
    of the chapter is made a −."""
    import importlib

    from paths import ROOT

    module = importlib.import_module(f"rope_lib.teach.{chapter}")
    source = (ROOT / "book" / module.CHAPTER).read_text()
    make = lambda path: Page(path, module.CHECKS, unchecked=module.UNCHECKED, confirmations=getattr(module, "CONFIRMATIONS", {}))
    monkeypatch.chdir(ROOT / "book")  # where the chapter runs, as the build runs it
    assert Page.of(module).checks == module.CHECKS and Page.of(module).path == Path(module.CHAPTER)  # what a chapter builds
    block = next(m for m in DISPLAY.finditer(source) if m["label"] in module.CHECKS and "+" in m["latex"])
    label, planted = block["label"], block["latex"].replace("+", "-", 1)
    copy = tmp_path / module.CHAPTER
    copy.write_text(source[: block.start("latex")] + planted + source[block.end("latex") :])
    make(ROOT / "book" / module.CHAPTER).report()  # the chapter as it is passes
    with pytest.raises(AssertionError, match=re.escape(label)):
        make(copy).report()


def test_a_page_of_a_module_needs_its_chapter_and_checks():
    with pytest.raises(ValueError, match="derivation must be a chapter's derivation"):
        Page.of(sp)


UNCHECKED_KINDS = {"a definition": "定义", "the goal": "目标", "a statement whose proof is the text": "由正文证明的命题"}
"""What a displayed line of a deriving chapter that sympy does not check may be: its reason says so first."""


@pytest.mark.parametrize("chapter", ["complex_numbers", "rotation_matrices", "sinusoidal_encoding", "rope_2d", "rope_nd"])
def test_every_unchecked_line_of_a_deriving_chapter_says_what_kind_it_is(chapter):
    """The introduction's claim: every identity a derivation displays is checked as displayed, and every other
    displayed line is named as a definition, the goal, or a statement whose proof is the text, in both languages."""
    import importlib

    derivation = importlib.import_module(f"rope_lib.teach.{chapter}")
    derivation = getattr(derivation, "derivation", derivation)  # a chapter that is a package keeps it in a module
    for label, why in derivation.UNCHECKED.items():
        assert why.en.startswith(tuple(f"{kind}: " for kind in UNCHECKED_KINDS)), f"{chapter}, {label}: {why.en}"
        assert why.zh.startswith(tuple(f"{kind}：" for kind in UNCHECKED_KINDS.values())), f"{chapter}, {label}: {why.zh}"
