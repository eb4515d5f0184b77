"""Figures about position-free attention: the weights a_{m,n} of one query, and of all of them."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..language import require_language, text
from .style import SEQUENTIAL_CMAP, new_figure, series_style, subscript

LOWEST_TOP = 0.5
"""The bar chart's vertical axis reaches at least 0.5, so that small weights look small."""

HEADROOM = 1.15
"""Room above the tallest bar of the whole matrix, 15 %."""


def _check_weights(tokens, weights) -> np.ndarray:
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != len(tokens):
        raise ValueError(f"weights must have shape (N, {len(tokens)}) (one column per token), got {weights.shape}")
    return weights


def plot_attention_weights(tokens, weights, query: int, *, lang: str = "en") -> Figure:
    """Bar chart of row `query` of the attention weights: how much each key token contributes to o_m.

    The vertical axis holds the largest weight of the whole matrix, whichever row is drawn, so that the rows of one
    sentence share one scale: picking another query moves the bars, not the axis."""
    require_language(lang)
    weights = _check_weights(tokens, weights)
    if not 0 <= query < len(weights):
        raise ValueError(f"query must be a row index in [0, {len(weights)}), got {query}")
    row = weights[query]
    top = int(np.argmax(row))
    fig = new_figure(
        text(
            lang,
            en=f"Bar chart of the attention weights of query token {query} ('{tokens[query]}') over the {len(tokens)} key "
            f"tokens of the sentence, labelled on the horizontal axis. The weights sum to {row.sum():.2f}; the largest, "
            f"{row[top]:.2f}, goes to token {top} ('{tokens[top]}'). The query's own bar is hatched.",
            zh=f"柱状图：第 {query} 个查询词元（'{tokens[query]}'）在句子全部 {len(tokens)} 个键词元上的注意力权重，"
            f"横轴标出各个词元。权重之和为 {row.sum():.2f}；最大的权重 {row[top]:.2f} 落在第 {top} 个词元（'{tokens[top]}'）上。"
            f"查询自己的那根柱子带斜线阴影。",
        ),
        figsize=(5.2, 3.6),
    )
    ax = fig.add_subplot()
    style = series_style(0)
    bars = ax.bar(np.arange(len(tokens)), row, color=style["color"], edgecolor="black", linewidth=0.6)
    bars[query].set_hatch("//")
    bars[query].set_facecolor(series_style(1)["color"])
    ax.set_xticks(np.arange(len(tokens)), [f"{i}:{t}" for i, t in enumerate(tokens)], rotation=45, ha="right", fontsize=8)
    ax.set_ylim(0, max(LOWEST_TOP, weights.max() * HEADROOM))
    ax.set_xlabel(text(lang, en="key token n", zh="键词元 n"))
    ax.set_ylabel(text(lang, en=f"weight $a_{{{query},n}}$", zh=f"权重 a{subscript(f'{query},n')}"))
    ax.set_title(text(lang, en=f"query {query}: '{tokens[query]}'", zh=f"查询 {query}：'{tokens[query]}'"))
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def plot_attention_matrix(tokens, weights, *, lang: str = "en") -> Figure:
    """Heatmap of all weights a_{m,n}: row m is the query token, column n the key token; rows sum to 1."""
    require_language(lang)
    weights = _check_weights(tokens, weights)
    fig = new_figure(
        text(
            lang,
            en=f"Heatmap of the attention weights of a sentence of {len(tokens)} tokens: rows are query tokens m, columns "
            f"are key tokens n, both labelled with the token text. Each row sums to 1; the weights range from "
            f"{weights.min():.2f} to {weights.max():.2f}.",
            zh=f"热力图：一个含 {len(tokens)} 个词元的句子的注意力权重。行是查询词元 m，列是键词元 n，行列都标有词元文本。"
            f"每行之和为 1；权重从 {weights.min():.2f} 到 {weights.max():.2f} 不等。",
        ),
        figsize=(5.2, 4.4),
    )
    ax = fig.add_subplot()
    image = ax.imshow(weights, cmap=SEQUENTIAL_CMAP, vmin=0)
    labels = [f"{i}:{t}" for i, t in enumerate(tokens)]
    ax.set_xticks(np.arange(len(tokens)), labels, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(np.arange(len(weights)), labels[: len(weights)], fontsize=8)
    ax.set_xlabel(text(lang, en="key token n", zh="键词元 n"))
    ax.set_ylabel(text(lang, en="query token m", zh="查询词元 m"))
    ax.set_title(text(lang, en="attention weights $a_{m,n}$", zh=f"注意力权重 a{subscript('m,n')}"))
    fig.colorbar(image, ax=ax, label=text(lang, en="weight", zh="权重"))
    return fig
