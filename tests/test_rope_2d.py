"""Chapter "RoPE in two dimensions" (rope_lib.teach.rope_2d; both editions): the page shows the equations its derivation
checks, and a wrong sign planted in any of them is caught; its figure, widget and check in both languages."""

import re

import numpy as np
import pytest

from glyphs import assert_english_figure, drawn_words, has_chinese, missing_glyphs
from paths import ROOT
from rope_lib.teach import rope_2d
from rope_lib.teach.exercises import check_score_complex
from rope_lib.teach.rope_2d import DEFAULT_K, DEFAULT_Q, plot_rope_2d, rope_2d_widget
from rope_lib.teach.shared.displayed_equations import Page, page_equations, parse_sides
from rope_lib.teach.shared.language import word_count
from test_exercises import score_complex


# --- the derivation, checked as displayed -----------------------------------------------------------------------------

CHAPTER = ROOT / "book" / rope_2d.CHAPTER


EDITIONS = [CHAPTER, ROOT / "book" / "zh" / rope_2d.CHAPTER]


def page(path=CHAPTER):
    return Page(path, rope_2d.CHECKS, unchecked=rope_2d.UNCHECKED, confirmations=rope_2d.CONFIRMATIONS)


def test_every_checked_equation_holds_as_displayed():
    shown = page().check_all()
    assert [c.label for c in shown] == [label for label in page_equations(CHAPTER) if label in rope_2d.CHECKS]
    assert all(c._repr_latex_().endswith(r"\end{aligned}$$") and r"\text{" in c._repr_latex_() for c in shown)


def test_the_derivation_finds_the_solution_before_it_checks_it():
    labels = list(page_equations(CHAPTER))
    for found in ("rope2d-polar-product", "rope2d-radial-growth", "rope2d-angle-linear", "rope2d-assembled-query"):
        assert labels.index(found) < labels.index("rope2d-solution") < labels.index("rope2d-check")


def test_the_long_verification_is_confirmed_and_not_displayed():
    """The eight-product expansion and the complex-number route to g: each step confirmed by sympy in the report, none
    displayed on the page (the page checks the solution in one line, with the rotation chapter's rot-relative)."""
    confirmed = [page().confirm(name) for name in rope_2d.CONFIRMATIONS]
    assert len(confirmed) >= 10 and all(len(step.sides) >= 2 for step in confirmed)
    assert not [label for label in page_equations(CHAPTER) if label.startswith("rope2d-step-") and label != "rope2d-step-query-rotation"]
    for path in EDITIONS:
        text = path.read_text()
        assert "{eq}`rot-relative`" in text and "{ref}`ch-rotation`" in text, "the one-line proof points back"
        assert "page.check(" not in text and "literalinclude} ../rope_lib/teach/shared/displayed_equations.py" not in text


def test_a_false_confirmation_fails_the_report(monkeypatch):
    from rope_lib.teach.shared.displayed_equations import Check
    from rope_lib.teach.shared.language import Words

    false = lambda: Check(rope_2d._grouped(), rope_2d._inner_product_written_out() + rope_2d.M, rule=Words("slip", "笔误"))
    monkeypatch.setitem(rope_2d.CONFIRMATIONS, "group-terms", false)
    with pytest.raises(AssertionError, match="group-terms"):
        page().confirm("group-terms")


@pytest.mark.parametrize("path", [CHAPTER, ROOT / "book" / "zh" / rope_2d.CHAPTER], ids=["en", "zh"])
def test_the_checks_run_in_one_collapsed_block(path):
    text = path.read_text()
    cell = '```{code-cell} ipython3\n:tags: [remove-cell]\nfrom rope_lib.teach.shared import displayed_equations\n'
    assert text.count(cell) == 1
    assert 'glue("rope2d_checks", displayed_equations.Page.of(rope_2d, lang=LANG).report(), display=False)' in text
    title = "How this page is checked" if path == CHAPTER else "本页如何检验"
    assert text.count(f":::{{admonition}} {title}\n:class: dropdown\n```{{glue:md}} rope2d_checks\n:format: myst\n```\n:::") == 1


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
    path.write_text(CHAPTER.read_text().replace("$$ (rope2d-check)", "$$ (rope2d-check-renamed)", 1))
    with pytest.raises(ValueError, match="neither checked nor declared unchecked"):
        page(path)


def prose(path):
    """The page's text outside its code cells."""
    return re.sub(r"```\{code-cell\}.*?\n```", "", path.read_text(), flags=re.S)


def test_the_mirror_rule_meets_the_real_goal_and_not_the_complex_one():
    """What assumption 1 buys: mirroring every vector at an odd position keeps every length, treats queries and keys
    alike and leaves position 0 alone, and its dot product sees m − n alone; its complex product does not."""
    rng = np.random.default_rng(0)
    q, k = complex(*rng.standard_normal(2)), complex(*rng.standard_normal(2))
    pairs = [(m, n) for m in range(12) for n in range(12)]
    products = dict(zip(pairs, rope_2d.mirror_products(q, k, pairs)))
    for (m, n), z in products.items():
        assert z.real == pytest.approx(products[(m - n, 0) if m >= n else (0, n - m)].real, abs=1e-12)
        assert abs(rope_2d.mirror_at_odd_positions(q, m)) == pytest.approx(abs(q), abs=1e-15)
    assert rope_2d.mirror_at_odd_positions(q, 0) == q and rope_2d.mirror_at_odd_positions(k, 0) == k
    assert abs(products[(1, 1)] - products[(0, 0)]) > 0.1 and products[(1, 1)] == pytest.approx(products[(0, 0)].conjugate())
    rope = [q * np.exp(1j * m * 0.35) * (k * np.exp(1j * n * 0.35)).conjugate() for m, n in pairs]
    assert not np.allclose([z.real for z in products.values()], [z.real for z in rope])  # not RoPE in disguise

    figure_q, figure_k = np.array(DEFAULT_Q), np.array(DEFAULT_K)
    shown = rope_2d.mirror_products(complex(*figure_q), complex(*figure_k))
    np.testing.assert_allclose([z.real for z in shown], figure_q @ figure_k, rtol=1e-12)  # the score the page glues
    assert abs(shown[1] - shown[0]) > 0.1 and shown[1] == pytest.approx(shown[0].conjugate())


@pytest.mark.parametrize("path", EDITIONS, ids=["en", "zh"])
def test_the_page_says_what_assumption_1_buys(path):
    """Both editions: the summary credits the complex goal (assumption 1) with forcing the answer, the derivation says
    what it buys with the mirror rule glued from rope_lib, and the decay is a bound's, pointing to "Why RoPE works"."""
    text = prose(path)
    summary = text[text.index("## Summary" if path == CHAPTER else "## 小结") :]
    assert ("The goal in its complex form (assumption 1)" in summary) or ("复数形式的目标（假设 1）" in summary)
    assert "The goal, with position 0 changing nothing" not in summary and not summary.count("- 加上“位置 0")
    assert ("mirrored at every odd position" in summary) or ("每个奇数位置把向量换成它的镜像" in summary)
    assert "{glue:text}`rope2d_mirror_score" in text and 'glue("rope2d_mirror_score",' in path.read_text()
    pairs = ", ".join(str(pair) for pair in rope_2d.MIRROR_PAIRS[:-1])
    flat = text.replace("\n", " ").replace("、", ", ")
    assert pairs in flat and str(rope_2d.MIRROR_PAIRS[-1]) in flat, "the positions the prose names are the ones computed"
    assert "on average" not in text and "平均而言得分随距离衰减" not in text
    decay = text[text.index("{ref}`wr-decay`") - 200 : text.index("{ref}`wr-decay`")]
    assert "upper bound" in decay or "上界" in decay
    assert "(wr-decay)=" in (path.parents[0] / "why_rope_works.md").read_text()


@pytest.mark.parametrize("path", EDITIONS, ids=["en", "zh"])
def test_the_length_is_separated_from_the_embedding_as_the_angle_is(path):
    """Issue 36: "write r_q = |q| c(m)" assumed that the scale does not depend on the embedding. Both editions now give
    the length the angle's argument: at n = m, r_q/|q| = |k|/r_k, the query's embedding on one side and the key's on
    the other, so both are a function c(m) of the position alone; then assumption 3 makes c(m) = 1."""
    text = prose(path)
    lengths = text[text.index("**The length cannot depend" if path == CHAPTER else "**长度不能依赖于位置**") :]
    lengths = lengths[: lengths.index("\n\n+++")]
    angles = text[text.index("**The angle must be linear" if path == CHAPTER else "**角度必须是位置的线性函数**") :]
    separation = r"r_q(\mathbf{x}_m, m)/|q| = |k|/r_k(\mathbf{x}_n, m)"
    assert separation in lengths and r"r_k(\mathbf{x}_n, m) = |k|/c(m)" in lengths
    sides = ("depends\nonly on the query's embedding", "the right side only on the key's") if path == CHAPTER else \
        ("左边只依赖于查询的嵌入", "右边只依赖于键的嵌入")
    flat_lengths, flat_angles = lengths.replace("\n", " "), angles.replace("\n", " ")
    for side in sides:
        side = side.replace("\n", " ")
        assert side in flat_lengths and side in flat_angles, f"the lengths get the angle's argument: {side!r}"
    assert lengths.index(separation) < lengths.index("c(m)^2 = 1")
    solution = text[text.index(":::{solution-start} rope2d-ex-derive") :]
    assert separation in solution[: solution.index(":::{solution-end}")], "the pencil exercise's step 2 follows"


# --- both languages: the figure, widget and check ---------------------------------------------------------------------

def flipped(q, k, m, n, theta):
    return score_complex(q, k, n, m, theta)


def test_the_figure_in_chinese_draws_every_glyph():
    fig = plot_rope_2d(3, 1, 0.35, 2, lang="zh")
    assert has_chinese(fig.alt_text) and word_count(fig.alt_text) >= 20 and "0.35" in fig.alt_text
    words = drawn_words(fig)
    assert "查询位置 m + s" in words and "键位置 n + s" in words
    assert any(w.startswith("得分 =") for w in words) and any("位置 5 处的 q" == w for w in words)
    assert fig.axes[-1].get_ylabel() == "得分"  # the colour bar
    assert missing_glyphs(fig) == []


def test_the_figure_keeps_its_english_by_default():
    fig = plot_rope_2d(3, 1, 0.35, 2)
    assert_english_figure(fig)
    assert fig.axes[1].get_xlabel() == "key position n + s" and fig.alt_text.startswith("Two panels.")
    assert plot_rope_2d(3, 1, 0.35, 2, lang="en").alt_text == fig.alt_text


def test_the_numbers_are_the_same_in_both_languages():
    en, zh = plot_rope_2d(2, 0, 0.9, 4), plot_rope_2d(2, 0, 0.9, 4, lang="zh")
    assert en.axes[0].get_title().split()[2] == zh.axes[0].get_title().split()[2]  # the score
    assert en.to_png() != zh.to_png()


def test_the_widget_in_chinese():
    widget = rope_2d_widget(lang="zh")
    assert widget.lang == "zh" and all(has_chinese(c.label) for c in widget.controls)
    assert widget.draw.__module__ == "rope_lib.teach.rope_2d"
    fig = widget.figure(shift=4)
    assert has_chinese(fig.alt_text) and missing_glyphs(fig) == []
    assert "在线版中可交互" in widget.print_caption()
    english = rope_2d_widget()
    assert [c.label for c in english.controls] == ["query position m", "shift both by s"]
    assert not has_chinese(english.figure().alt_text)


def test_the_widget_moves_the_score_with_m_and_not_with_the_shift():
    """Two sliders of 8 stops (64 frames): the score changes with m, never with s; the key and θ are the module's."""
    from rope_lib.teach import rope_2d as widget_2d

    widget = rope_2d_widget()
    assert [len(c.values) for c in widget.controls] == [8, 8] and not any(c.choice for c in widget.controls)
    score = lambda **values: float(widget.figure(**values).axes[0].get_title().split()[2])  # noqa: E731
    assert len({score(m=3, shift=s) for s in widget_2d.SHIFTS}) == 1
    assert len({score(m=m, shift=0) for m in widget_2d.QUERY_POSITIONS}) == len(widget_2d.QUERY_POSITIONS)
    assert f"n = {widget_2d.KEY_POSITION}" in widget.figure().alt_text and f"{widget_2d.WIDGET_THETA:g}" in widget.figure().alt_text


def test_the_check_speaks_chinese():
    passed = check_score_complex(score_complex, lang="zh")
    assert passed and "通过" in str(passed) and "score_complex 在 200 组随机的查询" in passed.message
    assert check_score_complex(score_complex).message == (
        "score_complex matches the rotation-matrix score on 200 seeded random queries, keys and positions.")
    hint = check_score_complex(flipped, lang="zh")
    assert not hint and "符号错了" in hint.message and "(m − n)θ" in hint.message
    english = check_score_complex(flipped)
    assert "sign — your score at (m, n) is the true score at (n, m)" in english.message and not has_chinese(english.message)


@pytest.mark.parametrize("make", [lambda: plot_rope_2d(3, 1, 0.35, lang="fr"), lambda: rope_2d_widget(lang="fr"),
                                  lambda: check_score_complex(score_complex, lang="fr")])
def test_an_unknown_language_is_refused(make):
    with pytest.raises(ValueError, match="lang"):
        make()
