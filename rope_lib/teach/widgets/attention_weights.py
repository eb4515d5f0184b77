"""The attention weights of one query token, chosen with a slider (chapter "Tokens and attention")."""

from __future__ import annotations

from functools import partial

import numpy as np

from ..language import require_language, text
from ..plotting.attention_weights import plot_attention_weights
from . import Control, InteractiveFigure

MAX_TOKENS = 12
"""One pre-rendered frame per token on the website: keep sentences short."""


def attention_weights_widget(tokens, weights, *, lang: str = "en") -> InteractiveFigure:
    """Pick a query token m; the bars are its weights a_{m,n} over every key token n."""
    require_language(lang)
    tokens = list(tokens)
    if not 2 <= len(tokens) <= MAX_TOKENS:
        raise ValueError(f"tokens must hold 2 to {MAX_TOKENS} tokens (one frame each), got {len(tokens)}")
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (len(tokens), len(tokens)):
        raise ValueError(f"weights must have shape ({len(tokens)}, {len(tokens)}), got {weights.shape}")
    query = Control("query", text(lang, en="query token m", zh="查询词元 m"), tuple(range(len(tokens))), 0, fmt=lambda i: f"{i}: {tokens[i]}", choice=True)
    return InteractiveFigure(partial(plot_attention_weights, tokens, weights, lang=lang), (query,), lang=lang)
