"""Chapter "RoPE in d dimensions" (rope_lib.teach.rope_nd; both editions): long-term decay against slow, obvious loops;
the derivation a student can redo (what the goal alone gives, what continuity buys, the theorem that a rotation is e^A,
eq. ropend-exp-goal checked as displayed); skew-symmetric generators and their canonical form, numerically; its
figures, clock and check in both languages. The checks it shares with the other deriving chapters are in
tests/test_derivations.py."""

import math
import re

import cmath
import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import rope_lib
from glyphs import assert_chinese_figure, assert_english_figure, has_chinese, missing_glyphs
from paths import ROOT
from rope_lib import apply_rope, inv_freq
from rope_lib.rotation import rotary_matrix
from rope_lib.teach import rope_2d, rope_nd
from rope_lib.teach.exercises import check_first_below_half
from rope_lib.teach.rope_nd import (
    abel_bound,
    abel_sum,
    clock_widget,
    decay,
    derivation,
    pair_products,
    partial_sums,
    phasor_terms,
    plot_clock,
    plot_pair_rotations,
    plot_relative_upper_bound,
    plot_rotary_matrix,
    relative_upper_bound,
    rope_sum,
    unturned_pairs,
)
from rope_lib.teach.shared.displayed_equations import Page, page_equations
from rope_lib.teach.shared.language import Words, word_count
from test_exercises import first_below_half


# --- long-term decay (RoFormer §3.4.3) against slow, obvious loops, and its bad-input errors --------------------------

def slow_partial_sums(r, d, base):
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    return [sum(cmath.exp(1j * r * theta[i]) for i in range(j)) for j in range(d // 2 + 1)]


def slow_pair_products(q, k):
    return [complex(q[2 * i], q[2 * i + 1]) * complex(k[2 * i], k[2 * i + 1]).conjugate() for i in range(len(q) // 2)]


@given(r=st.integers(-5000, 5000), half=st.integers(1, 40), base=st.sampled_from([100.0, 10000.0, 500000.0]))
def test_partial_sums_match_a_loop(r, half, base):
    d = 2 * half
    assert np.allclose(partial_sums(r, d, base), slow_partial_sums(r, d, base), atol=1e-9)


def test_partial_sums_shape_and_start():
    s = partial_sums(np.arange(5), 16)
    assert s.shape == (5, 9)
    assert np.all(s[:, 0] == 0)
    assert np.allclose(s[0], np.arange(9))  # distance 0: S_j = j


@given(seed=st.integers(0, 2**32 - 1), half=st.integers(1, 16), m=st.integers(0, 3000), n=st.integers(0, 3000))
def test_rope_sum_is_the_rope_score_and_abel_rearranges_it(seed, half, m, n):
    rng = np.random.default_rng(seed)
    d = 2 * half
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    h = pair_products(q, k)
    assert np.allclose(h, slow_pair_products(q, k))
    score = (rotary_matrix(m, d) @ q) @ (rotary_matrix(n, d) @ k)
    assert math.isclose(rope_sum(h, m - n).real, score, abs_tol=1e-8)
    assert np.isclose(abel_sum(h, m - n), rope_sum(h, m - n), atol=1e-8)
    assert abs(rope_sum(h, m - n)) <= abel_bound(h, m - n) + 1e-9


def test_abel_bound_matches_a_loop():
    rng = np.random.default_rng(3)
    h = rng.standard_normal(8) + 1j * rng.standard_normal(8)
    extended = list(h) + [0]
    largest = max(abs(extended[i + 1] - extended[i]) for i in range(8))
    for r in (0, 1, 17, 300):
        expected = largest * sum(abs(s) for s in slow_partial_sums(r, 16, 10000.0)[1:])
        assert math.isclose(abel_bound(h, r), expected, rel_tol=1e-12)


def test_relative_upper_bound_is_figure_2():
    """Starts at (d/2 + 1)/2 = 32.5 for d = 128 and falls with distance, as RoFormer Fig. 2 shows."""
    curve = relative_upper_bound(np.arange(257), 128)
    assert curve[0] == 32.5
    for r in (1, 50, 256):
        assert math.isclose(curve[r], np.mean([abs(s) for s in slow_partial_sums(r, 128, 10000.0)[1:]]), rel_tol=1e-12)
    assert curve[256] < curve[0] / 3
    assert np.all(curve[1:] < curve[0])
    # a larger base decays more slowly
    assert relative_upper_bound(256, 128, 100.0) < curve[256] < relative_upper_bound(256, 128, 500000.0)
    assert np.allclose(inv_freq(128), 10000.0 ** (-np.arange(0, 128, 2) / 128))


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match=r"q must be a vector of even length d, got shape \(2, 2\)"):
        pair_products(np.ones((2, 2)), np.ones(4))
    with pytest.raises(ValueError, match=r"the length of k must be a positive even integer"):
        pair_products(np.ones(4), np.ones(5))
    with pytest.raises(ValueError, match=r"q and k must have one length d, got 4 and 6"):
        pair_products(np.ones(4), np.ones(6))
    for fn in (rope_sum, abel_sum, abel_bound, phasor_terms):
        with pytest.raises(ValueError, match=r"h must be a non-empty vector of d/2 pair products"):
            fn(np.ones((2, 2)), 0)
    with pytest.raises(ValueError, match=r"d must be a positive even integer"):
        relative_upper_bound(0, 7)
    with pytest.raises(ValueError, match=r"base must be a finite number greater than 1"):
        partial_sums(0, 8, 1.0)


def rope_score(q, k, m, n, base):
    """⟨R_m q, R_n k⟩ from rope_lib.apply_rope (torch, float64), independent of the complex sum."""
    x = torch.tensor(np.stack([q, k]), dtype=torch.float64)[:, None, None, :]  # (2, 1, 1, d): q and k as a batch of two
    turned = apply_rope(x, [[m], [n]], base=base, layout="interleaved")
    return float(turned[0, 0, 0] @ turned[1, 0, 0])


def tip_is_the_score(q, k, m, n, base):
    """The last point of the phasor path is rope_sum, and its real part the RoPE score."""
    path = phasor_terms(pair_products(q, k), m - n, base)
    return bool(np.isclose(path[-1], rope_sum(pair_products(q, k), m - n, base), atol=1e-9)
                and math.isclose(path[-1].real, rope_score(q, k, m, n, base), abs_tol=1e-8)
                and math.isclose(path[-1].real, (rotary_matrix(m, len(q), base) @ q) @ (rotary_matrix(n, len(q), base) @ k), abs_tol=1e-8))


@given(seed=st.integers(0, 2**32 - 1), half=st.integers(1, 32), m=st.integers(0, 5000), n=st.integers(0, 5000),
       base=st.sampled_from([100.0, 10000.0, 500000.0]))
def test_the_tip_of_the_phasor_path_is_the_rope_score(seed, half, m, n, base):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(2 * half), rng.standard_normal(2 * half)
    assert tip_is_the_score(q, k, m, n, base)


def test_phasor_terms_are_the_arrows_laid_tip_to_tail():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    h = pair_products(q, k)
    path = phasor_terms(h, np.arange(4), 500.0)
    assert path.shape == (4, 9) and np.all(path[:, 0] == 0)
    theta = [500.0 ** (-2 * i / 16) for i in range(8)]
    for r in range(4):
        arrows = np.diff(path[r])
        assert np.allclose(arrows, [h[i] * cmath.exp(1j * r * theta[i]) for i in range(8)], atol=1e-12)
    assert np.allclose(path[0], np.concatenate([[0], np.cumsum(h)]))  # distance 0: nothing turns
    assert np.allclose(phasor_terms(np.ones(8), np.arange(4), 500.0), partial_sums(np.arange(4), 16, 500.0))  # h = 1: the S_j


def test_an_identical_key_lines_the_arrows_up_at_distance_zero():
    q = np.random.default_rng(2).standard_normal(32)
    path = phasor_terms(pair_products(q, q), 0)
    assert np.allclose(path.imag, 0, atol=1e-12) and np.all(np.diff(path.real) >= 0) and math.isclose(path[-1].real, q @ q)


def test_a_planted_wrong_sign_is_caught(monkeypatch):
    """Turn the arrows the wrong way, e^{−iΔθ}: the path still ends at rope_sum (which turns the same way),
    but the comparison with apply_rope catches it."""
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    assert tip_is_the_score(q, k, 7, 2, 10000.0)
    right = decay._rotations
    monkeypatch.setattr(decay, "_rotations", lambda relative, d, base: np.conj(right(relative, d, base)))
    assert not tip_is_the_score(q, k, 7, 2, 10000.0)


def test_unturned_pairs_counts_the_arrows_within_a_quarter_turn():
    for r, d, base in [(0, 16, 10000.0), (1, 16, 10000.0), (64, 128, 10000.0), (-64, 128, 10000.0), (1024, 128, 500000.0), (16384, 128, 10000.0)]:
        expected = sum(abs(r) * base ** (-2 * i / d) < math.pi / 2 for i in range(d // 2))
        assert unturned_pairs(r, d, base) == expected
    assert unturned_pairs(np.array([0, 1, 2]), 8).tolist() == [4, 4, 3]  # pair 0 turns 1, then 2 radians: past π/2
    with pytest.raises(ValueError, match=r"d must be a positive even integer"):
        unturned_pairs(3, 7)


# --- the derivation a student can redo --------------------------------------------------------------------------------

EDITIONS = {"en": ROOT / "book" / derivation.CHAPTER, "zh": ROOT / "book" / "zh" / derivation.CHAPTER}
KINDS = {"a definition": "定义", "the goal": "目标", "a statement whose proof is the text": "由正文证明的命题"}
"""What an unchecked line of a deriving chapter may be, as its reason begins, in English and Chinese (issue 36)."""


def page(path, lang="en", confirmations=None) -> Page:
    return Page(path, derivation.CHECKS, unchecked=derivation.UNCHECKED, lang=lang, confirmations=confirmations)


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
    rotation = rope_nd.rotation_family(rope_nd.random_skew(4, seed=1), 1)
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
    a = rope_nd.random_skew(5, seed=2)
    dets = [np.linalg.det(rope_nd.rotation_family(a, t)) for t in np.linspace(0, 3, 31)]
    assert np.allclose(dets, 1.0)
    step = rope_nd.rotation_family(a, 1)
    for m in range(6):
        assert np.allclose(np.linalg.matrix_power(step, m), rope_nd.rotation_family(a, m), atol=1e-10)


def test_the_plane_argument_holds_for_a_random_skew_matrix():
    """Steps 1–3 of "Pairs", numerically: imaginary eigenvalues; A a = −θ b and A b = θ a for v = a + ib; a ⊥ b and
    |a| = |b|; the orthogonal complement of the plane is mapped into itself."""
    a_matrix = rope_nd.random_skew(6, seed=3)
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
    derived = text[: text.index("(ropend-exp-block)")]
    words = {
        "en": ["What the goal alone gives", "**any** orthogonal matrix", "A mirror meets the goal", "{ref}`rope2d-finding`",
               "What continuity buys", r"\det R_1 = +1", "{cite}`horn2013matrix`", "*Step 1: its eigenvalues are imaginary.*",
               "*Step 2: it turns a plane.*", "*Step 3: the planes fill the space.*"],
        "zh": ["单凭目标能得到什么", "**任意**正交矩阵", "镜像也满足目标", "{ref}`rope2d-finding`", "连续性换来了什么",
               r"\det R_1 = +1", "{cite}`horn2013matrix`", "**第 1 步：它的特征值是纯虚数**。", "**第 2 步：它转动一个平面**。",
               "**第 3 步：这些平面铺满整个空间**。"],
    }[lang]
    missing = [w for w in words if w not in derived]
    assert not missing, f"{lang}: the derivation lacks {missing}"
    assert "```{prf:theorem}" in derived and ":label: ropend-thm-exp" in derived
    for gone in ("spectral theorem", "谱定理", "If the family also turns continuously", "如果这一族矩阵在整数位置之间也连续地转动"):
        assert gone not in text, f"{lang}: the old black-box sentence is still there: {gone!r}"
    order = [derived.index(w) for w in words[:5]] + [derived.index("```{prf:theorem}")]
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
    assert "the goal by exponentials, d = 4" in derivation.CONFIRMATIONS
    assert "ropend-exp-goal" in derivation.CHECKS
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
    (tmp_path / derivation.CHAPTER).write_text(source.replace(latex, latex.replace(old, new, 1), 1))
    with pytest.raises(AssertionError, match="ropend-exp-goal: side"):
        page(tmp_path / derivation.CHAPTER, lang=lang).check("ropend-exp-goal")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match="ropend-exp-goal"):
        Page.of(derivation, lang=lang).report()


def test_every_unchecked_line_says_what_kind_it_is():
    for module in (derivation, rope_2d):
        for label, why in module.UNCHECKED.items():
            assert isinstance(why, Words)
            assert why.en.startswith(tuple(f"{kind}: " for kind in KINDS)), f"{label}: {why.en}"
            assert why.zh.startswith(tuple(f"{kind}：" for kind in KINDS.values())), f"{label}: {why.zh}"
            en_kind = next(kind for kind in KINDS if why.en.startswith(kind))
            assert why.zh.startswith(KINDS[en_kind]), f"{label}: the two languages name the same kind"
    assert derivation.UNCHECKED["ropend-goal"].en.startswith("the goal: ")
    assert derivation.UNCHECKED["ropend-canonical"].en.startswith("a statement whose proof is the text: ")
    assert rope_2d.UNCHECKED["rope2d-polar-forms"].en.startswith("a definition: ")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_names_each_unchecked_line_and_runs_the_confirmations(lang):
    report = page(EDITIONS[lang], lang=lang, confirmations=derivation.CONFIRMATIONS).report()
    shown = report._repr_markdown_()
    for label in derivation.UNCHECKED:
        kinds = KINDS if lang == "en" else KINDS.values()
        assert re.search(rf"{{eq}}`{label}`(: |：)({'|'.join(kinds)})(: |：)", shown), label
    assert len(report.confirmed) == len(derivation.CONFIRMATIONS) >= 5
    assert len(report.checked) == len(derivation.CHECKS) == 4


def test_a_false_eigenvalue_confirmation_fails(monkeypatch):
    import sympy as sp

    from rope_lib.teach.shared.displayed_equations import Check

    name = "the eigenvalues come in pairs, d = 4"
    true = derivation.CONFIRMATIONS[name]()
    wrong = lambda: Check(true.sides[0], true.sides[1] + derivation.LAMBDA, rule=true.rule)  # noqa: E731  an odd power
    monkeypatch.setitem(derivation.CONFIRMATIONS, name, wrong)
    with pytest.raises(AssertionError, match=re.escape(name)):
        page(EDITIONS["en"], confirmations=derivation.CONFIRMATIONS).confirm(name)
    assert sp.Poly(sp.expand(true.sides[1]), derivation.LAMBDA).degree() == 4


# --- skew-symmetric generators and their canonical form, numerically --------------------------------------------------

def test_a_wrong_sign_in_the_derived_block_fails_the_page(tmp_path):
    """The d-dimensional derivation is checked as displayed: flip the sign of one sine in eq. ropend-exp-block and
    the page's check fails, as the book build would."""
    text = EDITIONS["en"].read_text()
    latex = page_equations(EDITIONS["en"])["ropend-exp-block"]
    assert r"& -\sin m\theta_i" in latex
    path = tmp_path / derivation.CHAPTER
    path.write_text(text.replace(latex, latex.replace(r"& -\sin m\theta_i", r"& \sin m\theta_i", 1), 1))
    with pytest.raises(AssertionError, match="ropend-exp-block"):
        page(path).check("ropend-exp-block")
    page(EDITIONS["en"]).check("ropend-exp-block")  # and the page as written passes
    zh = EDITIONS["zh"]  # the Chinese page shows the same equation, checked the same way
    assert page_equations(zh)["ropend-exp-block"] == latex


def test_every_skew_symmetric_generator_meets_the_goal():
    """eq. ropend-exp-goal, numerically: R_m = exp(mA) with A skew-symmetric gives R_mᵀR_n = R_(n−m), R_0 = I."""

    for d, seed in [(2, 0), (5, 1), (6, 2)]:
        a = rope_nd.random_skew(d, seed)
        assert np.allclose(rope_nd.rotation_family(a, 0), np.eye(d))
        for m, n in [(0, 3), (2, 7), (5, -4), (1.5, 0.25)]:
            r_m, r_n = rope_nd.rotation_family(a, m), rope_nd.rotation_family(a, n)
            assert np.allclose(r_m.T @ r_m, np.eye(d), atol=1e-12)
            assert np.allclose(r_m.T @ r_n, rope_nd.rotation_family(a, n - m), atol=1e-10)
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
        a = rope_nd.random_skew(d, seed)
        p, thetas = rope_nd.canonical_form(a)
        assert thetas.shape == (d // 2,) and np.all(thetas > 0) and np.all(np.diff(thetas) <= 0)
        assert np.allclose(p.T @ p, np.eye(d), atol=1e-12)
        assert np.allclose(p @ rope_nd.block_generator(thetas) @ p.T, a, atol=1e-12)
        for m in (1, 5, 37.5):
            assert np.allclose(rope_nd.rotation_family(a, m), p @ rope_lib.rotation.rotary_matrix(m, d, inv_freq=thetas) @ p.T, atol=1e-10)
    theta = rope_lib.inv_freq(16)  # RoPE itself: the block generator of its frequencies
    assert np.allclose(rope_nd.rotation_family(rope_nd.block_generator(theta), 7), rope_lib.rotation.rotary_matrix(7, 16))
    repeated = rope_nd.block_generator([2.0, 2.0, 0.5])  # a repeated frequency still gives an orthonormal basis
    p, thetas = rope_nd.canonical_form(repeated)
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
        call(rope_nd)


# --- both languages: the figures, the clock and the check -------------------------------------------------------------

X = np.array([1.0, 0.0, 0.8, 0.6, 0.0, 1.0, -0.6, 0.8])
FIGURES = {
    "plot_pair_rotations": lambda lang: plot_pair_rotations(X, [0, 1, 2, 3, 4], lang=lang),
    "plot_clock": lambda lang: plot_clock(100, 8, lang=lang),
    "plot_rotary_matrix": lambda lang: plot_rotary_matrix(3, 16, lang=lang),
    "plot_relative_upper_bound": lambda lang: plot_relative_upper_bound(64, 128, bases=(100.0, 10000.0), lang=lang),
}


@pytest.mark.parametrize("name", FIGURES)
def test_chinese_figures_have_chinese_words_and_every_glyph(name):
    fig = FIGURES[name]("zh")
    assert word_count(fig.alt_text) >= 5
    assert_chinese_figure(fig)


@pytest.mark.parametrize("name", FIGURES)
def test_english_figures_stay_english(name):
    assert_english_figure(FIGURES[name]("en"))


def test_english_words_are_unchanged():
    fig = plot_clock(100, 8)
    assert fig.axes[0].get_title() == "position m = 100, d = 8, base = 10000"
    assert plot_rotary_matrix(3, 16).axes[0].get_xlabel() == "column"
    assert plot_relative_upper_bound(64, 128).axes[0].get_xlabel() == "relative distance m − n"
    assert plot_pair_rotations(X, [0, 1]).axes[0].get_title().startswith("pair 0\n")


def test_the_chinese_clock_widget():
    widget = clock_widget(lang="zh")
    assert widget.lang == "zh" and all(has_chinese(c.label) for c in widget.controls)
    fig = widget.figure(position=16, base=500000.0)
    assert has_chinese(fig.alt_text) and missing_glyphs(fig) == []
    assert [c.label for c in clock_widget().controls] == ["position m", "base"]


def test_the_clock_has_eight_stops_a_slider_and_fits_the_frames():
    """12 positions × 8 bases = 96 frames of the d = CLOCK_D clock; a larger base slows every hand."""
    from rope_lib.teach.shared.interactive import MAX_FRAMES, QUANTITY_STOPS
    from rope_lib.teach.rope_nd import CLOCK_BASES, CLOCK_D

    widget = clock_widget()
    assert all(len(c.values) >= QUANTITY_STOPS for c in widget.controls)
    assert np.prod([len(c.values) for c in widget.controls]) <= MAX_FRAMES
    assert f"d = {CLOCK_D}" in widget.figure().alt_text and list(CLOCK_BASES) == sorted(CLOCK_BASES)


@pytest.mark.parametrize("make", [*FIGURES.values(), lambda lang: clock_widget(lang=lang),
                                  lambda lang: check_first_below_half(lambda d, base: 1, lang=lang)])
def test_another_language_is_refused(make):
    with pytest.raises(ValueError, match="lang"):
        make("fr")


def test_the_check_speaks_chinese():
    passed = check_first_below_half(first_below_half, lang="zh")
    assert passed and has_chinese(passed.message) and str(passed).startswith("通过")
    english = check_first_below_half(first_below_half)
    assert english.message.startswith("first_below_half finds the first distance below half")
    for wrong, zh, en in [
        (lambda d, base: first_below_half(d, base) - 1, "还没有低于", "not yet below half"),
        (lambda d, base: first_below_half(d, base) + 5, "不是第一个", "not the first"),
        (lambda d, base: first_below_half(d, 10000.0), "请把 base 传给曲线", "pass base on"),
        (lambda d, base: 0, "正的距离", "positive distance"),
    ]:
        result = check_first_below_half(wrong, lang="zh")
        assert not result and zh in result.message and str(result).startswith("尚未通过")
        result = check_first_below_half(wrong)
        assert not result and en in result.message and not has_chinese(result.message)
