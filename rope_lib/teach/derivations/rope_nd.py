"""Chapter "RoPE in d dimensions": the derivation of the block-diagonal rotary matrix from the goal, its
elementwise form and the Abel summation.

Each entry of CHECKS gives one displayed equation's sides as the page shows them. The page states
RoPE for any even d; sympy checks a small case with a symbol for every entry, and each rule says
which: d = 2 for the exponential of one block, d = 4 (pairs 0 and 1, frequencies θ_0, θ_1) for the
matrices, d = 6 (three pairs) for the Abel summation. Pairs are counted from 0, as in `rope_lib`:
pair i is (x_{2i}, x_{2i+1}). The steps the parser cannot read (matrix exponentials, the canonical form)
are computed numerically by `rope_lib.teach.skew` and tested there.
"""

from __future__ import annotations

import sympy as sp

from ..displayed_equations import Check
from ..language import Words
from ..symbolic import rotation_matrix

CHAPTER = "rope_nd.md"

M, N = sp.symbols("m n", real=True)  # the positions of the query and the key
THETA = sp.IndexedBase("theta", real=True)  # the frequencies θ_i, any real numbers, in a sum over i
THETAS = sp.symbols("theta_0 theta_1", real=True)  # θ_0, θ_1 as the page writes them for d = 4
H = sp.IndexedBase("h")  # the complex products h_i of the pairs of q and k
X = sp.Matrix(sp.symbols("x_0:4", real=True))  # a vector of dimension 4
I_SUM = sp.Symbol("i")  # the summation index as sympy's parser writes it (a sum binds a plain symbol)
L_SUM = sp.Symbol("l", integer=True, nonnegative=True)  # the index inside a partial sum S_j
D_MATRICES = 4
"""The dimension at which the matrix identities are checked: two pairs."""
PAIRS_ABEL = 3
"""The number of pairs d/2 at which the Abel summation is checked: d = 6."""


def _rotary(position) -> sp.Matrix:
    """R^4_{Θ,position}: the 2×2 rotations R(position·θ_0), R(position·θ_1) on the diagonal (eq. ropend-matrix, d = 4)."""
    return sp.diag(*[rotation_matrix(position * THETAS[i]) for i in range(D_MATRICES // 2)])


THETA_I = sp.Symbol("theta_i", real=True)  # the frequency θ_i of one block
QUARTER_TURN = sp.Matrix([[0, -1], [1, 0]])  # J


def _exp_block() -> Check:
    exponential = (M * THETA_I * QUARTER_TURN).exp()  # sympy's matrix exponential of the block mθ_i J
    return Check(
        exponential,
        rotation_matrix(M * THETA_I),
        rule=Words(
            "d = 2, one block: sympy computes the matrix exponential of mθ_i J from J's eigenvalues ±i, and it is the rotation R(mθ_i)",
            "d = 2，一个块：sympy 由 J 的特征值 ±i 算出 mθ_i J 的矩阵指数，它就是旋转 R(mθ_i)",
        ),
        names={r"e^{m\theta_i J}": exponential},
    )


def _elementwise_4() -> Check:
    rotated = _rotary(M) * X
    return Check(
        rotated,
        rotated,
        sp.Matrix(
            [
                X[0] * sp.cos(M * THETAS[0]) - X[1] * sp.sin(M * THETAS[0]),
                X[1] * sp.cos(M * THETAS[0]) + X[0] * sp.sin(M * THETAS[0]),
                X[2] * sp.cos(M * THETAS[1]) - X[3] * sp.sin(M * THETAS[1]),
                X[3] * sp.cos(M * THETAS[1]) + X[2] * sp.sin(M * THETAS[1]),
            ]
        ),
        rule=Words("d = 4, symbolic x_j and θ_i: the matrix multiplied out row by row, its zeros dropped", "d = 4，x_j 和 θ_i 取符号：矩阵逐行乘开，去掉其中的零"),
        names={r"R^4_{\Theta,m}\mathbf{x}": rotated},
    )


def _turning(j):
    """e^{i(m−n)θ_j}: the factor of pair j in the score."""
    return sp.exp(sp.I * (M - N) * THETA[j])


def _partial_sum(j):
    """S_j = Σ_{l=0}^{j−1} e^{i(m−n)θ_l}, for j a number or an expression in the summation index."""
    return sp.Sum(_turning(L_SUM), (L_SUM, 0, j - 1))


def _h(j):
    """h_j, with h_{d/2} = 0."""
    return sp.Piecewise((H[j], j < PAIRS_ABEL), (0, True))


def _abel() -> Check:
    pairs = range(PAIRS_ABEL)
    s = [sum((_turning(l) for l in range(j)), sp.Integer(0)) for j in range(PAIRS_ABEL + 1)]  # S_0 … S_{d/2}
    h = [H[i] for i in pairs] + [sp.Integer(0)]  # h_0 … h_{d/2}, the last one 0
    return Check(
        sum(h[i] * _turning(i) for i in pairs),
        sum((s[i + 1] - s[i]) * h[i] for i in pairs),
        -sum((h[i + 1] - h[i]) * s[i + 1] for i in pairs),
        rule=Words(f"d = {2 * PAIRS_ABEL}, symbolic h_i and θ_i: each factor is S_(i+1) − S_i; regroup by S_j, with S_0 = 0 and h_{PAIRS_ABEL} = 0", f"d = {2 * PAIRS_ABEL}，h_i 和 θ_i 取符号：每个因子是 S_(i+1) − S_i；按 S_j 重新归并，其中 S_0 = 0，h_{PAIRS_ABEL} = 0"),
        names={
            "h_i": H[I_SUM],
            "h_{i+1}": _h(I_SUM + 1),
            "S_i": _partial_sum(I_SUM),
            "S_{i+1}": _partial_sum(I_SUM + 1),
            r"\theta_i": THETA[I_SUM],
            "d/2": sp.Integer(PAIRS_ABEL),
        },
    )


CHECKS = {
    "ropend-exp-block": _exp_block,
    "ropend-elementwise-4": _elementwise_4,
    "ropend-abel": _abel,
}
"""Every displayed identity of the chapter that sympy checks as displayed, by its label."""

UNCHECKED = {
    "ropend-goal": Words(
        "the condition the derivation starts from: the score depends on the positions only through n − m",
        "推导的出发点：得分只通过 n − m 依赖于位置",
    ),
    "ropend-exp-goal": Words(
        "matrix exponentials and a transpose, which the parser does not read; it holds because mA and nA commute, and is "
        "checked numerically for a random skew-symmetric A with d = 6 (rope_lib.teach.skew)",
        "含矩阵指数和转置，解析器读不了；它成立是因为 mA 与 nA 可交换，已对 d = 6 的随机反对称矩阵 A 做了数值检验（rope_lib.teach.skew）",
    ),
    "ropend-canonical": Words(
        "the real canonical form of a skew-symmetric matrix, a theorem of linear algebra, for general d (with ⋱); "
        "computed numerically by rope_lib.teach.skew.canonical_form for a random A with d = 6",
        "反对称矩阵的实标准形，线性代数中的定理，一般 d（含 ⋱）；已由 rope_lib.teach.skew.canonical_form 对 d = 6 的随机 A 做了数值计算",
    ),
    "ropend-f": Words("the definition of RoPE's query and key (RoFormer eq. 14)", "RoPE 查询和键的定义（RoFormer 公式 14）"),
    "ropend-matrix": Words(
        "the definition of the rotary matrix, for general d (with ⋱); its d = 4 instance is written out in eq. ropend-elementwise-4",
        "一般 d 下旋转矩阵的定义（含 ⋱）；d = 4 的情形在公式 ropend-elementwise-4 中写出",
    ),
    "ropend-theta": Words("the definition of the frequencies (RoFormer eq. 15, re-indexed from 0)", "频率的定义（RoFormer 公式 15，改为从 0 编号）"),
    "ropend-relative": Words(
        "general d, with transposes of matrix products, which the parser does not read: beyond (AB)^⊤ = B^⊤A^⊤ its one "
        "step is the goal, eq. ropend-goal, which the rotary matrix meets by eq. ropend-exp-goal; the whole equation is "
        "checked numerically for d = 64",
        "一般 d，含矩阵乘积的转置，解析器读不了：它在 (AB)^⊤ = B^⊤A^⊤ 之外唯一的一步就是目标公式 ropend-goal，旋转矩阵由公式 "
        "ropend-exp-goal 满足它；整个公式在 d = 64 下做了数值检验",
    ),
    "ropend-elementwise": Words(
        "general d, with ⋮ and the elementwise product ⊗: checked for d = 4 as eq. ropend-elementwise-4, "
        "and numerically for d = 128 against the matrix form",
        "一般 d，含 ⋮ 和逐元素乘积 ⊗：d = 4 的情形即公式 ropend-elementwise-4，已检验；d = 128 下与矩阵形式做了数值对照",
    ),
    "ropend-sum": Words(
        "a real part Re[·], which sympy's LaTeX parser does not read: it is the 2D result of chapter "
        "“RoPE in two dimensions” pair by pair, checked numerically for d = 128",
        "含实部 Re[·]，sympy 的 LaTeX 解析器读不了：它就是“二维情形下的 RoPE”一章的结果逐对相加，已在 d = 128 下做了数值检验",
    ),
    "ropend-bound": Words("an inequality (the triangle inequality applied to eq. ropend-abel); checked numerically at 601 distances", "一个不等式（对公式 ropend-abel 用三角不等式）；在 601 个距离上做了数值检验"),
}
"""The displayed equations that define, bound, or are stated for general d, and why each is not parsed."""


def _generator_4() -> sp.Matrix:
    """A = diag(θ_0 J, θ_1 J): the skew-symmetric generator of R^4_{Θ,m} (eq. ropend-canonical with P = I, d = 4)."""
    return sp.diag(*[THETAS[i] * QUARTER_TURN for i in range(D_MATRICES // 2)])


def _goal_by_exponentials() -> Check:
    a = _generator_4()
    return Check(
        (M * a).exp().T * (N * a).exp(),
        ((N - M) * a).exp(),
        _rotary(N - M),
        rule=Words(
            "d = 4, A = diag(θ_0 J, θ_1 J): sympy's matrix exponentials, exp(mA)ᵀ exp(nA) = exp((n − m)A) (eq. ropend-exp-goal), which is R⁴_(Θ,n−m)",
            "d = 4，A = diag(θ_0 J, θ_1 J)：用 sympy 的矩阵指数，exp(mA)ᵀ exp(nA) = exp((n − m)A)（公式 ropend-exp-goal），它就是 R⁴_(Θ,n−m)",
        ),
    )


def _exponential_is_rotary() -> Check:
    return Check(
        (M * _generator_4()).exp(),
        _rotary(M),
        rule=Words(
            "d = 4: the exponential of the block generator diag(θ_0 J, θ_1 J), taken block by block, is the rotary matrix R⁴_(Θ,m)",
            "d = 4：分块生成元 diag(θ_0 J, θ_1 J) 的矩阵指数逐块计算，就是旋转矩阵 R⁴_(Θ,m)",
        ),
    )


def _goal_for_rotary() -> Check:
    return Check(
        _rotary(M).T * _rotary(N),
        _rotary(N - M),
        rule=Words(
            "d = 4, symbolic θ_0, θ_1: the rotary matrix meets the goal, eq. ropend-goal; each transposed block is R(−mθ_i), and the angles add",
            "d = 4，θ_0、θ_1 取符号：旋转矩阵满足目标公式 ropend-goal；每个转置后的块是 R(−mθ_i)，角度相加",
        ),
    )


CONFIRMATIONS = {
    "the goal by exponentials, d = 4": _goal_by_exponentials,
    "exp(mA) is the rotary matrix, d = 4": _exponential_is_rotary,
    "the rotary matrix meets the goal, d = 4": _goal_for_rotary,
}
"""Steps the page states in words or for general d and does not display for a small d; sympy confirms each."""
