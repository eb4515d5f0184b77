"""Reading the `make experiments` report (benchmarks/position_encodings.py writes it), for chapter "RoPE in a trained
model": its schema, checked, and the means and spreads over seeds the chapter shows.

The chapter never runs the experiment: it reads the committed JSON, `book/data/experiments.json`. This module only
reads and checks; nothing in rope_lib writes into the book.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .attention_probe import OFFSET_HEAD_THRESHOLD

EXPERIMENT_FILE = "experiments.json"
LENGTH_MULTIPLES = (1, 2, 4)
"""Every model is asked its task at the trained length L, at 2L and at 4L."""
MIN_SEEDS = 3
RUN_KEYS = ("task", "encoding", "seed", "train_seconds", "curve", "accuracy", "probe")
REPORT_KEYS = ("date", "command", "machine", "versions", "device", "config", "tasks", "encodings", "seeds", "runs", "wall_seconds")
PROBE_KEYS = ("layer", "head", "offset", "score")


def _fail(what: str) -> None:
    raise ValueError(f"report: {what}")


def _check_accuracies(table, where: str) -> None:
    if not isinstance(table, dict) or sorted(table) != sorted(str(m) for m in LENGTH_MULTIPLES):
        _fail(f"{where} must hold an accuracy at each length multiple {LENGTH_MULTIPLES}, got {table!r:.120}")
    for value in table.values():
        if not (isinstance(value, float) and 0.0 <= value <= 1.0):
            _fail(f"{where} must be shares in [0, 1], got {value!r}")


def check_report(report: dict) -> dict:
    """The report, if it is complete: every task × encoding × seed (at least MIN_SEEDS seeds) exactly once, each with
    its learning curve, an accuracy at every length multiple, its probe, and for RoPE every test-time rule."""
    if not isinstance(report, dict):
        _fail(f"must be a JSON object, got {type(report).__name__}")
    missing = [key for key in REPORT_KEYS if key not in report]
    if missing:
        _fail(f"missing keys {missing}")
    if len(report["seeds"]) < MIN_SEEDS:
        _fail(f"needs at least {MIN_SEEDS} seeds, got {report['seeds']}")
    rules = report["config"]["test_time_rules"]
    seen = {}
    for run in report["runs"]:
        if tuple(run) != RUN_KEYS + (("rescaled",) if run.get("encoding") == "rope" else ()):
            _fail(f"a run must have the keys {RUN_KEYS} (and 'rescaled' for RoPE), got {tuple(run)}")
        key = (run["task"], run["encoding"], run["seed"])
        if key in seen:
            _fail(f"run {key} appears twice")
        seen[key] = run
        curve = np.asarray(run["curve"], dtype=float)
        if curve.ndim != 1 or curve.size < 2 or not np.isfinite(curve).all():
            _fail(f"run {key}: the learning curve must be at least two finite losses, got {run['curve']!r:.120}")
        _check_accuracies(run["accuracy"], f"run {key} accuracy")
        for rule in rules if run["encoding"] == "rope" else ():
            _check_accuracies(run["rescaled"].get(rule), f"run {key} rescaled {rule!r}")
        if not run["probe"] or any(tuple(head) != PROBE_KEYS for head in run["probe"].values()):
            _fail(f"run {key}: the probe must give {PROBE_KEYS} per expected offset, got {run['probe']!r:.120}")
    wanted = {(task, encoding, seed) for task in report["tasks"] for encoding in report["encodings"] for seed in report["seeds"]}
    if set(seen) != wanted:
        _fail(f"runs missing: {sorted(wanted - set(seen))[:5]}; runs not asked for: {sorted(set(seen) - wanted)[:5]}")
    return report


def load_experiments(path) -> dict:
    """The report at `path` (an experiments.json written by `make experiments`), checked by `check_report`."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path must name a report written by `make experiments`, got {str(path)!r}, which does not exist")
    return check_report(json.loads(path.read_text()))


def runs_of(report: dict, task: str, encoding: str) -> list[dict]:
    """The runs of one task and encoding, one per seed, in the report's order."""
    found = [run for run in report["runs"] if (run["task"], run["encoding"]) == (task, encoding)]
    if not found:
        raise KeyError(f"no runs of task {task!r} with encoding {encoding!r}; tasks {sorted(report['tasks'])}, encodings {report['encodings']}")
    return found


def accuracy_over_seeds(report: dict, task: str, encoding: str, rule: str | None = None) -> np.ndarray:
    """Accuracy (seeds, len(LENGTH_MULTIPLES)) of one task and encoding; rule: a test-time rescaling of RoPE."""
    rows = []
    for run in runs_of(report, task, encoding):
        table = run["accuracy"] if rule is None else run["rescaled"][rule]
        rows.append([table[str(m)] for m in LENGTH_MULTIPLES])
    return np.array(rows)


def accuracy_summary(report: dict, task: str, encoding: str, rule: str | None = None) -> dict[int, dict[str, float]]:
    """Per length multiple: the mean, the standard deviation (ddof 1) and the lowest and highest accuracy over seeds."""
    table = accuracy_over_seeds(report, task, encoding, rule)
    return {
        m: {"mean": float(col.mean()), "std": float(col.std(ddof=1)), "min": float(col.min()), "max": float(col.max())}
        for m, col in zip(LENGTH_MULTIPLES, table.T)
    }


def curves_over_seeds(report: dict, task: str, encoding: str) -> tuple[np.ndarray, np.ndarray]:
    """(steps, losses): the step at the start of each curve window, and the losses (seeds, windows)."""
    losses = np.array([run["curve"] for run in runs_of(report, task, encoding)])
    return np.arange(losses.shape[1]) * report["config"]["curve_every"], losses


def probe_over_seeds(report: dict, task: str, encoding: str) -> dict[str, dict]:
    """Per expected offset: the mean best-head score over seeds, and in how many seeds the best head sat exactly on
    the expected offset with a score of at least `OFFSET_HEAD_THRESHOLD`."""
    runs = runs_of(report, task, encoding)
    summary = {}
    for expected in runs[0]["probe"]:
        heads = [run["probe"][expected] for run in runs]
        on_offset = sum(h["offset"] == int(expected) and h["score"] >= OFFSET_HEAD_THRESHOLD for h in heads)
        summary[expected] = {"mean_score": float(np.mean([h["score"] for h in heads])), "seeds_on_offset": int(on_offset), "seeds": len(heads)}
    return summary
