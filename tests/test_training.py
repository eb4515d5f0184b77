"""rope_lib.teach.training: a seeded model for a task, and a loop whose loss falls on a tiny run."""

import numpy as np
import pytest
import torch

from rope_lib.teach.trained_models import CopyTask, IGNORE, LookbackTask
from rope_lib.teach.trained_models import masked_loss, model_for_task, train_model

TINY = {"dim": 32, "n_layers": 2, "n_heads": 2, "hidden_dim": 64, "device": "cpu"}


def test_the_same_seed_gives_the_same_weights_and_leaves_the_global_state_alone():
    task = LookbackTask()
    state = torch.random.get_rng_state()
    a, b = (model_for_task(task, "rope", max_seq_len=16, seed=3, **TINY) for _ in range(2))
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    c = model_for_task(task, "rope", max_seq_len=16, seed=4, **TINY)
    assert not torch.equal(a.output.weight, c.output.weight)
    assert a.config.vocab_size == task.vocab_size and a.config.max_seq_len == 16


def test_theta_reaches_rope_and_only_rope():
    assert model_for_task(CopyTask(), "rope", max_seq_len=8, seed=0, base=100.0, **TINY).config.base == 100.0
    assert model_for_task(CopyTask(), "alibi", max_seq_len=8, seed=0, base=100.0, **TINY).config.position_encoding == "alibi"
    with pytest.raises(ValueError, match="position_encoding must be one of"):
        model_for_task(CopyTask(), "rotary", max_seq_len=8, seed=0, **TINY)


def test_masked_loss_counts_only_asked_positions():
    logits = torch.zeros(1, 3, 4)
    logits[0, 1, 2] = 10.0
    targets = torch.tensor([[IGNORE, 2, IGNORE]])
    assert float(masked_loss(logits, targets)) == pytest.approx(float(torch.nn.functional.cross_entropy(logits[0, 1:2], torch.tensor([2]))))
    with pytest.raises(ValueError, match="targets must ask something"):
        masked_loss(logits, torch.full((1, 3), IGNORE))
    with pytest.raises(ValueError, match=r"logits must be \(B, T, V\)"):
        masked_loss(logits[0], targets)


@pytest.mark.parametrize("encoding", ["rope", "learned"])
def test_the_loss_falls_on_a_tiny_run(encoding):
    task = LookbackTask(ks=(1,), n_symbols=4)
    model = model_for_task(task, encoding, max_seq_len=12, seed=0, **TINY)
    losses = train_model(model, task, seq_len=8, steps=80, batch_size=16, seed=0)
    assert losses.shape == (80,) and np.isfinite(losses).all()
    assert losses[-10:].mean() < 0.5 * losses[:10].mean()
    again = train_model(model_for_task(task, encoding, max_seq_len=12, seed=0, **TINY), task, seq_len=8, steps=5, batch_size=16, seed=0)
    np.testing.assert_allclose(again, losses[:5], rtol=1e-5)  # seeded: the same run again


def test_rows_of_a_learned_table_past_the_trained_length_stay_at_their_initial_values():
    task = LookbackTask(ks=(1,), n_symbols=4)
    model = model_for_task(task, "learned", max_seq_len=16, seed=0, **TINY)
    before = model.pos_embeddings.weight.detach().clone()
    train_model(model, task, seq_len=8, steps=10, batch_size=8, seed=0)
    after = model.pos_embeddings.weight.detach()
    assert torch.equal(after[8:], before[8:])
    assert not torch.equal(after[:8], before[:8])


def test_bad_input_is_named():
    task = CopyTask()
    model = model_for_task(task, "rope", max_seq_len=8, seed=0, **TINY)
    with pytest.raises(ValueError, match="seq_len must be at most the model's max_seq_len=8"):
        train_model(model, task, seq_len=10, steps=1)
    with pytest.raises(ValueError, match="steps"):
        train_model(model, task, seq_len=8, steps=0)
    with pytest.raises(TypeError, match="model must be a rope_lib.Model"):
        train_model(torch.nn.Linear(2, 2), task, seq_len=8, steps=1)
    with pytest.raises(ValueError, match="seed"):
        model_for_task(task, "rope", max_seq_len=8, seed=-1, **TINY)
