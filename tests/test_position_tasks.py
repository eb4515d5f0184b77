"""rope_lib.teach.position_tasks: each task's targets are the tokens its rule names, from a seeded generator."""

import pytest
import torch

from rope_lib.teach.trained_models import CopyTask, IGNORE, LookbackTask, TASKS


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def test_copy_targets_repeat_the_span_after_sep():
    task = CopyTask(n_symbols=8)
    tokens, targets = task.batch(12, 5, gen())
    n = task.span(12)
    assert n == 5 and tokens.shape == targets.shape == (5, 12) and tokens.dtype == torch.int64
    assert (tokens[:, 0] == task.bos).all() and (tokens[:, n + 1] == task.sep).all()
    assert torch.equal(tokens[:, 1 : n + 1], tokens[:, n + 2 :])
    assert int(tokens[:, 1:].max()) < task.vocab_size and task.vocab_size == 10
    for b in range(5):
        for t in range(12):
            if n + 1 <= t <= 2 * n:
                assert targets[b, t] == tokens[b, t + 1] == tokens[b, t - n]  # the next token, seen n positions back
            else:
                assert targets[b, t] == IGNORE
    assert task.offset(12) == n and task.first_target(12) == n + 1 and task.probe_batches(12) == {n: {}}


def test_lookback_targets_are_the_token_k_back():
    task = LookbackTask(ks=(1, 3), n_symbols=6)
    tokens, targets = task.batch(10, 64, gen(1))
    assert task.vocab_size == 8 and set(tokens[:, 0].tolist()) == {6, 7}  # both markers drawn
    for b in range(64):
        k = task.ks[int(tokens[b, 0]) - task.n_symbols]
        for t in range(10):
            assert targets[b, t] == (tokens[b, t - k] if t - k >= 1 else IGNORE)
        assert int(tokens[b, 1:].max()) < task.n_symbols
    tokens3, targets3 = task.batch(10, 4, gen(), k=3)
    assert (tokens3[:, 0] == task.marker(3)).all() and torch.equal(targets3[:, 4:], tokens3[:, 1:7])
    assert task.first_target(10) == 4 and task.probe_batches(10) == {1: {"k": 1}, 3: {"k": 3}}


def test_batches_are_seeded():
    for task in (CopyTask(), LookbackTask()):
        a, b = task.batch(20, 3, gen(7)), task.batch(20, 3, gen(7))
        assert all(torch.equal(x, y) for x, y in zip(a, b))
        assert not torch.equal(a[0], task.batch(20, 3, gen(8))[0])
    assert set(TASKS) == {"copy", "lookback"}


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: CopyTask().batch(11, 2, gen()), ValueError, "seq_len must be even and at least 4"),
        (lambda: CopyTask().batch(2, 2, gen()), ValueError, "seq_len must be even and at least 4"),
        (lambda: CopyTask().batch(8, 0, gen()), ValueError, "batch_size"),
        (lambda: CopyTask().batch(8, 2, 3), TypeError, "generator must be a CPU torch.Generator"),
        (lambda: CopyTask(n_symbols=1), ValueError, "n_symbols must be at least 2"),
        (lambda: LookbackTask(ks=[1, 2]), TypeError, "ks must be a non-empty tuple"),
        (lambda: LookbackTask(ks=(1, 1)), ValueError, "ks must not repeat"),
        (lambda: LookbackTask(ks=(0,)), ValueError, "ks"),
        (lambda: LookbackTask().batch(5, 2, gen()), ValueError, r"seq_len must be at least max\(ks\) \+ 2 = 6"),
        (lambda: LookbackTask().batch(8, 2, gen(), k=7), ValueError, r"k must be one of ks=\(1, 2, 3, 4\)"),
    ],
)
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()
