"""`python -m benchmarks.position_encodings` (`make experiments`): five position encodings trained on two tasks
that need position, and asked the same tasks at 1×, 2× and 4× the trained length.

For every task of `rope_lib.teach.trained_models.position_tasks` (copying, and retrieving the token k back), every encoding of
`rope_lib.llama.POSITION_ENCODINGS` (RoPE, NoPE, sinusoidal and learned absolute tables, ALiBi) and every seed, one small
`rope_lib.Model` of the same size is trained with the same steps, batches and optimiser
(`rope_lib.teach.trained_models.train_model`), then evaluated on fresh sequences at each length
(`rope_lib.teach.trained_models.accuracy`). A RoPE model is also evaluated with the test-time rescalings
`TEST_TIME_RULES` (position interpolation, NTK-aware, YaRN) at the factor s = length / trained length, with the same
weights. The attention probe (`rope_lib.teach.trained_models.best_offset_head`) records, for each run, the head
that attends most by one relative offset. A learned table has as many rows as the longest evaluation length; the
rows past the trained length get no gradient and keep their initial values.

Writes `book/data/experiments.json`: configs, seeds, versions, the date, the machine, and per run its learning curve
(the training loss averaged over windows of CURVE_EVERY steps), accuracies and probe. The chapter "RoPE in a trained
model" reads it through `rope_lib.teach.trained_models.experiment_report`; it never runs this script.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

import torch

from benchmarks.rope_speed import DATA_DIR, machine_info, package_versions
from rope_lib.llama import POSITION_ENCODINGS, default_device
from rope_lib.teach.trained_models import (
    BETAS,
    EVAL_SEED,
    LEARNING_RATE,
    TASKS,
    TEST_TIME_RULES,
    WEIGHT_DECAY,
    accuracy,
    attention_weights,
    best_offset_head,
    model_for_task,
    rescaled,
    train_model,
)
from rope_lib.teach.trained_models.experiment_report import EXPERIMENT_FILE, LENGTH_MULTIPLES, check_report

TRAINED_LEN = 32
"""Both tasks train on sequences of 32 tokens (the copy task: a span of 15), and are asked at 32, 64 and 128."""

MODEL = {"dim": 64, "n_layers": 2, "n_heads": 4, "hidden_dim": 128}
"""Every model: two LLaMA blocks of four heads of 16 coordinates, the size at which both tasks train in seconds."""

STEPS = 2000
BATCH_SIZE = 32
SEEDS = (0, 1, 2)
CURVE_EVERY = 20
"""The learning curve keeps the mean training loss of each window of 20 steps."""
EVAL_SEQUENCES = 256
PROBE_SEQUENCES = 64
PROBE_SEED = 20_000


def tasks() -> dict:
    """Every task of `TASKS`, with its default settings."""
    return {name: make() for name, make in TASKS.items()}


def curve(losses, every: int) -> list[float]:
    """The mean loss of each window of `every` steps (the last window may be shorter)."""
    return [float(losses[i : i + every].mean()) for i in range(0, len(losses), every)]


def probe(model, task, seq_len: int) -> dict:
    """The best offset head on probe batches of the task: per expected offset (the copy's span; each k of the lookback
    task, one batch per k), the head found, its offset and score."""
    found = {}
    generator = torch.Generator().manual_seed(PROBE_SEED)
    for expected, batch_options in task.probe_batches(seq_len).items():
        tokens, _ = task.batch(seq_len, PROBE_SEQUENCES, generator, **batch_options)
        head = best_offset_head(attention_weights(model, tokens.to(model.device)), first_query=task.first_target(seq_len))
        found[str(expected)] = {"layer": head.layer, "head": head.head, "offset": head.offset, "score": head.score}
    return found


def one_run(task, encoding: str, seed: int, *, steps: int, batch_size: int, device, model_sizes: dict) -> dict:
    lengths = {str(m): TRAINED_LEN * m for m in LENGTH_MULTIPLES}
    model = model_for_task(task, encoding, max_seq_len=max(lengths.values()), seed=seed, device=device, **model_sizes)
    start = time.perf_counter()
    losses = train_model(model, task, seq_len=TRAINED_LEN, steps=steps, batch_size=batch_size, seed=seed)
    seconds = time.perf_counter() - start
    ask = {"n_sequences": EVAL_SEQUENCES, "seed": EVAL_SEED}
    run = {
        "task": task.name,
        "encoding": encoding,
        "seed": seed,
        "train_seconds": seconds,
        "curve": curve(losses, CURVE_EVERY),
        "accuracy": {m: accuracy(model, task, seq_len=n, **ask) for m, n in lengths.items()},
        "probe": probe(model, task, TRAINED_LEN),
    }
    if encoding == "rope":
        run["rescaled"] = {
            rule: {m: accuracy(rescaled(model, rule, float(m), original_max_len=TRAINED_LEN), task, seq_len=n, **ask) for m, n in lengths.items()}
            for rule in TEST_TIME_RULES
        }
    return run


def run(*, seeds=SEEDS, steps: int = STEPS, batch_size: int = BATCH_SIZE, model_sizes=None, device=None, progress: bool = True) -> dict:
    """Every task × encoding × seed; the report `book/data/experiments.json` holds."""
    from tqdm import tqdm

    device = default_device() if device is None else torch.device(device)
    model_sizes = dict(MODEL if model_sizes is None else model_sizes)
    cases = [(task, encoding, seed) for task in tasks().values() for encoding in POSITION_ENCODINGS for seed in seeds]
    started = time.perf_counter()
    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python -m benchmarks.position_encodings", *sys.argv[1:]]),
        "machine": machine_info(device),
        "versions": package_versions(),
        "device": device.type,
        "config": {
            "model": model_sizes,
            "original_max_len": TRAINED_LEN,
            "length_multiples": list(LENGTH_MULTIPLES),
            "steps": steps,
            "batch_size": batch_size,
            "optimiser": {"name": "AdamW", "lr": LEARNING_RATE, "betas": list(BETAS), "weight_decay": WEIGHT_DECAY},
            "curve_every": CURVE_EVERY,
            "eval": {"n_sequences": EVAL_SEQUENCES, "seed": EVAL_SEED},
            "probe": {"n_sequences": PROBE_SEQUENCES, "seed": PROBE_SEED},
            "test_time_rules": TEST_TIME_RULES,
        },
        "tasks": {name: {"n_symbols": task.n_symbols, "vocab_size": task.vocab_size, **({"ks": list(task.ks)} if name == "lookback" else {})}
                  for name, task in tasks().items()},
        "encodings": list(POSITION_ENCODINGS),
        "seeds": list(seeds),
        "runs": [],
    }
    bar = tqdm(cases, desc="position encodings", unit="run", disable=not progress)
    for task, encoding, seed in bar:
        bar.set_postfix_str(f"{task.name} {encoding} seed {seed}")
        report["runs"].append(one_run(task, encoding, seed, steps=steps, batch_size=batch_size, device=device, model_sizes=model_sizes))
    report["wall_seconds"] = time.perf_counter() - started
    return check_report(report)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.position_encodings", description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    parser.add_argument("--dim", type=int, default=MODEL["dim"], help="the width of every model (hidden_dim is twice it)")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: CUDA when available)")
    parser.add_argument(
        "--threads", type=int, default=1,
        help="CPU threads (default 1: these matrices are tiny, and more threads cost more in start-up than they save)",
    )
    parser.add_argument("--output", type=Path, default=DATA_DIR / EXPERIMENT_FILE)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    sizes = {**MODEL, "dim": args.dim, "hidden_dim": 2 * args.dim}
    report = run(seeds=args.seeds, steps=args.steps, batch_size=args.batch_size, model_sizes=sizes, device=args.device)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=1) + "\n")
    print(f"{len(report['runs'])} runs in {report['wall_seconds']:.0f} s on {report['device']}; wrote {args.output}")
    return report


if __name__ == "__main__":
    main()
