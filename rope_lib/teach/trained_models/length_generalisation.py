"""Accuracy on a position task at a given length, and a trained RoPE model rescaled at test time (chapter "RoPE in a
trained model").

A model trained on sequences of L tokens is asked the same task at L, 2L and 4L. A RoPE model can also be given
a context-extension rule of chapter "Longer contexts" for the longer lengths, with the same weights:
position interpolation ("linear"), NTK-aware scaling ("ntk") or YaRN ("yarn"), at the factor s = length / L.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn

from ..._validate import arguments, checked_by, refuse, require_factor, require_non_negative_int, require_positive_int
from ...llama import Model
from ...scaling import RopeScaling
from ..llama_implementation.attention_scores import require_model
from .position_tasks import IGNORE, require_predictions

TEST_TIME_RULES = {"pi": "linear", "ntk": "ntk", "yarn": "yarn"}
"""The rescalings tried on a trained RoPE model, by the name the experiment records, → the method of `SCALING_RULES`:
position interpolation (Chen et al. 2023), NTK-aware scaling, YaRN (Peng et al. 2023)."""


EVAL_SEED = 10_000
"""The seed of the evaluation sequences by default: one that no training run of the book uses for its batches."""


def _device_of(model: nn.Module) -> torch.device:
    parameter = next(model.parameters(), None)
    if parameter is None:
        raise ValueError("model must have parameters (its device is theirs)")
    return parameter.device


def prediction_accuracy(logits: torch.Tensor, targets: torch.Tensor) -> tuple[int, int]:
    """(right, asked): how many positions that ask something (targets ≠ IGNORE) the argmax of logits (B, T, V) gets
    right, and how many ask."""
    require_predictions(logits, targets)
    asked = targets != IGNORE
    right = (logits.argmax(dim=-1) == targets) & asked
    return int(right.sum()), int(asked.sum())


def accuracy(model: nn.Module, task, *, seq_len: int, n_sequences: int = 256, batch_size: int = 64, seed: int = EVAL_SEED) -> float:
    """The share of asked positions that `model` (called as model(tokens, use_cache=False) → logits) answers right,
    over n_sequences fresh sequences of seq_len tokens drawn from `seed` (by default not a training seed)."""
    seq_len = require_positive_int(seq_len, "seq_len")
    n_sequences = require_positive_int(n_sequences, "n_sequences")
    batch_size = require_positive_int(batch_size, "batch_size")
    generator = torch.Generator().manual_seed(require_non_negative_int(seed, "seed"))
    device = _device_of(model)
    right = asked = 0
    with torch.no_grad():
        for start in range(0, n_sequences, batch_size):
            tokens, targets = (t.to(device) for t in task.batch(seq_len, min(batch_size, n_sequences - start), generator))
            got, of = prediction_accuracy(model(tokens, use_cache=False), targets)
            right, asked = right + got, asked + of
    return right / asked


def rescaled_arguments(a) -> None:
    require_model(a["model"])
    if a["model"].config.position_encoding != "rope":
        refuse("model", "use position_encoding='rope' to be rescaled", repr(a["model"].config.position_encoding))
    if a["rule"] not in TEST_TIME_RULES:
        refuse("rule", f"be one of {tuple(TEST_TIME_RULES)}", repr(a["rule"]))
    arguments(factor=require_factor, original_max_len=require_positive_int)(a)


@checked_by(rescaled_arguments)
def rescaled(
    model: Model, rule: str, factor: float, *, original_max_len: int
) -> Model:
    """The same weights in a model whose RoPE uses the rule
    `TEST_TIME_RULES[rule]` at `factor` (s = L'/L, at least 1), for a model
    trained on sequences of original_max_len tokens."""
    scaling = RopeScaling(
        TEST_TIME_RULES[rule], factor, original_max_len=original_max_len
    )
    config = dataclasses.replace(
        model.config, scaling=scaling, device=model.device
    )
    twin = Model(config)
    twin.load_state_dict(model.state_dict())
    return twin.eval()
