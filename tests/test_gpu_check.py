"""`make gpu-check` (benchmarks/gpu_check.py), run end to end as its CPU dry run, so that the script a GPU's few
minutes go on is known to work before a GPU is at hand; and a failing gpu test ends it before anything is timed."""

import json
import subprocess
import sys

import pytest

from benchmarks import gpu_check
from paths import ROOT


@pytest.mark.slow
def test_the_dry_run_runs_every_step_and_writes_the_report(tmp_path):
    done = subprocess.run([sys.executable, "-m", "benchmarks.gpu_check", "--device", "cpu", "--output-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((tmp_path / "bench_cpu.json").read_text())
    timed = {r["impl"] for r in report["results"]}
    assert {"copy", "rope_lib_eager", "rope_lib_fused", "hf", "meta", "lucidrains"} <= timed
    assert report["skipped"] == {"liger": "a Triton kernel: timed on CUDA only"}
    (decode,) = report["decode"]
    assert decode["dtype"] == "bfloat16" and decode["identical_tokens"]
    for key in ("hf_tokens_per_s", "hf_compiled_tokens_per_s", "rope_lib_tokens_per_s", "rope_lib_compiled_tokens_per_s"):
        assert decode[key] > 0
    assert set(decode["compile_s"]) == {"hf_compiled", "rope_lib_compiled"}
    assert "whole-model greedy decoding" in done.stdout and "wrote" in done.stdout


def test_a_failing_gpu_test_ends_the_check_before_anything_is_timed(monkeypatch, tmp_path):
    monkeypatch.setattr(gpu_check, "gpu_tests", lambda: 1)
    monkeypatch.setattr(gpu_check.rope_speed, "run", lambda *a, **k: pytest.fail("timed after a failing gpu test"))
    with pytest.raises(SystemExit, match="the gpu tests failed"):
        gpu_check.check("cpu", tmp_path)
    assert not list(tmp_path.iterdir())


def test_the_check_needs_cuda_unless_told_to_dry_run(monkeypatch):
    monkeypatch.setattr(gpu_check.torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit, match="DEVICE=cpu"):
        gpu_check.main(["--device", "cuda"])


def test_the_dry_run_never_writes_over_the_committed_cpu_report():
    assert gpu_check.PLANS["cpu"]["output_dir"] != ROOT / "book" / "data"
    assert gpu_check.PLANS["cuda"]["output_dir"] == ROOT / "book" / "data"
