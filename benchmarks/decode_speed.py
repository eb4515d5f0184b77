"""Whole-model decoding, timed by `make bench` beside the RoPE table (benchmarks/rope_speed.py writes it into
book/data/bench_<device>.json as "decode").

One Hugging Face `LlamaForCausalLM`, built from a config with random weights (nothing is downloaded), and
`rope_lib.from_hf_state_dict` holding the same weights, each decode greedily after the same prompt:
batch 1, a 16-token prompt, 128 new tokens, no end token, so both make exactly 128. Each round runs both,
in an order shuffled per round; the median time over the rounds is reported as tokens per second, and the
two sequences of tokens are compared.

Two more measurements say what bounds the speed:

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

from benchmarks.timing import synchronize

SIZES = {
    "3M": {"vocab_size": 512, "hidden_size": 256, "intermediate_size": 640, "num_hidden_layers": 4, "num_attention_heads": 4},
    "80M": {"vocab_size": 1024, "hidden_size": 768, "intermediate_size": 1792, "num_hidden_layers": 12, "num_attention_heads": 12},
}
"""The two LLaMA shapes timed: about 3 million and 80 million parameters."""
PROMPT_LEN, NEW_TOKENS = 16, 128
ROUNDS = {"3M": 7, "80M": 3}


def build_pair(shape: dict, device: torch.device, *, seed: int = 0):
    """(Hugging Face's model, rope_lib's model holding its weights, the config) for one shape, in float32."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from rope_lib import from_hf_state_dict

    torch.manual_seed(seed)
    config = LlamaConfig(
        **shape,
        num_key_value_heads=shape["num_attention_heads"],
        max_position_embeddings=PROMPT_LEN + NEW_TOKENS,
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
    )
    hf = LlamaForCausalLM(config).to(device).eval()
    ours = from_hf_state_dict(hf.state_dict(), config, layout="half", device=device)
    return hf, ours, config


def _matvec_ceiling_s(model, device: torch.device, repeats: int) -> float:
    """Seconds for one vector through every weight matrix of `model` (a rope_lib.Model), fastest of `repeats`."""
    weights = [p for name, p in model.named_parameters() if p.dim() == 2 and not name.startswith("tok_embeddings")]
    inputs = {w.shape[1]: torch.randn(1, w.shape[1], device=device) for w in weights}
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
    x = torch.randn(1, 1, attention.n_heads + attention.n_kv_heads, attention.head_dim, device=device)
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


def compare(size: str, device: torch.device, *, rounds: int | None = None, new_tokens: int = NEW_TOKENS, seed: int = 0) -> dict:
    """Decode with both models at one size; the record of "decode" in the bench report."""
    hf, ours, config = build_pair(SIZES[size], device, seed=seed)
    prompt = torch.randint(0, config.vocab_size, (1, PROMPT_LEN), generator=torch.Generator().manual_seed(seed)).to(device)

    def run_hf():
        with torch.inference_mode():
            return hf.generate(prompt, max_new_tokens=new_tokens, do_sample=False, pad_token_id=0)[:, PROMPT_LEN:]

    def run_ours():
        ours.reset_cache()
        return ours.generate(prompt, new_tokens)

    runs = {"hf": run_hf, "rope_lib": run_ours}
    tokens = {name: run() for name, run in runs.items()}  # the warm-up, and the tokens compared
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
    speed = {name: new_tokens / statistics.median(ts) for name, ts in times.items()}
    return {
        "size": size,
        "device": device.type,
        "params": sum(p.numel() for p in hf.parameters()),
        "config": dict(SIZES[size]),
        "prompt_len": PROMPT_LEN,
        "new_tokens": new_tokens,
        "rounds": len(times["hf"]),
        "hf_tokens_per_s": speed["hf"],
        "rope_lib_tokens_per_s": speed["rope_lib"],
        "ratio": speed["rope_lib"] / speed["hf"],
        "identical_tokens": bool(torch.equal(tokens["hf"], tokens["rope_lib"])),
        "tokens_made": [int(tokens[name].shape[1]) for name in runs],
        "matvec_ceiling_tokens_per_s": 1.0 / _matvec_ceiling_s(ours, device, repeats=5),
        "rope_call_us": _rope_call_us(ours, device),
    }


def format_table(records: list[dict]) -> str:
    """The decode records as a fixed-width text table."""
    lines = [f"{'device':6} {'size':4} {'params':>10} {'HF tok/s':>9} {'rope_lib tok/s':>14} {'ratio':>6} {'ceiling':>8} {'same tokens':>11}"]
    for r in records:
        lines.append(
            f"{r['device']:6} {r['size']:4} {r['params']:>10,} {r['hf_tokens_per_s']:9.1f} {r['rope_lib_tokens_per_s']:14.1f} "
            f"{r['ratio']:6.2f} {r['matvec_ceiling_tokens_per_s']:8.1f} {str(r['identical_tokens']):>11}"
        )
    return "\n".join(lines)
