"""rope_lib.teach.attention_probe: the weights equal the model's own softmax, and the probe finds a planted offset
head and no head where none attends by offset."""

import numpy as np
import pytest
import torch

from rope_lib.teach.trained_models import (
    OFFSET_HEAD_THRESHOLD,
    OffsetHead,
    attention_weights,
    best_offset_head,
    offset_scores,
)
from rope_lib.teach.trained_models import LookbackTask
from rope_lib.teach.trained_models import model_for_task

TINY = {"dim": 32, "n_layers": 2, "n_heads": 2, "hidden_dim": 64, "device": "cpu"}


@pytest.mark.parametrize("encoding", ["rope", "alibi", "learned"])
def test_the_weights_are_those_the_model_computes(encoding):
    task = LookbackTask()
    model = model_for_task(task, encoding, max_seq_len=12, seed=0, **TINY)
    tokens, _ = task.batch(12, 3, torch.Generator().manual_seed(0))
    weights = attention_weights(model, tokens)
    assert weights.shape == (2, 3, 2, 12, 12)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, 2, 12))
    assert (weights.triu(1) == 0).all()  # causal: no weight on a later key
    # the first block's output, rebuilt from the probed weights, equals the block's own forward pass
    layer = model.layers[0]
    with torch.no_grad():
        h = model.tok_embeddings(tokens) + (model.pos_embeddings.weight[:12] if encoding == "learned" else 0)  # (B, T, dim)
        x = layer.attention_norm(h)
        v = (x @ layer.attention.qkv_weights()[2].T).view(3, 12, 2, 16)  # (B, T, H, D)
        rebuilt = layer.attention.wo(torch.einsum("bhts,bshd->bthd", weights[0], v).reshape(3, 12, 32))
        rope = None if model.rope is None else model.rope(torch.arange(12), seq_len=12)  # as Model.forward hands them down
        own = layer.attention(x, 0, rope, model.mask(0, 12, x.dtype), use_cache=False)
        torch.testing.assert_close(rebuilt, own, atol=1e-5, rtol=1e-5)


def planted(seq=16, layers=2, heads=3):
    """Uniform causal weights everywhere, (n_layers, B, H, T, T)."""
    w = np.tril(np.ones((seq, seq)))
    w /= w.sum(-1, keepdims=True)
    return np.broadcast_to(w, (layers, 2, heads, seq, seq)).copy()


def test_the_probe_finds_a_planted_offset_head():
    w = planted()
    t = np.arange(3, 16)
    w[1, :, 2] = 0.0
    w[1, :, 2, np.arange(3), 0] = 1.0  # queries with no key 3 back look at the first token
    w[1, :, 2, t, t - 3] = 1.0  # layer 1, head 2: three back
    found = best_offset_head(w)
    assert found == OffsetHead(1, 2, 3, 1.0) and found.attends_by_offset
    scores = offset_scores(w, max_offset=5)
    assert scores.shape == (2, 3, 5) and scores[1, 2, 2] == 1.0 and scores[0, 0].max() < OFFSET_HEAD_THRESHOLD


def test_the_probe_misses_a_head_that_looks_at_the_first_token_or_spreads_out():
    w = planted()
    w[0, :, 1] = 0.0
    w[0, :, 1, :, 0] = 1.0  # an attention sink: every query looks at position 0
    found = best_offset_head(w)
    assert not found.attends_by_offset and found.score < OFFSET_HEAD_THRESHOLD
    # without the cap on the offset, the last query's one key T − 1 back would score 1: the default cap is T // 2
    assert offset_scores(w, max_offset=15)[0, 1, 14] == 1.0 and offset_scores(w).shape[-1] == 8


def test_first_query_restricts_the_queries():
    w = planted()
    t = np.arange(8, 16)
    w[0, :, 0, t] = 0.0
    w[0, :, 0, t, t - 5] = 1.0  # only the second half looks 5 back
    assert offset_scores(w, first_query=8)[0, 0, 4] == 1.0
    assert offset_scores(w)[0, 0, 4] < 1.0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"weights must have shape \(n_layers, B, H, T, T\)"):
        offset_scores(np.ones((2, 3, 4, 4)))
    with pytest.raises(ValueError, match="max_offset must be at most T − 1 = 15, got 16"):
        offset_scores(planted(), max_offset=16)
    with pytest.raises(ValueError, match="first_query must be at most T − 1 = 15, got 20"):
        offset_scores(planted(), first_query=20)
    with pytest.raises(TypeError, match="model must be a rope_lib.Model"):
        attention_weights(torch.nn.Linear(2, 2), torch.zeros(1, 2, dtype=torch.int64))
