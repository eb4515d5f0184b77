"""Figures about complex numbers: products as rotation and scaling, Euler's formula, turning by e^{iθ}."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..complex_plane import exp_partial_sums
from ..language import require_language, text
from .style import new_figure, series_style


def draw_unit_circle(ax: Axes, radius: float = 1.0) -> None:
    """A thin grey circle of the given radius and the two axes through 0, on equal scales."""
    a = np.linspace(0, 2 * np.pi, 361)
    ax.plot(radius * np.cos(a), radius * np.sin(a), color="0.6", linewidth=0.8)
    ax.axhline(0, color="0.8", linewidth=0.6)
    ax.axvline(0, color="0.8", linewidth=0.6)
    ax.set_aspect("equal")


def draw_arrow(ax: Axes, tip: complex, i: int, label: str, tail: complex = 0j) -> None:
    """An arrow from `tail` to `tip` in the style of series i (colour, line style and tip marker)."""
    style = series_style(i)
    ax.annotate("", xy=(tip.real, tip.imag), xytext=(tail.real, tail.imag),
                arrowprops={"arrowstyle": "-|>", "color": style["color"], "linestyle": style["linestyle"], "linewidth": 1.8, "shrinkA": 0, "shrinkB": 0})
    ax.plot([tip.real], [tip.imag], linestyle="none", marker=style["marker"], color=style["color"], markersize=7, label=label)


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
