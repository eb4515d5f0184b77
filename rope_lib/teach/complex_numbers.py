r"""The displayed equations of chapter "Complex numbers and Euler's formula" (book/complex_numbers.md).

Each entry of `CHECKS` returns the `Check` of one labelled display: its sides in the page's order,
built from sympy symbols, and the rule that links them. `Page.check` parses the page's LaTeX and
compares every side it reads with these, so a wrong sign on the page fails the chapter.

Symbols: a, b, c, d, x, θ, m, n and the angles φ are real, the moduli r₁, r₂ positive, and z, z₁, z₂
are general complex numbers (no assumptions) where an equation holds for every z (cx-exp-series,
cx-relative). Where the page means z = a + ib (cx-polar, cx-conjugate) or z₁ = a + ib and
z₂ = c + id (cx-conjugate-product), `names` says so; sympy's parser does not read \operatorname{Re}
or a transposed vector, so cx-dot names those two pieces.

Two habits of the page serve the parser and are invisible in print: a modulus before a parenthesis
is written in braces, {r}(…), because sympy reads r(…) as a function r applied to (…); and the
imaginary unit is \mathrm{i}.
"""

from __future__ import annotations

import sympy as sp

from rope_lib.teach.displayed_equations import Check
from rope_lib.teach.language import Words

CHAPTER = "complex_numbers.md"

I = sp.I
a, b, c, d = sp.symbols("a b c d", real=True)
x, theta, m, n = sp.symbols("x theta m n", real=True)
r1, r2 = sp.symbols("r_1 r_2", positive=True)
phi1, phi2 = sp.symbols("varphi_1 varphi_2", real=True)
z, z1, z2 = sp.symbols("z z_1 z_2")  # complex: no assumptions
k, j = sp.symbols("k j")  # summation indices, plain as the parser makes them


def polar() -> Check:
    """z = a + ib = r(cos φ + i sin φ), with r = |z| = √(a² + b²) and φ = arg z = atan2(b, a)."""
    r, phi = sp.sqrt(a**2 + b**2), sp.atan2(b, a)
    return Check(
        a + I * b,
        a + I * b,
        r * (sp.cos(phi) + I * sp.sin(phi)),
        rule=Words("r = |z| = √(a² + b²) and φ = arg z, the angle of (a, b), so r cos φ = a and r sin φ = b", "r = |z| = √(a² + b²)，φ = arg z 是 (a, b) 的角度，所以 r cos φ = a，r sin φ = b"),
        names={"z": a + I * b, "r": r, r"\varphi": phi},
    )


def product() -> Check:
    """(a + ib)(c + id) = (ac − bd) + i(ad + bc)."""
    return Check(
        (a + I * b) * (c + I * d),
        (a * c - b * d) + I * (a * d + b * c),
        rule=Words("multiply out and use i² = −1", "展开相乘，并用 i² = −1"),
    )


def _polar_form(r, angle):
    return r * (sp.cos(angle) + I * sp.sin(angle))


def polar_product() -> Check:
    """r₁(cos φ₁ + i sin φ₁) · r₂(cos φ₂ + i sin φ₂) = r₁r₂(cos(φ₁ + φ₂) + i sin(φ₁ + φ₂))."""
    return Check(
        _polar_form(r1, phi1) * _polar_form(r2, phi2),
        r1 * r2 * (sp.cos(phi1 + phi2) + I * sp.sin(phi1 + phi2)),
        rule=Words("multiply out with i² = −1, then the addition formulas of cos and sin", "用 i² = −1 展开相乘，再用 cos 和 sin 的和角公式"),
    )


def exp_series() -> Check:
    """e^z = Σ z^k/k! = 1 + z + z²/2! + z³/3! + ⋯, the dots standing for the terms from k = 4 on."""
    rest = sp.Sum(z**k / sp.factorial(k), (k, 4, sp.oo))
    return Check(
        sp.exp(z),
        sp.Sum(z**k / sp.factorial(k), (k, 0, sp.oo)),
        1 + z + z**2 / sp.factorial(2) + z**3 / sp.factorial(3) + rest,
        rule=Words("the power series of the exponential; the dots are the terms from k = 4 on", "指数函数的幂级数；省略号是从 k = 4 起的各项"),
        names={r"\cdots": rest},
    )


def euler() -> Check:
    """e^{ix} = Σ (ix)^k/k! = Σ (−1)^j x^{2j}/(2j)! + i Σ (−1)^j x^{2j+1}/(2j+1)! = cos x + i sin x."""
    even = sp.Sum((-1) ** j * x ** (2 * j) / sp.factorial(2 * j), (j, 0, sp.oo))
    odd = sp.Sum((-1) ** j * x ** (2 * j + 1) / sp.factorial(2 * j + 1), (j, 0, sp.oo))
    return Check(
        sp.exp(I * x),
        sp.Sum((I * x) ** k / sp.factorial(k), (k, 0, sp.oo)),
        even + I * odd,
        sp.cos(x) + I * sp.sin(x),
        rule=Words(
            "the series at z = i x; the even powers (ix)²ʲ are (−1)ʲ x²ʲ, the odd ones i (−1)ʲ x²ʲ⁺¹; "
            "the two sums are the series of cos x and sin x",
            "在 z = i x 处展开级数；偶次幂 (ix)²ʲ 是 (−1)ʲ x²ʲ，奇次幂是 i (−1)ʲ x²ʲ⁺¹；两个和分别是 cos x 和 sin x 的级数",
        ),
    )


def turn() -> Check:
    """(a + ib)e^{iθ} = (a cos θ − b sin θ) + i(a sin θ + b cos θ)."""
    return Check(
        (a + I * b) * sp.exp(I * theta),
        (a * sp.cos(theta) - b * sp.sin(theta)) + I * (a * sp.sin(theta) + b * sp.cos(theta)),
        rule=Words("Euler's formula for exp(iθ), then multiply out with i² = −1", "对 exp(iθ) 用欧拉公式，再用 i² = −1 展开相乘"),
    )


def conjugate() -> Check:
    """z z̄ = (a + ib)(a − ib) = a² + b² = |z|², for z = a + ib."""
    return Check(
        (a + I * b) * sp.conjugate(a + I * b),
        (a + I * b) * (a - I * b),
        a**2 + b**2,
        sp.Abs(a + I * b) ** 2,
        rule=Words("z = a + i b and z̄ = a − i b; multiply out with i² = −1; |z|² = a² + b²", "z = a + i b，z̄ = a − i b；用 i² = −1 展开相乘；|z|² = a² + b²"),
        names={"z": a + I * b},
    )


def conjugate_turn() -> Check:
    """conj(e^{iθ}) = e^{−iθ} for real θ."""
    return Check(
        sp.conjugate(sp.exp(I * theta)),
        sp.exp(-I * theta),
        rule=Words("exp(iθ) = cos θ + i sin θ, whose conjugate cos θ − i sin θ is cos(−θ) + i sin(−θ)", "exp(iθ) = cos θ + i sin θ，它的共轭 cos θ − i sin θ 就是 cos(−θ) + i sin(−θ)"),
    )


def conjugate_product() -> Check:
    """z₁ z̄₂ = (a + ib)(c − id) = (ac + bd) + i(bc − ad), for z₁ = a + ib and z₂ = c + id."""
    return Check(
        (a + I * b) * sp.conjugate(c + I * d),
        (a + I * b) * (c - I * d),
        (a * c + b * d) + I * (b * c - a * d),
        rule=Words("z₁ = a + i b and z̄₂ = c − i d; multiply out with i² = −1", "z₁ = a + i b，z̄₂ = c − i d；用 i² = −1 展开相乘"),
        names={"z_1": a + I * b, "z_2": c + I * d},
    )


def dot() -> Check:
    """Re[z₁ z̄₂] = ac + bd = (a, b)ᵀ(c, d): the real part of cx-conjugate-product is the dot product."""
    row = sp.Matrix([[a, b]])
    return Check(
        sp.re((a + I * b) * sp.conjugate(c + I * d)),
        a * c + b * d,
        row * sp.Matrix([c, d]),
        rule=Words("the real part of (ac + bd) + i(bc − ad); the dot product of (a, b) and (c, d)", "(ac + bd) + i(bc − ad) 的实部；即 (a, b) 与 (c, d) 的点积"),
        names={
            r"\operatorname{Re}\big[z_1\overline{z_2}\big]": sp.re((a + I * b) * sp.conjugate(c + I * d)),
            r"\begin{pmatrix} a \\ b \end{pmatrix}^{\!\top}": row,
        },
    )


def relative() -> Check:
    """z₁e^{imθ} · conj(z₂e^{inθ}) = z₁ z̄₂ e^{i(m−n)θ}, for all complex z₁, z₂."""
    return Check(
        z1 * sp.exp(I * m * theta) * sp.conjugate(z2 * sp.exp(I * n * theta)),
        z1 * sp.conjugate(z2) * sp.exp(I * (m - n) * theta),
        rule=Words("the conjugate of a product is the product of the conjugates, the conjugate of exp(inθ) is exp(−inθ), and exponents add", "乘积的共轭等于共轭的乘积，exp(inθ) 的共轭是 exp(−inθ)，指数相加"),
    )


CHECKS = {
    "cx-polar": polar,
    "cx-product": product,
    "cx-polar-product": polar_product,
    "cx-exp-series": exp_series,
    "cx-euler": euler,
    "cx-turn": turn,
    "cx-conjugate": conjugate,
    "cx-conjugate-turn": conjugate_turn,
    "cx-conjugate-product": conjugate_product,
    "cx-dot": dot,
    "cx-relative": relative,
}
"""Every labelled display of the chapter, by label: each is checked as displayed."""

UNCHECKED: dict[str, Words] = {}
"""None: every labelled display of the chapter is checked."""
