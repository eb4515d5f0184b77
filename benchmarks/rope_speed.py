"""`python -m benchmarks.rope_speed` (`make bench`): RoPE implementations timed against a copy of the same bytes.

RoPE is bound by memory bandwidth (chapter "Implementations and speed"), so the
yardstick is `copy_`: reading x and writing a tensor of the same size. Every
implementation rotates one (B, T, H, D) = (1, S, 32, 128) tensor, in one process:

* `copy`            dst.copy_(x), into a preallocated dst: the ceiling;
* `rope_lib_eager`  rope_lib.rope.rotate_pairs with precomputed cos/sin (allocates its output);
* `rope_lib_fused`  rope_lib.kernels.rotate_pairs_fused into a preallocated out (its
  first kernel: on the CPU the C++ loop of rope_lib.kernels.cpu_kernel);
* `rope_lib_fused_inplace`  the same, over x itself (out=x), as rope_lib.kernels.FusedAttention
  rotates its fresh queries and keys;
* `rope_lib_compiled`  the half layout's torch.compile kernel, into out;
* `rope_lib_pair_axis`  the interleaved pairs as a size-2 axis, torch.compile'd, into out;
* `rope_lib_fused_permuted`  an interleaved model run in the half layout after
  `permute_rows_to_half` of W_q and W_k: per call the half kernel, once per
  model the permutation, timed separately (`permutation` in the JSON);
* `meta`        llama_models' apply_rotary_emb with its precompute_freqs_cis table;
* `hf`          transformers' apply_rotary_pos_emb with LlamaRotaryEmbedding's cos/sin, on (B, H, T, D) views;
* `lucidrains`  rotary_embedding_torch's RotaryEmbedding.rotate_queries_or_keys on (B, H, T, D) views.

Meta's and Hugging Face's functions rotate queries and keys together: they get
two tensors and their time is halved. Method: warm-up calls (which also
compile), then rounds in which every implementation runs, in an order shuffled
per round so that a disturbance of the shared machine hits all of them alike;
within a round a fast implementation runs a few times and keeps its fastest
call; the median over the rounds is reported. Successive calls work on
successive copies of the inputs and outputs (at least 128 MiB of them), so that
every call reads x from memory, as RoPE on fresh activations does. GB/s counts the bytes every
implementation must move, x read once and the result written once.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import itertools
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import torch

from benchmarks import decode_speed
from benchmarks.timing import synchronize
from rope_lib import permute_rows_to_half, rope_cos_sin
from rope_lib.rope import rotate_pairs
from rope_lib.kernels import kernel_name, rotate_pairs_fused
from rope_lib.kernels.cpu_kernel import private_cache_bytes
from rope_lib.teach.implementations_and_speed import RECORD_KEYS

BATCH, HEADS, HEAD_DIM = 1, 32, 128
"""One LLaMA-7B-sized attention layer's queries: (B, T, H, D) = (1, S, 32, 128)."""
MODEL_DIM = HEADS * HEAD_DIM
THETA = 10000.0
SEQ_LENS = (512, 2048, 8192)
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
PITFALL_SEQ_LEN = 8192
"""Positions 0 … 8191 for the bf16 study: bf16 spaces integers 32 apart just below 8192."""
DATA_DIR = Path(__file__).resolve().parents[1] / "book" / "data"
PEERS = {"meta": "llama-models", "hf": "transformers", "lucidrains": "rotary-embedding-torch", "liger": "liger-kernel"}

IMPLS = {
    "copy": {"call": "dst.copy_(x)", "allocates": "nothing (dst preallocated)"},
    "rope_lib_eager": {"call": "rope_lib.rope.rotate_pairs(x, cos, sin, layout=…)", "allocates": "the output and float32 temporaries"},
    "rope_lib_fused": {"call": "rope_lib.kernels.rotate_pairs_fused(x, cos, sin, layout=…, out=out)", "allocates": "nothing (out preallocated)"},
    "rope_lib_fused_inplace": {"call": "rope_lib.kernels.rotate_pairs_fused(x, cos, sin, layout=…, out=x)", "allocates": "nothing (x is overwritten)"},
    "rope_lib_compiled": {
        "call": "rotate_pairs_fused(x, cos, sin, layout='half', out=out, kernel='half'): the halves as a size-2 axis, torch.compile'd",
        "allocates": "nothing (out preallocated)",
    },
    "rope_lib_fused_permuted": {
        "call": "the half-layout fused kernel on activations made by permute_rows_to_half(W_q), (W_k)",
        "allocates": "nothing per call; the permuted weights once per model",
    },
    "rope_lib_pair_axis": {
        "call": "rotate_pairs_fused(x, cos, sin, out=out, kernel='pair_axis'): the interleaved pairs as a size-2 innermost axis, compiled",
        "allocates": "nothing (out preallocated)",
    },
    "meta": {"call": "llama_models.llama3.model.apply_rotary_emb(xq, xk, freqs_cis[:S]) (time / 2)", "allocates": "float32 copies, complex products and outputs"},
    "hf": {
        "call": "transformers…modeling_llama.apply_rotary_pos_emb(q, k, cos, sin) on (B, H, T, D) views (time / 2)",
        "allocates": "rotate_half's halves and concatenation, products and outputs",
    },
    "lucidrains": {
        "call": "rotary_embedding_torch.RotaryEmbedding(128).rotate_queries_or_keys(x) on a (B, H, T, D) view",
        "allocates": "cos/sin of its cached angles, rotate_half's pieces, products, a concatenation and the output",
    },
    "liger": {
        "call": "liger_kernel.transformers.rope.liger_rotary_pos_emb(q, k, cos, sin) on (B, H, T, D) views (time / 2): a Triton kernel, CUDA only",
        "allocates": "whatever its Triton kernel and its layout changes need (it rotates q and k in one launch)",
    },
}


def tensor_bytes(seq_len: int, dtype: torch.dtype) -> int:
    """Bytes one rotation must move: x (1, S, 32, 128) read once, the result written once."""
    return 2 * BATCH * seq_len * HEADS * HEAD_DIM * torch.empty((), dtype=dtype).element_size()


CALLS_PER_ROUND = 5
"""Back-to-back calls of an implementation in one round, of which the fastest counts…"""
SLOW_CALL_MS = 100.0
"""…unless one call takes longer than this: slow implementations run once per round."""


RING_BYTES = 128 * 2**20
"""Each call works on the next of several copies of its inputs and outputs, so that a tensor is touched
again only after this many bytes of others: more than the last-level cache of current CPUs and GPUs
(tens of MB). Every call then reads x from memory, as RoPE on fresh activations does."""


def ring_size(tensor_bytes_: int) -> int:
    """How many copies of a tensor of this size fill RING_BYTES (at least 2)."""
    return max(2, math.ceil(RING_BYTES / tensor_bytes_))


def _call_ms(fn, slot, device: torch.device) -> float:
    start = time.perf_counter()
    fn(slot)
    synchronize(device)
    return (time.perf_counter() - start) * 1e3


def time_round_robin(fns: dict, slots: list, *, device: torch.device, warmup: int, repeats: int, seed: int = 0) -> dict:
    """Milliseconds per call of each function fn(slot): the median over `repeats` rounds of the fastest call in each round.

    Each round calls every function, in an order shuffled per round, so a slow
    spell of the shared machine hits all of them alike; within a round a function
    runs CALLS_PER_ROUND times (once if slower than SLOW_CALL_MS) and keeps its
    fastest call, so that one call delayed by another process does not count as
    the kernel's time. Successive calls take successive slots (see RING_BYTES).
    """
    ring = itertools.cycle(slots)
    calls = {}
    for name, fn in fns.items():
        first = min(_call_ms(fn, next(ring), device) for _ in range(max(warmup, 1)))
        calls[name] = CALLS_PER_ROUND if first < SLOW_CALL_MS else 1
    times = {name: [] for name in fns}
    order = list(fns)
    shuffle = random.Random(seed)
    for _ in range(repeats):
        shuffle.shuffle(order)
        for name in order:
            times[name].append(min(_call_ms(fns[name], next(ring), device) for _ in range(calls[name])))
    return {name: statistics.median(ts) for name, ts in times.items()}


def measure_matmul_gflops(device: torch.device, dtype_name: str, n: int = 2048) -> float:
    """The machine's arithmetic speed for the roofline: an n×n matrix product, 2n³ flops."""
    a = torch.randn(n, n, device=device).to(DTYPES[dtype_name])
    ms = time_round_robin({"mm": lambda _: a @ a}, [None], device=device, warmup=2, repeats=5)["mm"]
    return 2 * n**3 / ms / 1e6


def _hf_rotary(device):
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = LlamaConfig(
        hidden_size=MODEL_DIM, num_attention_heads=HEADS, head_dim=HEAD_DIM, rope_parameters={"rope_type": "default", "rope_theta": THETA}
    )
    return LlamaRotaryEmbedding(config=config).to(device)


def peer_calls(device: torch.device, positions: torch.Tensor, dtype: torch.dtype) -> tuple[dict, dict]:
    """The installed peers, called as their users call them on a slot's x (and x2 as the keys where the API wants both).

    Returns ({impl: (layout, fn(slot), tensors per call)}, {impl: why skipped}).
    """
    calls, skipped = {}, {}
    seq = positions.numel()
    try:
        from llama_models.llama3 import model as meta

        table = meta.precompute_freqs_cis(HEAD_DIM, seq, THETA).to(device)  # (S, D/2) complex64
        calls["meta"] = ("interleaved", lambda slot: meta.apply_rotary_emb(slot["x"], slot["x2"], table[:seq]), 2)
    except ImportError as error:
        skipped["meta"] = str(error)
    try:
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

        cos, sin = _hf_rotary(device)(torch.empty(0, device=device, dtype=dtype), positions[None])  # (1, S, D) in the model's dtype
        # (B, H, T, D) views, as LlamaAttention passes them
        calls["hf"] = ("half", lambda slot: apply_rotary_pos_emb(slot["x"].transpose(1, 2), slot["x2"].transpose(1, 2), cos, sin), 2)
    except ImportError as error:
        skipped["hf"] = str(error)
    if device.type != "cuda":
        skipped["liger"] = "a Triton kernel: timed on CUDA only"
    elif "hf" in calls:
        try:
            from liger_kernel.transformers.rope import liger_rotary_pos_emb  # requirements-gpu.txt, `make gpu-check`

            calls["liger"] = ("half", lambda slot: liger_rotary_pos_emb(slot["x"].transpose(1, 2), slot["x2"].transpose(1, 2), cos, sin), 2)
        except ImportError as error:
            skipped["liger"] = str(error)
    try:
        from rotary_embedding_torch import RotaryEmbedding

        rotary = RotaryEmbedding(dim=HEAD_DIM, theta=THETA).to(device)
        calls["lucidrains"] = ("interleaved", lambda slot: rotary.rotate_queries_or_keys(slot["x"].transpose(1, 2)), 1)  # (B, H, T, D)
    except ImportError as error:
        skipped["lucidrains"] = str(error)
    return calls, skipped


def benchmark_case(device: torch.device, dtype_name: str, seq_len: int, *, warmup: int, repeats: int) -> tuple[list, dict]:
    """Records for one (device, dtype, S), and the peers that could not be imported."""
    dtype = DTYPES[dtype_name]
    gen = torch.Generator(device=device).manual_seed(seq_len)
    shape = (BATCH, seq_len, HEADS, HEAD_DIM)  # (B, T, H, D)
    moved = tensor_bytes(seq_len, dtype)
    slots = []
    for _ in range(ring_size(moved // 2)):
        x = torch.randn(shape, generator=gen, device=device).to(dtype)
        slot = {"x": x, "x2": torch.randn(shape, generator=gen, device=device).to(dtype)}  # x2: the keys, for APIs that want both
        slot.update({name: torch.empty_like(x) for name in ("dst", "half", "interleaved", "permuted", "compiled", "pair_axis")})  # preallocated outputs
        slot.update({f"own_{layout}": x.clone() for layout in ("half", "interleaved")})  # rotated in place, again and again
        slots.append(slot)
    positions = torch.arange(seq_len, device=device)
    cos, sin = rope_cos_sin(positions, HEAD_DIM, base=THETA, dtype=torch.float32)  # (T, D/2) each

    fns = {("copy", "any"): (lambda slot: slot["dst"].copy_(slot["x"]), 1)}
    for layout in ("half", "interleaved"):
        fns[("rope_lib_eager", layout)] = (lambda slot, layout=layout: rotate_pairs(slot["x"], cos, sin, layout=layout), 1)
        fns[("rope_lib_fused", layout)] = (lambda slot, layout=layout: rotate_pairs_fused(slot["x"], cos, sin, layout=layout, out=slot[layout]), 1)
        own = f"own_{layout}"
        fns[("rope_lib_fused_inplace", layout)] = (lambda slot, layout=layout, own=own: rotate_pairs_fused(slot[own], cos, sin, layout=layout, out=slot[own]), 1)
    fns[("rope_lib_compiled", "half")] = (lambda slot: rotate_pairs_fused(slot["x"], cos, sin, layout="half", out=slot["compiled"], kernel="half"), 1)
    fns[("rope_lib_fused_permuted", "interleaved")] = (lambda slot: rotate_pairs_fused(slot["x"], cos, sin, layout="half", out=slot["permuted"]), 1)
    fns[("rope_lib_pair_axis", "interleaved")] = (lambda slot: rotate_pairs_fused(slot["x"], cos, sin, out=slot["pair_axis"], kernel="pair_axis"), 1)
    calls, skipped = peer_calls(device, positions, dtype)
    for impl, (layout, fn, per_call) in calls.items():
        fns[(impl, layout)] = (fn, per_call)

    ms = time_round_robin({key: fn for key, (fn, _) in fns.items()}, slots, device=device, warmup=warmup, repeats=repeats)
    copy_ms = ms[("copy", "any")]
    records = []
    for (impl, layout), (_, per_call) in fns.items():
        per_tensor = ms[(impl, layout)] / per_call
        values = (impl, layout, device.type, dtype_name, seq_len, per_tensor, moved / per_tensor / 1e6, copy_ms / per_tensor)
        records.append(dict(zip(RECORD_KEYS, values, strict=True)))  # the fields the chapter's reader checks
    return records, skipped


def permutation_cost(device: torch.device, dtype_name: str, *, repeats: int) -> dict:
    """The one-time price of running an interleaved model in the half layout: permute_rows_to_half of W_q and W_k."""
    w = torch.randn(MODEL_DIM, MODEL_DIM, device=device).to(DTYPES[dtype_name])  # (H·D, dim)
    ms = time_round_robin({"permute": lambda _: permute_rows_to_half(w, HEADS)}, [None], device=device, warmup=1, repeats=repeats)["permute"]
    return {"weight_shape": list(w.shape), "n_heads": HEADS, "dtype": dtype_name, "ms_per_weight": ms, "weights_per_layer": 2}


def bf16_pitfalls(device: torch.device, seq_len: int) -> dict:
    """What bf16 does to each implementation at positions 0 … seq_len−1, measured on the real packages.

    rotary_embedding_torch builds its positions in the input's dtype; in bf16 the
    integers above 256 are rounded. The output errors are against a float64
    rotation of the same bf16 input, as a fraction of the largest |x|.
    """
    positions = torch.arange(seq_len, device=device)
    x = torch.randn(1, seq_len, 4, HEAD_DIM, generator=torch.Generator(device=device).manual_seed(1), device=device).to(torch.bfloat16)
    cos64, sin64 = rope_cos_sin(positions, HEAD_DIM, base=THETA, dtype=torch.float64)
    exact = rotate_pairs(x.double(), cos64, sin64)  # (1, S, 4, D) float64, interleaved
    exact_half = rotate_pairs(x.double(), cos64, sin64, layout="half")
    scale = x.double().abs().max().item()
    cos, sin = rope_cos_sin(positions, HEAD_DIM, base=THETA)
    outputs = {"rope_lib_fused": (rotate_pairs_fused(x, cos, sin), exact)}
    result = {"seq_len": seq_len, "output_error": {}}
    try:
        from rotary_embedding_torch import RotaryEmbedding

        rotary = RotaryEmbedding(dim=HEAD_DIM, theta=THETA).to(device)
        built = rotary.get_seq_pos(seq_len, device=device, dtype=torch.bfloat16).double()  # the positions it uses for bf16 input
        error = (built - positions.double()).abs()  # (S,)
        wrong = torch.nonzero(error >= 1).flatten()
        result["lucidrains_positions"] = {
            "first_wrong": int(wrong[0]) if wrong.numel() else None,
            "max_error": float(error.max()),
            "max_error_below": {str(limit): float(error[:limit].max()) for limit in (256, 512, 1024, 2048, 4096, 8192) if limit <= seq_len},
        }
        outputs["lucidrains"] = (rotary.rotate_queries_or_keys(x.transpose(1, 2)).transpose(1, 2), exact)
    except ImportError:
        pass
    try:
        from llama_models.llama3 import model as meta

        table = meta.precompute_freqs_cis(HEAD_DIM, seq_len, THETA).to(device)
        outputs["meta"] = (meta.apply_rotary_emb(x, x, table)[0], exact)
    except ImportError:
        pass
    try:
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

        cos_hf, sin_hf = _hf_rotary(device)(x, positions[None])
        outputs["hf"] = (apply_rotary_pos_emb(x.transpose(1, 2), x.transpose(1, 2), cos_hf, sin_hf)[0].transpose(1, 2), exact_half)
    except ImportError:
        pass
    for impl, (got, want) in outputs.items():
        gap = (got.double() - want).abs().amax(dim=(0, 2, 3)) / scale  # (S,) worst error per position
        result["output_error"][impl] = {"max": float(gap.max()), "max_below_256": float(gap[:256].max()), "max_from_256": float(gap[256:].max())}
    return result


def package_versions() -> dict:
    found = {"python": platform.python_version(), "torch": torch.__version__}
    for package in ("rope_lib", *PEERS.values()):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    return found


def machine_info(device: torch.device) -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    found = {
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "private_cache_bytes": private_cache_bytes(),
        "platform": platform.platform(),
    }
    if device.type == "cuda":
        found["gpu"] = torch.cuda.get_device_name(device)
    return found


def run(
    devices, dtype_names, seq_lens, *, warmup: int = 2, repeats: int = 15, pitfalls: bool = True, progress: bool = True,
    decode_sizes=tuple(decode_speed.SIZES), decode_rounds: int | None = None,
) -> dict:
    """Benchmark every implementation, then whole-model decoding at decode_sizes (benchmarks/decode_speed.py);
    one report per device: {device: report}."""
    from tqdm import tqdm

    cases = [(torch.device(d), n, s) for d in devices for n in dtype_names for s in seq_lens]
    reports = {}
    bar = tqdm(cases, desc="rope bench", unit="case", disable=not progress)
    for device, dtype_name, seq_len in bar:
        bar.set_postfix_str(f"{device.type} {dtype_name} S={seq_len}")
        report = reports.setdefault(device.type, _new_report(device, warmup, repeats))
        records, skipped = benchmark_case(device, dtype_name, seq_len, warmup=warmup, repeats=repeats)
        report["results"].extend(records)
        report["skipped"].update(skipped)
    for device_type, report in reports.items():
        device = torch.device(device_type)
        report["permutation"] = [permutation_cost(device, n, repeats=max(3, repeats // 3)) for n in dtype_names]
        report["roofline"] = {n: {"matmul_gflops": measure_matmul_gflops(device, n)} for n in dtype_names}
        report["kernels"] = {
            layout: {n: kernel_name(x, x, layout) for n in dtype_names for x in [torch.empty(1, 1, 1, 2, dtype=DTYPES[n], device=device)]}
            for layout in ("half", "interleaved")
        }
        if pitfalls:
            report["pitfalls"] = {"bf16": bf16_pitfalls(device, PITFALL_SEQ_LEN)}
        report["decode"] = [decode_speed.compare(size, device, rounds=decode_rounds) for size in decode_sizes]
        report["load_average_after"] = _load_average()
    return reports


def _load_average():
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def _new_report(device: torch.device, warmup: int, repeats: int) -> dict:
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python -m benchmarks.rope_speed", *sys.argv[1:]]),
        "machine": machine_info(device),
        "versions": package_versions(),
        "shape": {"B": BATCH, "H": HEADS, "D": HEAD_DIM, "theta": THETA},
        "method": {
            "warmup": warmup,
            "repeats": repeats,
            "statistic": "median over rounds of the fastest call in each round; each round calls every implementation, in a shuffled order",
            "calls_per_round": CALLS_PER_ROUND,
            "ring_bytes": RING_BYTES,
            "slow_call_ms": SLOW_CALL_MS,
            "bytes": "2 · B·S·H·D · element size: x read once, the result written once (tables not counted)",
            "per_tensor": "meta and hf rotate q and k in one call: their time is halved",
        },
        "impls": IMPLS,
        "load_average_before": _load_average(),
        "skipped": {},
        "results": [],
    }


def format_table(report: dict) -> str:
    """The results as a fixed-width text table, grouped by dtype and sequence length."""
    lines = [f"{'device':6} {'dtype':5} {'S':>5}  {'impl':24} {'layout':11} {'ms':>9} {'GB/s':>7} {'x copy':>7}"]
    for r in report["results"]:
        lines.append(
            f"{r['device']:6} {r['dtype']:5} {r['seq_len']:>5}  {r['impl']:24} {r['layout']:11} {r['ms']:9.3f} {r['gbps']:7.1f} {r['ratio_to_copy']:7.2f}"
        )
    return "\n".join(lines)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.rope_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--seq-lens", type=int, nargs="+", default=list(SEQ_LENS))
    parser.add_argument("--dtypes", nargs="+", choices=sorted(DTYPES), default=list(DTYPES))
    parser.add_argument("--devices", nargs="+", default=["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--output-dir", type=Path, default=DATA_DIR, help="where bench_<device>.json goes (default book/data)")
    parser.add_argument("--decode-sizes", nargs="*", choices=sorted(decode_speed.SIZES), default=list(decode_speed.SIZES))
    parser.add_argument("--decode-rounds", type=int, default=None, help="rounds of whole-model decoding (default: per size)")
    parser.add_argument("--no-save", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    reports = run(
        args.devices, args.dtypes, args.seq_lens, warmup=args.warmup, repeats=args.repeats,
        decode_sizes=args.decode_sizes, decode_rounds=args.decode_rounds,
    )
    for device_type, report in reports.items():
        print(f"\n{report['machine']['cpu'] if device_type == 'cpu' else report['machine'].get('gpu')} ({device_type}), {report['date']}")
        print(format_table(report))
        if report["decode"]:
            print("\nwhole-model greedy decoding, batch 1:")
            print(decode_speed.format_table(report["decode"]))
        if report["skipped"]:
            print("skipped:", report["skipped"])
        if not args.no_save:
            args.output_dir.mkdir(parents=True, exist_ok=True)
            path = args.output_dir / f"bench_{device_type}.json"
            path.write_text(json.dumps(report, indent=1) + "\n")
            print(f"wrote {path}")
    return reports


if __name__ == "__main__":
    main()
