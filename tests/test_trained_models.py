"""Chapter "RoPE in a trained model" (rope_lib.teach.trained_models; both editions): the position tasks, training, accuracy
at a length and test-time rescaling, the attention probe, the `make experiments` report; its figures, widget and check
in both languages."""

import copy
import json

import numpy as np
import pytest
import torch
from torch import nn

from glyphs import assert_chinese_figure, assert_english_figure, drawn_words, missing_glyphs
from rope_lib import RopeScaling
from rope_lib.teach.exercises import check_offset_weight
from rope_lib.teach.shared.figure_style import BookFigure
from rope_lib.teach.trained_models import (
    CopyTask,
    IGNORE,
    LookbackTask,
    OFFSET_HEAD_THRESHOLD,
    OffsetHead,
    TASKS,
    TEST_TIME_RULES,
    accuracy,
    attention_map_widget,
    attention_weights,
    best_offset_head,
    encoding_name,
    masked_loss,
    model_for_task,
    offset_scores,
    plot_attention_map,
    plot_learning_curves,
    plot_length_generalisation,
    plot_loss_curve,
    plot_offset_probe,
    prediction_accuracy,
    rescaled,
    train_model,
)
from rope_lib.teach.trained_models.experiment_report import (
    LENGTH_MULTIPLES,
    accuracy_over_seeds,
    accuracy_summary,
    check_report,
    curves_over_seeds,
    load_experiments,
    probe_over_seeds,
    runs_of,
)
from test_exercises import offset_weight


# --- the position tasks: each task's targets are the tokens its rule names, from a seeded generator -------------------

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
def test_the_tasks_refuse_bad_input_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- training: a seeded model for a task, and a loop whose loss falls on a tiny run -----------------------------------

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


def test_training_refuses_bad_input_by_name():
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


# --- accuracy at a length: right on planted predictors; a rescaled model keeps its weights ----------------------------

TINY_ONE_BLOCK = {"dim": 32, "n_layers": 1, "n_heads": 2, "hidden_dim": 64, "device": "cpu"}


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
    model = model_for_task(task, "alibi", max_seq_len=16, seed=0, **TINY_ONE_BLOCK)
    share = accuracy(model, task, seq_len=16, n_sequences=8)
    assert 0.0 <= share <= 1.0
    with pytest.raises(ValueError, match="n_sequences"):
        accuracy(model, task, seq_len=16, n_sequences=0)
    with pytest.raises(ValueError, match="model must have parameters"):
        accuracy(nn.ReLU(), task, seq_len=16)


@pytest.mark.parametrize("rule", list(TEST_TIME_RULES))
def test_rescaled_keeps_the_weights_and_applies_the_rule(rule):
    task = LookbackTask()
    model = model_for_task(task, "rope", max_seq_len=64, seed=1, **TINY_ONE_BLOCK)
    twin = rescaled(model, rule, 2.0, original_max_len=16)
    assert twin.config.scaling == RopeScaling(TEST_TIME_RULES[rule], 2.0, original_max_len=16)
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), twin.state_dict().values()))
    tokens, _ = task.batch(40, 2, torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert not torch.allclose(twin(tokens, use_cache=False), model(tokens, use_cache=False))
        same = rescaled(model, rule, 1.0, original_max_len=16)  # factor 1: plain RoPE again
        torch.testing.assert_close(same(tokens, use_cache=False), model(tokens, use_cache=False))


def test_rescaled_refuses_what_it_cannot_rescale():
    rope = model_for_task(CopyTask(), "rope", max_seq_len=16, seed=0, **TINY_ONE_BLOCK)
    with pytest.raises(ValueError, match="rule must be one of"):
        rescaled(rope, "llama3", 2.0, original_max_len=8)
    with pytest.raises(ValueError, match="position_encoding='rope'"):
        rescaled(model_for_task(CopyTask(), "none", max_seq_len=16, seed=0, **TINY_ONE_BLOCK), "pi", 2.0, original_max_len=8)
    with pytest.raises(ValueError, match="original_max_len"):
        rescaled(rope, "yarn", 2.0, original_max_len=0)
    with pytest.raises(TypeError, match="model must be a rope_lib.Model"):
        rescaled(nn.Linear(1, 1), "pi", 2.0, original_max_len=8)


# --- the attention probe: the model's own softmax, a planted offset head found ----------------------------------------

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


def test_the_probe_refuses_bad_input_by_name():
    with pytest.raises(ValueError, match=r"weights must have shape \(n_layers, B, H, T, T\)"):
        offset_scores(np.ones((2, 3, 4, 4)))
    with pytest.raises(ValueError, match="max_offset must be at most T − 1 = 15, got 16"):
        offset_scores(planted(), max_offset=16)
    with pytest.raises(ValueError, match="first_query must be at most T − 1 = 15, got 20"):
        offset_scores(planted(), first_query=20)
    with pytest.raises(TypeError, match="model must be a rope_lib.Model"):
        attention_weights(torch.nn.Linear(2, 2), torch.zeros(1, 2, dtype=torch.int64))


# --- the `make experiments` report: its schema checked, the chapter's means and spreads -------------------------------

RULES = {"pi": "linear", "ntk": "ntk", "yarn": "yarn"}


def run(task, encoding, seed):
    shares = {str(m): round(0.9 / m + 0.01 * seed, 4) for m in LENGTH_MULTIPLES}
    found = {"task": task, "encoding": encoding, "seed": seed, "train_seconds": 1.0, "curve": [3.0, 1.0 + seed, 0.5],
             "accuracy": shares, "probe": {"3": {"layer": 1, "head": 0, "offset": 3 if seed else 2, "score": 0.9 - 0.1 * seed}}}
    if encoding == "rope":
        found["rescaled"] = {rule: dict(shares) for rule in RULES}
    return found


def report():
    return {
        "date": "2026-12-01T00:00:00+00:00", "command": "test", "machine": {"cpu": "Test CPU"}, "versions": {}, "device": "cpu",
        "config": {"test_time_rules": RULES, "curve_every": 10, "original_max_len": 8},
        "tasks": {"copy": {"n_symbols": 4}, "lookback": {"n_symbols": 4}},
        "encodings": ["rope", "none"], "seeds": [0, 1, 2],
        "runs": [run(t, e, s) for t in ("copy", "lookback") for e in ("rope", "none") for s in (0, 1, 2)],
        "wall_seconds": 5.0,
    }


def test_a_complete_report_passes_and_is_summarised():
    r = check_report(report())
    assert len(runs_of(r, "copy", "rope")) == 3
    table = accuracy_over_seeds(r, "copy", "none")
    np.testing.assert_allclose(table[:, 0], [0.9, 0.91, 0.92])
    summary = accuracy_summary(r, "copy", "none")
    assert summary[1]["mean"] == pytest.approx(0.91) and summary[1]["std"] == pytest.approx(0.01)
    assert (summary[4]["min"], summary[4]["max"]) == (0.225, 0.245)
    assert accuracy_summary(r, "copy", "rope", "yarn") == accuracy_summary(r, "copy", "rope")
    steps, losses = curves_over_seeds(r, "lookback", "rope")
    assert steps.tolist() == [0, 10, 20] and losses[:, 1].tolist() == [1.0, 2.0, 3.0]
    probe = probe_over_seeds(r, "copy", "rope")["3"]
    assert probe == {"mean_score": pytest.approx(0.8), "seeds_on_offset": 2, "seeds": 3}  # seed 0 found offset 2, seed 2 scored 0.7


def broken(change):
    r = copy.deepcopy(report())
    change(r)
    return r


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.pop("machine"), r"missing keys \['machine'\]"),
        (lambda r: r.update(seeds=[0, 1]), "at least 3 seeds"),
        (lambda r: r["runs"].pop(), "runs missing"),
        (lambda r: r["runs"].append(copy.deepcopy(r["runs"][0])), "appears twice"),
        (lambda r: r["runs"][0]["accuracy"].pop("4"), "an accuracy at each length multiple"),
        (lambda r: r["runs"][0]["accuracy"].update({"2": 1.5}), r"shares in \[0, 1\]"),
        (lambda r: r["runs"][0]["rescaled"].pop("yarn"), "rescaled 'yarn'"),
        (lambda r: r["runs"][0].pop("rescaled"), "'rescaled' for RoPE"),
        (lambda r: r["runs"][3].update(curve=[1.0]), "learning curve must be at least two finite losses"),
        (lambda r: r["runs"][3].update(probe={}), "the probe must give"),
    ],
)
def test_an_incomplete_report_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        check_report(broken(change))


def test_load_experiments_reads_and_checks(tmp_path):
    path = tmp_path / "experiments.json"
    path.write_text(json.dumps(report()))
    assert load_experiments(path)["wall_seconds"] == 5.0
    with pytest.raises(FileNotFoundError, match="make experiments"):
        load_experiments(tmp_path / "missing.json")
    with pytest.raises(KeyError, match="no runs of task 'copy' with encoding 'alibi'"):
        runs_of(report(), "copy", "alibi")


def test_the_committed_report_says_what_the_trained_models_chapter_says():
    """The facts the chapter "RoPE in a trained model" states from book/data/experiments.json, pinned: both absolute
    tables copy exactly (1.0, not nearly), the learned table's 2× copy is about twice chance (not near it), chance is
    1/16 = 0.0625, and RoPE's loss first drops below 0.1 nats in the 20-step window that starts at step 60."""
    from paths import ROOT
    from rope_lib.teach.trained_models import LookbackTask

    committed = load_experiments(ROOT / "book" / "data" / "experiments.json")
    mean = lambda task, enc, m: accuracy_summary(committed, task, enc)[m]["mean"]  # noqa: E731
    chance = 1 / LookbackTask().n_symbols
    assert chance == 0.0625 and f"{chance:.4f}" == "0.0625" and f"{chance:.3f}" == "0.062"  # why the chapter prints 4 digits
    assert mean("copy", "sinusoidal", 1) == mean("copy", "learned", 1) == mean("copy", "rope", 1) == 1.0
    assert mean("copy", "alibi", 1) < 1.0
    assert 1.8 < mean("copy", "learned", 2) / chance < 2.5
    assert all(mean("copy", enc, 2) < 1.5 * chance for enc in ("rope", "none", "sinusoidal"))
    steps, losses = curves_over_seeds(committed, "copy", "rope")
    assert committed["config"]["curve_every"] == 20 and steps[np.argmax(losses.mean(axis=0) < 0.1)] == 60


# --- the figures and the widget: described from their own numbers, refusing bad input ---------------------------------

def offset_maps(layers=2, heads=3, seq=10, offset=2):
    """Weights (n_layers, 1, H, T, T) in which every head looks `offset` back (or at the first token before that)."""
    w = np.zeros((layers, 1, heads, seq, seq))
    t = np.arange(seq)
    w[..., t, np.where(t >= offset, t - offset, 0)] = 1.0
    return w


def test_the_figures_are_described_from_their_numbers():
    r = report()
    figures = [plot_loss_curve([3.0, 2.0, 0.125], title="a test run"), plot_learning_curves(r), plot_length_generalisation(r),
               plot_offset_probe(r), plot_attention_map(offset_maps(), 1, 2, offset=2)]
    for fig in figures:
        assert isinstance(fig, BookFigure) and len(fig.alt_text.split()) >= 20 and fig.to_png().startswith(b"\x89PNG")
    assert "starts at 3.00 and ends at 0.125" in figures[0].alt_text
    assert "RoPE on copy 0.5" in figures[1].alt_text  # the mean of the last losses 0.5, 0.5, 0.5
    assert "NoPE 0.23" in figures[2].alt_text and "RoPE + YaRN 0.23" in figures[2].alt_text  # (0.225 + 0.235 + 0.245) / 3, printed as 0.23
    assert "RoPE: 0.80" in figures[3].alt_text
    assert "puts 1.00 of its weight" in figures[4].alt_text


def test_the_widget_has_a_frame_per_layer_and_head():
    widget = attention_map_widget(offset_maps(), layer=1, head=2, offset=2)
    assert [c.name for c in widget.controls] == ["layer", "head"] and widget.defaults() == {"layer": 1, "head": 2}
    assert len(widget.frames()) == 6
    assert "layer 0, head 1" in widget.figure(layer=0, head=1).alt_text


def test_the_figures_refuse_bad_input_by_name():
    with pytest.raises(ValueError, match="losses must be a curve of at least two steps"):
        plot_loss_curve([1.0], title="x")
    with pytest.raises(ValueError, match=r"layer must be in \[0, 2\) and head in \[0, 3\)"):
        plot_attention_map(offset_maps(), 2, 0)
    with pytest.raises(ValueError, match=r"weights must have shape \(n_layers, B, H, T, T\)"):
        attention_map_widget(np.ones((2, 3, 4, 4)))
    with pytest.raises(ValueError, match="at least two layers and two heads"):
        attention_map_widget(offset_maps(layers=1))


# --- both languages ---------------------------------------------------------------------------------------------------

def figures(lang):
    r = report()
    return [plot_loss_curve([3.0, 2.0, 0.125], title="一次测试" if lang == "zh" else "a test run", lang=lang),
            plot_learning_curves(r, lang=lang), plot_length_generalisation(r, lang=lang), plot_offset_probe(r, lang=lang),
            plot_attention_map(offset_maps(), 1, 2, offset=2, lang=lang)]


def test_the_chinese_figures_are_in_chinese_and_draw_every_glyph():
    for fig in figures("zh"):
        assert_chinese_figure(fig)
    loss, learning, length, probe, attention = figures("zh")
    assert loss.axes[0].get_xlabel() == "训练步数" and "从 3.00 开始，最后为 0.125" in loss.alt_text
    assert "NoPE" in drawn_words(learning) and "NoPE在复制任务上 0.5" in learning.alt_text
    assert length.axes[0].get_xlabel() == "长度 / 训练长度" and "RoPE + YaRN 0.23" in length.alt_text
    assert "RoPE：0.80" in probe.alt_text and any("往前" in w for w in drawn_words(probe))
    assert attention.axes[0].get_title() == "第 1 层，第 2 个头" and "平均把 1.00 的权重" in attention.alt_text


def test_the_english_figures_keep_their_words():
    for fig in figures("en"):
        assert_english_figure(fig)
    assert figures("en")[4].axes[0].get_title() == "layer 1, head 2"
    assert encoding_name("sinusoidal") == "sinusoidal" and encoding_name("sinusoidal", lang="zh") == "正弦位置编码"


def test_the_widget_speaks_chinese():
    widget = attention_map_widget(offset_maps(), layer=1, head=2, offset=2, lang="zh")
    assert [c.label for c in widget.controls] == ["层", "注意力头"] and widget.lang == "zh"
    fig = widget.figure(layer=0, head=1)
    assert fig.axes[0].get_title() == "第 0 层，第 1 个头" and missing_glyphs(fig) == []
    assert [c.label for c in attention_map_widget(offset_maps()).controls] == ["layer", "head"]


def summed(weights, offset):
    t = np.arange(offset, len(weights))
    return weights[t, t - offset].sum()


def above(weights, offset):
    return np.diagonal(weights, offset).mean()


def test_the_check_speaks_both_languages():
    passed = check_offset_weight(offset_weight, lang="zh")
    assert passed and "平均权重" in passed.message and str(passed).startswith("通过")
    assert check_offset_weight(offset_weight).message.startswith("offset_weight gives the mean weight")
    wrong = check_offset_weight(summed, lang="zh")
    assert not wrong and "要的是均值，不是总和" in wrong.message and str(wrong).startswith("尚未通过")
    assert "a mean, not a sum" in check_offset_weight(summed).message
    assert "主对角线下方" in check_offset_weight(above, lang="zh").message
    assert "返回了 None" in check_offset_weight(lambda w, o: None, lang="zh").message


@pytest.mark.parametrize("call", [
    lambda: plot_loss_curve([1.0, 0.5], title="x", lang="fr"),
    lambda: plot_learning_curves(report(), lang="fr"),
    lambda: plot_length_generalisation(report(), lang="fr"),
    lambda: plot_offset_probe(report(), lang="fr"),
    lambda: plot_attention_map(offset_maps(), 0, 0, lang="fr"),
    lambda: attention_map_widget(offset_maps(), lang="fr"),
    lambda: check_offset_weight(offset_weight, lang="fr"),
])
def test_an_unknown_language_is_refused(call):
    with pytest.raises(ValueError, match="lang"):
        call()
