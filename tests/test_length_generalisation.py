"""rope_lib.teach.length_generalisation: accuracy is right on planted predictors; a rescaled model keeps the weights
and changes only RoPE's frequencies."""

import pytest
import torch
from torch import nn

from rope_lib import RopeScaling
from rope_lib.teach.trained_models import TEST_TIME_RULES, accuracy, prediction_accuracy, rescaled
from rope_lib.teach.trained_models import CopyTask, IGNORE, LookbackTask
from rope_lib.teach.trained_models import model_for_task

TINY = {"dim": 32, "n_layers": 1, "n_heads": 2, "hidden_dim": 64, "device": "cpu"}


class PlantedLookback(nn.Module):
    """Answers the lookback task by its rule for the distances in `knows`, and with token 0 for the others."""

    def __init__(self, task, knows):
        super().__init__()
        self.task, self.knows = task, knows
        self.anchor = nn.Parameter(torch.zeros(()))  # a device for `accuracy` to read

    def forward(self, tokens, use_cache=False):
        batch, seq = tokens.shape
        logits = torch.zeros(batch, seq, self.task.vocab_size)
        for b in range(batch):
            k = self.task.ks[int(tokens[b, 0]) - self.task.n_symbols]
            for t in range(seq):
                answer = int(tokens[b, t - k]) if k in self.knows and t - k >= 1 else 0
                logits[b, t, answer] = 1.0
        return logits


def test_a_perfect_predictor_scores_one_and_an_imperfect_one_its_share():
    task = LookbackTask(ks=(1, 2))
    assert accuracy(PlantedLookback(task, {1, 2}), task, seq_len=12, n_sequences=40, batch_size=16) == 1.0
    # knowing k = 1 only: right on half the sequences, and on the others only where the answer happens to be token 0
    half = accuracy(PlantedLookback(task, {1}), task, seq_len=12, n_sequences=400, batch_size=100)
    assert 0.5 < half < 0.5 + 0.5 * 3 / task.n_symbols
    generator = torch.Generator().manual_seed(10_000)
    counts = [0, 0]
    for size in (100,) * 4:
        tokens, targets = task.batch(12, size, generator)
        got, asked = prediction_accuracy(PlantedLookback(task, {1})(tokens), targets)
        counts = [counts[0] + got, counts[1] + asked]
    assert half == counts[0] / counts[1]  # the same sequences, counted by hand


def test_prediction_accuracy_skips_unasked_positions():
    logits = torch.zeros(1, 3, 4)
    logits[0, :, 1] = 1.0
    assert prediction_accuracy(logits, torch.tensor([[1, IGNORE, 2]])) == (1, 2)
    with pytest.raises(ValueError, match=r"logits must be \(B, T, V\)"):
        prediction_accuracy(logits[0], torch.tensor([[1, 1, 1]]))


def test_accuracy_runs_a_real_model_and_refuses_bad_input():
    task = CopyTask()
    model = model_for_task(task, "alibi", max_seq_len=16, seed=0, **TINY)
    share = accuracy(model, task, seq_len=16, n_sequences=8)
    assert 0.0 <= share <= 1.0
    with pytest.raises(ValueError, match="n_sequences"):
        accuracy(model, task, seq_len=16, n_sequences=0)
    with pytest.raises(ValueError, match="model must have parameters"):
        accuracy(nn.ReLU(), task, seq_len=16)


@pytest.mark.parametrize("rule", list(TEST_TIME_RULES))
def test_rescaled_keeps_the_weights_and_applies_the_rule(rule):
    task = LookbackTask()
    model = model_for_task(task, "rope", max_seq_len=64, seed=1, **TINY)
    twin = rescaled(model, rule, 2.0, trained_len=16)
    assert twin.config.scaling == RopeScaling(TEST_TIME_RULES[rule], 2.0, original_max_len=16)
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), twin.state_dict().values()))
    tokens, _ = task.batch(40, 2, torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert not torch.allclose(twin(tokens, use_cache=False), model(tokens, use_cache=False))
        same = rescaled(model, rule, 1.0, trained_len=16)  # factor 1: plain RoPE again
        torch.testing.assert_close(same(tokens, use_cache=False), model(tokens, use_cache=False))


def test_rescaled_refuses_what_it_cannot_rescale():
    rope = model_for_task(CopyTask(), "rope", max_seq_len=16, seed=0, **TINY)
    with pytest.raises(ValueError, match="rule must be one of"):
        rescaled(rope, "llama3", 2.0, trained_len=8)
    with pytest.raises(ValueError, match="position_encoding='rope'"):
        rescaled(model_for_task(CopyTask(), "none", max_seq_len=16, seed=0, **TINY), "pi", 2.0, trained_len=8)
    with pytest.raises(ValueError, match="trained_len"):
        rescaled(rope, "yarn", 2.0, trained_len=0)
    with pytest.raises(TypeError, match="model must be a rope_lib.Model"):
        rescaled(nn.Linear(1, 1), "pi", 2.0, trained_len=8)
