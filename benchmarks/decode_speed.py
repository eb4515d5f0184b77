"""Whole-model decoding, timed by `make bench` beside the RoPE table (benchmarks/rope_speed.py writes it into
book/data/bench_<device>.json as "decode").

One Hugging Face `LlamaForCausalLM`, built from a config with random weights (nothing is downloaded), and
`rope_lib.from_hf_state_dict` holding the same weights, each decode greedily after the same prompt:
batch 1, a 16-token prompt, 128 new tokens, no end token, so both make exactly 128. Each round runs both,
in an order shuffled per round; the median time over the rounds is reported as tokens per second, and the
two sequences of tokens are compared.

Each model decodes twice: eagerly, and with its decoding step compiled by `torch.compile` in its own
recipe. rope_lib's is `generate(..., compile=True)`, gpt-fast's way: a preallocated cache, the position
given as a tensor, one compiled step. Hugging Face's is its static cache with its `CompileConfig`
(`cache_implementation="static"`). The first call of a compiled run compiles, with an empty compiler cache;
its time beyond a steady call is reported apart (`compile_s`), and tokens per second count the steady calls only.

Three more measurements say what bounds the speed:

* `roofline_tokens_per_s`: the bytes of the weights a step reads (every matrix but the token
  embeddings, whose one row a step reads) against the bandwidth of a copy measured in the same run
  (`copy_gb_per_s`): the speed of a step that did nothing but stream its weights from memory once.

* `matvec_ceiling_tokens_per_s`: one pass of a single vector through every weight matrix of the model (the
  products a decoding step cannot skip), timed alone. Weights that do not fit in the cache are read from
  memory once a token, so this is the speed no implementation of the same arithmetic passes.
* `rope_call_us`: one decoding step's rotation of its query and key heads, (1, 1, H + Hkv, D), by the
  checked fused entry point (`rope_lib.kernels.rotate_pairs_fused`, its argument checks and the kernel
  call) and by `rope_lib.rope.rotate_pairs` as a model's layer runs it (a building block: its arguments are not checked).
"""

from __future__ import annotations

import random
import statistics
import time

import torch
from torch._inductor.utils import fresh_inductor_cache

from benchmarks.timing import synchronize

SIZES = {
    "3M": {"vocab_size": 512, "hidden_size": 256, "intermediate_size": 640, "num_hidden_layers": 4, "num_attention_heads": 4},
    "80M": {"vocab_size": 1024, "hidden_size": 768, "intermediate_size": 1792, "num_hidden_layers": 12, "num_attention_heads": 12},
}
"""The two LLaMA shapes timed: about 3 million and 80 million parameters."""
PROMPT_LEN, NEW_TOKENS = 16, 128
ROUNDS = {"3M": 7, "80M": 3}


def build_pair(shape: dict, device: torch.device, *, seed: int = 0, dtype: torch.dtype = torch.float32):
    """(Hugging Face's model, rope_lib's model holding its weights, the config) for one shape, in `dtype`."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from rope_lib import from_hf_state_dict

    torch.manual_seed(seed)
    config = LlamaConfig(
        **{"num_key_value_heads": shape["num_attention_heads"], **shape},
        max_position_embeddings=PROMPT_LEN + NEW_TOKENS,
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
    )
    hf = LlamaForCausalLM(config).to(device=device, dtype=dtype).eval()
    ours = from_hf_state_dict(hf.state_dict(), config, layout="half", device=device)
    return hf, ours, config


def _matvec_ceiling_s(model, device: torch.device, repeats: int) -> float:
    """Seconds for one vector through every weight matrix of `model` (a rope_lib.Model), fastest of `repeats`."""
    weights = [p for name, p in model.named_parameters() if p.dim() == 2 and not name.startswith("tok_embeddings")]
    inputs = {w.shape[1]: torch.randn(1, w.shape[1], device=device, dtype=w.dtype) for w in weights}
    best = float("inf")
    with torch.inference_mode():
        for _ in range(repeats + 1):
            synchronize(device)
            start = time.perf_counter()
            for w in weights:
                torch.nn.functional.linear(inputs[w.shape[1]], w)
            synchronize(device)
            best = min(best, time.perf_counter() - start)
    return best


def _rope_call_us(model, device: torch.device, repeats: int = 2000) -> dict:
    """Microseconds per rotation of one step's q and k heads: the checked fused call and the unchecked eager form."""
    from rope_lib.kernels import rotate_pairs_fused
    from rope_lib.rope import rotate_pairs

    attention = model.layers[0].attention
    x = torch.randn(1, 1, attention.n_heads + attention.n_kv_heads, attention.head_dim, device=device, dtype=model.config.dtype)
    cos, sin = model.rope(torch.arange(PROMPT_LEN, PROMPT_LEN + 1, device=device), seq_len=PROMPT_LEN + 1)  # (1, D/2)
    out = torch.empty_like(x)
    calls = {
        "fused_checked": lambda: rotate_pairs_fused(x, cos, sin, layout="half", out=out),
        "eager_unchecked": lambda: rotate_pairs(x, cos, sin, layout="half", rotary_dim=None),
    }
    found = {}
    with torch.inference_mode():
        for name, call in calls.items():
            for _ in range(100):
                call()
            synchronize(device)
            start = time.perf_counter()
            for _ in range(repeats):
                call()
            synchronize(device)
            found[name] = (time.perf_counter() - start) / repeats * 1e6
    return found


def copy_gb_per_s(device: torch.device, *, mib: int = 256, repeats: int = 5) -> float:
    """The bandwidth of dst.copy_(src) over `mib` MiB (far more than a cache holds), counting both the bytes read
    and the bytes written, fastest of `repeats`."""
    src = torch.ones(mib * 2**18, device=device)  # float32: mib MiB
    dst = torch.empty_like(src)
    best = float("inf")
    for _ in range(repeats + 1):
        synchronize(device)
        start = time.perf_counter()
        dst.copy_(src)
        synchronize(device)
        best = min(best, time.perf_counter() - start)
    return 2 * src.nbytes / best / 1e9


def weight_bytes_per_step(model) -> int:
    """The bytes of the weights one decoding step reads: every matrix and vector of `model` (a rope_lib.Model) but
    the token embeddings, unless the output layer shares them."""
    return sum(p.nbytes for name, p in model.named_parameters() if not name.startswith("tok_embeddings")) + (
        model.output.weight.nbytes if model.config.tie_embeddings else 0
    )


def hf_compile_config(device: torch.device):
    """Hugging Face's recipe for a compiled decoding step: a static cache and its CompileConfig, in CUDA graphs
    on a GPU; on the CPU, where its generate does not compile unless told, the default mode, told to."""
    from transformers import CompileConfig

    config = CompileConfig(mode="reduce-overhead" if device.type == "cuda" else "default")
    config._compile_all_devices = device.type != "cuda"
    return config


def compare(size: str, device: torch.device, *, rounds: int | None = None, new_tokens: int = NEW_TOKENS, seed: int = 0,
            shapes: dict | None = None, dtype: torch.dtype = torch.float32) -> dict:
    """Decode with both models at one size, eager and compiled; the record of "decode" in the bench report.
    shapes: the table of sizes (SIZES by default)."""
    shape = (SIZES if shapes is None else shapes)[size]
    hf, ours, config = build_pair(shape, device, seed=seed, dtype=dtype)
    prompt = torch.randint(0, config.vocab_size, (1, PROMPT_LEN), generator=torch.Generator().manual_seed(seed)).to(device)
    compile_config = hf_compile_config(device)
    every_token = torch.ones_like(prompt)  # else generate masks out the prompt's tokens equal to pad_token_id

    def run_hf():
        with torch.inference_mode():
            return hf.generate(prompt, attention_mask=every_token, max_new_tokens=new_tokens, do_sample=False, pad_token_id=0)[:, PROMPT_LEN:]

    def run_hf_compiled():
        with torch.inference_mode():
            return hf.generate(prompt, attention_mask=every_token, max_new_tokens=new_tokens, do_sample=False, pad_token_id=0,
                               cache_implementation="static", compile_config=compile_config)[:, PROMPT_LEN:]

    def run_ours():
        ours.reset_cache()
        return ours.generate(prompt, new_tokens)

    def run_ours_compiled():
        ours.reset_cache()
        return ours.generate(prompt, new_tokens, compile=True)

    runs = {"hf": run_hf, "rope_lib": run_ours, "hf_compiled": run_hf_compiled, "rope_lib_compiled": run_ours_compiled}
    tokens, first = {}, {}
    for name, run in runs.items():  # the warm-up (and the compilation, from nothing cached), and the tokens compared
        with fresh_inductor_cache():
            synchronize(device)
            start = time.perf_counter()
            tokens[name] = run()
            synchronize(device)
            first[name] = time.perf_counter() - start
    times = {name: [] for name in runs}
    order = list(runs)
    shuffle = random.Random(seed)
    for _ in range(ROUNDS[size] if rounds is None else rounds):
        shuffle.shuffle(order)
        for name in order:
            synchronize(device)
            start = time.perf_counter()
            runs[name]()
            synchronize(device)
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(ts) for name, ts in times.items()}
    speed = {name: new_tokens / m for name, m in median.items()}
    bandwidth = copy_gb_per_s(device)
    roofline = bandwidth * 1e9 / weight_bytes_per_step(ours)
    return {
        "size": size,
        "device": device.type,
        "dtype": str(ours.config.dtype).removeprefix("torch."),
        "params": sum(p.numel() for p in hf.parameters()),
        "config": dict(shape),
        "prompt_len": PROMPT_LEN,
        "new_tokens": new_tokens,
        "rounds": len(times["hf"]),
        "hf_tokens_per_s": speed["hf"],
        "rope_lib_tokens_per_s": speed["rope_lib"],
        "ratio": speed["rope_lib"] / speed["hf"],
        "identical_tokens": all(torch.equal(tokens["hf"], t) for t in tokens.values()),
        "tokens_made": [int(tokens[name].shape[1]) for name in runs],
        "matvec_ceiling_tokens_per_s": 1.0 / _matvec_ceiling_s(ours, device, repeats=5),
        "copy_gb_per_s": bandwidth,
        "roofline_tokens_per_s": roofline,
        "rope_call_us": _rope_call_us(ours, device),
        "hf_compiled_tokens_per_s": speed["hf_compiled"],
        "rope_lib_compiled_tokens_per_s": speed["rope_lib_compiled"],
        "compiled_ratio_to_hf_eager": speed["rope_lib_compiled"] / speed["hf"],
        "compiled_ratio_to_hf_compiled": speed["rope_lib_compiled"] / speed["hf_compiled"],
        "compiled_share_of_roofline": speed["rope_lib_compiled"] / roofline,
        "compile_s": {name: max(0.0, first[name] - median[name]) for name in ("hf_compiled", "rope_lib_compiled")},
    }


def format_table(records: list[dict]) -> str:
    """The decode records as a fixed-width text table: tokens per second, eager and compiled."""
    lines = [f"{'device':6} {'size':4} {'params':>13} {'HF':>8} {'HF comp.':>8} {'rope_lib':>8} {'comp.':>8} "
             f"{'roofline':>8} {'compile s (HF, ours)':>20} {'same tokens':>11}"]
    for r in records:
        speeds = " ".join(f"{r[key]:8.1f}" for key in ("hf_tokens_per_s", "hf_compiled_tokens_per_s", "rope_lib_tokens_per_s",
                                                        "rope_lib_compiled_tokens_per_s", "roofline_tokens_per_s"))
        seconds = f"{r['compile_s']['hf_compiled']:.1f}, {r['compile_s']['rope_lib_compiled']:.1f}"
        lines.append(
            f"{r['device']:6} {r['size']:4} {r['params']:>13,} {speeds} {seconds:>20} {str(r['identical_tokens']):>11}"
        )
    return "\n".join(lines)
