"""Chapter "RoPE in d dimensions" (book/rope_nd.md): the derivation of the block-diagonal rotary matrix from the goal, its
elementwise form and the Abel summation.

Each entry of CHECKS gives one displayed equation's sides as the page shows them. The page states
RoPE for any even d; sympy checks a small case with a symbol for every entry, and each rule says
which: d = 2 for the exponential of one block and for the goal met by exponentials (A = θJ, every 2×2
skew-symmetric matrix, its exponential computed by sympy), d = 4 (pairs 0 and 1, frequencies θ_0, θ_1) for the
matrices, d = 6 (three pairs) for the Abel summation. Pairs are counted from 0, as in `rope_lib`:
pair i is (x_{2i}, x_{2i+1}).

Every other displayed equation is in UNCHECKED, its reason beginning with the kind of line it is (KINDS): a
definition, the goal, or a statement whose proof is the text around it. CONFIRMATIONS hold steps the page
argues in words or states for general d (the goal met by the exponentials of the 4×4 block generator, the
characteristic polynomials behind "the eigenvalues are imaginary and come in pairs"), each checked by sympy for a
small d; `generators` computes the canonical form numerically.
"""

from __future__ import annotations

import functools

import sympy as sp

from ..shared.displayed_equations import Check
from ..shared.language import Words
from ..shared.symbolic import rotation_matrix

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


def _generator_4() -> sp.Matrix:
    """A = diag(θ_0 J, θ_1 J): the skew-symmetric generator of R^4_{Θ,m} (eq. ropend-canonical with P = I, d = 4)."""
    return sp.diag(*[THETAS[i] * QUARTER_TURN for i in range(D_MATRICES // 2)])


def _exp_goal() -> Check:
    """eq. ropend-exp-goal as displayed, for the general 2×2 skew-symmetric A = θJ: the page's A is that matrix and each
    e^{…A} sympy's matrix exponential of it (the parser reads e^{mA} as exp(m·A), A a matrix). The 4×4 block form
    diag(θ_0 J, θ_1 J) is confirmed in CONFIRMATIONS."""
    a = sp.ImmutableMatrix(THETA_I * QUARTER_TURN)
    return Check(
        (M * a).exp().T * (N * a).exp(),
        (-M * a).exp() * (N * a).exp(),
        ((N - M) * a).exp(),
        rule=Words(
            "d = 2, A = θ_i J, every 2×2 skew-symmetric matrix, θ_i symbolic: sympy's matrix exponentials; the transpose "
            "of exp(mA) is exp(−mA) since Aᵀ = −A, and exp(−mA) exp(nA) = exp((n − m)A) since mA and nA commute",
            "d = 2，A = θ_i J，即任意 2×2 反对称矩阵，θ_i 取符号：用 sympy 的矩阵指数；因为 Aᵀ = −A，exp(mA) 的转置是 "
            "exp(−mA)；又因为 mA 与 nA 可交换，exp(−mA) exp(nA) = exp((n − m)A)",
        ),
        names={"A": a, r"(e^{mA})^\top": sp.ImmutableMatrix((M * a).exp().T)},
    )


CHECKS = {
    "ropend-exp-goal": _exp_goal,
    "ropend-exp-block": _exp_block,
    "ropend-elementwise-4": _elementwise_4,
    "ropend-abel": _abel,
}
"""Every displayed identity of the chapter that sympy checks as displayed, by its label."""

KINDS = Words("a definition", "定义"), Words("the goal", "目标"), Words("a statement whose proof is the text", "由正文证明的命题")
"""What an unchecked displayed line is; each reason of UNCHECKED begins with one, then a colon (issue 36)."""


def _unchecked(kind: int, en: str, zh: str) -> Words:
    """A reason of UNCHECKED: the kind of line (an index into KINDS), then what it is and how else it is checked."""
    return Words(f"{KINDS[kind].en}: {en}", f"{KINDS[kind].zh}：{zh}")


DEFINITION, GOAL, PROVED_IN_TEXT = range(3)

UNCHECKED = {
    "ropend-goal": _unchecked(
        GOAL,
        "the score may depend on the positions only through n − m; every solution must meet it, so there is "
        "nothing to prove. The mirror family Fᵐ meets it too, checked numerically",
        "得分只能通过 n − m 依赖于位置；它是每个解都必须满足的要求，没有什么可证明的。镜像族 Fᵐ 也满足它，已做数值检验",
    ),
    "ropend-canonical": _unchecked(
        PROVED_IN_TEXT,
        "the real block form of a skew-symmetric matrix, for general d (with ⋱), proved in the three steps above it; "
        "sympy confirms above that the eigenvalues come in pairs ±iθ for d = 3 and d = 4, and "
        "rope_lib.teach.rope_nd.canonical_form computes P and the θ_i for a random A with d = 6",
        "反对称矩阵的实分块形式，一般 d（含 ⋱），由它上面的三步证明；上面由 sympy 确认 d = 3 和 d = 4 时特征值成对出现，"
        "为 ±iθ；rope_lib.teach.rope_nd.canonical_form 对 d = 6 的随机 A 算出 P 和各 θ_i",
    ),
    "ropend-f": _unchecked(DEFINITION, "RoPE's query and key (RoFormer eq. 14)", "RoPE 的查询和键（RoFormer 式 14）"),
    "ropend-matrix": _unchecked(
        DEFINITION,
        "the rotary matrix, for general d (with ⋱); its d = 4 instance is written out in {eq}`ropend-elementwise-4`",
        "一般 d 下的旋转矩阵（含 ⋱）；d = 4 的情形在式 {eq}`ropend-elementwise-4` 中写出",
    ),
    "ropend-theta": _unchecked(
        DEFINITION, "the frequencies (RoFormer eq. 15, counted from 0)", "各频率（RoFormer 式 15，改为从 0 编号）"
    ),
    "ropend-relative": _unchecked(
        PROVED_IN_TEXT,
        "the sentence before it: (AB)ᵀ = BᵀAᵀ, then the goal, {eq}`ropend-goal`, which the rotary matrix meets by "
        "{eq}`ropend-exp-goal`; sympy confirms the goal for the rotary matrix with d = 4 above, and the whole equation is "
        "checked numerically for d = 64",
        "它前面的那句话：(AB)ᵀ = BᵀAᵀ，再用目标 {eq}`ropend-goal`，旋转矩阵由 {eq}`ropend-exp-goal` 满足它；上面由 sympy 确认 "
        "d = 4 的旋转矩阵满足目标，整个式子在 d = 64 下做了数值检验",
    ),
    "ropend-elementwise": _unchecked(
        PROVED_IN_TEXT,
        "each pair only mixes with itself, for general d (with ⋮); proved step by step in the exercise on the elementwise form; its d = 4 "
        "case is {eq}`ropend-elementwise-4`, checked, and it is checked numerically for d = 128 against the matrix form",
        "每一对只和自己混合，一般 d（含 ⋮）；关于逐元素形式的那道练习逐步证明了它，d = 4 的情形即式 {eq}`ropend-elementwise-4`，已检验；"
        "d = 128 下与矩阵形式做了数值对照",
    ),
    "ropend-sum": _unchecked(
        PROVED_IN_TEXT,
        "the 2D result of chapter “RoPE in two dimensions”, pair by pair, with a real part Re[·] the parser does not "
        "read; checked numerically for d = 128",
        "“二维的 RoPE”一章的结果逐对相加，含解析器读不了的实部 Re[·]；已在 d = 128 下做了数值检验",
    ),
    "ropend-bound": _unchecked(
        PROVED_IN_TEXT,
        "an inequality, the triangle inequality applied to {eq}`ropend-abel`; checked numerically at 601 distances",
        "一个不等式，对式 {eq}`ropend-abel` 用三角不等式；在 601 个距离上做了数值检验",
    ),
}
"""The displayed equations sympy does not check as displayed, each with the kind of line it is and why."""


T = sp.Symbol("t", real=True)  # a position, for the exponential computed once and evaluated at m, n, n − m


@functools.lru_cache(maxsize=None)
def _exp_generator_4() -> sp.ImmutableMatrix:
    """exp(t·A) for A = diag(θ_0 J, θ_1 J), by sympy's matrix exponential, computed once (it takes seconds)."""
    return sp.ImmutableMatrix((T * _generator_4()).exp())


def _exp_4(position) -> sp.Matrix:
    """exp(position·A) for the 4×4 block generator."""
    return sp.Matrix(_exp_generator_4().subs(T, position))


def _goal_by_exponentials() -> Check:
    return Check(
        _exp_4(M).T * _exp_4(N),
        _exp_4(N - M),
        _rotary(N - M),
        rule=Words(
            "d = 4, A = diag(θ_0 J, θ_1 J): sympy's matrix exponentials, exp(mA)ᵀ exp(nA) = exp((n − m)A), the goal met by exponentials at d = 4, which is R⁴_(Θ,n−m)",
            "d = 4，A = diag(θ_0 J, θ_1 J)：用 sympy 的矩阵指数，exp(mA)ᵀ exp(nA) = exp((n − m)A)，即 d = 4 时指数满足目标，它就是 R⁴_(Θ,n−m)",
        ),
    )


def _exponential_is_rotary() -> Check:
    return Check(
        _exp_4(M),
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
            "d = 4, symbolic θ_0, θ_1: the rotary matrix meets the goal R_mᵀ R_n = R_(n − m); each transposed block is R(−mθ_i), and the angles add",
            "d = 4，θ_0、θ_1 取符号：旋转矩阵满足目标 R_mᵀ R_n = R_(n − m)；每个转置后的块是 R(−mθ_i)，角度相加",
        ),
    )


LAMBDA = sp.Symbol("lambda")  # an eigenvalue
ENTRIES = sp.symbols("a b c d e f", real=True)  # the entries of a skew-symmetric matrix above its diagonal


def _skew(size: int) -> sp.Matrix:
    """The general size×size real skew-symmetric matrix, its entries above the diagonal the symbols a, b, c, …"""
    a = sp.zeros(size, size)
    entries = iter(ENTRIES)
    for i in range(size):
        for j in range(i + 1, size):
            a[i, j] = next(entries)
            a[j, i] = -a[i, j]
    return a


def _eigenvalues_3() -> Check:
    a, b, c = ENTRIES[:3]
    return Check(
        sp.Determinant(LAMBDA * sp.eye(3) - _skew(3)),
        LAMBDA * (LAMBDA**2 + a**2 + b**2 + c**2),
        rule=Words(
            "d = 3, every entry symbolic: the characteristic polynomial is λ(λ² + a² + b² + c²), so the eigenvalues are 0 "
            "and the pair ±iθ with θ² = a² + b² + c²: imaginary, as step 1 says",
            "d = 3，每个元素都取符号：特征多项式为 λ(λ² + a² + b² + c²)，所以特征值是 0 和一对 ±iθ，其中 θ² = a² + b² + c²："
            "是纯虚数，与第 1 步所说一致",
        ),
    )


def _eigenvalues_4() -> Check:
    a, b, c, d, e, f = ENTRIES
    return Check(
        sp.Determinant(LAMBDA * sp.eye(4) - _skew(4)),
        LAMBDA**4 + (a**2 + b**2 + c**2 + d**2 + e**2 + f**2) * LAMBDA**2 + (a * f - b * e + c * d) ** 2,
        rule=Words(
            "d = 4, every entry symbolic: the characteristic polynomial has only even powers of λ, so its roots come "
            "in pairs ±λ, and by step 1 they are imaginary: ±iθ_0 and ±iθ_1, two planes, two blocks",
            "d = 4，每个元素都取符号：特征多项式只含 λ 的偶次幂，所以它的根成对出现，为 ±λ；由第 1 步它们是纯虚数："
            "±iθ_0 和 ±iθ_1，两个平面，两个分块",
        ),
    )


CONFIRMATIONS = {
    "the goal by exponentials, d = 4": _goal_by_exponentials,
    "the eigenvalues of a skew-symmetric matrix, d = 3": _eigenvalues_3,
    "the eigenvalues come in pairs, d = 4": _eigenvalues_4,
    "exp(mA) is the rotary matrix, d = 4": _exponential_is_rotary,
    "the rotary matrix meets the goal, d = 4": _goal_for_rotary,
}
"""Steps the page states in words or for general d and does not display for a small d; sympy confirms each."""
