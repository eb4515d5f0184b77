"""Figures of chapter "Implementations and speed": the benchmark of `make bench`, read from its JSON report."""

from __future__ import annotations

from matplotlib.figure import Figure

from ..language import require_language, text
from .style import new_figure, series_style

SPEED_SERIES = (
    ("rope_lib_fused_inplace", "half"),
    ("rope_lib_fused", "half"),
    ("rope_lib_fused", "interleaved"),
    ("rope_lib_pair_axis", "interleaved"),
    ("meta", "interleaved"),
    ("hf", "half"),
    ("lucidrains", "interleaved"),
    ("rope_lib_eager", "half"),
)
"""The implementations drawn, one style each (eight: as many as the palette has colours)."""


def _layout_name(layout: str, lang: str) -> str:
    """A layout as a legend names it: "half" and "interleaved" in English, 半分布局 and 交错布局 in Chinese."""
    return {"half": text(lang, en="half", zh="半分布局"), "interleaved": text(lang, en="interleaved", zh="交错布局")}.get(layout, layout)


def _series_name(impl: str, layout: str, lang: str) -> str:
    return text(lang, en=f"{impl} ({layout})", zh=f"{impl}（{_layout_name(layout, lang)}）")


def _ratios(report: dict, dtype: str, impl: str, layout: str) -> list[tuple[int, float]]:
    rows = [r for r in report["results"] if (r["dtype"], r["impl"], r["layout"]) == (dtype, impl, layout)]
    return sorted((r["seq_len"], r["ratio_to_copy"]) for r in rows)


def plot_speed(report: dict, *, lang: str = "en") -> Figure:
    """Fraction of the copy's bandwidth each implementation reaches, against S, one panel per dtype."""
    require_language(lang)
    dtypes = list(dict.fromkeys(r["dtype"] for r in report["results"]))
    longest = max(r["seq_len"] for r in report["results"])
    where = report["machine"].get("gpu") or report["machine"]["cpu"]
    summary = text(lang, en="; ", zh="；").join(
        text(lang, en=f"in {dtype} at S = {longest}, ", zh=f"{dtype} 在 S = {longest} 时：")
        + text(lang, en=", ", zh="，").join(
            f"{_series_name(impl, layout, lang)} {dict(_ratios(report, dtype, impl, layout)).get(longest, float('nan')):.2f}"
            for impl, layout in SPEED_SERIES)
        for dtype in dtypes
    )
    fig = new_figure(
        text(
            lang,
            en=f"Line charts, one per dtype ({', '.join(dtypes)}), of the time of a copy of the same bytes divided by each RoPE "
            f"implementation's time, on a logarithmic axis, against the sequence length S, measured on {where}. "
            f"1 means as fast as copying; {summary}.",
            zh=f"折线图，每种 dtype 一幅（{'、'.join(dtypes)}）：纵轴取对数，是复制同样多字节所用的时间除以各个 RoPE 实现所用的时间，"
            f"横轴是序列长度 S，在 {where} 上测得。1 表示和复制一样快；{summary}。",
        ),
        figsize=(7.5, 3.8),
    )
    axes = fig.subplots(1, len(dtypes), sharey=True, squeeze=False)[0]
    for ax, dtype in zip(axes, dtypes):
        ax.axhline(1.0, color="0.4", linewidth=1, linestyle=":")
        for i, (impl, layout) in enumerate(SPEED_SERIES):
            points = _ratios(report, dtype, impl, layout)
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, markersize=5, label=_series_name(impl, layout, lang), **series_style(i))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(text(lang, en="sequence length S", zh="序列长度 S"))
        ax.set_title(dtype)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel(text(lang, en="copy time / time (1 = copy speed)", zh="复制时间 / 用时（1 = 复制速度）"))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=3, fontsize=7)
    return fig
