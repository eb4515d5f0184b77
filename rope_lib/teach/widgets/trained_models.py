"""The attention maps of a trained model, one per layer and head, chosen with two sliders (chapter "RoPE in a trained
model")."""

from __future__ import annotations

from functools import partial


from ..language import require_language, text
from ..plotting.trained_models import plot_attention_map, require_attention_weights
from . import Control, InteractiveFigure


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
