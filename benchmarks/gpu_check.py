"""`make gpu-check` (`python -m benchmarks.gpu_check`): everything this project needs a GPU for, in one command, so
that the minutes a GPU is at hand go on running it.

1. The `gpu` tests (`pytest -m gpu`): the same computations on CUDA as on the CPU. A failure ends the check with
   a non-zero exit before anything is timed.
2. The RoPE implementations timed against a copy of the same bytes (benchmarks/rope_speed.py): rope_lib's eager
   and fused paths, Hugging Face's, Meta's, rotary-embedding-torch's and liger-kernel's Triton RoPE (a GPU-native
   peer, installed by `make gpu-check` from requirements-gpu.txt).
3. Whole-model decoding against Hugging Face's `generate`, each eager and compiled (benchmarks/decode_speed.py),
   in bf16, at about 80M and 1.1B parameters.

It prints the tables and writes bench_cuda.json into book/data, where the speed appendix reads it.

`--device cpu` (`make gpu-check DEVICE=cpu`) runs the same three steps on the CPU at tiny sizes in under two
minutes and writes into _build/gpu-check/, never over the committed bench_cpu.json: tests/test_gpu_check.py runs
it inside `make test`, so that the script is known to work before a GPU is at hand.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import torch

from benchmarks import decode_speed, rope_speed

ROOT = Path(__file__).resolve().parents[1]

CUDA_SIZES = {
    "80M": decode_speed.SIZES["80M"],
    "1.1B": {"vocab_size": 32000, "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22,
             "num_attention_heads": 32, "num_key_value_heads": 4},
}
"""The decoders timed on CUDA: the 80M shape of `make bench`, and TinyLlama's 1.1B shape (grouped key/value heads)."""

DRY_RUN_SIZES = {
    "tiny": {"vocab_size": 128, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2},
}
"""The one decoder of the CPU dry run: small enough to compile and decode in seconds."""

PLANS = {
    "cuda": {"seq_lens": (512, 2048, 8192), "repeats": 15, "warmup": 2, "sizes": CUDA_SIZES, "rounds": 3, "new_tokens": 128,
             "dtype": torch.bfloat16, "output_dir": ROOT / "book" / "data"},
    "cpu": {"seq_lens": (64,), "repeats": 3, "warmup": 1, "sizes": DRY_RUN_SIZES, "rounds": 1, "new_tokens": 8,
            "dtype": torch.bfloat16, "output_dir": ROOT / "_build" / "gpu-check"},
}
"""What each device runs: the CUDA check, and the CPU's dry run of the same steps."""


def gpu_tests() -> int:
    """Run the `gpu` tests in a child pytest; its exit status (0 when every one passed or, without CUDA, skipped)."""
    command = [sys.executable, "-m", "pytest", "-q", "-m", "gpu", "-p", "no:cacheprovider", "tests", "--ignore=tests/book_site"]
    return subprocess.run(command, cwd=ROOT).returncode


def check(device: str, output_dir: Path | None = None) -> dict:
    """The three steps on `device` ("cuda" or "cpu"); the report written as bench_<device>.json into output_dir
    (default: the plan's). Raises SystemExit(1) when a gpu test fails."""
    plan = PLANS[device]
    started = time.perf_counter()
    status = gpu_tests()
    if status:
        raise SystemExit(f"gpu-check: the gpu tests failed (pytest exit status {status}); nothing was timed")
    report = rope_speed.run([device], list(rope_speed.DTYPES), plan["seq_lens"], warmup=plan["warmup"],
                            repeats=plan["repeats"], pitfalls=device == "cuda", progress=False, decode_sizes=())[device]
    report["command"] = "make gpu-check" + ("" if device == "cuda" else f" DEVICE={device}")
    report["decode"] = [
        decode_speed.compare(size, torch.device(device), rounds=plan["rounds"], new_tokens=plan["new_tokens"],
                             shapes=plan["sizes"], dtype=plan["dtype"])
        for size in plan["sizes"]
    ]
    report["gpu_check_s"] = time.perf_counter() - started
    folder = plan["output_dir"] if output_dir is None else output_dir
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"bench_{device}.json"
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(rope_speed.format_table(report))
    print(f"\nwhole-model greedy decoding, batch 1, {str(plan['dtype']).removeprefix('torch.')}:")
    print(decode_speed.format_table(report["decode"]))
    if report["skipped"]:
        print("skipped:", report["skipped"])
    print(f"wrote {path} in {report['gpu_check_s']:.0f} s")
    return report


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_check", description=__doc__.split("\n")[0])
    parser.add_argument("--device", choices=sorted(PLANS), default="cuda", help="cuda (the check) or cpu (its dry run)")
    parser.add_argument("--output-dir", type=Path, default=None, help="where bench_<device>.json goes")
    args = parser.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("gpu-check: no CUDA device is visible; `make gpu-check DEVICE=cpu` runs the dry run on the CPU")
    return check(args.device, args.output_dir)


if __name__ == "__main__":
    main()
