"""Building a small `rope_lib.Model` for a position task and training it (chapter "RoPE in a trained model").

Everything is seeded: the weights from `seed` (drawn inside `torch.random.fork_rng`, so the global random state is
left as it was), the batches from a `torch.Generator` seeded with `seed`. Every step draws a fresh batch, so the
model cannot memorise sequences, only the rule.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ..._validate import arguments, checked_by, refuse, require_device, require_non_negative_int, require_positive_int, require_positive_real
from ...frequencies import DEFAULT_BASE
from ...llama import Model, ModelConfig, default_device
from ..llama_implementation.attention_scores import require_model
from .position_tasks import IGNORE, require_predictions

LEARNING_RATE = 3e-3
"""AdamW's step size: tiny models on synthetic tasks take a large one."""

WEIGHT_DECAY = 0.0
"""No decay: a weight that gets no gradient stays exactly where it started. So the rows of a learned position table
past the trained length, which no training batch reaches, keep their random initial values."""

BETAS = (0.9, 0.98)
"""AdamW's moment decays (Vaswani et al. 2017's choice of β₂ for Transformers)."""


def model_for_task(
    task,
    position_encoding: str,
    *,
    max_seq_len: int,
    seed: int,
    dim: int = 64,
    n_layers: int = 2,
    n_heads: int = 4,
    hidden_dim: int = 128,
    base: float = DEFAULT_BASE,
    device=None,
) -> Model:
    """A LLaMA-style decoder sized for `task` (its vocab_size), with weights drawn from `seed`.

    max_seq_len: the longest sequence it will see, evaluation included (the rows of a learned table; a
    sinusoidal table's length). base is RoPE's base (only with position_encoding="rope"). device=None: CUDA
    when available.
    """
    seed = require_non_negative_int(seed, "seed")
    rope = {"base": base} if position_encoding == "rope" else {}
    device = default_device() if device is None else require_device(device)
    config = ModelConfig(
        vocab_size=task.vocab_size, dim=dim, n_layers=n_layers, n_heads=n_heads, hidden_dim=hidden_dim,
        max_seq_len=max_seq_len, position_encoding=position_encoding, device=device, **rope,
    )
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        return Model(config)


def masked_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The mean cross-entropy of logits (B, T, V) against targets (B, T) over the positions that ask something
    (targets ≠ IGNORE)."""
    require_predictions(logits, targets)
    if not (targets != IGNORE).any():
        raise ValueError("targets must ask something: every entry is IGNORE")
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=IGNORE)


def train_model_arguments(a) -> None:
    require_model(a["model"])
    arguments(steps=require_positive_int, batch_size=require_positive_int, lr=require_positive_real,
              seed=require_non_negative_int, seq_len=require_positive_int)(a)
    if a["seq_len"] > a["model"].config.max_seq_len:
        refuse("seq_len", f"be at most the model's max_seq_len={a['model'].config.max_seq_len}", a["seq_len"])


@checked_by(train_model_arguments)
def train_model(
    model: Model,
    task,
    *,
    seq_len: int,
    steps: int,
    batch_size: int = 32,
    seed: int = 0,
    lr: float = LEARNING_RATE,
) -> np.ndarray:
    """Train `model` in place for `steps` AdamW steps, each on a fresh
    batch of `task` at seq_len; returns the training loss of every step
    (the learning curve), shape (steps,)."""
    generator = torch.Generator().manual_seed(seed)
    optimiser = torch.optim.AdamW(
        model.parameters(), lr=lr, betas=BETAS, weight_decay=WEIGHT_DECAY
    )
    losses = np.empty(steps)
    model.train()
    for step in range(steps):
        batch = task.batch(seq_len, batch_size, generator)  # (B, T) each
        tokens, targets = (t.to(model.device) for t in batch)
        loss = masked_loss(model(tokens, use_cache=False), targets)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        losses[step] = loss.item()
    model.eval()
    return losses
