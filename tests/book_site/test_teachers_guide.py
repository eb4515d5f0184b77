"""The teacher's guide's answer to "why does RoPE use rotations, not reflections?", checked with sympy.

With a fixed mirror F and F_α = R(2α)F (F with its line turned by α):
(F_{mθ} q)ᵀ(F_{nθ} k) = qᵀ R(2(m−n)θ) k, a function of m − n, so mirrors can carry
positions; but F_a F_b = R(2(a − b)) is a rotation, so mirrors are not closed under
composition, and a mirror code is a rotation after one fixed flip.
"""

import pytest
import sympy as sp

from paths import ROOT
from rope_lib.teach.shared.symbolic import assert_equal, assert_relative_only, rotation_matrix as R

F = sp.Matrix([[1, 0], [0, -1]])
a, b, theta = sp.symbols("alpha beta theta", real=True)
m, n = sp.symbols("m n", integer=True)
q = sp.Matrix(sp.symbols("q_1 q_2", real=True))
k = sp.Matrix(sp.symbols("k_1 k_2", real=True))


def mirror(angle):
    return R(2 * angle) * F


def test_f_alpha_is_the_mirror_f_turned_by_alpha():
    assert_equal(mirror(a), R(a) * F * R(-a), "R(2α)F = R(α) F R(−α)")
    assert_equal(mirror(a) * mirror(a), sp.eye(2), "F_α F_α = I")
    assert_equal(mirror(a).T, mirror(a), "F_α is symmetric")
    assert sp.simplify(mirror(a).det()) == -1


def test_mirrored_scores_depend_on_m_minus_n_only():
    score = ((mirror(m * theta) * q).T * (mirror(n * theta) * k))[0]
    assert_equal(score, (q.T * R(2 * (m - n) * theta) * k)[0], "(F_mθ q)ᵀ(F_nθ k) = qᵀ R(2(m−n)θ) k")
    assert_relative_only(score, m, n)


def test_two_mirrors_make_a_rotation_not_a_mirror():
    product = mirror(a) * mirror(b)
    assert_equal(product, R(2 * (a - b)), "F_a F_b = R(2(a − b))")
    assert sp.simplify(product.det()) == 1  # every mirror has determinant −1


GUIDES = {
    # edition: (its guide, the words for "two mirrors make a rotation", the false claim it must not make)
    "en": ("book/teachers_guide.md", "two mirrors make a rotation", "not a function of"),
    "zh": ("book/zh/teachers_guide.md", "两次镜像合成一次旋转", "不是 $m - n$ 的函数"),
}


@pytest.mark.parametrize("edition", GUIDES)
def test_the_guide_states_the_true_answer(edition):
    path, true_words, false_claim = GUIDES[edition]
    guide = (ROOT / path).read_text()
    assert "F_\\alpha = R(2\\alpha)F" in guide and "R(2(m-n)\\theta)" in guide
    assert true_words in guide
    assert false_claim not in guide
