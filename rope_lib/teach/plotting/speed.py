"""Figures of chapter "Implementations and speed": the benchmark of `make bench`, read from its JSON report."""

from __future__ import annotations

from matplotlib.figure import Figure

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


def _ratios(report: dict, dtype: str, impl: str, layout: str) -> list[tuple[int, float]]:
    rows = [r for r in report["results"] if (r["dtype"], r["impl"], r["layout"]) == (dtype, impl, layout)]
    return sorted((r["seq_len"], r["ratio_to_copy"]) for r in rows)


def plot_speed(report: dict) -> Figure:
    """Fraction of the copy's bandwidth each implementation reaches, against S, one panel per dtype."""
    dtypes = list(dict.fromkeys(r["dtype"] for r in report["results"]))
    longest = max(r["seq_len"] for r in report["results"])
    where = report["machine"].get("gpu") or report["machine"]["cpu"]
    summary = "; ".join(
        f"in {dtype} at S = {longest}, "
        + ", ".join(f"{impl} ({layout}) {dict(_ratios(report, dtype, impl, layout)).get(longest, float('nan')):.2f}" for impl, layout in SPEED_SERIES)
        for dtype in dtypes
    )
    fig = new_figure(
        f"Line charts, one per dtype ({', '.join(dtypes)}), of the time of a copy of the same bytes divided by each RoPE "
        f"implementation's time, on a logarithmic axis, against the sequence length S, measured on {where}. "
        f"1 means as fast as copying; {summary}.",
        figsize=(7.5, 3.8),
    )
    axes = fig.subplots(1, len(dtypes), sharey=True, squeeze=False)[0]
    for ax, dtype in zip(axes, dtypes):
        ax.axhline(1.0, color="0.4", linewidth=1, linestyle=":")
        for i, (impl, layout) in enumerate(SPEED_SERIES):
            points = _ratios(report, dtype, impl, layout)
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, markersize=5, label=f"{impl} ({layout})", **series_style(i))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length S")
        ax.set_title(dtype)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("copy time / time (1 = copy speed)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=3, fontsize=7)
    return fig
