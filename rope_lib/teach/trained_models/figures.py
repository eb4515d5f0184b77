"""Figures of chapter "RoPE in a trained model": a live loss curve, the experiment's learning curves, accuracy against
length for every encoding, an attention map of a trained model, and the attention probe across encodings."""

from __future__ import annotations

from functools import partial

import numpy as np
import torch
from matplotlib.figure import Figure

from ..shared.figure_style import SEQUENTIAL_CMAP, new_figure, series_style
from ..shared.interactive import Control, InteractiveFigure
from ..shared.language import require_language, text
from .attention_probe import OFFSET_HEAD_THRESHOLD
from .experiment_report import LENGTH_MULTIPLES, accuracy_over_seeds, curves_over_seeds, probe_over_seeds

ENCODING_NAMES = {"rope": "RoPE", "none": "NoPE", "sinusoidal": "sinusoidal", "learned": "learned", "alibi": "ALiBi"}
RULE_NAMES = {"pi": "RoPE + PI", "ntk": "RoPE + NTK", "yarn": "RoPE + YaRN"}
TASK_NAMES = {"copy": "copy (induction)", "lookback": "lookback (token k back)"}
ENCODING_NAMES_ZH = {"rope": "RoPE", "none": "NoPE", "sinusoidal": "正弦位置编码", "learned": "可学习位置编码", "alibi": "ALiBi"}
TASK_NAMES_ZH = {"copy": "复制（归纳）", "lookback": "回看（k 个位置前的词元）"}
TASK_SHORT_ZH = {"copy": "复制", "lookback": "回看"}
"""The same names in Chinese: the encodings' (symbols kept), the tasks' titles, and the tasks' short names."""


def encoding_name(encoding: str, *, lang: str = "en") -> str:
    """The name of a position encoding in a figure's legend or in a sentence of the text."""
    return text(lang, en=ENCODING_NAMES[encoding], zh=ENCODING_NAMES_ZH[encoding])


def _task_title(task: str, lang: str) -> str:
    return text(lang, en=TASK_NAMES.get(task, task), zh=TASK_NAMES_ZH.get(task, task))


def _task_short(task: str, lang: str) -> str:
    return text(lang, en=task, zh=TASK_SHORT_ZH.get(task, task))


def plot_loss_curve(losses, *, title: str, lang: str = "en") -> Figure:
    """The training loss of every step of one run, on a logarithmic axis."""
    require_language(lang)
    losses = np.asarray(losses, dtype=np.float64)
    if losses.ndim != 1 or losses.size < 2:
        raise ValueError(f"losses must be a curve of at least two steps, got shape {losses.shape}")
    fig = new_figure(
        text(
            lang,
            en=f"Line chart of the training loss (cross-entropy, logarithmic axis) against the step, for {losses.size} steps "
            f"of {title}: it starts at {losses[0]:.2f} and ends at {losses[-1]:.3g}.",
            zh=f"折线图：{title}的训练损失（交叉熵，纵轴取对数）随训练步数的变化，共 {losses.size} 步；"
            f"损失从 {losses[0]:.2f} 开始，最后为 {losses[-1]:.3g}。",
        ),
        figsize=(6.0, 3.2),
    )
    ax = fig.add_subplot()
    ax.plot(np.arange(losses.size), losses, color=series_style(0)["color"], linewidth=1)
    ax.set_yscale("log")
    ax.set_xlabel(text(lang, en="training step", zh="训练步数"))
    ax.set_ylabel(text(lang, en="loss (nats)", zh="损失（奈特）"))
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return fig


def plot_learning_curves(report: dict, *, lang: str = "en") -> Figure:
    """The mean training loss over seeds of every encoding, one panel per task; the band spans the seeds."""
    require_language(lang)
    tasks = list(report["tasks"])
    final = []
    for task in tasks:
        for encoding in report["encodings"]:
            _, losses = curves_over_seeds(report, task, encoding)
            final.append(text(lang, en=f"{ENCODING_NAMES[encoding]} on {task} {losses[:, -1].mean():.3g}",
                              zh=f"{encoding_name(encoding, lang=lang)}在{_task_short(task, lang)}任务上 {losses[:, -1].mean():.3g}"))
    fig = new_figure(
        text(
            lang,
            en=f"Line charts, one per task ({', '.join(tasks)}), of the training loss (logarithmic axis) against the step for "
            f"each position encoding, the mean over {len(report['seeds'])} seeds with a band from the lowest to the highest "
            f"seed. Final mean losses: {'; '.join(final)}.",
            zh=f"折线图，每个任务一幅（{'、'.join(_task_short(task, lang) for task in tasks)}），画出每种位置编码的训练损失"
            f"（纵轴取对数）随步数的变化：取 {len(report['seeds'])} 个随机种子的均值，阴影带从最低的种子延伸到最高的种子。"
            f"最终的平均损失：{'；'.join(final)}。",
        ),
        figsize=(7.5, 3.6),
    )
    axes = fig.subplots(1, len(tasks), sharey=True, squeeze=False)[0]
    for ax, task in zip(axes, tasks):
        for i, encoding in enumerate(report["encodings"]):
            steps, losses = curves_over_seeds(report, task, encoding)
            style = series_style(i)
            ax.plot(steps, losses.mean(axis=0), color=style["color"], linestyle=style["linestyle"], label=encoding_name(encoding, lang=lang))
            ax.fill_between(steps, losses.min(axis=0), losses.max(axis=0), color=style["color"], alpha=0.15, linewidth=0)
        ax.set_yscale("log")
        ax.set_xlabel(text(lang, en="training step", zh="训练步数"))
        ax.set_title(_task_title(task, lang))
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel(text(lang, en="training loss (nats)", zh="训练损失（奈特）"))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=5, fontsize=8)
    return fig


def _series(report: dict, lang: str = "en"):
    """(label, encoding, rule) of every line of the accuracy figure: the encodings, then RoPE's test-time rules."""
    rows = [(encoding_name(e, lang=lang), e, None) for e in report["encodings"]]
    return rows + [(RULE_NAMES[rule], "rope", rule) for rule in report["config"]["test_time_rules"]]


def plot_length_generalisation(report: dict, *, lang: str = "en") -> Figure:
    """Accuracy against the length (as a multiple of the trained length) for every encoding and RoPE's rescalings,
    one panel per task: the mean over seeds, error bars from the lowest to the highest seed."""
    require_language(lang)
    tasks = list(report["tasks"])
    longest = LENGTH_MULTIPLES[-1]
    said = text(lang, en="; ", zh="；").join(
        text(lang, en=f"{task} at {longest}×: ", zh=f"{_task_short(task, lang)}任务在 {longest}× 时：")
        + text(lang, en=", ", zh="，").join(f"{label} {accuracy_over_seeds(report, task, e, r)[:, -1].mean():.2f}" for label, e, r in _series(report, lang))
        for task in tasks
    )
    fig = new_figure(
        text(
            lang,
            en=f"Line charts, one per task ({', '.join(tasks)}), of the accuracy on fresh sequences against their length, "
            f"1, 2 and 4 times the trained length of {report['config']['original_max_len']} tokens, for each position encoding "
            f"and for RoPE rescaled at test time; the mean over {len(report['seeds'])} seeds, with bars from the lowest to "
            f"the highest seed. Mean accuracy {said}.",
            zh=f"折线图，每个任务一幅（{'、'.join(_task_short(task, lang) for task in tasks)}），画出每种位置编码、以及在测试时"
            f"缩放过的 RoPE，在新序列上的准确率随序列长度的变化；长度为训练长度 {report['config']['original_max_len']} 个词元的"
            f" 1、2、4 倍。取 {len(report['seeds'])} 个随机种子的均值，误差棒从最低的种子延伸到最高的种子。平均准确率：{said}。",
        ),
        figsize=(7.5, 4.0),
    )
    axes = fig.subplots(1, len(tasks), sharey=True, squeeze=False)[0]
    x = np.array(LENGTH_MULTIPLES, dtype=float)
    for ax, task in zip(axes, tasks):
        chance = 1.0 / report["tasks"][task]["n_symbols"]
        ax.axhline(chance, color="0.4", linewidth=1, linestyle=":")
        for i, (label, encoding, rule) in enumerate(_series(report, lang)):
            table = accuracy_over_seeds(report, task, encoding, rule)  # (seeds, multiples)
            mean = table.mean(axis=0)
            shift = 1 + 0.025 * (i - 3.5)  # side by side, so that the bars do not hide each other
            ax.errorbar(x * shift, mean, yerr=[mean - table.min(axis=0), table.max(axis=0) - mean], capsize=2,
                        markersize=5, linewidth=1.2, label=label, **series_style(i))
        ax.set_xscale("log", base=2)
        ax.set_xticks(x, [f"{m:g}×" for m in LENGTH_MULTIPLES])
        ax.set_ylim(0, 1.03)
        ax.set_xlabel(text(lang, en="length / trained length", zh="长度 / 训练长度"))
        ax.set_title(_task_title(task, lang))
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel(text(lang, en="accuracy (dotted: chance)", zh="准确率（点线：随机猜测）"))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=4, fontsize=8)
    return fig


def require_attention_weights(weights) -> np.ndarray:
    """Attention maps (n_layers, B, H, T, T), a tensor or an array, as a numpy array."""
    weights = weights.numpy() if isinstance(weights, torch.Tensor) else np.asarray(weights, dtype=np.float64)
    if weights.ndim != 5 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(f"weights must have shape (n_layers, B, H, T, T), got {weights.shape}")
    return weights


def plot_attention_map(weights, layer: int, head: int, *, offset: int | None = None, lang: str = "en") -> Figure:
    """Heatmap of one head's attention weights, averaged over a batch: row t is the query, column n the key; with
    `offset`, the keys that many positions back are outlined."""
    require_language(lang)
    weights = require_attention_weights(weights)
    n_layers, _, n_heads, seq, _ = weights.shape
    if not (0 <= layer < n_layers and 0 <= head < n_heads):
        raise ValueError(f"layer must be in [0, {n_layers}) and head in [0, {n_heads}), got layer={layer}, head={head}")
    grid = weights[layer, :, head].mean(axis=0)  # (T, T)
    queries = np.arange(seq)
    on = grid[queries[offset:], queries[offset:] - offset].mean() if offset else None
    said = text(lang, en=f" The outlined cells are the keys {offset} positions back, where this head puts {on:.2f} of its weight on average.",
                zh=f"描边的格子是往前 {offset} 个位置的键，这个注意力头平均把 {on:.2f} 的权重放在那里。") if offset else ""
    fig = new_figure(
        text(
            lang,
            en=f"Heatmap of the attention weights of layer {layer}, head {head} of a trained model, averaged over a batch: "
            f"rows are query positions 0 to {seq - 1}, columns key positions; each row sums to 1 and no query looks at a later "
            f"key. The largest mean weight is {grid.max():.2f}.{said}",
            zh=f"热力图：一个训练好的模型第 {layer} 层、第 {head} 个注意力头的注意力权重，在一批序列上取平均。"
            f"行是查询位置 0 到 {seq - 1}，列是键的位置；每行之和为 1，没有查询会看向更靠后的键。"
            f"最大的平均权重为 {grid.max():.2f}。{said}",
        ),
        figsize=(4.6, 4.0),
    )
    ax = fig.add_subplot()
    image = ax.imshow(grid, cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1)
    if offset:
        rows = queries[offset:]
        ax.plot(rows - offset, rows, linestyle="none", marker="s", markersize=3.5, markerfacecolor="none",
                markeredgecolor=series_style(3)["color"], markeredgewidth=0.8,
                label=text(lang, en=f"{offset} back", zh=f"往前 {offset} 个"))
        ax.legend(loc="upper right", fontsize=7)
    ax.set_xlabel(text(lang, en="key position n", zh="键的位置 n"))
    ax.set_ylabel(text(lang, en="query position t", zh="查询位置 t"))
    ax.set_title(text(lang, en=f"layer {layer}, head {head}", zh=f"第 {layer} 层，第 {head} 个头"))
    fig.colorbar(image, ax=ax, label=text(lang, en="mean weight", zh="平均权重"))
    return fig


def plot_offset_probe(report: dict, *, lang: str = "en") -> Figure:
    """The best head's offset score for every encoding, one group per task and expected offset: the mean over seeds,
    and the threshold above which a head counts as attending by that offset."""
    require_language(lang)
    groups = [(task, expected) for task in report["tasks"] for expected in probe_over_seeds(report, task, report["encodings"][0])]
    scores = {e: [probe_over_seeds(report, t, e)[o]["mean_score"] for t, o in groups] for e in report["encodings"]}
    fig = new_figure(
        text(
            lang,
            en=f"Grouped bar chart of the attention probe: for each task and the relative offset its answer sits at, the best "
            f"head's mean weight on that offset (mean over {len(report['seeds'])} seeds) for each position encoding; a dotted "
            f"line at {OFFSET_HEAD_THRESHOLD} marks a head that attends by offset. "
            + "; ".join(f"{ENCODING_NAMES[e]}: " + ", ".join(f"{s:.2f}" for s in v) for e, v in scores.items()),
            zh=f"分组柱状图，展示注意力探针的结果：对每个任务及其答案所在的相对偏移，画出每种位置编码下最佳注意力头放在"
            f"该偏移上的平均权重（{len(report['seeds'])} 个随机种子的均值）；{OFFSET_HEAD_THRESHOLD} 处的点线标出"
            f"按偏移关注的头的门槛。"
            + "；".join(f"{encoding_name(e, lang=lang)}：" + "，".join(f"{s:.2f}" for s in v) for e, v in scores.items()),
        ),
        figsize=(7.5, 3.4),
    )
    ax = fig.add_subplot()
    width = 0.8 / len(scores)
    x = np.arange(len(groups))
    for i, (encoding, values) in enumerate(scores.items()):
        style = series_style(i)
        ax.bar(x + (i - (len(scores) - 1) / 2) * width, values, width, color=style["color"], edgecolor="black",
               linewidth=0.5, hatch=["", "//", "..", "xx", "\\\\"][i % 5], label=encoding_name(encoding, lang=lang))
    ax.axhline(OFFSET_HEAD_THRESHOLD, color="0.3", linestyle=":", linewidth=1)
    ax.set_xticks(x, [text(lang, en=f"{task}\n{expected} back", zh=f"{_task_short(task, lang)}\n往前 {expected} 个") for task, expected in groups],
                  fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(text(lang, en="best head's weight on the offset", zh="最佳头在该偏移上的权重"))
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig


# --- the attention maps, an interactive figure ------------------------------------------------------------------------

def attention_map_widget(weights, *, layer: int = 0, head: int = 0, offset: int | None = None, lang: str = "en") -> InteractiveFigure:
    """Pick a layer and a head of weights (n_layers, B, H, T, T); the map starts at (layer, head), and `offset`
    outlines the keys that many positions back in every map."""
    require_language(lang)
    weights = require_attention_weights(weights)
    n_layers, _, n_heads = weights.shape[:3]
    if n_layers < 2 or n_heads < 2:
        raise ValueError(f"weights must hold at least two layers and two heads (one slider each), got {n_layers} and {n_heads}")
    controls = (
        Control("layer", text(lang, en="layer", zh="层"), tuple(range(n_layers)), layer, choice=True),
        Control("head", text(lang, en="head", zh="注意力头"), tuple(range(n_heads)), head, choice=True),
    )
    return InteractiveFigure(partial(plot_attention_map, weights, offset=offset, lang=lang), controls, lang=lang)
