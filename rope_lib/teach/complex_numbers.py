r"""Chapter "Complex numbers and Euler's formula" (book/complex_numbers.md): its displayed equations, checked with sympy;
plane vectors as complex numbers and Euler's formula as the limit of a power series; its figures and interactive
figure; and the auto-check of its exercise. "2D rotation matrices" turns pairs with `pair_to_complex` and
`complex_to_pair` too.

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

The pair (a, b) is the complex number a + ib: the identification RoFormer
eq. 12 and Meta's LLaMA code make for every pair of coordinates.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .._validate import arguments, checked_by, refuse, require_positive_int
from .shared.checking import CheckResult, Hint, answer_integer, call_student, run_check, shown
from .shared.displayed_equations import Check
from .shared.figure_style import draw_arrow, draw_unit_circle, new_figure, series_style
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text

# --- the derivation: the chapter's displayed equations, checked as displayed ------------------------------------------

CHAPTER = "complex_numbers.md"

I = sp.I
a, b, c, d = sp.symbols("a b c d", real=True)
x, theta, m, n = sp.symbols("x theta m n", real=True)
r1, r2 = sp.symbols("r_1 r_2", positive=True)
phi1, phi2 = sp.symbols("varphi_1 varphi_2", real=True)
z, z1, z2 = sp.symbols("z z_1 z_2")  # complex: no assumptions
k, j = sp.symbols("k j")  # summation indices, plain as the parser makes them


def _polar() -> Check:
    """z = a + ib = r(cos φ + i sin φ), with r = |z| = √(a² + b²) and φ = arg z = atan2(b, a)."""
    r, phi = sp.sqrt(a**2 + b**2), sp.atan2(b, a)
    return Check(
        a + I * b,
        a + I * b,
        r * (sp.cos(phi) + I * sp.sin(phi)),
        rule=Words("r = |z| = √(a² + b²) and φ = arg z, the angle of (a, b), so r cos φ = a and r sin φ = b", "r = |z| = √(a² + b²)，φ = arg z 是 (a, b) 的角度，所以 r cos φ = a，r sin φ = b"),
        names={"z": a + I * b, "r": r, r"\varphi": phi},
    )


def _product() -> Check:
    """(a + ib)(c + id) = (ac − bd) + i(ad + bc)."""
    return Check(
        (a + I * b) * (c + I * d),
        (a * c - b * d) + I * (a * d + b * c),
        rule=Words("multiply out and use i² = −1", "展开相乘，并用 i² = −1"),
    )


def _polar_form(r, angle):
    return r * (sp.cos(angle) + I * sp.sin(angle))


def _polar_product() -> Check:
    """r₁(cos φ₁ + i sin φ₁) · r₂(cos φ₂ + i sin φ₂) = r₁r₂(cos(φ₁ + φ₂) + i sin(φ₁ + φ₂))."""
    return Check(
        _polar_form(r1, phi1) * _polar_form(r2, phi2),
        r1 * r2 * (sp.cos(phi1 + phi2) + I * sp.sin(phi1 + phi2)),
        rule=Words("multiply out with i² = −1, then the addition formulas of cos and sin", "用 i² = −1 展开相乘，再用 cos 和 sin 的和角公式"),
    )


def _exp_series() -> Check:
    """e^z = Σ z^k/k! = 1 + z + z²/2! + z³/3! + ⋯, the dots standing for the terms from k = 4 on."""
    rest = sp.Sum(z**k / sp.factorial(k), (k, 4, sp.oo))
    return Check(
        sp.exp(z),
        sp.Sum(z**k / sp.factorial(k), (k, 0, sp.oo)),
        1 + z + z**2 / sp.factorial(2) + z**3 / sp.factorial(3) + rest,
        rule=Words("the power series of the exponential; the dots are the terms from k = 4 on", "指数函数的幂级数；省略号是从 k = 4 起的各项"),
        names={r"\cdots": rest},
    )


def _euler() -> Check:
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


def _turn() -> Check:
    """(a + ib)e^{iθ} = (a cos θ − b sin θ) + i(a sin θ + b cos θ)."""
    return Check(
        (a + I * b) * sp.exp(I * theta),
        (a * sp.cos(theta) - b * sp.sin(theta)) + I * (a * sp.sin(theta) + b * sp.cos(theta)),
        rule=Words("Euler's formula for exp(iθ), then multiply out with i² = −1", "对 exp(iθ) 用欧拉公式，再用 i² = −1 展开相乘"),
    )


def _conjugate() -> Check:
    """z z̄ = (a + ib)(a − ib) = a² + b² = |z|², for z = a + ib."""
    return Check(
        (a + I * b) * sp.conjugate(a + I * b),
        (a + I * b) * (a - I * b),
        a**2 + b**2,
        sp.Abs(a + I * b) ** 2,
        rule=Words("z = a + i b and z̄ = a − i b; multiply out with i² = −1; |z|² = a² + b²", "z = a + i b，z̄ = a − i b；用 i² = −1 展开相乘；|z|² = a² + b²"),
        names={"z": a + I * b},
    )


def _conjugate_turn() -> Check:
    """conj(e^{iθ}) = e^{−iθ} for real θ."""
    return Check(
        sp.conjugate(sp.exp(I * theta)),
        sp.exp(-I * theta),
        rule=Words("exp(iθ) = cos θ + i sin θ, whose conjugate cos θ − i sin θ is cos(−θ) + i sin(−θ)", "exp(iθ) = cos θ + i sin θ，它的共轭 cos θ − i sin θ 就是 cos(−θ) + i sin(−θ)"),
    )


def _conjugate_product() -> Check:
    """z₁ z̄₂ = (a + ib)(c − id) = (ac + bd) + i(bc − ad), for z₁ = a + ib and z₂ = c + id."""
    return Check(
        (a + I * b) * sp.conjugate(c + I * d),
        (a + I * b) * (c - I * d),
        (a * c + b * d) + I * (b * c - a * d),
        rule=Words("z₁ = a + i b and z̄₂ = c − i d; multiply out with i² = −1", "z₁ = a + i b，z̄₂ = c − i d；用 i² = −1 展开相乘"),
        names={"z_1": a + I * b, "z_2": c + I * d},
    )


def _dot() -> Check:
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


def _relative() -> Check:
    """z₁e^{imθ} · conj(z₂e^{inθ}) = z₁ z̄₂ e^{i(m−n)θ}, for all complex z₁, z₂."""
    return Check(
        z1 * sp.exp(I * m * theta) * sp.conjugate(z2 * sp.exp(I * n * theta)),
        z1 * sp.conjugate(z2) * sp.exp(I * (m - n) * theta),
        rule=Words("the conjugate of a product is the product of the conjugates, the conjugate of exp(inθ) is exp(−inθ), and exponents add", "乘积的共轭等于共轭的乘积，exp(inθ) 的共轭是 exp(−inθ)，指数相加"),
    )


CHECKS = {
    "cx-polar": _polar,
    "cx-product": _product,
    "cx-polar-product": _polar_product,
    "cx-exp-series": _exp_series,
    "cx-euler": _euler,
    "cx-turn": _turn,
    "cx-conjugate": _conjugate,
    "cx-conjugate-turn": _conjugate_turn,
    "cx-conjugate-product": _conjugate_product,
    "cx-dot": _dot,
    "cx-relative": _relative,
}
"""Every labelled display of the chapter, by label: each is checked as displayed."""

UNCHECKED: dict[str, Words] = {}
"""None: every labelled display of the chapter is checked."""


# --- plane vectors as complex numbers, and Euler's formula as the limit of a power series -----------------------------

def pair_to_complex_arguments(a) -> None:
    if np.ndim(a["v"]) == 0 or np.shape(a["v"])[-1] != 2:
        refuse("v", "have a last axis of length 2 (the pair (a, b))", f"shape {np.shape(a['v'])}")


@checked_by(pair_to_complex_arguments)
def pair_to_complex(v) -> np.ndarray:
    """(…, 2) real pairs (a, b) → (…) complex a + ib."""
    v = np.asarray(v, dtype=np.float64)  # a list too
    return v[..., 0] + 1j * v[..., 1]


def complex_to_pair(z) -> np.ndarray:
    """(…) complex a + ib → (…, 2) real pairs (a, b); the inverse of `pair_to_complex`."""
    z = np.asarray(z, dtype=np.complex128)
    return np.stack([z.real, z.imag], axis=-1)  # (…, 2)


def require_number(z, name: str) -> None:
    if not isinstance(z, (int, float, complex, np.number)) or isinstance(z, bool):
        refuse(name, "be a number", type(z).__name__, TypeError)


@checked_by(arguments(n_terms=require_positive_int, z=require_number))
def exp_partial_sums(z: complex, n_terms: int) -> np.ndarray:
    """S_N(z) = Σ_{k=0}^{N} z^k / k! for N = 0 … n_terms − 1,
    shape (n_terms,) complex.

    With z = ix these partial sums converge to e^{ix} = cos x + i sin x
    (Euler's formula). Each term is the previous one times z/k, so no
    factorial overflows.
    """
    term, total = complex(1.0), complex(0.0)
    sums = np.empty(n_terms, dtype=np.complex128)
    for k in range(n_terms):
        if k:
            term *= z / k
        total += term
        sums[k] = total
    return sums


# --- figures: products as rotation and scaling, Euler's formula, turning by e^{iθ} ------------------------------------

def _limits(ax: Axes, points, margin: float = 0.25) -> None:
    reach = max(1.0, *(abs(p) for p in points)) + margin
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-reach, reach)


def plot_complex_product(z1: complex, z2: complex, *, lang: str = "en") -> Figure:
    """z₁, z₂ and z₁·z₂ as arrows: the moduli multiply and the arguments add."""
    require_language(lang)
    z1, z2 = complex(z1), complex(z2)
    product = z1 * z2
    fig = new_figure(
        text(
            lang,
            en=f"The complex plane with three arrows from 0: z1 = {z1.real:.2f}{z1.imag:+.2f}i (modulus {abs(z1):.2f}, "
            f"argument {np.degrees(np.angle(z1)):.0f} degrees), z2 = {z2.real:.2f}{z2.imag:+.2f}i (modulus {abs(z2):.2f}, "
            f"argument {np.degrees(np.angle(z2)):.0f} degrees) and their product (modulus {abs(product):.2f}, argument "
            f"{np.degrees(np.angle(product)):.0f} degrees): the moduli multiply and the arguments add.",
            zh=f"复平面上从 0 出发的三个箭头：z1 = {z1.real:.2f}{z1.imag:+.2f}i（模 {abs(z1):.2f}，"
            f"辐角 {np.degrees(np.angle(z1)):.0f} 度），z2 = {z2.real:.2f}{z2.imag:+.2f}i（模 {abs(z2):.2f}，"
            f"辐角 {np.degrees(np.angle(z2)):.0f} 度），以及它们的乘积（模 {abs(product):.2f}，辐角 "
            f"{np.degrees(np.angle(product)):.0f} 度）：模相乘，辐角相加。",
        ),
        figsize=(4.6, 4.2),
    )
    ax = fig.add_subplot()
    draw_unit_circle(ax)
    for i, (z, name) in enumerate([(z1, "z₁"), (z2, "z₂"), (product, "z₁·z₂")]):
        draw_arrow(ax, z, i, f"{name}: |·| = {abs(z):.2f}, arg = {np.degrees(np.angle(z)):.0f}°")
    _limits(ax, [z1, z2, product])
    ax.set_xlabel(text(lang, en="real part", zh="实部"))
    ax.set_ylabel(text(lang, en="imaginary part", zh="虚部"))
    ax.set_title(text(lang, en="multiplying complex numbers", zh="复数相乘"))
    ax.legend(loc="lower left", fontsize=8)
    return fig


def plot_euler_partial_sums(xs, n_terms: int = 16, *, lang: str = "en") -> Figure:
    """Left: the partial sums of Σ (ix)^k/k! walking to e^{ix} on the unit circle; right: their error, log scale."""
    require_language(lang)
    xs = [float(x) for x in xs]
    sums = [exp_partial_sums(1j * x, n_terms) for x in xs]
    errors = [np.abs(s - np.exp(1j * x)) for s, x in zip(sums, xs)]
    floor = 1e-16
    fig = new_figure(
        text(
            lang,
            en=f"Two panels. Left: the complex plane with the unit circle and, for x = {', '.join(f'{x:g}' for x in xs)}, "
            f"the path of the partial sums S_N of the series for e^(ix), starting at 1 and spiralling onto the point "
            f"cos x + i sin x on the circle. Right: the distance from S_N to cos x + i sin x against N on a log scale, "
            f"falling from {max(e[0] for e in errors):.2g} at N = 0 to below {max(e[-1] for e in errors):.1g} at "
            f"N = {n_terms - 1}: the series converges to Euler's cos x + i sin x.",
            zh=f"两个子图。左图：复平面与单位圆，以及 x = {', '.join(f'{x:g}' for x in xs)} 时 e^(ix) 级数的部分和 S_N "
            f"走过的路径，从 1 出发，螺旋着落到圆上的点 cos x + i sin x。右图：S_N 到 cos x + i sin x 的距离随 N 的变化，"
            f"纵轴取对数，从 N = 0 时的 {max(e[0] for e in errors):.2g} 降到 N = {n_terms - 1} 时的 "
            f"{max(e[-1] for e in errors):.1g} 以下：级数收敛到欧拉公式给出的 cos x + i sin x。",
        ),
        figsize=(8.5, 3.9),
    )
    plane, error = fig.subplots(1, 2)
    draw_unit_circle(plane)
    for i, (x, s, e) in enumerate(zip(xs, sums, errors)):
        style = series_style(i)
        plane.plot(s.real, s.imag, markersize=3, linewidth=1, label=f"x = {x:g}", **style)
        plane.plot([np.cos(x)], [np.sin(x)], marker="o", markersize=9, markerfacecolor="none", color=style["color"], linestyle="none")
        error.semilogy(np.arange(n_terms), np.maximum(e, floor), markersize=3, label=f"x = {x:g}", **style)
    reach = max(1.2, max(np.abs(s).max() for s in sums) + 0.1)
    plane.set_xlim(-reach, reach)
    plane.set_ylim(-reach, reach)
    plane.set_xlabel(text(lang, en="real part", zh="实部"))
    plane.set_ylabel(text(lang, en="imaginary part", zh="虚部"))
    plane.set_title(text(lang, en="partial sums S_N(ix) (circle: cos x + i sin x)", zh="部分和 S_N(ix)（圆圈：cos x + i sin x）"), fontsize=9)
    plane.legend(fontsize=8, loc="lower left")
    error.set_xlabel(text(lang, en="N (last power kept)", zh="N（保留的最高次幂）"))
    error.set_ylabel("|S_N(ix) − (cos x + i sin x)|")
    error.set_title(text(lang, en="error of the partial sum", zh="部分和的误差"), fontsize=9)
    error.grid(True, alpha=0.3)
    return fig


def plot_complex_rotation(z: complex, theta: float, reach: float | None = None, *, lang: str = "en") -> Figure:
    """z and z·e^{iθ}: the same length, turned by θ (the arc marks the angle). `reach`: the largest modulus the axes
    must hold (an interactive figure passes the largest over all its z, so that every frame has the same axes);
    by default |z|."""
    require_language(lang)
    z, theta = complex(z), float(theta)
    turned = z * np.exp(1j * theta)
    fig = new_figure(
        text(
            lang,
            en=f"The complex plane with the unit circle, the arrow z = {z.real:.2f}{z.imag:+.2f}i and the arrow "
            f"z times e^(i theta) = {turned.real:.2f}{turned.imag:+.2f}i for theta = {np.degrees(theta):.0f} degrees. "
            f"Both have length {abs(z):.2f}; the second is the first turned counter-clockwise by theta.",
            zh=f"复平面与单位圆，画有箭头 z = {z.real:.2f}{z.imag:+.2f}i 和箭头 "
            f"z 乘以 e^(i theta) = {turned.real:.2f}{turned.imag:+.2f}i，其中 theta = {np.degrees(theta):.0f} 度。"
            f"两者长度都是 {abs(z):.2f}；后者是前者逆时针转过 theta 得到的。",
        ),
        figsize=(4.6, 4.2),
    )
    ax = fig.add_subplot()
    draw_unit_circle(ax)
    draw_unit_circle(ax, abs(z))
    start = np.angle(z)
    arc = start + np.linspace(0, theta, 60)
    ax.plot(0.35 * abs(z) * np.cos(arc), 0.35 * abs(z) * np.sin(arc), color="0.3", linewidth=1)
    draw_arrow(ax, np.exp(1j * theta), 2, f"e^(iθ), θ = {np.degrees(theta):.0f}°")
    draw_arrow(ax, z, 0, f"z = {z.real:.2f}{z.imag:+.2f}i")
    draw_arrow(ax, turned, 1, f"z·e^(iθ) = {turned.real:.2f}{turned.imag:+.2f}i")
    _limits(ax, [z, turned] if reach is None else [z, turned, float(reach)])
    ax.set_xlabel(text(lang, en="real part", zh="实部"))
    ax.set_ylabel(text(lang, en="imaginary part", zh="虚部"))
    ax.set_title(text(lang, en=f"multiplying by e^(iθ) turns by θ = {np.degrees(theta):.0f}°",
                      zh=f"乘以 e^(iθ) 就是转过 θ = {np.degrees(theta):.0f}°"), fontsize=10)
    ax.legend(loc="lower left", fontsize=8)
    return fig


ANGLES = tuple(float(a) for a in np.radians(np.arange(0, 360, 15)))
"""θ from 0° to 345° in steps of 15°."""


def complex_rotation_widget(zs=(1.2 + 0.5j, -0.6 + 0.8j, 0.7 - 0.3j), *, lang: str = "en") -> InteractiveFigure:
    """Choose z and θ; the figure shows z and z·e^{iθ}, of equal length, θ apart: 3 × 24 = 72 frames, all on the axes
    that hold the longest z."""
    require_language(lang)
    zs = tuple(complex(z) for z in zs)
    angle = Control("theta", "θ", ANGLES, ANGLES[3], fmt=lambda a: f"{np.degrees(a):.0f}°")
    number = Control("z", "z", zs, zs[0], fmt=lambda z: f"{z.real:g}{z.imag:+g}i", choice=True)
    reach = max(abs(z) for z in zs)

    def draw(z, theta):
        return plot_complex_rotation(z, theta, reach, lang=lang)

    return InteractiveFigure(draw, (number, angle), lang=lang)


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

_SERIES_TERMS = 100
"""Partial sums S_0 … S_99 of e^(ix): far more than any tested x ≤ 10 and tol ≥ 1e-12 needs (at most 46)."""

_X_RANGE = [round(0.01 * i, 2) for i in range(10, 801)]
_TOL_RANGE = [float(f"1e-{k}") for k in range(3, 11)]
"""The inputs a student may try, searched for those that tell two stopping rules apart: x from 0.10 to 8.00 in steps
of 0.01, tol from 1e-3 to 1e-10."""

_NEXT_TERM_CASES = 4
"""How many of the inputs where "stop when the next term is below tol" gives the wrong N the check tries."""


def _series(x: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """S_N(ix) for N = 0 … _SERIES_TERMS − 1, their distances |S_N(ix) − e^(ix)|, and the size of each one's next
    term |(ix)^(N+1) / (N+1)!|."""
    sums = exp_partial_sums(1j * x, _SERIES_TERMS)
    return sums, np.abs(sums - np.exp(1j * x)), np.abs(np.diff(sums))


def _first_below(values: np.ndarray, tol: float) -> int:
    """The first index whose value is below tol."""
    return int(np.argmax(values < tol))


def _clear_cut(values: np.ndarray, tol: float) -> bool:
    """No value up to one past the first below tol lies within rounding of tol, so that the first below it is clear."""
    return bool(np.abs(values[: _first_below(values, tol) + 2] - tol).min() > max(1e-3 * tol, 1e-11))


@cache
def _next_term_cases() -> tuple[tuple[float, float], ...]:
    """_NEXT_TERM_CASES inputs (x, tol), spread over the search, where the smallest N with |S_N(ix) − e^(ix)| < tol
    differs from the N at which the next term first falls below tol: the off-by-one stopping rule fails there only."""
    found = []
    for x in _X_RANGE:
        _, errors, next_terms = _series(x)
        for tol in _TOL_RANGE:
            if _clear_cut(errors, tol) and _clear_cut(next_terms, tol) and _first_below(errors, tol) != _first_below(next_terms, tol):
                found.append((x, tol))
    picks = np.linspace(0, len(found) - 1, _NEXT_TERM_CASES).round().astype(int)
    return tuple(found[i] for i in picks)


def check_terms_needed(terms_needed, *, lang: str = "en") -> CheckResult:
    """Exercise cx-ex-terms: `terms_needed(x, tol)` is the smallest N with |S_N(ix) − e^(ix)| < tol."""

    def body(fn):
        cases = [(1.0, 1e-8), (5.0, 1e-8), (10.0, 1e-8), (0.5, 1e-4), (3.0, 1e-12), *_next_term_cases()]
        for x, tol in cases:
            call = f"terms_needed({x!r}, {tol!r})"
            n = answer_integer(call_student(fn, call, x, tol), call)
            sums, errors, next_terms = _series(x)
            smallest = _first_below(errors, tol)
            if n < 0:
                raise Hint(f"{call} returned {shown(n)}: N counts the terms after the first, so it is never negative",
                           f"{call} 返回了 {shown(n)}：N 数的是第一项之后的项，所以不可能是负数")
            if n < smallest:
                real_only = abs(sums[n].real - np.cos(x)) < tol
                raise Hint(f"{call}: S_N(ix) for your N = {n} is not yet within tol of e^(ix) (error {errors[n]:.2g})"
                           + (": compare the whole complex number, the imaginary part too" if real_only else ""),
                           f"{call}：取你的 N = {n} 时，S_N(ix) 与 e^(ix) 的距离还没有小于 tol（误差 {errors[n]:.2g}）"
                           + ("：要比较整个复数，虚部也要比" if real_only else ""))
            if n > smallest:  # decided without using n to size anything: n may be 10**12
                if n == _first_below(next_terms, tol):
                    raise Hint(f"{call}: your N = {n} is not the smallest: it is where the next term falls below tol, but the "
                               "test is on the error of S_N itself, |S_N(ix) − e^(ix)|, which the next term only estimates",
                               f"{call}：你的 N = {n} 不是最小的：它是下一项小于 tol 的地方，但要检验的是 S_N 本身的误差 "
                               "|S_N(ix) − e^(ix)|，下一项只是对它的估计")
                raise Hint(f"{call}: your N = {shown(n)} is not the smallest: a smaller N is already within tol"
                           + (" (S_N = Σ_(k=0..N) has N + 1 terms: did you count terms instead of the last index?)" if n == smallest + 1 else ""),
                           f"{call}：你的 N = {shown(n)} 不是最小的：更小的 N 已经在 tol 之内"
                           + ("（S_N = Σ_(k=0..N) 有 N + 1 项：你是不是数了项数，而不是最后一项的下标？）" if n == smallest + 1 else ""))

    return run_check("cx-ex-terms", terms_needed, body,
                     Words(f"terms_needed returns the smallest N within tol for x = 0.5, 1, 3, 5 and 10 and for {_NEXT_TERM_CASES} inputs "
                           "where the next term is still above tol at that N.",
                           f"terms_needed 对 x = 0.5、1、3、5、10，以及 {_NEXT_TERM_CASES} 组在该 N 处下一项仍不小于 tol 的输入，"
                           "都返回了误差在 tol 之内的最小 N。"),
                     lang)
