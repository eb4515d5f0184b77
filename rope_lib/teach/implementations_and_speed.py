"""Appendix "Implementations and speed" (book/implementations_and_speed.md): the `make bench` report read
(benchmarks/rope_speed.py writes it), its figure, and the auto-check of the chapter's exercise.

The chapter never runs the benchmark: it reads the committed JSON, `book/data/bench_<device>.json`.
This module only reads; nothing in rope_lib writes into the book.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from matplotlib.figure import Figure

from .shared.checking import CheckResult, Hint, answer_number, answer_or_none, call_student, diagnose_across, run_check, significant_bits
from .shared.figure_style import new_figure, series_style
from .shared.language import Words, require_language, text

# --- reading a `make bench` report ------------------------------------------------------------------------------------

RECORD_KEYS = ("impl", "layout", "device", "dtype", "seq_len", "ms", "gbps", "ratio_to_copy")
"""The fields of one timing record, in order."""


def load_report(path) -> dict:
    """The report at `path` (a bench_<device>.json), with every record checked to have RECORD_KEYS."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path must name a report written by `make bench`, got {str(path)!r}, which does not exist")
    report = json.loads(path.read_text())
    for record in report["results"]:
        if tuple(record) != RECORD_KEYS:
            raise ValueError(f"{path}: a record must have the fields {RECORD_KEYS}, got {tuple(record)}")
    return report


def seq_lens(report: dict) -> list[int]:
    """The sequence lengths S the report timed, shortest first."""
    return sorted({r["seq_len"] for r in report["results"]})


def lookup(report: dict, impl: str, layout: str, dtype: str, seq_len: int) -> dict:
    """The one record of `impl` in `layout` for dtype and S."""
    found = [r for r in report["results"] if (r["impl"], r["layout"], r["dtype"], r["seq_len"]) == (impl, layout, dtype, seq_len)]
    if len(found) != 1:
        raise KeyError(f"expected one record of {impl} ({layout}, {dtype}, S={seq_len}), found {len(found)}")
    return found[0]


CUDA_TABLE_IMPLS = (
    ("rope_lib_eager", "half"), ("rope_lib_fused", "half"), ("rope_lib_fused", "interleaved"),
    ("rope_lib_compiled", "half"), ("hf", "half"), ("meta", "interleaved"), ("lucidrains", "interleaved"),
    ("liger", "half"),
)
"""The rows of the CUDA table, where the report holds them: rope_lib's paths, then the peers."""


def cuda_report_markdown(path, *, lang: str = "en") -> str:
    """What the appendix shows of the CUDA report at `path` (bench_cuda.json, written by `make gpu-check`), as
    Markdown: each implementation's speed as a share of a copy's at each S and dtype, then whole-model decoding,
    eager and compiled; or, when there is no such report, a sentence that says so and how to make one."""
    require_language(lang)
    path = Path(path)
    if not path.is_file():
        return text(
            lang,
            en="No CUDA report is committed: no GPU was at hand for this edition, so the tables above are the CPU's "
               "alone. On a CUDA machine, `make gpu-check` writes `book/data/bench_cuda.json`, and its tables appear here.",
            zh="尚未提交 CUDA 的测量报告：本版运行时手头没有 GPU，所以上面的表只有 CPU 的结果。"
               "在有 CUDA 的机器上运行 `make gpu-check`，它会写出 `book/data/bench_cuda.json`，其中的表会出现在这里。",
        )
    report = load_report(path)
    lengths = seq_lens(report)
    gpu = report["machine"].get("gpu", "CUDA")
    lines = [text(lang, en=f"Measured on {gpu}, {report['date'][:10]} (`{report['command']}`). Speed as a share of a copy's:",
                  zh=f"在 {gpu} 上测量，{report['date'][:10]}（`{report['command']}`）。速度以拷贝速度的倍数表示："), ""]
    for dtype in sorted({r["dtype"] for r in report["results"]}, reverse=True):
        lines += [f"| {dtype} | " + " | ".join(f"S = {n}" for n in lengths) + " |", "| --- |" + " ---: |" * len(lengths)]
        for impl, layout in CUDA_TABLE_IMPLS:
            rows = [r for r in report["results"] if (r["impl"], r["layout"], r["dtype"]) == (impl, layout, dtype)]
            if rows:
                by_len = {r["seq_len"]: r["ratio_to_copy"] for r in rows}
                lines.append(f"| {_series_name(impl, layout, lang)} | " + " | ".join(f"{by_len[n]:.2f}" for n in lengths) + " |")
        lines.append("")
    header = text(lang, en="| decoding, tokens/s | Hugging Face | compiled | rope_lib | compiled | same tokens |",
                  zh="| 解码，词元/秒 | Hugging Face | 编译后 | rope_lib | 编译后 | 词元相同 |")
    lines += [header, "| --- | ---: | ---: | ---: | ---: | --- |"]
    for r in report["decode"]:
        lines.append(f"| {r['size']} ({r['dtype']}) | {r['hf_tokens_per_s']:.0f} | {r['hf_compiled_tokens_per_s']:.0f} | "
                     f"{r['rope_lib_tokens_per_s']:.0f} | {r['rope_lib_compiled_tokens_per_s']:.0f} | {r['identical_tokens']} |")
    return "\n".join(lines)


# --- the benchmark as a figure ----------------------------------------------------------------------------------------

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


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

def _bf16_offsets(n: int, dtype: torch.dtype = torch.bfloat16, *, nearest: bool = False) -> torch.Tensor:
    """position as built − true position for 0 … n−1 (float64, shape (n,)): built by an arange in `dtype`,
    or, with nearest=True, by rounding each exact integer to the nearest number of `dtype`."""
    exact = torch.arange(n, dtype=torch.float64)  # (n,)
    built = torch.arange(n).to(dtype) if nearest else torch.arange(n, dtype=dtype)  # (n,)
    return built.double() - exact


def _bf16_errors(n: int, dtype: torch.dtype = torch.bfloat16, *, nearest: bool = False) -> torch.Tensor:
    """|position as built − true position| for 0 … n−1: the distances `_bf16_offsets` measures."""
    return _bf16_offsets(n, dtype, nearest=nearest).abs()


def check_bf16_position_error(bf16_position_error, *, lang: str = "en") -> CheckResult:
    """Exercise speed-ex-positions: `bf16_position_error(n)` is the largest |position − m| over m = 0 … n−1
    when the positions come from a bf16 `torch.arange(n, dtype=torch.bfloat16)` (on the CPU, in this torch).

    The answer may be a Python number, a NumPy number or a 0-dimensional tensor: the value counts, not its type.
    """
    require_language(lang)
    fixed = (1, 200, 256, 257, 258, 1000, 2048, 4096, 5000, 8192)
    bits = {dtype: significant_bits(dtype) for dtype in (torch.bfloat16, torch.float16)}

    def read(value, call: str, n: int) -> float:
        return answer_number(value, call, [((n,), Words(f"{call} returned shape {(n,)}, one error per position; return only the largest, as one number",
                                                         f"{call} 返回的形状是 {(n,)}，每个位置一个误差；只返回最大的那个，一个数即可"))])

    def body(fn):
        sizes = fixed + tuple(int(n) for n in np.random.default_rng(5).integers(1, 20001, size=3))
        for n in sizes:
            call = f"bf16_position_error({n})"
            got = read(call_student(fn, call, n), call, n)
            expected = _bf16_errors(n).max().item()
            if abs(got - expected) < 1e-9:
                continue
            differ = torch.nonzero(_bf16_offsets(n) != _bf16_offsets(n, nearest=True)).flatten()
            where = (Words(f"they first differ at position {differ[0].item()}", f"两者第一次不同是在位置 {differ[0].item()}") if differ.numel()
                     else Words("they differ", "两者不同"))
            diagnose_across(got, n, sizes, lambda k: answer_or_none(lambda v: read(v, "", k), fn, k), [
                (lambda k: _bf16_errors(k, nearest=True).max().item(),
                 Words(f"{call}: rounding — you rounded each exact position to the nearest bf16 number, which is not how a bf16 "
                       f"torch.arange builds them: {where.en}; look at the positions torch.arange({n}, dtype=torch.bfloat16) itself holds",
                       f"{call}：舍入——你把每个精确位置舍入到了最近的 bf16 数，但 bf16 的 torch.arange 并不是这样生成位置的："
                       f"{where.zh}；看看 torch.arange({n}, dtype=torch.bfloat16) 本身存的是哪些位置")),
                (lambda k: _bf16_errors(k)[-1].item(),
                 Words(f"{call}: you returned the error of the last position, {n - 1}; the answer is the largest error over all positions 0 … {n - 1}",
                       f"{call}：你返回的是最后一个位置 {n - 1} 的误差；答案应是所有位置 0 … {n - 1} 中最大的误差")),
                (lambda k: _bf16_errors(k + 1).max().item(),
                 Words(f"{call}: range — the positions are 0 … n−1, n of them; yours include position n = {n} too",
                       f"{call}：范围——位置是 0 … n−1，共 n 个；你的还多算了位置 n = {n}")),
                (lambda k: _bf16_offsets(k).max().item(),
                 Words(f"{call}: distance — take the absolute value |built − true|; positions rounded down count as much as those rounded up",
                       f"{call}：距离——要取绝对值 |生成值 − 真实值|；向下舍入的位置和向上舍入的同样算数")),
                (lambda k: (-_bf16_offsets(k)).max().item(),
                 Words(f"{call}: distance — take the absolute value |built − true|; positions rounded up count as much as those rounded down",
                       f"{call}：距离——要取绝对值 |生成值 − 真实值|；向上舍入的位置和向下舍入的同样算数")),
                (lambda k: _bf16_errors(k, torch.float16).max().item(),
                 Words(f"{call}: dtype — that is the error of float16 positions ({bits[torch.float16]} significant bits); "
                       f"bf16 keeps only {bits[torch.bfloat16]}",
                       f"{call}：dtype——这是 float16 位置的误差（{bits[torch.float16]} 位有效数字）；"
                       f"bf16 只保留 {bits[torch.bfloat16]} 位")),
            ], lambda a, b: abs(a - b) < 1e-9)
            if got == 0:
                raise Hint(f"{call}: your positions look exact; build them in bf16, which holds every integer only up to "
                           f"{2 ** bits[torch.bfloat16]}",
                           f"{call}：你的位置看起来是精确的；请用 bf16 生成它们，bf16 只能精确表示不超过 "
                           f"{2 ** bits[torch.bfloat16]} 的每个整数")
            raise Hint(f"{call}: the largest distance from the true positions is not {got:g}; compare the positions a bf16 "
                       f"torch.arange gives with 0 … {n - 1}",
                       f"{call}：与真实位置的最大距离不是 {got:g}；把 bf16 的 torch.arange 给出的位置和 0 … {n - 1} 比一比")

    return run_check("speed-ex-positions", bf16_position_error, body,
                     Words(f"bf16_position_error matches a bf16 torch.arange for n from {fixed[0]} to {fixed[-1]} and for three seeded random n up to 20000.",
                           f"bf16_position_error 与 bf16 的 torch.arange 一致：n 从 {fixed[0]} 到 {fixed[-1]}，以及三个用固定种子随机取的、不超过 20000 的 n。"),
                     lang)
