"""`python -m benchmarks.position_encodings` (`make experiments`): a tiny run writes the documented report, and the
committed book/data/experiments.json is complete: 5 encodings × 2 tasks × at least 3 seeds × 3 lengths, with curves."""

import json

import torch

from benchmarks import position_encodings as experiment
from benchmarks.rope_speed import DATA_DIR
from rope_lib.llama import POSITION_ENCODINGS
from rope_lib.teach.trained_models.experiment_report import EXPERIMENT_FILE, LENGTH_MULTIPLES, load_experiments
from rope_lib.teach.trained_models import TEST_TIME_RULES


def test_a_tiny_run_writes_the_documented_report(tmp_path, monkeypatch, capsys):
    for name, value in {"TRAINED_LEN": 8, "EVAL_SEQUENCES": 4, "PROBE_SEQUENCES": 2, "CURVE_EVERY": 2}.items():
        monkeypatch.setattr(experiment, name, value)
    threads = torch.get_num_threads()
    try:
        experiment.main(["--steps", "4", "--dim", "16", "--device", "cpu", "--output", str(tmp_path / "out.json")])
    finally:
        torch.set_num_threads(threads)
    assert "30 runs" in capsys.readouterr().out
    report = load_experiments(tmp_path / "out.json")
    assert report["config"]["model"] == {"dim": 16, "n_layers": 2, "n_heads": 4, "hidden_dim": 32}
    assert report["config"]["steps"] == 4 and report["versions"]["torch"] == torch.__version__ and report["device"] == "cpu"
    assert all(len(run["curve"]) == 2 for run in report["runs"])  # 4 steps in windows of 2
    assert set(report["runs"][0]["probe"]) == {"3"}  # the copy's span at T = 8
    assert {run["task"] for run in report["runs"]} == {"copy", "lookback"}


def test_the_committed_report_is_complete():
    report = load_experiments(DATA_DIR / EXPERIMENT_FILE)
    assert report["encodings"] == list(POSITION_ENCODINGS) and len(POSITION_ENCODINGS) == 5
    assert set(report["tasks"]) == {"copy", "lookback"} and len(report["seeds"]) >= 3
    assert len(report["runs"]) == 5 * 2 * len(report["seeds"])
    for run in report["runs"]:
        assert sorted(run["accuracy"]) == sorted(str(m) for m in LENGTH_MULTIPLES)
        assert len(run["curve"]) == report["config"]["steps"] // report["config"]["curve_every"]
        if run["encoding"] == "rope":
            assert set(run["rescaled"]) == set(TEST_TIME_RULES)
    for key in ("date", "machine", "versions", "config", "wall_seconds"):
        assert report[key]
    json.dumps(report)  # plain JSON all the way down
