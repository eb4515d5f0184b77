"""Chapter "RoPE for images and video" (book/rope_for_images.md): its figures (scores across a grid of patches, and
M-RoPE's three streams), its interactive figure and the auto-check of its exercise.
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure

from ..axial import axial_inv_freq_2d, grid_score_map
from ..frequencies import inv_freq
from ..mrope import MROPE_AXES, mrope_position_ids
from ..multi_axis import apply_multi_axis_rope
from .shared.checking import CheckResult, Hint, allclose_within, answer_array, call_student, diagnose, mismatch, run_check
from .shared.figure_style import DIVERGING_CMAP, new_figure, series_style
from .shared.interactive import Control, InteractiveFigure
from .shared.language import Words, require_language, text

# --- figures: scores across a grid of patches, and M-RoPE's three streams ---------------------------------------------

PATCH_RULES = ("axial", "diagonal")
"""The 2D rules the patch-score figure compares: axial RoPE, and mixed frequencies that all point along the diagonal
(1, 1)/√2, one of the tables RoPE-Mixed can learn and axial RoPE cannot express."""


def patch_rule_inv_freq(rule: str, d: int, base: float) -> np.ndarray:
    """The frequency vectors the figure uses: axial with shared frequencies, or the 1D frequencies base^(−2i/d)
    along the diagonal."""
    if rule not in PATCH_RULES:
        raise ValueError(f"rule must be one of {PATCH_RULES}, got {rule!r}")
    if rule == "axial":
        return axial_inv_freq_2d(d, base)
    return np.outer(inv_freq(d, base), [np.cos(np.pi / 4), np.sin(np.pi / 4)])  # (d/2, 2)


def rule_name(rule: str, *, lang: str = "en") -> str:
    """The name of a patch rule as a reader sees it: the rule itself in English, its translation in Chinese."""
    if rule not in PATCH_RULES:
        raise ValueError(f"rule must be one of {PATCH_RULES}, got {rule!r}")
    return text(lang, en=rule, zh={"axial": "轴向", "diagonal": "对角"}[rule])


def plot_patch_scores(h: int, w: int, rule: str = "axial", size: int = 12, d: int = 8, base: float = 10.0, *,
                      lang: str = "en") -> Figure:
    """The score of the query patch (h, w) to every patch of a size × size grid, for a key equal to the query
    (q = k = all ones), scaled so that the patch itself scores 1."""
    require_language(lang)
    ones = np.ones(d)
    theta = patch_rule_inv_freq(rule, d, base)
    grid = grid_score_map(ones, ones, theta, (h, w), size, size) / (ones @ ones)
    shape = "a cross along its row and its column" if rule == "axial" else "a stripe along the anti-diagonal through it, where h + w is the query's"
    shape_zh = "沿它所在的行和列的十字" if rule == "axial" else "穿过它的一条反对角线条带（这些图像块的 h + w 与查询相同）"
    fig = new_figure(
        text(
            lang,
            en=f"Heat map of a {size} by {size} grid of image patches under {rule} RoPE (d = {d}, base {base:g}). Each cell is "
            f"the score of the query patch at row {h}, column {w} to the key patch there, for a key equal to the query, "
            f"scaled so that the query patch scores 1. High scores form {shape}; the lowest score on the grid is {grid.min():.2f}.",
            zh=f"热力图：{size} × {size} 的图像块网格，采用{rule_name(rule, lang=lang)} RoPE（d = {d}，底数 {base:g}）。"
            f"每个格子是第 {h} 行、第 {w} 列的查询图像块对该处键图像块的得分，键与查询相同，并做了缩放，使查询图像块自身得分为 1。"
            f"高分构成{shape_zh}；网格上的最低得分为 {grid.min():.2f}。",
        ),
        figsize=(4.4, 3.8),
    )
    ax = fig.add_subplot()
    image = ax.imshow(grid, cmap=DIVERGING_CMAP, vmin=-1, vmax=1, origin="upper")
    ax.plot(w, h, marker="*", color="black", markersize=12, linestyle="none", label=text(lang, en="query patch", zh="查询图像块"))
    ax.set_xlabel(text(lang, en="column w", zh="列 w"))
    ax.set_ylabel(text(lang, en="row h", zh="行 h"))
    ax.set_xticks(range(0, size, 2))
    ax.set_yticks(range(0, size, 2))
    ax.set_title(text(lang, en=f"{rule} RoPE, query at (h, w) = ({h}, {w})", zh=f"{rule_name(rule, lang=lang)} RoPE，查询位于 (h, w) = ({h}, {w})"), fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, frameon=False)
    fig.colorbar(image, ax=ax, shrink=0.8, label=text(lang, en="score / q·q", zh="得分 / q·q"))
    return fig


def plot_patch_scores_by_rule(h: int, w: int, size: int = 12, d: int = 8, base: float = 10.0, *, lang: str = "en") -> Figure:
    """`plot_patch_scores` for every rule of PATCH_RULES side by side, on one colour scale: the same query patch
    (h, w) under axial RoPE and under frequencies along the diagonal."""
    require_language(lang)
    ones = np.ones(d)
    grids = {rule: grid_score_map(ones, ones, patch_rule_inv_freq(rule, d, base), (h, w), size, size) / (ones @ ones) for rule in PATCH_RULES}
    fig = new_figure(
        text(
            lang,
            en=f"Two heat maps side by side of a {size} by {size} grid of image patches (d = {d}, base {base:g}), left under "
            f"axial RoPE, right under frequencies that all point along the diagonal. Each cell is the score of the query "
            f"patch at row {h}, column {w} to the key patch there, for a key equal to the query, scaled so that the query "
            f"patch scores 1. Under axial RoPE the high scores form a cross along its row and its column, the lowest score "
            f"being {grids['axial'].min():.2f}; along the diagonal they form a stripe along the anti-diagonal through it, "
            f"where h + w is the query's, the lowest score being {grids['diagonal'].min():.2f}.",
            zh=f"并排两幅热力图：{size} × {size} 的图像块网格（d = {d}，底数 {base:g}），左边采用轴向 RoPE，右边采用全部沿对角线"
            f"方向的频率。每个格子是第 {h} 行、第 {w} 列的查询图像块对该处键图像块的得分，键与查询相同，并做了缩放，"
            f"使查询图像块自身得分为 1。轴向 RoPE 下高分构成沿它所在的行和列的十字，最低得分为 {grids['axial'].min():.2f}；"
            f"沿对角线的频率下高分构成穿过它的一条反对角线条带（这些图像块的 h + w 与查询相同），最低得分为 "
            f"{grids['diagonal'].min():.2f}。",
        ),
        figsize=(7.6, 3.7),
    )
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (rule, grid) in zip(axes, grids.items()):
        image = ax.imshow(grid, cmap=DIVERGING_CMAP, vmin=-1, vmax=1, origin="upper")
        ax.plot(w, h, marker="*", color="black", markersize=12, linestyle="none", label=text(lang, en="query patch", zh="查询图像块"))
        ax.set_xlabel(text(lang, en="column w", zh="列 w"))
        ax.set_xticks(range(0, size, 2))
        ax.set_yticks(range(0, size, 2))
        ax.set_title(text(lang, en=f"{rule} RoPE", zh=f"{rule_name(rule, lang=lang)} RoPE"), fontsize=10)
    axes[0].set_ylabel(text(lang, en="row h", zh="行 h"))
    fig.suptitle(text(lang, en=f"Query at (h, w) = ({h}, {w})", zh=f"查询位于 (h, w) = ({h}, {w})"), fontsize=10)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", fontsize=8, frameon=False)
    fig.colorbar(image, ax=axes, shrink=0.8, label=text(lang, en="score / q·q", zh="得分 / q·q"))
    return fig


def kind_name(kind: str, *, lang: str = "en") -> str:
    """The name of a segment kind (text, image, video) as a reader sees it."""
    return text(lang, en=kind, zh={"text": "文本", "image": "图像", "video": "视频"}.get(kind, kind))


def plot_mrope_positions(segments, *, lang: str = "en") -> Figure:
    """M-RoPE's three position streams t, h, w against the token index, one panel each, for a sequence of segments."""
    require_language(lang)
    ids = mrope_position_ids(segments).numpy()  # (T, 3)
    kinds = [kind for kind, size in segments for _ in range(len(mrope_position_ids([(kind, size)])))]
    described = ", ".join(f"{kind} {size if kind == 'text' else '×'.join(map(str, size))}" for kind, size in segments)
    described_zh = "，".join(f"{kind_name(kind, lang='zh')} {size if kind == 'text' else '×'.join(map(str, size))}" for kind, size in segments)
    t_image = ids[kinds.index('image'), 0] if 'image' in kinds else ids[0, 0]
    fig = new_figure(
        text(
            lang,
            en=f"Three stacked panels, the temporal, height and width position ids t, h and w of M-RoPE against the token "
            f"index, for the sequence {described} ({len(ids)} tokens). Text tokens climb one step per token in all three "
            f"panels alike; within an image t stays at {t_image}, h steps "
            f"once per row and w runs along each row; the text after it continues from the largest id plus one, "
            f"ending at {ids[-1, 0]}.",
            zh=f"上下三幅图，分别画出 M-RoPE 的时间、高度、宽度位置编号 t、h、w 随词元序号的变化，"
            f"序列为 {described_zh}（共 {len(ids)} 个词元）。文本词元在三幅图中都一样，每个词元升一步；"
            f"在图像内部 t 停在 {t_image}，h 每行升一步，w 沿每一行递增；图像之后的文本从最大编号加一处接着数，"
            f"最后停在 {ids[-1, 0]}。",
        ),
        figsize=(6.4, 4.6),
    )
    axes = fig.subplots(3, 1, sharex=True)
    index = np.arange(len(ids))
    for a, (ax, name) in enumerate(zip(axes, MROPE_AXES)):
        for j, kind in enumerate(dict.fromkeys(kinds)):
            style = series_style(j)
            mine = np.array([k == kind for k in kinds])
            ax.plot(index[mine], ids[mine, a], marker=style["marker"], color=style["color"], linestyle="none", markersize=5,
                    label=kind_name(kind, lang=lang) if a == 0 else None)
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel(text(lang, en="token index", zh="词元序号"))
    fig.legend(loc="outside upper center", ncol=3, fontsize=8, frameon=False)
    return fig


# --- the patch-score maps, an interactive figure: pick a query patch, see its scores under both rules -----------------

PATCH_COORDINATES = (0, 2, 3, 5, 6, 8, 9, 11)
"""The rows and columns the figure offers on the 12 × 12 grid: 8 of them, both edges included."""


def patch_score_widget(*, lang: str = "en") -> InteractiveFigure:
    """8 rows × 8 columns = 64 frames, each showing both rules side by side on the same axes."""
    require_language(lang)

    def draw(h: int, w: int):
        return plot_patch_scores_by_rule(h, w, lang=lang)

    return InteractiveFigure(
        draw=draw,
        controls=(
            Control("h", text(lang, en="query row h", zh="查询所在行 h"), PATCH_COORDINATES, 3),
            Control("w", text(lang, en="query column w", zh="查询所在列 w"), PATCH_COORDINATES, 6),
        ),
        lang=lang,
    )


# --- the exercise's auto-check ----------------------------------------------------------------------------------------

AXIAL_EXERCISE_BASE = 100.0
"""The base the exercise asks for: Heo et al.'s, for ViTs."""


def _axial(x: np.ndarray, h: int, w: int, *, inv_freq=None, layout: str = "interleaved") -> np.ndarray:
    """x turned to patch (h, w) by axial RoPE (shared frequencies, base 100) or by the given frequency vectors."""
    table = axial_inv_freq_2d(x.size, AXIAL_EXERCISE_BASE) if inv_freq is None else inv_freq
    turned = apply_multi_axis_rope(torch.from_numpy(x)[None, None, None], [[h, w]], table, layout=layout)
    return turned[0, 0, 0].numpy()


def check_axial_rotate(axial_rotate, *, lang: str = "en") -> CheckResult:
    """Exercise img-ex-axial-code: `axial_rotate(x, h, w)` turns a head vector x (d values, d a multiple of 4) to the
    patch at row h, column w: pairs (x_2i, x_2i+1) for i < d/4 by h·θ_i, the others by w·θ_(i−d/4), θ_i = 100^(−4i/d)."""
    require_language(lang)

    def body(fn):
        rng = np.random.default_rng(11)
        close = allclose_within(1e-9)
        cases = [(np.ones(4), 1, 0), (np.ones(4), 0, 1), (np.round(rng.standard_normal(8), 3), 2, 5)]
        cases += [(np.round(rng.standard_normal(d), 3), int(rng.integers(0, 16)), int(rng.integers(0, 16))) for d in (8, 16, 32)]
        d = int(rng.choice([8, 16, 24]))
        cases.append((np.round(rng.standard_normal(d), 3), int(rng.integers(0, 30)), int(rng.integers(0, 30))))
        for x, h, w in cases:
            call = f"axial_rotate({x.tolist()}, {h}, {w})"
            got = answer_array(call_student(fn, call, x, h, w), call, x.shape)
            expected = _axial(x, h, w)
            if close(got, expected):
                continue
            d = x.size
            diagnose(got, [
                (lambda: _axial(x, w, h), Words(f"{call}: axes — the first d/4 pairs turn with the row h, the last d/4 with the column w",
                                             f"{call}：轴弄反了——前 d/4 个维度对随行 h 转动，后 d/4 个随列 w 转动")),
                (lambda: _axial(x, h, w, inv_freq=axial_inv_freq_2d(d, AXIAL_EXERCISE_BASE, split="alternating")),
                 Words(f"{call}: frequencies — each axis gets the same d/4 frequencies 100^(−4i/d), not alternate ones of the d/2 of 1D RoPE",
                       f"{call}：频率不对——两个轴用的是同一组 d/4 个频率 100^(−4i/d)，而不是从一维 RoPE 的 d/2 个频率中隔一个取一个")),
                (lambda: _axial(x, h, w, inv_freq=axial_inv_freq_2d(d, AXIAL_EXERCISE_BASE) ** 0.5),
                 Words(f"{call}: frequencies — a head of d values hands d/4 pairs to each axis, so θ_i = 100^(−4i/d), not 100^(−2i/d)",
                       f"{call}：频率不对——d 维的头给每个轴分 d/4 个维度对，所以 θ_i = 100^(−4i/d)，而不是 100^(−2i/d)")),
                (lambda: _axial(x, h, w, layout="half"),
                 Words(f"{call}: pairing — pair i is (x_2i, x_2i+1), adjacent coordinates, not (x_i, x_(i+d/2))",
                       f"{call}：配对不对——第 i 对是相邻的两个坐标 (x_2i, x_2i+1)，而不是 (x_i, x_(i+d/2))")),
                (lambda: _axial(x, -h, -w), Words(f"{call}: direction — each pair turns counter-clockwise by +h·θ_i or +w·θ_i",
                                              f"{call}：方向反了——每个维度对按逆时针转过 +h·θ_i 或 +w·θ_i")),
                (lambda: _axial(x, h, 0), Words(f"{call}: the column — the last d/4 pairs must turn with w", f"{call}：列——后 d/4 个维度对必须随 w 转动")),
                (lambda: _axial(x, 0, w), Words(f"{call}: the row — the first d/4 pairs must turn with h", f"{call}：行——前 d/4 个维度对必须随 h 转动")),
            ], close)
            if not np.isclose(np.linalg.norm(got), np.linalg.norm(x)):
                raise Hint(f"{call}: a rotation keeps the vector's length, but |result| = {np.linalg.norm(got):.4g} and |x| = {np.linalg.norm(x):.4g}",
                           f"{call}：旋转不改变向量的长度，但 |结果| = {np.linalg.norm(got):.4g}，而 |x| = {np.linalg.norm(x):.4g}")
            raise mismatch(call, got, expected, Words(f"x turned to patch ({h}, {w})", f"x 转到图像块 ({h}, {w}) 后的向量"))

    return run_check("img-ex-axial-code", axial_rotate, body,
                     Words("axial_rotate turns head vectors of 4 to 32 values to their patch, for seven patches, four of them seeded random ones.",
                           "axial_rotate 能把 4 到 32 维的头向量转到对应的图像块：七个图像块（其中四个由固定种子随机生成）都通过。"), lang)
