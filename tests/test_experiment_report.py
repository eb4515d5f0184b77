"""rope_lib.teach.experiment_report: the schema of a `make experiments` report is checked, and the means and spreads
the chapter shows are those of the runs."""

import copy
import json

import numpy as np
import pytest

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
        "config": {"test_time_rules": RULES, "curve_every": 10, "trained_len": 8},
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
