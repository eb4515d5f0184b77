"""Chapter "RoPE in d dimensions", the derivation a student can redo (issue 36): what the goal alone gives (R_m = R_1^m
for any orthogonal R_1, the mirror of "RoPE in two dimensions" included), what continuity buys (det R_1 = +1), the
theorem that a rotation is e^A with its short argument, eq. ropend-exp-goal checked as displayed (a wrong sign planted
in a copy of either edition fails the check and the report), and every other displayed equation named for the kind of
line it is."""

import re

import numpy as np
import pytest

from paths import ROOT
from rope_lib.teach import rope_2d
from rope_lib.teach import rope_nd as rope_nd_chapter
from rope_lib.teach.rope_nd import derivation as rope_nd
from rope_lib.teach.shared.displayed_equations import Page, page_equations
from rope_lib.teach.shared.language import Words

EDITIONS = {"en": ROOT / "book" / rope_nd.CHAPTER, "zh": ROOT / "book" / "zh" / rope_nd.CHAPTER}
KINDS = {"a definition": "定义", "the goal": "目标", "a statement whose proof is the text": "由正文证明的命题"}
"""What an unchecked line of a deriving chapter may be, as its reason begins, in English and Chinese (issue 36)."""


def page(path, lang="en", confirmations=None) -> Page:
    return Page(path, rope_nd.CHECKS, unchecked=rope_nd.UNCHECKED, lang=lang, confirmations=confirmations)


def prose(path) -> str:
    """The page's text outside its code cells."""
    return re.sub(r"```\{code-cell\}.*?\n```", "", path.read_text(), flags=re.S)


# ---- the mathematics the text states ------------------------------------------------------------------------------


def test_the_goal_alone_allows_any_orthogonal_step_a_mirror_included():
    """R_m = R_1^m meets R_mᵀR_n = R_(n−m) for every orthogonal R_1: the mirror F = diag(1, −1), a reflection in d = 4
    (det −1) and a rotation; the mirror family is the mirror rule of "RoPE in two dimensions" (conjugate at odd m)."""
    mirror = np.diag([1.0, -1.0])
    reflection = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))[0]
    reflection = reflection if np.linalg.det(reflection) < 0 else reflection @ np.diag([1.0, 1.0, 1.0, -1.0])
    rotation = rope_nd_chapter.rotation_family(rope_nd_chapter.random_skew(4, seed=1), 1)
    for step in (mirror, reflection, rotation):
        power = lambda m, step=step: np.linalg.matrix_power(step, m)  # noqa: E731
        for m in range(-3, 8):
            for n in range(-3, 8):
                assert np.allclose(power(m).T @ power(n), power(n - m), atol=1e-10)
    assert np.isclose(np.linalg.det(mirror), -1) and np.isclose(np.linalg.det(reflection), -1)
    z = complex(0.3, -0.7)
    for m in range(6):  # F^m acting on (a, b) is the 2D chapter's mirror at odd positions
        turned = np.linalg.matrix_power(mirror, m) @ np.array([z.real, z.imag])
        assert complex(*turned) == rope_2d.mirror_at_odd_positions(z, m)


def test_continuity_keeps_the_determinant_at_plus_one():
    """Along e^(tA) the determinant stays 1 (what continuity buys), and R_1 = e^A gives R_m = R_1^m = e^(mA)."""
    a = rope_nd_chapter.random_skew(5, seed=2)
    dets = [np.linalg.det(rope_nd_chapter.rotation_family(a, t)) for t in np.linspace(0, 3, 31)]
    assert np.allclose(dets, 1.0)
    step = rope_nd_chapter.rotation_family(a, 1)
    for m in range(6):
        assert np.allclose(np.linalg.matrix_power(step, m), rope_nd_chapter.rotation_family(a, m), atol=1e-10)


def test_the_plane_argument_holds_for_a_random_skew_matrix():
    """Steps 1–3 of "Pairs", numerically: imaginary eigenvalues; A a = −θ b and A b = θ a for v = a + ib; a ⊥ b and
    |a| = |b|; the orthogonal complement of the plane is mapped into itself."""
    a_matrix = rope_nd_chapter.random_skew(6, seed=3)
    values, vectors = np.linalg.eig(a_matrix)
    assert np.allclose(values.real, 0, atol=1e-12)
    for value, v in zip(values, vectors.T):
        theta = value.imag
        if theta <= 0:
            continue
        a, b = v.real, v.imag
        assert np.allclose(a_matrix @ a, -theta * b) and np.allclose(a_matrix @ b, theta * a)
        assert abs(a @ b) < 1e-12 and np.isclose(a @ a, b @ b)
        basis = np.linalg.qr(np.column_stack([a, b]), mode="complete")[0]
        rest = basis[:, 2:]  # orthonormal directions orthogonal to the plane
        assert np.allclose(np.column_stack([a, b]).T @ a_matrix @ rest, 0, atol=1e-12)


# ---- the page -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_derivation_says_what_the_goal_gives_and_what_continuity_buys(lang):
    text = prose(EDITIONS[lang])
    derivation = text[: text.index("(ropend-exp-block)")]
    words = {
        "en": ["What the goal alone gives", "**any** orthogonal matrix", "A mirror meets the goal", "{ref}`rope2d-finding`",
               "What continuity buys", r"\det R_1 = +1", "{cite}`horn2013matrix`", "*Step 1: its eigenvalues are imaginary.*",
               "*Step 2: it turns a plane.*", "*Step 3: the planes fill the space.*"],
        "zh": ["单凭目标能得到什么", "**任意**正交矩阵", "镜像也满足目标", "{ref}`rope2d-finding`", "连续性换来了什么",
               r"\det R_1 = +1", "{cite}`horn2013matrix`", "**第 1 步：它的特征值是纯虚数**。", "**第 2 步：它转动一个平面**。",
               "**第 3 步：这些平面铺满整个空间**。"],
    }[lang]
    missing = [w for w in words if w not in derivation]
    assert not missing, f"{lang}: the derivation lacks {missing}"
    assert "```{prf:theorem}" in derivation and ":label: ropend-thm-exp" in derivation
    for gone in ("spectral theorem", "谱定理", "If the family also turns continuously", "如果这一族矩阵在整数位置之间也连续地转动"):
        assert gone not in text, f"{lang}: the old black-box sentence is still there: {gone!r}"
    order = [derivation.index(w) for w in words[:5]] + [derivation.index("```{prf:theorem}")]
    assert order == sorted(order), "goal, mirror, continuity, theorem: in this order"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_summary_no_longer_credits_the_goal_alone(lang):
    text = prose(EDITIONS[lang])
    summary = text[text.index("## Summary" if lang == "en" else "## 小结") :].split("\n- ")[1]
    assert "makes $R_m = e^{mA}$" not in summary and "要求 $R_m = e^{mA}$" not in summary
    said = ["alone gives $R_m = R_1^m$", "a mirror included", "Continuity makes"] if lang == "en" else \
        ["只能得到 $R_m = R_1^m$", "镜像也在内", "连续性使"]
    assert all(s in summary for s in said), summary


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_exercise_practises_the_step(lang):
    text = EDITIONS[lang].read_text()
    label = "ropend-ex-mirror-and-plane"
    exercise = text[text.index(f":label: {label}") : text.index(f":::{{solution-start}} {label}")]
    assert ":class: dropdown" in exercise and ("Hint" in exercise or "提示" in exercise)
    solution = text[text.index(f":::{{solution-start}} {label}") : text.index(":::{solution-end}", text.index(label))]
    assert "# Each step of the worked solution above, checked with sympy." in solution or "# 用 sympy 逐步检查" in solution
    first_exercise = text.index(":::{exercise}")
    assert text.index(f":label: {label}") < text.index(":label: ropend-ex-elementwise-any-d"), "it comes first"
    assert first_exercise < text.index(f":label: {label}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_mirror_is_shown_as_code_a_reader_types(lang):
    text = EDITIONS[lang].read_text()
    cell = re.search(r"```\{code-cell\} ipython3\nF = np\.diag\(\[1\.0, -1\.0\]\).*?\n```", text, re.S)
    assert cell and "matrix_power" in cell[0] and cell[0].rstrip("`\n").endswith("meets_goal, float(np.linalg.det(F))")


# ---- the checks -----------------------------------------------------------------------------------------------------


def test_the_goal_by_exponentials_is_checked_as_displayed():
    """eq. ropend-exp-goal is in CHECKS, for the general 2×2 skew-symmetric A, as both editions display it; the 4×4
    block form is confirmed."""
    assert "the goal by exponentials, d = 4" in rope_nd.CONFIRMATIONS
    assert "ropend-exp-goal" in rope_nd.CHECKS
    assert page_equations(EDITIONS["en"])["ropend-exp-goal"] == page_equations(EDITIONS["zh"])["ropend-exp-goal"]
    shown = page(EDITIONS["en"]).check("ropend-exp-goal")
    assert len(shown.shown) == 3 and "d = 2" in shown.rule


@pytest.mark.parametrize(("old", "new"), [(r"e^{(n-m)A}", r"e^{(m-n)A}"), (r"e^{-mA}\,e^{nA}", r"e^{mA}\,e^{nA}")],
                         ids=["swapped difference", "dropped minus"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wrong_sign_planted_in_the_goal_by_exponentials_fails(old, new, lang, tmp_path, monkeypatch):
    """The claim "a wrong sign on the page stops the book", tested by breaking it: a copy of the chapter with one sign
    of eq. ropend-exp-goal wrong fails its check, and the report the chapter glues (run from the copy's folder, as the
    build runs it) raises."""
    source = EDITIONS[lang].read_text()
    latex = page_equations(EDITIONS[lang])["ropend-exp-goal"]
    assert old in latex
    (tmp_path / rope_nd.CHAPTER).write_text(source.replace(latex, latex.replace(old, new, 1), 1))
    with pytest.raises(AssertionError, match="ropend-exp-goal: side"):
        page(tmp_path / rope_nd.CHAPTER, lang=lang).check("ropend-exp-goal")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match="ropend-exp-goal"):
        Page.of(rope_nd, lang=lang).report()


def test_every_unchecked_line_says_what_kind_it_is():
    for module in (rope_nd, rope_2d):
        for label, why in module.UNCHECKED.items():
            assert isinstance(why, Words)
            assert why.en.startswith(tuple(f"{kind}: " for kind in KINDS)), f"{label}: {why.en}"
            assert why.zh.startswith(tuple(f"{kind}：" for kind in KINDS.values())), f"{label}: {why.zh}"
            en_kind = next(kind for kind in KINDS if why.en.startswith(kind))
            assert why.zh.startswith(KINDS[en_kind]), f"{label}: the two languages name the same kind"
    assert rope_nd.UNCHECKED["ropend-goal"].en.startswith("the goal: ")
    assert rope_nd.UNCHECKED["ropend-canonical"].en.startswith("a statement whose proof is the text: ")
    assert rope_2d.UNCHECKED["rope2d-polar-forms"].en.startswith("a definition: ")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_names_each_unchecked_line_and_runs_the_confirmations(lang):
    report = page(EDITIONS[lang], lang=lang, confirmations=rope_nd.CONFIRMATIONS).report()
    shown = report._repr_markdown_()
    for label in rope_nd.UNCHECKED:
        kinds = KINDS if lang == "en" else KINDS.values()
        assert re.search(rf"{{eq}}`{label}`(: |：)({'|'.join(kinds)})(: |：)", shown), label
    assert len(report.confirmed) == len(rope_nd.CONFIRMATIONS) >= 5
    assert len(report.checked) == len(rope_nd.CHECKS) == 4


def test_a_false_eigenvalue_confirmation_fails(monkeypatch):
    import sympy as sp

    from rope_lib.teach.shared.displayed_equations import Check

    name = "the eigenvalues come in pairs, d = 4"
    true = rope_nd.CONFIRMATIONS[name]()
    wrong = lambda: Check(true.sides[0], true.sides[1] + rope_nd.LAMBDA, rule=true.rule)  # noqa: E731  an odd power
    monkeypatch.setitem(rope_nd.CONFIRMATIONS, name, wrong)
    with pytest.raises(AssertionError, match=re.escape(name)):
        page(EDITIONS["en"], confirmations=rope_nd.CONFIRMATIONS).confirm(name)
    assert sp.Poly(sp.expand(true.sides[1]), rope_nd.LAMBDA).degree() == 4
